"""MindSpore's initializers (the implementation behind tandem.common.initializer).

``initializer(init, shape, dtype)`` returns a new Tensor filled eagerly (MindSpore defers the
fill; tandem has no lazy tensors). An Initializer instance can also be called on an existing
Tensor (filled in place) or a numpy array (filled in place, as MindSpore does).
"""
from __future__ import annotations

import math
import numbers
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from .. import _C

Tensor = _C.Tensor
_init = _C.init

_INITIALIZER_ALIAS: dict = {}

__all__ = [
    "Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform",
    "HeNormal", "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity",
    "Dirac", "Orthogonal", "VarianceScaling",
]


def _register(*aliases):
    """Registers a class under its lower-cased name and the given aliases (for strings)."""
    def reg(cls):
        for name in (cls.__name__.lower(), *aliases):
            _INITIALIZER_ALIAS.setdefault(name, cls)
        return cls
    return reg


def _fans(shape: Tuple[int, ...]) -> Tuple[int, int]:
    if len(shape) < 2:
        raise ValueError("'fan_in' and 'fan_out' can not be computed for tensor with fewer than "
                         f"2 dimensions, but got dimensions {len(shape)}.")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _correct_fan(shape, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(shape)
    return fan_in if mode == "fan_in" else fan_out


def _gain(nonlinearity: str, param) -> float:
    if nonlinearity == "leaky_relu":
        if param is None:
            param = 0.01
        elif isinstance(param, bool) or not isinstance(param, (int, float)):
            raise ValueError(f"For 'HeUniform', 'negative_slope' {param} is not a valid number. "
                             "When 'nonlinearity' has been set to 'leaky_relu', 'negative_slope' "
                             f"should be int or float type, but got {type(param)}.")
        return _init.calculate_gain(nonlinearity, float(param))
    return _init.calculate_gain(nonlinearity, None)


class Initializer:
    """Base class: subclasses implement ``_initialize(tensor)`` filling a float tandem
    Tensor in place."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, tensor: Tensor) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _initialize")

    def __call__(self, arr):
        """Fills `arr` (a tandem Tensor or a numpy array) in place and returns it."""
        if isinstance(arr, Tensor):
            if arr.dtype in (_C.dtype.float16, _C.dtype.bfloat16, _C.dtype.float32,
                             _C.dtype.float64):
                self._initialize(arr)
            else:
                tmp = _C.empty(tuple(arr.shape), _C.dtype.float64)
                self._initialize(tmp)
                arr._fill(tmp)
            return arr
        if isinstance(arr, np.ndarray):
            tmp = _C.empty(tuple(arr.shape), _C.dtype.float64)
            self._initialize(tmp)
            arr[...] = tmp.numpy()
            return arr
        raise TypeError(f"{type(self).__name__}: expected a Tensor or numpy array, got "
                        f"{type(arr).__name__}")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


@_register("zeros")
class Zero(Initializer):
    """Fills with 0."""

    def _initialize(self, tensor):
        _init.zeros_(tensor)


@_register("ones")
class One(Initializer):
    """Fills with 1."""

    def _initialize(self, tensor):
        _init.ones_(tensor)


class Constant(Initializer):
    """Fills with `value`."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, tensor):
        _init.constant_(tensor, self.value)


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor):
        _fans(tuple(tensor.shape))
        _init.xavier_uniform_(tensor, float(self.gain))


@_register("xavier_normal")
class XavierNormal(Initializer):
    """N(0, sigma^2), sigma = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor):
        _fans(tuple(tensor.shape))
        _init.xavier_normal_(tensor, float(self.gain))


class _He(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _std(self, shape) -> float:
        fan = _correct_fan(shape, self.mode)
        return _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_register("he_uniform")
class HeUniform(_He):
    """U(-b, b), b = sqrt(3) * gain / sqrt(fan) (Kaiming uniform)."""

    def _initialize(self, tensor):
        bound = math.sqrt(3.0) * self._std(tuple(tensor.shape))
        _init.uniform_(tensor, -bound, bound)


@_register("he_normal")
class HeNormal(_He):
    """N(0, sigma^2), sigma = gain / sqrt(fan) (Kaiming normal)."""

    def _initialize(self, tensor):
        _init.normal_(tensor, 0.0, self._std(tuple(tensor.shape)))


@_register()
class Uniform(Initializer):
    """U(-scale, scale); scale defaults to 0.07."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, tensor):
        _init.uniform_(tensor, -float(self.scale), float(self.scale))


