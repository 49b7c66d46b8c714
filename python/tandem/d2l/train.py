"""The book's data loaders for images and its training loops (chapters 3, 6, 11, 13)."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .. import mint
from ..mint import nn
from ..utils.data import DataLoader
from ..vision import datasets, transforms
from . import core, data_hub, plotting
from .core import Accumulator
from .plotting import Animator

_LABELS = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker",
           "bag", "ankle boot"]


def get_fashion_mnist_labels(labels: Iterable[Any]) -> List[str]:
    """Fashion-MNIST class names of integer labels.

    Args:
        labels (Iterable): labels 0-9.

    Returns:
        list[str]: the names.
    """
    return [_LABELS[int(i)] for i in labels]


def load_data_fashion_mnist(batch_size: int, resize: Any = None) -> Tuple[DataLoader, DataLoader]:
    """Fashion-MNIST train and test loaders of float32 (B, 1, H, W) images in [0, 1].

    Args:
        batch_size (int): batch size.
        resize (int or tuple, optional): image size. Default: ``None`` (28).

    Returns:
        tuple[DataLoader, DataLoader]: shuffled train loader, test loader.
    """
    trans = [transforms.ToTensor()]
    if resize:
        trans.insert(0, transforms.Resize(resize))
    trans = transforms.Compose(trans)
    train = datasets.FashionMNIST(train=True, transform=trans)
    test = datasets.FashionMNIST(train=False, transform=trans)
    workers = core.get_dataloader_workers()
    return (DataLoader(train, batch_size, shuffle=True, num_workers=workers),
            DataLoader(test, batch_size, shuffle=False, num_workers=workers))


def train_epoch_ch3(net: Any, train_iter: Iterable[Any], loss: Any, updater: Any) -> Tuple[float, float]:
    """One epoch of classification training.

    Args:
        net (Callable): the model.
        train_iter (Iterable): (X, y) batches.
        loss (Callable): the loss (mean or elementwise).
        updater: a mint optimizer, or f(batch_size) updating the parameters.

    Returns:
        tuple[float, float]: mean loss, accuracy.
    """
    if isinstance(net, nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in core.limit_batches(train_iter):
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, mint.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), core.accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net: Any, train_iter: Iterable[Any], test_iter: Iterable[Any], loss: Any,
              num_epochs: int, updater: Any) -> Tuple[float, float, float]:
    """Trains a classifier, plotting train loss/accuracy and test accuracy per epoch.

    Args:
        net (Callable): the model.
        train_iter (Iterable): training batches.
        test_iter (Iterable): test batches.
        loss (Callable): the loss.
        num_epochs (int): epochs.
        updater: a mint optimizer or f(batch_size).

    Returns:
        tuple[float, float, float]: last train loss, train accuracy, test accuracy.
    """
    animator = Animator(xlabel="epoch", xlim=[1, num_epochs], ylim=[0.3, 0.9],
                        legend=["train loss", "train acc", "test acc"])
    train_metrics, test_acc = (math.nan, math.nan), math.nan
    for epoch in range(core.max_epochs(num_epochs)):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = core.evaluate_accuracy(net, test_iter)
        animator.add(epoch + 1, train_metrics + (test_acc,))
    print(f"train loss {train_metrics[0]:.3f}, train acc {train_metrics[1]:.3f}, "
          f"test acc {test_acc:.3f}")
    return train_metrics[0], train_metrics[1], test_acc


def predict_ch3(net: Any, test_iter: Iterable[Any], n: int = 6) -> None:
    """Shows the first ``n`` test images with true and predicted labels.

    Args:
        net (Callable): the model.
        test_iter (Iterable): test batches.
        n (int): images. Default: ``6``.

    Returns:
        None
    """
    for X, y in test_iter:
        break
    trues = get_fashion_mnist_labels(y)
    preds = get_fashion_mnist_labels(net(X).argmax(axis=1))
    titles = [t + "\n" + p for t, p in zip(trues, preds)]
    plotting.show_images(X[0:n].reshape((n, 28, 28)), 1, n, titles=titles[0:n])


def _init_weights(m: Any) -> None:
    if type(m) in (nn.Linear, nn.Conv2d):
        nn.init.xavier_uniform_(m.weight)


def train_ch6(net: Any, train_iter: Iterable[Any], test_iter: Iterable[Any], num_epochs: int,
              lr: float, device: Any) -> Tuple[float, float, float]:
    """Trains a network with SGD and cross-entropy (Xavier-initialized), plotting per epoch.

    Args:
        net (nn.Module): the model.
        train_iter (Iterable): training batches.
        test_iter (Iterable): test batches.
        num_epochs (int): epochs.
        lr (float): learning rate.
        device (mint.device): where to train.

    Returns:
        tuple[float, float, float]: last train loss, train accuracy, test accuracy.
    """
    net.apply(_init_weights)
    print("training on", device)
    net.to(device)
    optimizer = mint.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    animator = Animator(xlabel="epoch", xlim=[1, num_epochs],
                        legend=["train loss", "train acc", "test acc"])
    timer, num_batches = core.Timer(), len(train_iter)
    train_l = train_acc = test_acc = math.nan
    metric = Accumulator(3)
    for epoch in range(core.max_epochs(num_epochs)):
        metric.reset()
        net.train()
        for i, (X, y) in enumerate(core.limit_batches(train_iter)):
            timer.start()
            X, y = X.to(device), y.to(device)
            optimizer.zero_grad()
            y_hat = net(X)
            l = loss(y_hat, y)
            l.backward()
            optimizer.step()
            with mint.no_grad():
                metric.add(float(l) * X.shape[0], core.accuracy(y_hat, y), X.shape[0])
            timer.stop()
            train_l, train_acc = metric[0] / metric[2], metric[1] / metric[2]
            if (i + 1) % max(1, num_batches // 5) == 0 or i == num_batches - 1:
                animator.add(epoch + (i + 1) / num_batches, (train_l, train_acc, None))
        test_acc = core.evaluate_accuracy_gpu(net, test_iter)
        animator.add(epoch + 1, (None, None, test_acc))
    print(f"loss {train_l:.3f}, train acc {train_acc:.3f}, test acc {test_acc:.3f}")
    if timer.times:
        print(f"{metric[2] * core.max_epochs(num_epochs) / timer.sum():.1f} examples/sec "
              f"on {device}")
    return train_l, train_acc, test_acc


# --- chapter 11: optimization -----------------------------------------------------------------
def train_2d(trainer: Callable[..., Tuple[float, float, float, float]], steps: int = 20,
             f_grad: Optional[Callable[..., Any]] = None) -> List[Tuple[float, float]]:
    """Runs a 2-d optimizer from (-5, -2) and records its path.

    Args:
        trainer (Callable): (x1, x2, s1, s2[, f_grad]) -> the next (x1, x2, s1, s2).
        steps (int): steps. Default: ``20``.
        f_grad (Callable, optional): the gradient passed to ``trainer``.

    Returns:
        list[tuple[float, float]]: the points visited.
    """
    x1, x2, s1, s2 = -5.0, -2.0, 0.0, 0.0
    results = [(x1, x2)]
    for _ in range(steps):
        if f_grad is not None:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print(f"epoch {steps}, x1: {float(x1):f}, x2: {float(x2):f}")
    return results


def get_data_ch11(batch_size: int = 10, n: int = 1500) -> Tuple[DataLoader, int]:
    """The standardized airfoil self-noise data (features, then the target).

    Args:
        batch_size (int): batch size. Default: ``10``.
        n (int): rows used. Default: ``1500``.

    Returns:
        tuple[DataLoader, int]: the loader and the number of features.
    """
    data = np.genfromtxt(data_hub.download("airfoil"), dtype=np.float32, delimiter="\t")
    data = (data - data.mean(axis=0)) / data.std(axis=0)
    data = mint.tensor(data)
    loader = core.load_array((data[:n, :-1], data[:n, -1]), batch_size, is_train=True)
    return loader, data.shape[1] - 1


def train_ch11(trainer_fn: Callable[..., None], states: Any, hyperparams: Dict[str, Any],
               data_iter: Iterable[Any], feature_dim: int, num_epochs: int = 2) -> Tuple[float, float]:
    """Trains linear regression with a hand-written optimizer, plotting the loss.

    Args:
        trainer_fn (Callable): (params, states, hyperparams) updating the params.
        states: the optimizer's state.
        hyperparams (dict): learning rate and others.
        data_iter (Iterable): (X, y) batches.
        feature_dim (int): features.
        num_epochs (int): epochs. Default: ``2``.

    Returns:
        tuple[float, float]: last loss, mean seconds per epoch.
    """
    w = mint.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = mint.zeros((1,), requires_grad=True)
    net, loss = (lambda X: core.linreg(X, w, b)), core.squared_loss
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, core.Timer()
    total = len(data_iter)
    for _ in range(core.max_epochs(num_epochs)):
        for X, y in core.limit_batches(data_iter):
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                animator.add(n / X.shape[0] / total, (core.evaluate_loss(net, data_iter, loss),))
                timer.start()
    last = core.evaluate_loss(net, data_iter, loss)
    print(f"loss: {last:.3f}, {timer.sum() / max(1, core.max_epochs(num_epochs)):.3f} sec/epoch")
    return timer.cumsum(), animator.Y[0] if animator.Y else [last]


def train_concise_ch11(trainer_fn: Any, hyperparams: Dict[str, Any], data_iter: Iterable[Any],
                       num_epochs: int = 4) -> None:
    """Trains linear regression with a mint optimizer class, plotting the loss.

    Args:
        trainer_fn (type): a mint.optim optimizer class.
        hyperparams (dict): its keyword arguments.
        data_iter (Iterable): (X, y) batches.
        num_epochs (int): epochs. Default: ``4``.

    Returns:
        None
    """
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(m):
        if type(m) == nn.Linear:  # noqa: E721
            mint.nn.init.normal_(m.weight, std=0.01)
    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction="none")
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, core.Timer()
    total = len(data_iter)
    for _ in range(core.max_epochs(num_epochs)):
        for X, y in core.limit_batches(data_iter):
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                # MSELoss has no 1/2 factor, unlike squared_loss: halve it to compare
                animator.add(n / X.shape[0] / total,
                             (core.evaluate_loss(net, data_iter, loss) / 2,))
                timer.start()
    print(f"loss: {core.evaluate_loss(net, data_iter, loss) / 2:.3f}, "
          f"{timer.sum() / max(1, core.max_epochs(num_epochs)):.3f} sec/epoch")


# --- chapter 13: multi-device training loops (one device here) ---------------------------------
def train_batch_ch13(net: Any, X: Any, y: Any, loss: Any, trainer: Any,
                     devices: Sequence[Any]) -> Tuple[float, float]:
    """One training step on a batch.

    Args:
        net (nn.Module): the model.
        X (Tensor or list[Tensor]): inputs.
        y (Tensor): labels.
        loss (Callable): elementwise loss.
        trainer: a mint optimizer.
        devices (list[mint.device]): the devices (the first is used).

    Returns:
        tuple[float, float]: summed loss, correct predictions.
    """
    X = [x.to(devices[0]) for x in X] if isinstance(X, list) else X.to(devices[0])
    y = y.to(devices[0])
    net.train()
    trainer.zero_grad()
    pred = net(X)
    l = loss(pred, y)
    l.sum().backward()
    trainer.step()
    return float(l.sum()), core.accuracy(pred, y)


def train_ch13(net: Any, train_iter: Iterable[Any], test_iter: Iterable[Any], loss: Any,
               trainer: Any, num_epochs: int, devices: Optional[Sequence[Any]] = None) -> None:
    """Trains a classifier with a given optimizer, plotting per epoch.

    Args:
        net (nn.Module): the model.
        train_iter (Iterable): training batches.
        test_iter (Iterable): test batches.
        loss (Callable): elementwise loss.
        trainer: a mint optimizer.
        num_epochs (int): epochs.
        devices (list[mint.device], optional): devices. Default: ``try_all_gpus()``.

    Returns:
        None
    """
    devices = list(devices) if devices is not None else core.try_all_gpus()
    timer, num_batches = core.Timer(), len(train_iter)
    animator = Animator(xlabel="epoch", xlim=[1, num_epochs], ylim=[0, 1],
                        legend=["train loss", "train acc", "test acc"])
    metric = Accumulator(4)
    test_acc = math.nan
    for epoch in range(core.max_epochs(num_epochs)):
        metric.reset()
        for i, (features, labels) in enumerate(core.limit_batches(train_iter)):
            timer.start()
            l, acc = train_batch_ch13(net, features, labels, loss, trainer, devices)
            metric.add(l, acc, labels.shape[0], labels.numel())
            timer.stop()
            if (i + 1) % max(1, num_batches // 5) == 0 or i == num_batches - 1:
                animator.add(epoch + (i + 1) / num_batches,
                             (metric[0] / metric[2], metric[1] / metric[3], None))
        test_acc = core.evaluate_accuracy_gpu(net, test_iter)
        animator.add(epoch + 1, (None, None, test_acc))
    if metric[2]:
        print(f"loss {metric[0] / metric[2]:.3f}, train acc {metric[1] / metric[3]:.3f}, "
              f"test acc {test_acc:.3f}")
        print(f"{metric[2] * core.max_epochs(num_epochs) / timer.sum():.1f} examples/sec on "
              f"{[str(d) for d in devices]}")
