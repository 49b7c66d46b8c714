"""The book's small helpers (timing, accumulating, devices, linear-regression pieces, data
arrays, accuracy) on tandem.mint."""
from __future__ import annotations

import os
import time
from typing import Any, Iterable, Iterator, List, Sequence, Tuple

import numpy as np

from .. import mint
from ..mint import nn
from ..utils.data import DataLoader, TensorDataset


def max_epochs(n: int) -> int:
    """``n`` bounded by $TANDEM_D2L_MAX_EPOCHS when set (quick runs of the book's code).

    Args:
        n (int): the epochs asked for.

    Returns:
        int: the epochs to run.
    """
    cap = os.environ.get("TANDEM_D2L_MAX_EPOCHS")
    return min(int(n), int(cap)) if cap else int(n)


def _batch_len(b: Any) -> int:
    first = b[0] if isinstance(b, (list, tuple)) and b else b
    if isinstance(first, (list, tuple)) and first:
        first = first[0]
    shape = getattr(first, "shape", None)
    return int(shape[0]) if shape else 1


def limit_batches(it: Iterable[Any]) -> Iterator[Any]:
    """The batches of ``it``; with $TANDEM_D2L_MAX_BATCHES set, a pass stops after that many
    batches once it has also seen $TANDEM_D2L_MIN_EXAMPLES examples (default 0), so loops
    with tiny batches still reach their logging steps.

    Args:
        it (Iterable): a data iterator.

    Returns:
        Iterator: the (possibly shortened) batches.
    """
    cap = int(os.environ.get("TANDEM_D2L_MAX_BATCHES", "0") or 0)
    need = int(os.environ.get("TANDEM_D2L_MIN_EXAMPLES", "0") or 0)
    seen = 0
    for i, b in enumerate(it):
        if cap and i >= cap and seen >= need:
            return
        seen += _batch_len(b)
        yield b


class Timer:
    """Records the durations between start() and stop()."""

    def __init__(self) -> None:
        self.times: List[float] = []
        self.start()

    def start(self) -> None:
        """Starts timing.

        Returns:
            None
        """
        self.tik = time.perf_counter()

    def stop(self) -> float:
        """Stops timing and records the duration.

        Returns:
            float: seconds since start().
        """
        self.times.append(time.perf_counter() - self.tik)
        return self.times[-1]

    def avg(self) -> float:
        """Mean recorded duration.

        Returns:
            float: seconds.
        """
        return sum(self.times) / len(self.times)

    def sum(self) -> float:
        """Total recorded duration.

        Returns:
            float: seconds.
        """
        return sum(self.times)

    def cumsum(self) -> List[float]:
        """Running totals of the recorded durations.

        Returns:
            list[float]: seconds.
        """
        return np.cumsum(self.times).tolist()


class Accumulator:
    """Sums ``n`` running quantities.

    Args:
        n (int): how many sums.
    """

    def __init__(self, n: int) -> None:
        self.data = [0.0] * n

    def add(self, *args: Any) -> None:
        """Adds one value to each sum.

        Args:
            *args: n numbers (or 0-d tensors).

        Returns:
            None
        """
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self) -> None:
        """Sets every sum to 0.

        Returns:
            None
        """
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx: int) -> float:
        return self.data[idx]


def try_gpu(i: int = 0) -> "mint.device":
    """The i-th GPU if there is one, else the CPU (always the CPU on tandem today).

    Args:
        i (int): GPU index. Default: ``0``.

    Returns:
        mint.device: the device.
    """
    if mint.cuda.device_count() >= i + 1:
        return mint.device(f"cuda:{i}")
    return mint.device("cpu")


def try_all_gpus() -> List["mint.device"]:
    """Every GPU, or ``[cpu]`` without one.

    Returns:
        list[mint.device]: the devices.
    """
    devs = [mint.device(f"cuda:{i}") for i in range(mint.cuda.device_count())]
    return devs if devs else [mint.device("cpu")]


