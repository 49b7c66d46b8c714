"""D2L 4.5 (Concise Implementation of Softmax Regression): one linear layer over the
flattened 28x28 image, cross-entropy loss, SGD (book: lr 0.1, 10 epochs, batch 256).

    python examples/python/d2l/softmax_regression.py --mode graph
"""
import common as d2l
from tandem.mint import nn


def init_weights(m):
    if type(m) is nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def softmax_regression():
    return nn.Sequential(nn.Flatten(), nn.LazyLinear(10))  # 784 inputs at 28x28


if __name__ == "__main__":
    d2l.classifier_main("softmax_regression", softmax_regression, description=__doc__,
                        epochs=10, lr=0.1, batch_size=256, init=init_weights)
