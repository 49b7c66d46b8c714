"""D2L 8.2 (VGG): VGG-11 with every channel count divided by 4, as the book trains it, on
Fashion-MNIST at 224x224 (book: lr 0.05, 10 epochs, batch 128). The first dense layer is
lazy so that smaller --resize values (>= 32) work.

    python examples/python/d2l/vgg.py --mode graph --resize 32 --limit 4096
"""
import common as d2l
from tandem.mint import nn


def vgg_block(num_convs, in_channels, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
        in_channels = out_channels
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


def vgg(conv_arch):
    conv_blks = []
    in_channels = 1
    for (num_convs, out_channels) in conv_arch:
        conv_blks.append(vgg_block(num_convs, in_channels, out_channels))
        in_channels = out_channels
    return nn.Sequential(
        *conv_blks, nn.Flatten(),
        nn.LazyLinear(4096), nn.ReLU(), nn.Dropout(0.5),  # out_channels * 7 * 7 at 224
        nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(0.5),
        nn.Linear(4096, 10))


conv_arch = ((1, 64), (1, 128), (2, 256), (2, 512), (2, 512))
ratio = 4
small_conv_arch = [(pair[0], pair[1] // ratio) for pair in conv_arch]

if __name__ == "__main__":
    d2l.classifier_main("vgg11", lambda: vgg(small_conv_arch), description=__doc__,
                        epochs=10, lr=0.05, batch_size=128, resize=224)