def get_dataloader_workers() -> int:
    """Loader worker threads used by the book's loaders.

    Returns:
        int: 2 (this machine class has few cores).
    """
    return 2


def synthetic_data(w: Any, b: Any, num_examples: int) -> Tuple[Any, Any]:
    """Samples y = Xw + b + noise with X ~ N(0, 1) and noise ~ N(0, 0.01^2).

    Args:
        w (Tensor): weights, shape (d,).
        b (float): bias.
        num_examples (int): rows.

    Returns:
        tuple[Tensor, Tensor]: X (n, d) and y (n, 1).
    """
    X = mint.normal(0, 1, (num_examples, len(w)))
    y = mint.matmul(X, w) + b
    y = y + mint.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def linreg(X: Any, w: Any, b: Any) -> Any:
    """The linear model Xw + b.

    Args:
        X (Tensor): inputs.
        w (Tensor): weights.
        b (Tensor): bias.

    Returns:
        Tensor: predictions.
    """
    return mint.matmul(X, w) + b


def squared_loss(y_hat: Any, y: Any) -> Any:
    """Half the squared error, elementwise.

    Args:
        y_hat (Tensor): predictions.
        y (Tensor): targets (reshaped like y_hat).

    Returns:
        Tensor: the losses.
    """
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params: Sequence[Any], lr: float, batch_size: int) -> None:
    """Minibatch SGD on leaf tensors: p -= lr * p.grad / batch_size, then zeroes the grads.

    Args:
        params (list[Tensor]): parameters with gradients.
        lr (float): learning rate.
        batch_size (int): divides the summed gradient.

    Returns:
        None
    """
    with mint.no_grad():
        for p in params:
            p -= lr * p.grad / batch_size
            p.grad.zero_()


def load_array(data_arrays: Sequence[Any], batch_size: int, is_train: bool = True) -> DataLoader:
    """A DataLoader over tensors of equal first dimension.

    Args:
        data_arrays (tuple[Tensor]): the columns.
        batch_size (int): batch size.
        is_train (bool): shuffle each epoch. Default: ``True``.

    Returns:
        DataLoader: the loader.
    """
    return DataLoader(TensorDataset(*data_arrays), batch_size, shuffle=is_train)


def accuracy(y_hat: Any, y: Any) -> float:
    """How many predictions are right (a count, not a ratio).

    Args:
        y_hat (Tensor): (n, classes) scores or (n,) labels.
        y (Tensor): (n,) labels.

    Returns:
        float: the number of correct predictions.
    """
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def _size(y: Any) -> int:
    return int(y.numel())


def evaluate_accuracy(net: Any, data_iter: Iterable[Any]) -> float:
    """Accuracy of ``net`` over a data iterator (eval mode for Modules).

    Args:
        net (Callable): the model.
        data_iter (Iterable): (X, y) batches.

    Returns:
        float: correct / total.
    """
    if isinstance(net, nn.Module):
        net.eval()
    metric = Accumulator(2)
    with mint.no_grad():
        for X, y in limit_batches(data_iter):
            metric.add(accuracy(net(X), y), _size(y))
    return metric[0] / metric[1]


def evaluate_accuracy_gpu(net: Any, data_iter: Iterable[Any], device: Any = None) -> float:
    """evaluate_accuracy with the batches moved to ``device`` (the model's by default).

    Args:
        net (Module): the model.
        data_iter (Iterable): (X, y) batches; X may be a list of tensors.
        device (mint.device, optional): where to compute. Default: ``None``.

    Returns:
        float: correct / total.
    """
    if isinstance(net, nn.Module):
        net.eval()
        if device is None:
            device = next(iter(net.parameters())).device
    metric = Accumulator(2)
    with mint.no_grad():
        for X, y in limit_batches(data_iter):
            X = [x.to(device) for x in X] if isinstance(X, list) else X.to(device)
            y = y.to(device)
            metric.add(accuracy(net(X), y), _size(y))
    return metric[0] / metric[1]


