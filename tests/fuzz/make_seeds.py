"""Writes small model files as the fuzzer's seed corpus: one per op family the op-set has
(convolution + folded batch norm, pooling, linear layers, elementwise chains, shapes and
views, reductions, softmax, a dynamic batch)."""
import os
import sys

import tandem
from tandem import mint
from tandem.mint import nn
import tandem.mint.nn.functional as F


def seeds():
    conv = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 3))
    for m in conv.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.fill_(0.1)
            m.running_var.fill_(2.0)
    yield "conv", conv, (mint.randn(1, 1, 4, 4),), False
    yield "conv_dynamic", conv, (mint.randn(2, 1, 4, 4),), True
    pool = nn.Sequential(nn.AvgPool2d(2), nn.Conv2d(1, 2, 1, groups=1), nn.Sigmoid(),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())
    yield "pool", pool, (mint.randn(1, 1, 4, 4),), False
    yield "elementwise", lambda x, y: (mint.exp(x) * 2 + y).clamp(-1, 1) / (y.abs() + 1), \
        (mint.randn(2, 3), mint.randn(3)), False
    yield "shapes", lambda x: mint.cat([x.permute(1, 0), x.t()], 0).reshape(2, -1)[:, 1:].unsqueeze(0), \
        (mint.randn(2, 3),), False
    yield "reduce", lambda x: (F.softmax(x, dim=1).sum(0, keepdim=True), x.amax(1), x.mean()), \
        (mint.randn(3, 4),), False
    yield "norm", nn.Sequential(nn.LayerNorm(4), nn.GELU(), nn.Linear(4, 2)), (mint.randn(2, 4),), True


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, net, inputs, dynamic in seeds():
        if isinstance(net, nn.Module):
            net(*inputs)
        tandem.export(net, *inputs, file_name=os.path.join(out_dir, name), dynamic=dynamic)
    print(f"seeds: {len(os.listdir(out_dir))} model files in {out_dir}")


if __name__ == "__main__":
    main(sys.argv[1])
