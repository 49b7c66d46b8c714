"""MindSpore's initializers (the implementation behind tandem.common.initializer).

``initializer(init, shape, dtype)`` returns a new Tensor filled eagerly (MindSpore defers the
fill; tandem has no lazy tensors). An Initializer instance can also be called on an existing
Tensor (filled in place) or a numpy array (filled in place, as MindSpore does).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Type, TypeVar, Union

import numpy as np

from .. import _C

Tensor = _C.Tensor
_init = _C.init

_INITIALIZER_ALIAS: Dict[str, Type["Initializer"]] = {}
_I = TypeVar("_I", bound="Initializer")
_Array = TypeVar("_Array", Tensor, np.ndarray)

__all__ = [
    "Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform",
    "HeNormal", "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity",
    "Dirac", "Orthogonal", "VarianceScaling",
]


def _register(*aliases: str) -> Callable[[Type[_I]], Type[_I]]:
    """Registers a class under its lower-cased name and the given aliases (for strings)."""
    def reg(cls: Type[_I]) -> Type[_I]:
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


def _correct_fan(shape: Tuple[int, ...], mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(shape)
    return fan_in if mode == "fan_in" else fan_out


def _gain(nonlinearity: str, param: Optional[float]) -> float:
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
    """The base class of the initializers (mindspore.common.initializer.Initializer):
    subclasses implement ``_initialize(tensor)``, filling a float Tensor in place. Pass an
    instance to :func:`initializer`, to a layer's ``weight_init`` / ``bias_init``, or call it
    on a Tensor or numpy array.

    Args:
        **kwargs: the subclass's settings, kept for its repr.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def _initialize(self, tensor: Tensor) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _initialize")

    def __call__(self, arr: _Array) -> _Array:
        """Fills `arr` in place (integer tensors receive the values cast to their dtype).

        Args:
            arr (Union[Tensor, numpy.ndarray]): the tensor or array to fill.

        Returns:
            Union[Tensor, numpy.ndarray], `arr` itself.
        """
        if isinstance(arr, Tensor):
            if arr.dtype in (_C.dtype.float16, _C.dtype.bfloat16, _C.dtype.float32,
                             _C.dtype.float64):
                self._initialize(arr)
            else:
                tmp = _C.empty(tuple(arr.shape), _C.dtype.float64)
                self._initialize(tmp)
                arr._copy_from(tmp)  # type: ignore[attr-defined]  # private binding
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
    """Fills the tensor with 0 (alias ``'zeros'``)."""

    def _initialize(self, tensor: Tensor) -> None:
        _init.zeros_(tensor)


@_register("ones")
class One(Initializer):
    """Fills the tensor with 1 (alias ``'ones'``)."""

    def _initialize(self, tensor: Tensor) -> None:
        _init.ones_(tensor)


class Constant(Initializer):
    """Fills the tensor with one value (what a number given as ``weight_init`` becomes).

    Args:
        value (Union[int, float, bool]): the value.
    """

    def __init__(self, value: Union[int, float, bool]) -> None:
        super().__init__(value=value)
        self.value = value

    def _initialize(self, tensor: Tensor) -> None:
        _init.constant_(tensor, self.value)


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """Glorot uniform initialisation: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))
    (alias ``'xavier_uniform'``).

    Args:
        gain (float): the scaling factor. Default: ``1`` .
    """

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor: Tensor) -> None:
        _fans(tuple(tensor.shape))
        _init.xavier_uniform_(tensor, float(self.gain))


@_register("xavier_normal")
class XavierNormal(Initializer):
    """Glorot normal initialisation: N(0, sigma^2) with
    sigma = gain * sqrt(2 / (fan_in + fan_out)) (alias ``'xavier_normal'``).

    Args:
        gain (float): the scaling factor. Default: ``1`` .
    """

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor: Tensor) -> None:
        _fans(tuple(tensor.shape))
        _init.xavier_normal_(tensor, float(self.gain))


