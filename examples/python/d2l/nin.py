"""D2L 8.3 (Network in Network): NiN blocks (a conv followed by two 1x1 convs) and global
average pooling instead of dense layers, on Fashion-MNIST at 224x224 (book: lr 0.1,
10 epochs, batch 128). Works for --resize >= 67 (the third 3x3/2 max-pool needs 3x3).

    python examples/python/d2l/nin.py --mode graph --resize 96 --limit 4096
"""
import common as d2l
from tandem.mint import nn


def nin_block(in_channels, out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU())


def nin():
    return nn.Sequential(
        nin_block(1, 96, kernel_size=11, strides=4, padding=0),
        nn.MaxPool2d(3, stride=2),
        nin_block(96, 256, kernel_size=5, strides=1, padding=2),
        nn.MaxPool2d(3, stride=2),
        nin_block(256, 384, kernel_size=3, strides=1, padding=1),
        nn.MaxPool2d(3, stride=2),
        nn.Dropout(0.5),
        nin_block(384, 10, kernel_size=3, strides=1, padding=1),  # 10 classes
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten())


if __name__ == "__main__":
    d2l.classifier_main("nin", nin, description=__doc__, epochs=10, lr=0.1, batch_size=128,
                        resize=224)
