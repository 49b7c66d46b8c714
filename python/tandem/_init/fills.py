"""Parameter initialisation with PyTorch's names (the implementation behind mint.nn.init).

Every function fills its tensor in place without recording gradients, draws from tandem's
seeded generator (``tandem.manual_seed``) and returns the tensor it was given.
"""
from __future__ import annotations

import warnings
from typing import Tuple

from .. import _C
from ..autograd import no_grad

Tensor = _C.Tensor
_init = _C.init

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
    "kaiming_normal_", "orthogonal_",
]


def _check_tensor(tensor, fn: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}: expected a Tensor, got {type(tensor).__name__}")


def _check_generator(generator, fn: str) -> None:
    if generator is not None:
        raise NotImplementedError(f"{fn}: generator objects are not supported; seed the "
                                  "global generator with tandem.manual_seed instead")


def _calculate_fan_in_and_fan_out(tensor) -> Tuple[int, int]:
    """(fan_in, fan_out): dim 1 / dim 0 times the receptive field size."""
    _check_tensor(tensor, "_calculate_fan_in_and_fan_out")
    return tuple(_init.calculate_fan_in_and_fan_out(tensor))


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def calculate_gain(nonlinearity: str, param=None) -> float:
    """Recommended gain for a nonlinearity (1 for linear / conv / sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (param = slope, default 0.01),
    3/4 for selu)."""
    if nonlinearity == "leaky_relu" and param is not None:
        if isinstance(param, bool) or not isinstance(param, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number")
        param = float(param)
    else:
        param = None
    return _init.calculate_gain(nonlinearity, param)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fills with U(a, b)."""
    _check_tensor(tensor, "uniform_")
    _check_generator(generator, "uniform_")
    return _init.uniform_(tensor, float(a), float(b))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fills with N(mean, std^2)."""
    _check_tensor(tensor, "normal_")
    _check_generator(generator, "normal_")
    return _init.normal_(tensor, float(mean), float(std))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None) -> Tensor:
    """Fills with N(mean, std^2) truncated to [a, b] (exact inverse-CDF sampling)."""
    _check_tensor(tensor, "trunc_normal_")
    _check_generator(generator, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    return _init.trunc_normal_(tensor, float(mean), float(std), float(a), float(b))


def constant_(tensor: Tensor, val) -> Tensor:
    """Fills with the value `val`."""
    _check_tensor(tensor, "constant_")
    return _init.constant_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills with ones."""
    _check_tensor(tensor, "ones_")
    return _init.ones_(tensor)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills with zeros."""
    _check_tensor(tensor, "zeros_")
    return _init.zeros_(tensor)


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D tensor with the identity matrix."""
    _check_tensor(tensor, "eye_")
    return _init.eye_(tensor)


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fills a 3/4/5-D conv weight with the Dirac delta (identity convolution), per group."""
    _check_tensor(tensor, "dirac_")
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if groups <= 0 or sizes[0] % groups != 0:
        raise ValueError(f"dirac_: dim 0 ({sizes[0]}) must be divisible by groups ({groups})")
    out_per_group = sizes[0] // groups
    with no_grad():
        _init.zeros_(tensor)
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    _check_tensor(tensor, "xavier_uniform_")
    _check_generator(generator, "xavier_uniform_")
    return _init.xavier_uniform_(tensor, float(gain))


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    _check_tensor(tensor, "xavier_normal_")
    _check_generator(generator, "xavier_normal_")
    return _init.xavier_normal_(tensor, float(gain))


def _kaiming_args(tensor, a, mode, nonlinearity, fn):
    _check_tensor(tensor, fn)
    if isinstance(a, bool) or not isinstance(a, (int, float)):
        raise ValueError(f"negative_slope {a} not a valid number")
    return float(a), mode.lower(), nonlinearity


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    _check_generator(generator, "kaiming_uniform_")
    a, mode, nonlinearity = _kaiming_args(tensor, a, mode, nonlinearity, "kaiming_uniform_")
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return _init.kaiming_uniform_(tensor, a, mode, nonlinearity)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan) (He et al., 2015)."""
    _check_generator(generator, "kaiming_normal_")
    a, mode, nonlinearity = _kaiming_args(tensor, a, mode, nonlinearity, "kaiming_normal_")
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return _init.kaiming_normal_(tensor, a, mode, nonlinearity)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix times gain (Saxe et al., 2013); dims after the first are
    flattened."""
    _check_tensor(tensor, "orthogonal_")
    _check_generator(generator, "orthogonal_")
    return _init.orthogonal_(tensor, float(gain))