@_register()
class Normal(Initializer):
    """N(mean, sigma^2); sigma defaults to 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, tensor):
        if self.sigma < 0:
            raise ValueError(f"Normal: sigma must be >= 0, got {self.sigma}")
        _init.normal_(tensor, float(self.mean), float(self.sigma))


@_register()
class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [mean + a * sigma, mean + b * sigma]; by default within
    two standard deviations of the mean, as MindSpore documents (sigma defaults to 0.01)."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _initialize(self, tensor):
        if self.sigma <= 0:
            raise ValueError(f"TruncatedNormal: sigma must be > 0, got {self.sigma}")
        s, m = float(self.sigma), float(self.mean)
        _init.trunc_normal_(tensor, m, s, m + self.a * s, m + self.b * s)


@_register()
class Identity(Initializer):
    """The (rectangular) identity matrix; 2-D only."""

    def _initialize(self, tensor):
        if tensor.ndim != 2:
            raise ValueError("For Identity initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {tensor.ndim}.")
        _init.eye_(tensor)


@_register()
class Dirac(Initializer):
    """Dirac delta for 3/4/5-D conv weights (identity convolution per group)."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, tensor):
        from .fills import dirac_
        dirac_(tensor, self.groups)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times gain; trailing dims are flattened."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor):
        if tensor.ndim < 2:
            raise ValueError("For Orthogonal initializer, the dimension of the initialized tensor "
                             f"should be no less than 2, but got {tensor.ndim}.")
        _init.orthogonal_(tensor, float(self.gain))


@_register()
class VarianceScaling(Initializer):
    """std = sqrt(scale / n), n = fan_in / fan_out / their mean per `mode`; `distribution`
    'truncated_normal' (within 2 std, rescaled to keep the variance), 'untruncated_normal'
    or 'uniform' (limit sqrt(3 * scale / n))."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.0:
            raise ValueError("For VarianceScaling initializer, the argument 'scale' must be "
                             f"greater than 0, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("For VarianceScaling initializer, the argument 'mode' must be "
                             f"fan_in, fan_out or fan_avg, but got {mode}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("For VarianceScaling initializer, the argument 'distribution' must "
                             "be uniform, truncated_normal or untruncated_normal, but got "
                             f"{distribution}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, tensor):
        fan_in, fan_out = _fans(tuple(tensor.shape))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            # 0.8796... is the std of a standard normal truncated to [-2, 2].
            std = math.sqrt(scale) / 0.87962566103423978
            _init.trunc_normal_(tensor, 0.0, std, -2 * std, 2 * std)
        elif self.distribution == "untruncated_normal":
            _init.normal_(tensor, 0.0, math.sqrt(scale))
        else:
            limit = math.sqrt(3.0 * scale)
            _init.uniform_(tensor, -limit, limit)


def _as_shape(shape) -> Optional[Tuple[int, ...]]:
    if shape is None:
        return None
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, (list, tuple)):
        shape = tuple(shape)
    else:
        raise TypeError(f"For 'initializer', 'shape' must be a tuple, list or int, got "
                        f"{type(shape).__name__}")
    for v in shape:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
            raise ValueError("For 'initializer', the argument 'shape' is invalid, the value of "
                             f"'shape' must be positive integer, but got {shape}")
    return tuple(int(v) for v in shape)


def initializer(init: Union[Tensor, str, Initializer, numbers.Number],
                shape: Union[Sequence[int], int, None] = None, dtype=None) -> Tensor:
    """A new Tensor of `shape` and `dtype` (default float32) filled by `init`: an Initializer,
    its alias string ('normal', 'zeros', 'ones', 'xavier_uniform', 'he_uniform', ...,
    case-insensitive), a number (Constant) or a Tensor (returned as is after checking its
    shape)."""
    if dtype is None:
        dtype = _C.dtype.float32
    if isinstance(init, Tensor):
        if shape is not None:
            want = _as_shape(shape)
            if tuple(init.shape) != want:
                raise ValueError("For 'initializer', the shape of the 'init' argument should be "
                                 "same as the argument 'shape', but got the 'init' shape "
                                 f"{list(init.shape)} and the 'shape' {list(want)}.")
        return init
    if isinstance(init, str):
        cls = _INITIALIZER_ALIAS.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{init}' was not "
                             f"found; known names: {sorted(_INITIALIZER_ALIAS)}")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError("For 'initializer', the type of the 'init' argument should be 'Tensor', "
                        f"'number', 'string' or 'initializer', but got {type(init)}.")
    shape = _as_shape(shape)
    if shape is None:
        raise ValueError("For 'initializer', 'shape' is required unless 'init' is a Tensor")
    out = _C.empty(shape, dtype)
    init(out)
    return out
