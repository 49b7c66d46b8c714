"""D2L 7.6 (Convolutional Neural Networks, LeNet): the book's LeNet-5 with sigmoid
activations and average pooling, trained on Fashion-MNIST (book: lr 0.9, 10 epochs,
batch 256, test acc 0.78).

    python examples/python/d2l/lenet.py --mode graph --epochs 10
"""
import common as d2l
from tandem.mint import nn


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.LazyLinear(120), nn.Sigmoid(),  # 16 * 5 * 5 inputs at 28x28
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))


if __name__ == "__main__":
    d2l.classifier_main("lenet", lenet, description=__doc__, epochs=10, lr=0.9,
                        batch_size=256)
