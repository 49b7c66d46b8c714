"""Convolution layers: Conv1d, Conv2d, ConvTranspose2d (PyTorch; padding ints or
'same'/'valid', padding_mode zeros/reflect/replicate/circular) and MindSpore's Conv1d /
Conv2d (pad_mode 'same'/'valid'/'pad', has_bias=False, HeUniform weights)."""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple, Union

from .. import _C
from .._impl.nn import conv_padding, tf_same_padding
from .._init import InitSpec
from .._typing import IntOrTuple
from ._common import (Cell, F, Parameter, fan_in_bias_, kaiming_uniform_, ms_init, new_param,
                      ops, tup)

Tensor = _C.Tensor

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d", "MSConv1d", "MSConv2d"]

_CONV_ARGS = """
        in_channels (int): the channels of the input.
        out_channels (int): the channels the convolution produces.
        kernel_size (int or tuple): the size of the window (one int for every spatial dim,
            or one per dim)."""
_CONV_TAIL = """
        groups (int): blocked connections: the input and output channels are split into
            `groups` groups, each convolved separately. Default: ``1``.
        bias (bool): learn an additive bias per output channel. Default: ``True``."""
_CONV_DEVICE = """
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype (float32 when ``None``).
            Default: ``None``.
    """
_MS_CONV_TAIL = """
        dilation (Union[int, tuple[int]]): the spacing between kernel elements. Default: ``1`` .
        group (int): blocked connections: the channels are split into `group` groups, each
            convolved separately. Default: ``1`` .
        has_bias (bool): learn an additive bias per output channel. Default: ``False`` .
        weight_init (Union[Tensor, str, Initializer, numbers.Number], optional): the
            weight's initializer; ``None`` means HeUniform(negative_slope=sqrt(5)).
            Default: ``None`` .
        bias_init (Union[Tensor, str, Initializer, numbers.Number], optional): the bias's
            initializer; ``None`` means Uniform(1/sqrt(fan_in)). Default: ``None`` ."""


def _conv(nd: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Sequence[int],
          lows: Sequence[int], highs: Sequence[int], dilation: Sequence[int], groups: int) -> Tensor:
    if nd == 1:
        return _C.conv1d(input, weight, bias, stride[0], [lows[0], highs[0]], dilation[0], groups)
    return _C.conv2d(input, weight, bias, list(stride), list(lows) + list(highs), list(dilation),
                     groups)


def _spatial(input: Tensor, nd: int) -> List[int]:
    return list(input.shape[-nd:])


class _ConvNd(Cell):
    _nd = 2
    weight: Parameter
    bias: Optional[Parameter]
    padding: Union[str, Tuple[int, ...]]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple, padding: Union[IntOrTuple, str], dilation: IntOrTuple,
                 groups: int, bias: bool, padding_mode: str, dtype: Optional[_C.dtype],
                 transposed: bool = False, output_padding: IntOrTuple = 0) -> None:
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
        """Re-draws the weight (kaiming_uniform, a=sqrt(5)) and the bias
        (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), as at construction."""
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            fan_in_bias_(self.bias, fan_in)

    def _pads(self) -> Tuple[List[int], List[int]]:
        """Per-dim (lows, highs) of the padding."""
        n = self._nd
        p = conv_padding(self.padding, list(self.kernel_size), list(self.dilation),
                         list(self.stride), n)
        return p[:n], p[n:]

    def forward(self, input: Tensor) -> Tensor:
        """Convolves `input` with the layer's filters.

        Args:
            input (Tensor): (N, C_in, *spatial) or, unbatched, (C_in, *spatial).

        Returns:
            Tensor: (N, C_out, *spatial_out) (or unbatched (C_out, *spatial_out)), with
            spatial_out = floor((in + pad_low + pad_high - dilation * (k - 1) - 1) / stride) + 1.
        """
        lo, hi = self._pads()
        if self.padding_mode != "zeros":
            pad: List[int] = []
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
    __doc__ = """1-D convolution over (N, C_in, L) or (C_in, L) input, with weight
    (C_out, C_in / groups, k) drawn from kaiming_uniform(a=sqrt(5)) and bias from
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Args:""" + _CONV_ARGS + """
        stride (int or tuple): the step of the window. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides (an int or one per dim), or
            'same' (output size = input size; stride 1) / 'valid' (none). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.""" + \
        _CONV_TAIL + """
        padding_mode (str): 'zeros', 'reflect', 'replicate' or 'circular'.
            Default: ``'zeros'``.""" + _CONV_DEVICE

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple = 1, padding: Union[IntOrTuple, str] = 0,
                 dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype)


class Conv2d(_ConvNd):
    __doc__ = """2-D convolution over (N, C_in, H, W) or (C_in, H, W) input, with weight
    (C_out, C_in / groups, kH, kW) drawn from kaiming_uniform(a=sqrt(5)) and bias from
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Args:""" + _CONV_ARGS + """
        stride (int or tuple): the step of the window. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides (an int or one per dim), or
            'same' (output size = input size; stride 1) / 'valid' (none). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.""" + \
        _CONV_TAIL + """
        padding_mode (str): 'zeros', 'reflect', 'replicate' or 'circular'.
            Default: ``'zeros'``.""" + _CONV_DEVICE

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple = 1, padding: Union[IntOrTuple, str] = 0,
                 dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype)


