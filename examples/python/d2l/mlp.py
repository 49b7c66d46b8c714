"""D2L 5.2 (Concise Implementation of Multilayer Perceptrons): one hidden layer of 256
ReLU units (book: lr 0.1, 10 epochs, batch 256).

    python examples/python/d2l/mlp.py --mode graph
"""
import common as d2l
from tandem.mint import nn


def init_weights(m):
    if type(m) is nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def mlp():
    return nn.Sequential(nn.Flatten(), nn.LazyLinear(256), nn.ReLU(), nn.Linear(256, 10))


if __name__ == "__main__":
    d2l.classifier_main("mlp", mlp, description=__doc__, epochs=10, lr=0.1, batch_size=256,
                        init=init_weights)
