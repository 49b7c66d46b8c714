"""The networks the deployment tests export: every D2L zoo model (examples/python/d2l) and
MindSpore-style Cells, in eval mode with non-trivial batch-norm statistics (so folding them
changes the weights)."""
import os
import sys

import numpy as np

import tandem
from tandem import mint, nn as msnn

_D2L = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "d2l")
if _D2L not in sys.path:
    sys.path.insert(0, _D2L)

import alexnet  # noqa: E402
import batchnorm_lenet  # noqa: E402
import densenet  # noqa: E402
import dropout  # noqa: E402
import googlenet  # noqa: E402
import lenet  # noqa: E402
import mlp  # noqa: E402
import nin  # noqa: E402
import resnet  # noqa: E402
import sequence  # noqa: E402
import softmax_regression  # noqa: E402
import vgg  # noqa: E402
from tandem.mint import nn  # noqa: E402


def linear_regression():
    return nn.Sequential(nn.Linear(2, 1))  # linear_regression_concise.py's net


# name -> (constructor, input shape). AlexNet, VGG and NiN run at 96x96 instead of the book's
# 224 (same layers; LazyLinear sizes itself) to keep the suite fast.
D2L = {
    "lenet": (lenet.lenet, (1, 28, 28)),
    "batchnorm_lenet": (batchnorm_lenet.bn_lenet, (1, 28, 28)),
    "alexnet": (alexnet.alexnet, (1, 96, 96)),
    "vgg": (lambda: vgg.vgg(vgg.small_conv_arch), (1, 96, 96)),
    "nin": (nin.nin, (1, 96, 96)),
    "googlenet": (googlenet.googlenet, (1, 96, 96)),
    "resnet18": (resnet.resnet18, (1, 96, 96)),
    "densenet": (densenet.densenet, (1, 96, 96)),
    "mlp": (mlp.mlp, (1, 28, 28)),
    "dropout_mlp": (dropout.dropout_mlp, (1, 28, 28)),
    "softmax_regression": (softmax_regression.softmax_regression, (1, 28, 28)),
    "sequence_mlp": (sequence.get_net, (4,)),
    "linear_regression": (linear_regression, (2,)),
}


class MSLeNet5(msnn.Cell):
    """The MindSpore tutorial's LeNet5 (pad_mode='valid' convolutions, Dense layers)."""

    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = msnn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = msnn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = msnn.ReLU()
        self.max_pool2d = msnn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = msnn.Flatten()
        self.fc1 = msnn.Dense(16 * 5 * 5, 120)
        self.fc2 = msnn.Dense(120, 84)
        self.fc3 = msnn.Dense(84, num_class)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class MSQuickstart(msnn.Cell):
    """The MindSpore quickstart network: Flatten, Dense + ReLU twice, Dense."""

    def __init__(self):
        super().__init__()
        self.flatten = msnn.Flatten()
        self.dense_relu_sequential = msnn.SequentialCell(
            msnn.Dense(28 * 28, 64), msnn.ReLU(), msnn.Dense(64, 64), msnn.ReLU(),
            msnn.Dense(64, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


class MSResidual(msnn.Cell):
    """A ResNet basic block in MindSpore style ('same' convolutions without bias, BatchNorm2d,
    'same' max-pooling, Dropout, Softmax)."""

    def __init__(self):
        super().__init__()
        self.conv1 = msnn.Conv2d(3, 8, 3, stride=2)
        self.bn1 = msnn.BatchNorm2d(8)
        self.conv2 = msnn.Conv2d(8, 8, 3)
        self.bn2 = msnn.BatchNorm2d(8)
        self.down = msnn.Conv2d(3, 8, 1, stride=2)
        self.pool = msnn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.relu = msnn.ReLU()
        self.drop = msnn.Dropout(p=0.3)
        self.fc = msnn.Dense(8 * 4 * 4, 5)
        self.softmax = msnn.Softmax(axis=-1)

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y)) + self.down(x)
        y = self.pool(self.relu(y))
        return self.softmax(self.fc(self.drop(y.reshape(y.shape[0], -1))))


MINDSPORE = {
    "ms_lenet5": (MSLeNet5, (1, 32, 32)),
    "ms_quickstart": (MSQuickstart, (1, 28, 28)),
    "ms_residual": (MSResidual, (3, 16, 16)),
}


def randomize_batch_norm(net) -> None:
    """Gives every batch norm random statistics and affine parameters."""
    rng = np.random.default_rng(0)
    for m in net.modules():
        if hasattr(m, "running_mean") and m.running_mean is not None:
            c = m.running_mean.shape[0]
            m.running_mean.copy_(mint.tensor(rng.normal(0, 0.2, c).astype(np.float32)))
            m.running_var.copy_(mint.tensor(rng.uniform(0.5, 2.0, c).astype(np.float32)))
            if getattr(m, "weight", None) is not None:
                m.weight.data.copy_(mint.tensor(rng.uniform(0.5, 1.5, c).astype(np.float32)))
                m.bias.data.copy_(mint.tensor(rng.normal(0, 0.2, c).astype(np.float32)))


def build(table: dict, name: str, batch: int = 2):
    """(net in eval mode, example input) for a zoo entry."""
    make, shape = table[name]
    net = make()
    net.eval()
    x = mint.randn(batch, *shape)
    with tandem.no_grad():
        net(x)  # sizes lazy layers
    randomize_batch_norm(net)
    return net, x


def close(got, want, rel: float = 1e-5) -> None:
    """got equals want within rel of want's largest magnitude, element by element."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.abs(want).max()), 1e-30)
    err = float(np.abs(got - want).max()) / scale
    assert err <= rel, f"max error {err:.3g} of the output's magnitude > {rel}"