class ConvTranspose2d(_ConvNd):
    __doc__ = """Transposed 2-D convolution (the gradient of Conv2d with respect to its input,
    an upsampling), weight (C_in, C_out / groups, kH, kW).

    Args:""" + _CONV_ARGS + """
        stride (int or tuple): the stride of the convolution it transposes. Default: ``1``.
        padding (int or tuple): ``dilation * (k - 1) - padding`` zeros are added to both
            sides of the input. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output (to pick
            among the sizes a strided convolution maps to one input size). Default: ``0``.""" + \
        _CONV_TAIL + """
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only 'zeros'. Default: ``'zeros'``.""" + _CONV_DEVICE

    _nd = 2
    padding: Tuple[int, ...]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple = 1, padding: IntOrTuple = 0,
                 output_padding: IntOrTuple = 0, groups: int = 1, bias: bool = True,
                 dilation: IntOrTuple = 1, padding_mode: str = "zeros",
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        if padding_mode != "zeros":
            raise ValueError("ConvTranspose2d: only padding_mode='zeros' is supported")
        if isinstance(padding, str):
            raise ValueError("ConvTranspose2d: padding must be ints, not a string")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype, transposed=True, output_padding=output_padding)

    def _output_padding(self, input: Tensor, output_size: Optional[Sequence[int]]) -> List[int]:
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

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        """Applies the transposed convolution.

        Args:
            input (Tensor): (N, C_in, H, W) or (C_in, H, W).
            output_size (Sequence[int], optional): the wanted output size (its last two
                entries are H_out, W_out); picks the output_padding that reaches it instead of
                the layer's. Default: ``None``.

        Returns:
            Tensor: (N, C_out, H_out, W_out) with H_out = (H - 1) * stride - 2 * padding +
            dilation * (kH - 1) + output_padding + 1 (likewise W_out).
        """
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


# --- MindSpore names ------------------------------------------------------------------------------

class _MSConv(Cell):
    _nd = 2
    weight: Parameter
    bias: Optional[Parameter]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple, pad_mode: str, padding: IntOrTuple, dilation: IntOrTuple,
                 group: int, has_bias: bool, weight_init: Optional[InitSpec],
                 bias_init: Optional[InitSpec], data_format: str,
                 dtype: Optional[_C.dtype]) -> None:
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

    def construct(self, x: Tensor) -> Tensor:
        """Convolves `x` with the layer's filters.

        Args:
            x (Tensor): (N, C_in, *spatial).

        Returns:
            Tensor, (N, C_out, *spatial_out): with pad_mode ``'same'`` spatial_out =
            ceil(in / stride), with ``'valid'`` ceil((in - dilation * (k - 1)) / stride).
        """
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
    __doc__ = """MindSpore's nn.Conv2d over (N, C_in, H, W), weight (C_out, C_in / group, kH, kW).

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels the convolution produces.
        kernel_size (Union[int, tuple[int]]): the window's (height, width), or one int for both.
        stride (Union[int, tuple[int]]): the step of the window. Default: ``1`` .
        pad_mode (str): ``'same'`` (output = ceil(in / stride), TensorFlow-style padding),
            ``'valid'`` (no padding) or ``'pad'`` (`padding` zeros). Default: ``'same'`` .
        padding (Union[int, tuple[int]]): with pad_mode ``'pad'``, zeros on every side or
            (top, bottom, left, right). Default: ``0`` .""" + _MS_CONV_TAIL + """
        data_format (str): only ``'NCHW'``. Default: ``'NCHW'`` .
        dtype (mindspore.dtype, optional): the parameters' dtype (float32 when ``None``).
            Default: ``None`` .
    """

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple = 1, pad_mode: str = "same", padding: IntOrTuple = 0,
                 dilation: IntOrTuple = 1, group: int = 1, has_bias: bool = False,
                 weight_init: Optional[InitSpec] = None, bias_init: Optional[InitSpec] = None,
                 data_format: str = "NCHW", dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype)


class MSConv1d(_MSConv):
    __doc__ = """MindSpore's nn.Conv1d over (N, C_in, L), weight (C_out, C_in / group, k).

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels the convolution produces.
        kernel_size (int): the length of the window.
        stride (int): the step of the window. Default: ``1`` .
        pad_mode (str): ``'same'`` (output = ceil(in / stride)), ``'valid'`` (no padding) or
            ``'pad'`` (`padding` zeros). Default: ``'same'`` .
        padding (Union[int, tuple[int]]): with pad_mode ``'pad'``, zeros on both sides or
            (left, right). Default: ``0`` .""" + _MS_CONV_TAIL + """
        dtype (mindspore.dtype, optional): the parameters' dtype (float32 when ``None``).
            Default: ``None`` .
    """

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple,
                 stride: IntOrTuple = 1, pad_mode: str = "same", padding: IntOrTuple = 0,
                 dilation: IntOrTuple = 1, group: int = 1, has_bias: bool = False,
                 weight_init: Optional[InitSpec] = None, bias_init: Optional[InitSpec] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype)
