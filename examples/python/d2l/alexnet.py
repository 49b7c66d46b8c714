"""D2L 8.1 (AlexNet): five conv layers and two 4096-wide dense layers with dropout, on
Fashion-MNIST upsampled to 224x224 (book: lr 0.01, 10 epochs, batch 128). The first dense
layer is lazy so that smaller --resize values work (>= 67: the third 3x3/2 max-pool needs a
3x3 input).

    python examples/python/d2l/alexnet.py --mode graph --resize 96 --limit 4096
"""
import common as d2l
from tandem.mint import nn


def alexnet():
    return nn.Sequential(
        nn.Conv2d(1, 96, kernel_size=11, stride=4, padding=1), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.Conv2d(96, 256, kernel_size=5, padding=2), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.Conv2d(256, 384, kernel_size=3, padding=1), nn.ReLU(),
        nn.Conv2d(384, 384, kernel_size=3, padding=1), nn.ReLU(),
        nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2), nn.Flatten(),
        nn.LazyLinear(4096), nn.ReLU(), nn.Dropout(p=0.5),  # 6400 inputs at 224x224
        nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(p=0.5),
        nn.Linear(4096, 10))


if __name__ == "__main__":
    d2l.classifier_main("alexnet", alexnet, description=__doc__, epochs=10, lr=0.01,
                        batch_size=128, resize=224)
