"""A MindSpore-style training script, type-checked with mypy --strict by test_typing.py."""
import os
import tempfile
from typing import Iterator, List, Tuple

import numpy as np

import tandem
import tandem.dataset as ds
from tandem import Tensor, nn
from tandem.dataset import transforms


class Net(nn.Cell):
    def __init__(self, num_class: int = 3) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16, 32, activation="relu")
        self.fc2 = nn.Dense(32, num_class, weight_init="normal")

    def construct(self, x: Tensor) -> Tensor:
        out: Tensor = self.fc2(self.fc1(self.flatten(x)))
        return out


def samples(n: int) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    for _ in range(n):
        yield rng.standard_normal((4, 4)).astype(np.float32), np.array(rng.integers(0, 3))


def train(epochs: int) -> List[float]:
    tandem.manual_seed(0)
    images = np.random.default_rng(1).standard_normal((64, 4, 4)).astype(np.float32)
    labels = np.random.default_rng(2).integers(0, 3, (64,)).astype(np.int32)
    data = ds.NumpySlicesDataset((images, labels), column_names=["image", "label"])
    extra: ds.Dataset = ds.GeneratorDataset(lambda: samples(32), column_names=["image", "label"])
    extra = extra.map(transforms.TypeCast(tandem.int32), input_columns="label")
    net = Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    losses: List[float] = []
    for _ in range(epochs):
        for source in (data, extra):
            for image, label in source.batch(16).create_tuple_iterator(num_epochs=1):
                net.set_train(True)
                loss = loss_fn(net(image), label)
                loss.backward()
                opt([p.grad for p in opt.parameters])
                for p in net.trainable_params():
                    p.grad = None
                losses.append(float(loss.item()))
    with tempfile.TemporaryDirectory() as d:
        tandem.save_checkpoint(net, os.path.join(d, "net.ckpt"))
        tandem.load_checkpoint(os.path.join(d, "net.ckpt"), net=Net())
    return losses


if __name__ == "__main__":
    print(train(1)[-1])
