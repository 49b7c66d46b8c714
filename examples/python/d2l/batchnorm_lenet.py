"""D2L 8.5 (Batch Normalization, concise): LeNet with BatchNorm after every conv/linear
layer (book: lr 1.0, 10 epochs, batch 256). In graph mode the compiled step writes the
running statistics back, so evaluation uses them as in eager mode.

    python examples/python/d2l/batchnorm_lenet.py --mode graph
"""
import common as d2l
from tandem.mint import nn


def bn_lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.LazyLinear(120), nn.BatchNorm1d(120), nn.Sigmoid(),  # 16 * 4 * 4 inputs at 28x28
        nn.Linear(120, 84), nn.BatchNorm1d(84), nn.Sigmoid(),
        nn.Linear(84, 10))


if __name__ == "__main__":
    d2l.classifier_main("batchnorm_lenet", bn_lenet, description=__doc__, epochs=10, lr=1.0,
                        batch_size=256)
