"""Lazy layers: LazyLinear, LazyConv1d/2d, LazyBatchNorm1d/2d infer their input size at the
first forward, initialise their parameters in place (so an optimizer built before that sees
the same Parameter objects), and then become the eager class (type(m) is nn.Linear, ...)."""
from __future__ import annotations

from ._common import Cell, Parameter, ops
from .conv import Conv1d, Conv2d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d


def _placeholder(dtype) -> Parameter:
    return Parameter(ops.empty(0, dtype=dtype))


class LazyModuleMixin:
    """Defers shapes to the first call: subclasses define initialize_parameters(input) and
    cls_to_become."""

    cls_to_become = None

    def has_uninitialized_params(self) -> bool:
        return True

    def initialize_parameters(self, input) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        if type(self).cls_to_become is not None and isinstance(self, LazyModuleMixin):
            if not args:
                raise ValueError(f"{type(self).__name__}: the first call needs the input tensor")
            self.initialize_parameters(args[0])
            self.__class__ = type(self).cls_to_become
        return Cell.__call__(self, *args, **kwargs)


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Cell.__init__(self)
        self.in_features, self.out_features, self._dtype = 0, int(out_features), dtype
        self.weight = _placeholder(dtype)
        if bias:
            self.bias = _placeholder(dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.in_features:
            Linear.reset_parameters(self)

    def initialize_parameters(self, input) -> None:
        self.in_features = int(input.shape[-1])
        dtype = self._dtype
        self.weight.set_data(ops.empty(self.out_features, self.in_features, dtype=dtype))
        if self.bias is not None:
            self.bias.set_data(ops.empty(self.out_features, dtype=dtype))
        Linear.reset_parameters(self)
        del self._dtype


class _LazyConvMixin(LazyModuleMixin):
    _nd = 2

    def _lazy_init(self, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, dtype):
        # Build the eager layer with one input channel per group, then shrink to placeholders.
        base = self.cls_to_become
        base.__init__(self, groups, out_channels, kernel_size, stride, padding, dilation, groups,
                      bias, padding_mode, dtype=dtype)
        self.in_channels, self._dtype = 0, dtype
        self.weight.set_data(ops.empty(0, dtype=dtype))
        if self.bias is not None:
            self.bias.set_data(ops.empty(0, dtype=dtype))

    def reset_parameters(self) -> None:
        if self.in_channels:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input) -> None:
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


class LazyConv1d(_LazyConvMixin, Conv1d):
    """Conv1d whose in_channels comes from the first input."""

    cls_to_become, _nd = Conv1d, 1

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None):
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    """Conv2d whose in_channels comes from the first input."""

    cls_to_become, _nd = Conv2d, 2

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None):
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, dtype)


class _LazyNormMixin(LazyModuleMixin):
    def __init__(self, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None):
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track_running_stats, dtype=dtype)
        self._dtype = dtype

    def reset_parameters(self) -> None:
        if self.num_features:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input) -> None:
        self._check_input_dim(input)
        n = int(input.shape[1])
        self.num_features, dtype = n, self._dtype
        if self.affine:
            self.weight.set_data(ops.ones(n, dtype=dtype))
            self.bias.set_data(ops.zeros(n, dtype=dtype))
        if self.track_running_stats:
            self._buffers["running_mean"] = ops.zeros(n, dtype=dtype)
            self._buffers["running_var"] = ops.ones(n, dtype=dtype)
        del self._dtype


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """BatchNorm1d whose num_features comes from the first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """BatchNorm2d whose num_features comes from the first input."""

    cls_to_become = BatchNorm2d
