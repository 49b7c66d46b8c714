"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool2d
(PyTorch) and MindSpore's MaxPool1d/2d, AvgPool1d/2d (kernel_size, stride, pad_mode)."""
from __future__ import annotations

from typing import Optional

from ._common import Cell, F, ops, tup
from .._impl.nn import tf_same_padding as _same_pads


class _PoolBase(Cell):
    _keys = ()

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._keys)


class _MaxPoolNd(_PoolBase):
    _keys = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L) or (C, L)."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool1d(_PoolBase):
    """Mean over sliding windows of (N, C, L) or (C, L)."""

    _keys = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = tup(kernel_size, 1, "kernel_size")
        self.stride = self.kernel_size if stride is None else tup(stride, 1, "stride")
        self.padding = tup(padding, 1, "padding")
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_PoolBase):
    """Mean over sliding windows of (N, C, H, W) or (C, H, W)."""

    _keys = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Optional[int] = None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _Adaptive(_PoolBase):
    _keys = ("output_size",)

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = bool(return_indices)


class AdaptiveAvgPool1d(_Adaptive):
    """Average pooling of (N, C, L) to a fixed length."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """Average pooling of (N, C, H, W) to a fixed (H', W'); None keeps that dim."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """Max pooling of (N, C, H, W) to a fixed (H', W')."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


# --- MindSpore names ------------------------------------------------------------------------------

class _MSPool(Cell):
    """MindSpore pooling: pad_mode 'valid' (no padding), 'same' (output = ceil(in / stride),
    TF-style padding split low/high) or 'pad' (symmetric `padding`)."""

    _nd = 2

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        n = self._nd
        pad_mode = pad_mode.lower()
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        if pad_mode != "pad" and padding not in (0, (0,) * n, [0] * n):
            raise ValueError(f"padding must be 0 when pad_mode is {pad_mode!r}, got {padding}")
        self.kernel_size = tup(kernel_size, n, "kernel_size")
        self.stride = tup(stride, n, "stride")
        self.pad_mode, self.padding, self.ceil_mode = pad_mode, tup(padding, n, "padding"), bool(ceil_mode)

    def _same_input(self, x, value):
        lo, hi = _same_pads(list(x.shape[-self._nd:]), self.kernel_size, self.stride, (1,) * self._nd)
        pad = []
        for l, h in zip(reversed(lo), reversed(hi)):
            pad += [l, h]
        return ops.pad(x, pad, value=value) if any(pad) else x

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"


class MSMaxPool2d(_MSPool):
    """MindSpore's nn.MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ...)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False, data_format: str = "NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation, self.return_indices = tup(dilation, 2, "dilation"), bool(return_indices)
        if data_format != "NCHW":
            raise ValueError(f"MaxPool2d: only data_format='NCHW' is supported, got {data_format!r}")
        if pad_mode.lower() == "same" and return_indices:
            raise ValueError("MaxPool2d: return_indices needs pad_mode 'valid' or 'pad'")

    def construct(self, x):
        if self.pad_mode == "same":
            x = self._same_input(x, float("-inf"))
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.max_pool2d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode,
                            self.return_indices)


class MSAvgPool2d(_MSPool):
    """MindSpore's nn.AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', ...); with
    pad_mode='same' the padded positions are left out of each window's mean."""

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Optional[int] = None, data_format: str = "NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override
        if data_format != "NCHW":
            raise ValueError(f"AvgPool2d: only data_format='NCHW' is supported, got {data_format!r}")

    def construct(self, x):
        if self.pad_mode == "same":
            ones = ops.ones_like(x)
            s = F.avg_pool2d(self._same_input(x, 0.0), self.kernel_size, self.stride)
            c = F.avg_pool2d(self._same_input(ones, 0.0), self.kernel_size, self.stride)
            return s / c
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.avg_pool2d(x, self.kernel_size, self.stride, pad, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class MSMaxPool1d(_MSPool):
    """MindSpore's nn.MaxPool1d(kernel_size=1, stride=1, pad_mode='valid') over (N, C, L)."""

    _nd = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation, self.return_indices = dilation, bool(return_indices)

    def construct(self, x):
        if self.pad_mode == "same":
            x = self._same_input(x, float("-inf"))
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.max_pool1d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode,
                            self.return_indices)


class MSAvgPool1d(_MSPool):
    """MindSpore's nn.AvgPool1d(kernel_size=1, stride=1, pad_mode='valid') over (N, C, L)."""

    _nd = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = bool(count_include_pad)

    def construct(self, x):
        if self.pad_mode == "same":
            ones = ops.ones_like(x)
            s = F.avg_pool1d(self._same_input(x, 0.0), self.kernel_size, self.stride)
            c = F.avg_pool1d(self._same_input(ones, 0.0), self.kernel_size, self.stride)
            return s / c
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.avg_pool1d(x, self.kernel_size, self.stride, pad, self.ceil_mode,
                            self.count_include_pad)
