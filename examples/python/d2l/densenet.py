"""D2L 8.7 (DenseNet): dense blocks (BN-ReLU-conv, outputs concatenated) joined by
transition layers, on Fashion-MNIST at 96x96 (book: lr 0.1, 10 epochs, batch 256).
Global average pooling lets any --resize >= 32 work.

    python examples/python/d2l/densenet.py --mode graph --resize 32 --limit 4096
"""
import common as d2l
from tandem import mint
from tandem.mint import nn


def conv_block(input_channels, num_channels):
    return nn.Sequential(
        nn.BatchNorm2d(input_channels), nn.ReLU(),
        nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, input_channels, num_channels):
        super().__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels * i + input_channels, num_channels))
        self.net = nn.Sequential(*layer)

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            # Concatenate the input and output of each block on the channel dimension
            X = mint.cat((X, Y), dim=1)
        return X


def transition_block(input_channels, num_channels):
    return nn.Sequential(
        nn.BatchNorm2d(input_channels), nn.ReLU(),
        nn.Conv2d(input_channels, num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


def densenet():
    b1 = nn.Sequential(nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3),
                       nn.BatchNorm2d(64), nn.ReLU(),
                       nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
    # `num_channels`: the current number of channels
    num_channels, growth_rate = 64, 32
    num_convs_in_dense_blocks = [4, 4, 4, 4]
    blks = []
    for i, num_convs in enumerate(num_convs_in_dense_blocks):
        blks.append(DenseBlock(num_convs, num_channels, growth_rate))
        # This is the number of output channels in the previous dense block
        num_channels += num_convs * growth_rate
        # A transition layer that halves the number of channels is added between the
        # dense blocks
        if i != len(num_convs_in_dense_blocks) - 1:
            blks.append(transition_block(num_channels, num_channels // 2))
            num_channels = num_channels // 2
    return nn.Sequential(b1, *blks, nn.BatchNorm2d(num_channels), nn.ReLU(),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
                         nn.Linear(num_channels, 10))


if __name__ == "__main__":
    d2l.classifier_main("densenet", densenet, description=__doc__, epochs=10, lr=0.1,
                        batch_size=256, resize=96)