class _He(Initializer):
    def __init__(self, negative_slope: float = 0, mode: str = "fan_in",
                 nonlinearity: str = "leaky_relu") -> None:
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _std(self, shape: Tuple[int, ...]) -> float:
        fan = _correct_fan(shape, self.mode)
        return _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_register("he_uniform")
class HeUniform(_He):
    """Kaiming uniform initialisation: U(-b, b) with b = sqrt(3) * gain / sqrt(fan)
    (alias ``'he_uniform'``).

    Args:
        negative_slope (float): the negative slope of the rectifier after the layer (for
            ``'leaky_relu'``). Default: ``0`` .
        mode (str): ``'fan_in'`` (keeps the forward variance) or ``'fan_out'`` (the
            backward one). Default: ``'fan_in'`` .
        nonlinearity (str): the function after the layer, for the gain (``'relu'`` or
            ``'leaky_relu'``). Default: ``'leaky_relu'`` .
    """

    def _initialize(self, tensor: Tensor) -> None:
        bound = math.sqrt(3.0) * self._std(tuple(tensor.shape))
        _init.uniform_(tensor, -bound, bound)


@_register("he_normal")
class HeNormal(_He):
    """Kaiming normal initialisation: N(0, sigma^2) with sigma = gain / sqrt(fan)
    (alias ``'he_normal'``).

    Args:
        negative_slope (float): the negative slope of the rectifier after the layer (for
            ``'leaky_relu'``). Default: ``0`` .
        mode (str): ``'fan_in'`` or ``'fan_out'``. Default: ``'fan_in'`` .
        nonlinearity (str): the function after the layer, for the gain.
            Default: ``'leaky_relu'`` .
    """

    def _initialize(self, tensor: Tensor) -> None:
        _init.normal_(tensor, 0.0, self._std(tuple(tensor.shape)))


@_register()
class Uniform(Initializer):
    """The uniform distribution U(-scale, scale) (alias ``'uniform'``).

    Args:
        scale (float): the bound of the distribution. Default: ``0.07`` .
    """

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, tensor: Tensor) -> None:
        _init.uniform_(tensor, -float(self.scale), float(self.scale))


@_register()
class Normal(Initializer):
    """The normal distribution N(mean, sigma^2) (alias ``'normal'``).

    Args:
        sigma (float): the standard deviation (>= 0). Default: ``0.01`` .
        mean (float): the mean. Default: ``0.0`` .
    """

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, tensor: Tensor) -> None:
        if self.sigma < 0:
            raise ValueError(f"Normal: sigma must be >= 0, got {self.sigma}")
        _init.normal_(tensor, float(self.mean), float(self.sigma))


@_register()
class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [mean + a * sigma, mean + b * sigma]: by default within
    two standard deviations of the mean, as MindSpore documents (alias
    ``'truncatednormal'``, any case).

    Args:
        sigma (float): the standard deviation of the untruncated normal (> 0).
            Default: ``0.01`` .
        mean (float): its mean. Default: ``0.0`` .
        a (float): the lower cut-off, in standard deviations from the mean.
            Default: ``-2.0`` .
        b (float): the upper cut-off, in standard deviations from the mean.
            Default: ``2.0`` .
    """

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0,
                 b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _initialize(self, tensor: Tensor) -> None:
        if self.sigma <= 0:
            raise ValueError(f"TruncatedNormal: sigma must be > 0, got {self.sigma}")
        s, m = float(self.sigma), float(self.mean)
        _init.trunc_normal_(tensor, m, s, m + self.a * s, m + self.b * s)


@_register()
class Identity(Initializer):
    """The (rectangular) identity matrix; 2-D tensors only (alias ``'identity'``)."""

    def _initialize(self, tensor: Tensor) -> None:
        if tensor.ndim != 2:
            raise ValueError("For Identity initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {tensor.ndim}.")
        _init.eye_(tensor)


@_register()
class Dirac(Initializer):
    """The Dirac delta for 3/4/5-D convolution weights: the convolution is the identity on
    as many channels as possible, per group (alias ``'dirac'``).

    Args:
        groups (int): the convolution's groups; dim 0 is split into this many blocks.
            Default: ``1`` .
    """

    def __init__(self, groups: int = 1) -> None:
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, tensor: Tensor) -> None:
        from .fills import dirac_
        dirac_(tensor, self.groups)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`; the dims after the first are flattened
    (alias ``'orthogonal'``).

    Args:
        gain (float): the scaling factor. Default: ``1.0`` .
    """

    def __init__(self, gain: float = 1.0) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, tensor: Tensor) -> None:
        if tensor.ndim < 2:
            raise ValueError("For Orthogonal initializer, the dimension of the initialized tensor "
                             f"should be no less than 2, but got {tensor.ndim}.")
        _init.orthogonal_(tensor, float(self.gain))


