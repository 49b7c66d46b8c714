"""Convolution layers: Conv1d, Conv2d, ConvTranspose2d (PyTorch; padding ints or
'same'/'valid', padding_mode zeros/reflect/replicate/circular) and MindSpore's Conv1d /
Conv2d (pad_mode 'same'/'valid'/'pad', has_bias=False, HeUniform weights)."""
from __future__ import annotations

import math

from .. import _C
from .._impl.nn import conv_padding, tf_same_padding
from ._common import (Cell, F, Parameter, fan_in_bias_, kaiming_uniform_, ms_init, new_param,
                      ops, tup)


def _conv(nd, input, weight, bias, stride, lows, highs, dilation, groups):
    if nd == 1:
        return _C.conv1d(input, weight, bias, stride[0], [lows[0], highs[0]], dilation[0], groups)
    return _C.conv2d(input, weight, bias, list(stride), list(lows) + list(highs), list(dilation),
                     groups)


def _spatial(input, nd):
    return list(input.shape[-nd:])


class _ConvNd(Cell):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                 bias, padding_mode, dtype, transposed=False, output_padding=0):
        super().__init__()
        n = self._nd
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"{type(self).__name__}: padding_mode must be 'zeros', 'reflect', "
                             f"'replicate' or 'circular', got {padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        self.kernel_size = tup(kernel_size, n, "kernel_size")
        self.stride = tup(stride, n, "stride")
        self.dilation = tup(dilation, n, "dilation")
        # Validated by the one resolver of padding forms (F.conv2d's), then kept as given.
        conv_padding(padding, list(self.kernel_size), list(self.dilation), list(self.stride), n)
        self.padding = padding if isinstance(padding, str) else tup(padding, n, "padding")
        self.padding_mode = padding_mode
        self.transposed = transposed
        self.output_padding = tup(output_padding, n, "output_padding")
        if transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight = new_param(shape, dtype)
        if bias:
            self.bias = new_param((self.out_channels,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            fan_in_bias_(self.bias, fan_in)

    def _pads(self):
        """Per-dim (lows, highs) of the padding."""
        n = self._nd
        p = conv_padding(self.padding, list(self.kernel_size), list(self.dilation),
                         list(self.stride), n)
        return p[:n], p[n:]

    def forward(self, input):
        lo, hi = self._pads()
        if self.padding_mode != "zeros":
            pad = []
            for l, h in zip(reversed(lo), reversed(hi)):
                pad += [l, h]
            input = ops.pad(input, pad, mode=self.padding_mode)
            lo, hi = [0] * self._nd, [0] * self._nd
        return _conv(self._nd, input, self.weight, self.bias, self.stride, lo, hi, self.dilation,
                     self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._nd:
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.transposed and self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L); weight (C_out, C_in/groups, k)."""

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in/groups, kH, kW)."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution; weight (C_in, C_out/groups, kH, kW). forward(input,
    output_size=None): output_size picks the output_padding that reaches that size."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError("ConvTranspose2d: only padding_mode='zeros' is supported")
        if isinstance(padding, str):
            raise ValueError("ConvTranspose2d: padding must be ints, not a string")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype, transposed=True, output_padding=output_padding)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return list(self.output_padding)
        size = list(output_size)[-2:]
        ins = _spatial(input, 2)
        out = []
        for i in range(2):
            base = ((ins[i] - 1) * self.stride[i] - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
            extra = size[i] - base
            if not 0 <= extra < max(self.stride[i], self.dilation[i]):
                raise ValueError(f"ConvTranspose2d: requested output size {tuple(size)} is not "
                                 f"reachable from input size {tuple(ins)}")
            out.append(extra)
        return out

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


# --- MindSpore names ------------------------------------------------------------------------------

class _MSConv(Cell):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                 group, has_bias, weight_init, bias_init, data_format, dtype):
        super().__init__()
        n = self._nd
        if data_format != "NCHW" and n == 2:
            raise ValueError(f"Conv2d: only data_format='NCHW' is supported, got {data_format!r}")
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if pad_mode != "pad" and padding != 0 and padding != (0,) * (2 * n):
            raise ValueError(f"padding must be 0 when pad_mode is {pad_mode!r}, got {padding}")
        if in_channels % group or out_channels % group:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) must "
                             f"be divisible by group ({group})")
        self.in_channels, self.out_channels, self.group = int(in_channels), int(out_channels), int(group)
        self.kernel_size = tup(kernel_size, n, "kernel_size")
        self.stride = tup(stride, n, "stride")
        self.dilation = tup(dilation, n, "dilation")
        self.pad_mode, self.has_bias, self.data_format = pad_mode, bool(has_bias), data_format
        if isinstance(padding, int):
            padding = (padding,) * (2 * n)
        padding = tuple(padding)
        if len(padding) != 2 * n:
            raise ValueError(f"padding must be an int or {2 * n} ints, got {padding}")
        self.padding = padding  # MindSpore order: (before, after) per dim
        shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        if weight_init is None:
            self.weight = kaiming_uniform_(new_param(shape, dtype), a=math.sqrt(5))
        else:
            self.weight = Parameter(ms_init(weight_init, shape, dtype))
        if self.has_bias:
            fan_in = shape[1] * math.prod(self.kernel_size)
            if bias_init is None:
                self.bias = fan_in_bias_(new_param((self.out_channels,), dtype), fan_in)
            else:
                self.bias = Parameter(ms_init(bias_init, (self.out_channels,), dtype))
        else:
            self.register_parameter("bias", None)

    def construct(self, x):
        n = self._nd
        if self.pad_mode == "same":
            lo, hi = tf_same_padding(_spatial(x, n), self.kernel_size, self.stride, self.dilation)
        elif self.pad_mode == "valid":
            lo, hi = [0] * n, [0] * n
        else:
            lo, hi = list(self.padding[0::2]), list(self.padding[1::2])
        return _conv(n, x, self.weight, self.bias, self.stride, lo, hi, self.dilation, self.group)

    def extra_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")


class MSConv2d(_MSConv):
    """MindSpore's nn.Conv2d: pad_mode 'same' (default; output = ceil(in / stride)), 'valid' or
    'pad' (padding int or (top, bottom, left, right)); has_bias=False by default."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 pad_mode: str = "same", padding=0, dilation=1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None,
                 data_format: str = "NCHW", dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype)


class MSConv1d(_MSConv):
    """MindSpore's nn.Conv1d over (N, C, L); padding int or (left, right)."""

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 pad_mode: str = "same", padding=0, dilation=1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype)
