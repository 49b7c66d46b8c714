"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool2d
(PyTorch) and MindSpore's MaxPool1d/2d, AvgPool1d/2d (kernel_size, stride, pad_mode)."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

from .. import _C
from .._typing import IntOrTuple
from ._common import Cell, F, ops, tup
from .._impl.nn import tf_same_padding as _same_pads

Tensor = _C.Tensor
#: A tensor, or (values, indices) when return_indices is set.
MaybeIndices = Union[Tensor, Tuple[Tensor, Tensor]]

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MSMaxPool1d", "MSMaxPool2d", "MSAvgPool1d",
           "MSAvgPool2d"]

_MAX_ARGS = """

    Args:
        kernel_size (int or tuple): the size of the window (one int for every spatial dim, or
            one per dim).
        stride (int or tuple, optional): the step of the window (`kernel_size` when
            ``None``). Default: ``None``.
        padding (int or tuple): -inf padding added to both sides. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): also return the flat spatial indices of the maxima.
            Default: ``False``.
        ceil_mode (bool): round the output size up instead of down. Default: ``False``.
"""


class _PoolBase(Cell):
    _keys: Tuple[str, ...] = ()

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._keys)


class _MaxPoolNd(_PoolBase):
    _keys = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")

    def __init__(self, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 padding: IntOrTuple = 0, dilation: IntOrTuple = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)


