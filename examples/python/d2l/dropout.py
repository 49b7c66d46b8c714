"""D2L 5.6 (Dropout, concise): two hidden layers of 256 ReLU units with dropout 0.2 and 0.5
(book: lr 0.5, 10 epochs, batch 256). In graph mode the compiled step draws fresh masks on
every call; evaluation runs in eval() mode, without dropout.

    python examples/python/d2l/dropout.py --mode graph
"""
import common as d2l
from tandem.mint import nn

dropout1, dropout2 = 0.2, 0.5


def init_weights(m):
    if type(m) is nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def dropout_mlp():
    return nn.Sequential(nn.Flatten(),
                         nn.LazyLinear(256), nn.ReLU(), nn.Dropout(dropout1),
                         nn.Linear(256, 256), nn.ReLU(), nn.Dropout(dropout2),
                         nn.Linear(256, 10))


if __name__ == "__main__":
    d2l.classifier_main("dropout_mlp", dropout_mlp, description=__doc__, epochs=10, lr=0.5,
                        batch_size=256, init=init_weights)
