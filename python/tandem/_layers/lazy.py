"""Lazy layers: LazyLinear, LazyConv1d/2d, LazyBatchNorm1d/2d infer their input size at the
first forward, initialise their parameters in place (so an optimizer built before that sees
the same Parameter objects), and then become the eager class (type(m) is nn.Linear, ...)."""
from __future__ import annotations

from typing import Any, Optional, Type

from .. import _C
from .._typing import IntOrTuple
from ._common import Cell, Parameter, ops
from .conv import Conv1d, Conv2d, _ConvNd
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, _NormBase

Tensor = _C.Tensor

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d",
           "LazyBatchNorm2d"]


def _placeholder(dtype: Optional[_C.dtype]) -> Parameter:
    return Parameter(ops.empty(0, dtype=dtype))


class LazyModuleMixin:
    """Defers shapes to the first call: subclasses define initialize_parameters(input) and
    cls_to_become."""

    cls_to_become: Optional[Type[Cell]] = None

    def has_uninitialized_params(self) -> bool:
        """Whether the parameters still wait for the first input (always, before it).

        Returns:
            bool: ``True``.
        """
        return True

    def initialize_parameters(self, input: Tensor) -> None:  # pragma: no cover - abstract
        """Sizes and initialises the parameters from the first input.

        Args:
            input (Tensor): the first input.
        """
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Initialises the parameters from the first positional input, becomes
        `cls_to_become`, then runs as that layer.

        Args:
            *args: the inputs (the first one sizes the parameters).
            **kwargs: keyword inputs.

        Returns:
            Any: the layer's output (a Tensor).
        """
        if type(self).cls_to_become is not None and isinstance(self, LazyModuleMixin):
            if not args:
                raise ValueError(f"{type(self).__name__}: the first call needs the input tensor")
            self.initialize_parameters(args[0])
            self.__class__ = type(self).cls_to_become  # type: ignore[assignment]
        return Cell.__call__(self, *args, **kwargs)  # type: ignore[arg-type]  # a Cell mixin


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last dim of the first input; after the first call
    it is a :class:`Linear`.

    Args:
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        Cell.__init__(self)
        self.in_features, self.out_features, self._dtype = 0, int(out_features), dtype
        self.weight = _placeholder(dtype)
        if bias:
            self.bias = _placeholder(dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Initialises the parameters as Linear does (nothing before the first input)."""
        if self.in_features:
            Linear.reset_parameters(self)

    def initialize_parameters(self, input: Tensor) -> None:
        """Sizes the weight to (out_features, input.shape[-1]) and initialises it.

        Args:
            input (Tensor): the first input, (*, in_features).
        """
        self.in_features = int(input.shape[-1])
        dtype = self._dtype
        self.weight.set_data(ops.empty(self.out_features, self.in_features, dtype=dtype))
        if self.bias is not None:
            self.bias.set_data(ops.empty(self.out_features, dtype=dtype))
        Linear.reset_parameters(self)
        del self._dtype


class _LazyConvMixin(LazyModuleMixin, _ConvNd):
    _nd = 2
    cls_to_become: Type[_ConvNd]

    def _lazy_init(self, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple,
                   padding: Any, dilation: IntOrTuple, groups: int, bias: bool,
                   padding_mode: str, dtype: Optional[_C.dtype]) -> None:
        # Build the eager layer with one input channel per group, then shrink to placeholders.
        base = self.cls_to_become
        base.__init__(self, groups, out_channels, kernel_size, stride, padding, dilation,
                      groups, bias, padding_mode, dtype=dtype)
        self.in_channels, self._dtype = 0, dtype
        self.weight.set_data(ops.empty(0, dtype=dtype))
        if self.bias is not None:
            self.bias.set_data(ops.empty(0, dtype=dtype))

    def reset_parameters(self) -> None:
        """Initialises the parameters as the convolution does (nothing before the first
        input)."""
        if self.in_channels:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input: Tensor) -> None:
        """Sizes the weight from the channels of the first input and initialises it.

        Args:
            input (Tensor): the first input, (N, C_in, *spatial) or (C_in, *spatial).
        """
        batched = input.ndim == self._nd + 2
        self.in_channels = int(input.shape[1 if batched else 0])
        if self.in_channels % self.groups:
            raise ValueError(f"{type(self).__name__}: input has {self.in_channels} channels, not "
                             f"divisible by groups ({self.groups})")
        shape = (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size)
        self.weight.set_data(ops.empty(*shape, dtype=self._dtype))
        if self.bias is not None:
            self.bias.set_data(ops.empty(self.out_channels, dtype=self._dtype))
        self.cls_to_become.reset_parameters(self)
        del self._dtype


_LAZY_CONV_ARGS = """

    Args:
        out_channels (int): the channels the convolution produces.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple): the step of the window. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides, or 'same' / 'valid'.
            Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): blocked connections between input and output channels. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): 'zeros', 'reflect', 'replicate' or 'circular'.
            Default: ``'zeros'``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
"""


class LazyConv1d(_LazyConvMixin, Conv1d):
    __doc__ = ("A Conv1d whose in_channels comes from the first input; after the first call "
               "it is a :class:`Conv1d`." + _LAZY_CONV_ARGS)

    cls_to_become, _nd = Conv1d, 1

    def __init__(self, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: Any = 0, dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    __doc__ = ("A Conv2d whose in_channels comes from the first input; after the first call "
               "it is a :class:`Conv2d`." + _LAZY_CONV_ARGS)

    cls_to_become, _nd = Conv2d, 2

    def __init__(self, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: Any = 0, dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, dtype)


class _LazyNormMixin(LazyModuleMixin, _NormBase):
    cls_to_become: Type[_NormBase]

    def __init__(self, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track_running_stats, dtype=dtype)
        self._dtype = dtype

    def reset_parameters(self) -> None:
        """Resets as batch norm does (nothing before the first input)."""
        if self.num_features:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input: Tensor) -> None:
        """Sizes the parameters and running statistics from the channels (dim 1) of the first
        input.

        Args:
            input (Tensor): the first input, (N, C, *).
        """
        self._check_input_dim(input)
        n = int(input.shape[1])
        self.num_features, dtype = n, self._dtype
        if self.affine and self.weight is not None and self.bias is not None:
            self.weight.set_data(ops.ones(n, dtype=dtype))
            self.bias.set_data(ops.zeros(n, dtype=dtype))
        if self.track_running_stats:
            self._buffers["running_mean"] = ops.zeros(n, dtype=dtype)
            self._buffers["running_var"] = ops.ones(n, dtype=dtype)
        del self._dtype


_LAZY_BN_ARGS = """

    Args:
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.
        momentum (float, optional): the weight of each new batch in the running estimates
            (``None``: cumulative average). Default: ``0.1``.
        affine (bool): learn a per-channel scale and shift. Default: ``True``.
        track_running_stats (bool): keep running estimates for eval. Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
"""


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    __doc__ = ("A BatchNorm1d whose num_features comes from the first input; after the first "
               "call it is a :class:`BatchNorm1d`." + _LAZY_BN_ARGS)

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    __doc__ = ("A BatchNorm2d whose num_features comes from the first input; after the first "
               "call it is a :class:`BatchNorm2d`." + _LAZY_BN_ARGS)

    cls_to_become = BatchNorm2d