def evaluate_loss(net: Any, data_iter: Iterable[Any], loss: Any) -> float:
    """Mean loss of ``net`` over a data iterator.

    Args:
        net (Callable): the model.
        data_iter (Iterable): (X, y) batches.
        loss (Callable): elementwise loss (reduction='none').

    Returns:
        float: the mean loss.
    """
    metric = Accumulator(2)
    with mint.no_grad():
        for X, y in limit_batches(data_iter):
            out = net(X)
            l = loss(out, y.reshape(out.shape))
            metric.add(l.sum(), l.numel())
    return metric[0] / metric[1]


def corr2d(X: Any, K: Any) -> Any:
    """2-d cross-correlation of one channel.

    Args:
        X (Tensor): (h, w) input.
        K (Tensor): (kh, kw) kernel.

    Returns:
        Tensor: (h - kh + 1, w - kw + 1) output.
    """
    h, w = K.shape
    Y = mint.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def mkdir_if_not_exist(path: Any) -> None:
    """Creates a directory (and parents) if missing.

    Args:
        path (str or list[str]): the path, or its parts.

    Returns:
        None
    """
    if not isinstance(path, str):
        path = os.path.join(*path)
    os.makedirs(path, exist_ok=True)


class Benchmark:
    """``with Benchmark('label'):`` prints the block's wall time.

    Args:
        description (str): the label. Default: ``'Done'``.
    """

    def __init__(self, description: str = "Done") -> None:
        self.description = description

    def __enter__(self) -> "Benchmark":
        self.timer = Timer()
        return self

    def __exit__(self, *args: Any) -> None:
        print(f"{self.description}: {self.timer.stop():.4f} sec")


class Residual(nn.Module):
    """ResNet's residual block: two 3x3 convolutions with batch norm, and an optional 1x1
    convolution on the shortcut.

    Args:
        input_channels (int): input channels.
        num_channels (int): output channels.
        use_1x1conv (bool): project the shortcut. Default: ``False``.
        strides (int): stride of the first convolution. Default: ``1``.
    """

    def __init__(self, input_channels: int, num_channels: int, use_1x1conv: bool = False,
                 strides: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1,
                               stride=strides)
        self.conv2 = nn.Conv2d(num_channels, num_channels, kernel_size=3, padding=1)
        self.conv3 = (nn.Conv2d(input_channels, num_channels, kernel_size=1, stride=strides)
                      if use_1x1conv else None)
        self.bn1 = nn.BatchNorm2d(num_channels)
        self.bn2 = nn.BatchNorm2d(num_channels)

    def forward(self, X: Any) -> Any:
        """relu(bn(conv(relu(bn(conv(X))))) + shortcut(X)).

        Args:
            X (Tensor): (N, C, H, W) input.

        Returns:
            Tensor: the block's output.
        """
        Y = mint.nn.functional.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3 is not None:
            X = self.conv3(X)
        return mint.nn.functional.relu(Y + X)


def resnet18(num_classes: int, in_channels: int = 1) -> nn.Module:
    """The slightly changed ResNet-18 the book uses on small images (3x3 first convolution,
    no max pooling).

    Args:
        num_classes (int): outputs.
        in_channels (int): image channels. Default: ``1``.

    Returns:
        nn.Module: the network.
    """
    def stage(cin, cout, n, first):
        blocks = []
        for i in range(n):
            if i == 0 and not first:
                blocks.append(Residual(cin, cout, use_1x1conv=True, strides=2))
            else:
                blocks.append(Residual(cout, cout))
        return nn.Sequential(*blocks)
    return nn.Sequential(
        nn.Conv2d(in_channels, 64, kernel_size=3, stride=1, padding=1), nn.BatchNorm2d(64),
        nn.ReLU(), stage(64, 64, 2, True), stage(64, 128, 2, False),
        stage(128, 256, 2, False), stage(256, 512, 2, False),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(512, num_classes))