@_register()
class VarianceScaling(Initializer):
    """Scales the distribution to the fans: std = sqrt(scale / n), with n = fan_in,
    fan_out or their mean (alias ``'variancescaling'``).

    Args:
        scale (float): the scaling factor (> 0). Default: ``1.0`` .
        mode (str): ``'fan_in'``, ``'fan_out'`` or ``'fan_avg'``. Default: ``'fan_in'`` .
        distribution (str): ``'truncated_normal'`` (within 2 std, rescaled to keep the
            variance), ``'untruncated_normal'`` or ``'uniform'`` (limit
            sqrt(3 * scale / n)). Default: ``'truncated_normal'`` .
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal") -> None:
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

    def _initialize(self, tensor: Tensor) -> None:
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


def _as_shape(shape: Any) -> Optional[Tuple[int, ...]]:
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


def initializer(init: Union[Tensor, str, Initializer, int, float],
                shape: Union[Sequence[int], int, None] = None,
                dtype: Optional[_C.dtype] = None) -> Tensor:
    """A new Tensor filled by an initializer (MindSpore fills it lazily; tandem at once).

    Args:
        init (Union[Tensor, str, Initializer, numbers.Number]): an Initializer, its alias
            string (``'normal'``, ``'zeros'``, ``'ones'``, ``'xavier_uniform'``,
            ``'he_uniform'``, ..., case-insensitive), a number (a Constant) or a Tensor
            (returned as is after checking its shape).
        shape (Union[tuple, list, int], optional): the shape of the new tensor; required
            unless `init` is a Tensor. Default: ``None`` .
        dtype (mindspore.dtype, optional): the dtype of the new tensor; ``None`` means
            float32. Default: ``None`` .

    Returns:
        Tensor, of `shape` and `dtype`.
    """
    if dtype is None:
        dtype = _C.dtype.float32
    if isinstance(init, Tensor):
        if shape is not None:
            want = _as_shape(shape)
            if tuple(init.shape) != want:
                raise ValueError("For 'initializer', the shape of the 'init' argument should be "
                                 "same as the argument 'shape', but got the 'init' shape "
                                 f"{list(init.shape)} and the 'shape' {list(want or ())}.")
        return init
    if isinstance(init, str):
        cls = _INITIALIZER_ALIAS.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{init}' was not "
                             f"found; known names: {sorted(_INITIALIZER_ALIAS)}")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)  # type: ignore[arg-type]  # a numbers.Number is int / float
    elif not isinstance(init, Initializer):
        raise TypeError("For 'initializer', the type of the 'init' argument should be 'Tensor', "
                        f"'number', 'string' or 'initializer', but got {type(init)}.")
    shape = _as_shape(shape)
    if shape is None:
        raise ValueError("For 'initializer', 'shape' is required unless 'init' is a Tensor")
    out = _C.empty(shape, dtype)
    init(out)
    return out