class MaxPool1d(_MaxPoolNd):
    __doc__ = "The maximum over sliding windows of (N, C, L) or (C, L) input." + _MAX_ARGS

    def forward(self, input: Tensor) -> MaybeIndices:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor: (N, C, L_out) (or (C, L_out)); with return_indices, (values, indices).
        """
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    __doc__ = "The maximum over sliding windows of (N, C, H, W) or (C, H, W) input." + _MAX_ARGS

    def forward(self, input: Tensor) -> MaybeIndices:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor: (N, C, H_out, W_out) (or (C, H_out, W_out)); with return_indices,
            (values, indices).
        """
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool1d(_PoolBase):
    """The mean over sliding windows of (N, C, L) or (C, L) input.

    Args:
        kernel_size (int or tuple): the length of the window.
        stride (int or tuple, optional): the step of the window (`kernel_size` when ``None``).
            Default: ``None``.
        padding (int or tuple): zeros added to both sides. Default: ``0``.
        ceil_mode (bool): round the output size up instead of down. Default: ``False``.
        count_include_pad (bool): count the padded zeros in each window's mean.
            Default: ``True``.
    """

    _keys = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 padding: IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = tup(kernel_size, 1, "kernel_size")
        self.stride = self.kernel_size if stride is None else tup(stride, 1, "stride")
        self.padding = tup(padding, 1, "padding")
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor: (N, C, L_out) (or (C, L_out)).
        """
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_PoolBase):
    """The mean over sliding windows of (N, C, H, W) or (C, H, W) input.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window (`kernel_size` when ``None``).
            Default: ``None``.
        padding (int or tuple): zeros added to both sides. Default: ``0``.
        ceil_mode (bool): round the output size up instead of down. Default: ``False``.
        count_include_pad (bool): count the padded zeros in each window's mean.
            Default: ``True``.
        divisor_override (int, optional): divide each window's sum by this instead of its
            size. Default: ``None``.
    """

    _keys = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 padding: IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Optional[int] = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor: (N, C, H_out, W_out) (or (C, H_out, W_out)).
        """
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _Adaptive(_PoolBase):
    _keys = ("output_size",)

    def __init__(self, output_size: Union[int, Sequence[Optional[int]]],
                 return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = bool(return_indices)


class AdaptiveAvgPool1d(_Adaptive):
    """Average pooling of (N, C, L) or (C, L) input to a fixed length, with windows chosen to
    cover the input evenly.

    Args:
        output_size (int): the output length.
        return_indices (bool): unused (average pooling has no indices). Default: ``False``.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor: (N, C, output_size) (or (C, output_size)).
        """
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """Average pooling of (N, C, H, W) or (C, H, W) input to a fixed (H', W'), with windows
    chosen to cover the input evenly.

    Args:
        output_size (int or tuple): (H', W'), or one int for both; ``None`` in the tuple keeps
            that dim's input size.
        return_indices (bool): unused (average pooling has no indices). Default: ``False``.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor: (N, C, H', W') (or (C, H', W')).
        """
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """Max pooling of (N, C, H, W) or (C, H, W) input to a fixed (H', W').

    Args:
        output_size (int or tuple): (H', W'), or one int for both; ``None`` keeps that dim.
        return_indices (bool): also return the flat spatial indices of the maxima.
            Default: ``False``.
    """

    def forward(self, input: Tensor) -> MaybeIndices:
        """Pools `input`.

        Args:
            input (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor: (N, C, H', W') (or (C, H', W')); with return_indices, (values, indices).
        """
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


# --- MindSpore names ------------------------------------------------------------------------------

_MS_POOL_ARGS = """
        kernel_size (Union[int, tuple[int]]): the size of the window. Default: ``1`` .
        stride (Union[int, tuple[int]]): the step of the window. Default: ``1`` .
        pad_mode (str): ``'valid'`` (no padding), ``'same'`` (output = ceil(in / stride),
            TensorFlow-style padding) or ``'pad'`` (symmetric `padding`), any case.
            Default: ``'valid'`` .
        padding (Union[int, tuple[int]]): with pad_mode ``'pad'``, the padding on both
            sides. Default: ``0`` ."""


class _MSPool(Cell):
    """MindSpore pooling: pad_mode 'valid' (no padding), 'same' (output = ceil(in / stride),
    TF-style padding split low/high) or 'pad' (symmetric `padding`)."""

    _nd = 2

    def __init__(self, kernel_size: IntOrTuple, stride: IntOrTuple, pad_mode: str,
                 padding: IntOrTuple, ceil_mode: bool) -> None:
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

    def _same_input(self, x: Tensor, value: float) -> Tensor:
        lo, hi = _same_pads(list(x.shape[-self._nd:]), self.kernel_size, self.stride, (1,) * self._nd)
        pad: List[int] = []
        for l, h in zip(reversed(lo), reversed(hi)):
            pad += [l, h]
        return ops.pad(x, pad, value=value) if any(pad) else x

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"


class MSMaxPool2d(_MSPool):
    __doc__ = """MindSpore's nn.MaxPool2d: the maximum over sliding windows of (N, C, H, W).

    Args:""" + _MS_POOL_ARGS + """
        dilation (Union[int, tuple[int]]): the spacing between window elements.
            Default: ``1`` .
        return_indices (bool): also return the indices of the maxima (needs pad_mode
            ``'valid'`` or ``'pad'``). Default: ``False`` .
        ceil_mode (bool): round the output size up instead of down. Default: ``False`` .
        data_format (str): only ``'NCHW'``. Default: ``'NCHW'`` .
    """

    def __init__(self, kernel_size: IntOrTuple = 1, stride: IntOrTuple = 1,
                 pad_mode: str = "valid", padding: IntOrTuple = 0, dilation: IntOrTuple = 1,
                 return_indices: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation, self.return_indices = tup(dilation, 2, "dilation"), bool(return_indices)
        if data_format != "NCHW":
            raise ValueError(f"MaxPool2d: only data_format='NCHW' is supported, got {data_format!r}")
        if pad_mode.lower() == "same" and return_indices:
            raise ValueError("MaxPool2d: return_indices needs pad_mode 'valid' or 'pad'")

    def construct(self, x: Tensor) -> MaybeIndices:
        """Pools `x`.

        Args:
            x (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor, (N, C, H_out, W_out); with return_indices, a tuple (values, indices).
        """
        if self.pad_mode == "same":
            x = self._same_input(x, float("-inf"))
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.max_pool2d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode,
                            self.return_indices)


class MSAvgPool2d(_MSPool):
    __doc__ = """MindSpore's nn.AvgPool2d: the mean over sliding windows of (N, C, H, W); with
    pad_mode ``'same'`` the padded positions are left out of each window's mean.

    Args:""" + _MS_POOL_ARGS + """
        ceil_mode (bool): round the output size up instead of down. Default: ``False`` .
        count_include_pad (bool): with pad_mode ``'pad'``, count the padded zeros in each
            window's mean. Default: ``True`` .
        divisor_override (int, optional): divide each window's sum by this instead of its
            size. Default: ``None`` .
        data_format (str): only ``'NCHW'``. Default: ``'NCHW'`` .
    """

    def __init__(self, kernel_size: IntOrTuple = 1, stride: IntOrTuple = 1,
                 pad_mode: str = "valid", padding: IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Optional[int] = None,
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override
        if data_format != "NCHW":
            raise ValueError(f"AvgPool2d: only data_format='NCHW' is supported, got {data_format!r}")

    def construct(self, x: Tensor) -> Tensor:
        """Pools `x`.

        Args:
            x (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor, (N, C, H_out, W_out).
        """
        if self.pad_mode == "same":
            ones = ops.ones_like(x)
            s = F.avg_pool2d(self._same_input(x, 0.0), self.kernel_size, self.stride)
            c = F.avg_pool2d(self._same_input(ones, 0.0), self.kernel_size, self.stride)
            return s / c
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.avg_pool2d(x, self.kernel_size, self.stride, pad, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class MSMaxPool1d(_MSPool):
    __doc__ = """MindSpore's nn.MaxPool1d: the maximum over sliding windows of (N, C, L).

    Args:""" + _MS_POOL_ARGS + """
        dilation (int): the spacing between window elements. Default: ``1`` .
        return_indices (bool): also return the indices of the maxima. Default: ``False`` .
        ceil_mode (bool): round the output size up instead of down. Default: ``False`` .
    """

    _nd = 1

    def __init__(self, kernel_size: IntOrTuple = 1, stride: IntOrTuple = 1,
                 pad_mode: str = "valid", padding: IntOrTuple = 0, dilation: IntOrTuple = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation, self.return_indices = dilation, bool(return_indices)

    def construct(self, x: Tensor) -> MaybeIndices:
        """Pools `x`.

        Args:
            x (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor, (N, C, L_out); with return_indices, a tuple (values, indices).
        """
        if self.pad_mode == "same":
            x = self._same_input(x, float("-inf"))
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.max_pool1d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode,
                            self.return_indices)


class MSAvgPool1d(_MSPool):
    __doc__ = """MindSpore's nn.AvgPool1d: the mean over sliding windows of (N, C, L).

    Args:""" + _MS_POOL_ARGS + """
        ceil_mode (bool): round the output size up instead of down. Default: ``False`` .
        count_include_pad (bool): with pad_mode ``'pad'``, count the padded zeros in each
            window's mean. Default: ``True`` .
    """

    _nd = 1

    def __init__(self, kernel_size: IntOrTuple = 1, stride: IntOrTuple = 1,
                 pad_mode: str = "valid", padding: IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = bool(count_include_pad)

    def construct(self, x: Tensor) -> Tensor:
        """Pools `x`.

        Args:
            x (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor, (N, C, L_out).
        """
        if self.pad_mode == "same":
            ones = ops.ones_like(x)
            s = F.avg_pool1d(self._same_input(x, 0.0), self.kernel_size, self.stride)
            c = F.avg_pool1d(self._same_input(ones, 0.0), self.kernel_size, self.stride)
            return s / c
        pad = self.padding if self.pad_mode == "pad" else 0
        return F.avg_pool1d(x, self.kernel_size, self.stride, pad, self.ceil_mode,
                            self.count_include_pad)
