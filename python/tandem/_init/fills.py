"""Parameter initialisation with PyTorch's names (the implementation behind mint.nn.init).

Every function fills its tensor in place without recording gradients, draws from tandem's
seeded generator (``tandem.manual_seed``) and returns the tensor it was given.
"""
from __future__ import annotations

import warnings
from typing import Optional, Tuple, TypeVar, Union

from .. import _C
from ..autograd import no_grad

Tensor = _C.Tensor
_init = _C.init
#: The tensor (or Parameter) a fill is given, and returns.
_T = TypeVar("_T", bound=Tensor)

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
    "kaiming_normal_", "orthogonal_",
]


def _check_tensor(tensor: object, fn: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}: expected a Tensor, got {type(tensor).__name__}")


def _check_generator(generator: object, fn: str) -> None:
    if generator is not None:
        raise NotImplementedError(f"{fn}: generator objects are not supported; seed the "
                                  "global generator with tandem.manual_seed instead")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> Tuple[int, int]:
    """(fan_in, fan_out): dim 1 / dim 0 times the receptive field size."""
    _check_tensor(tensor, "_calculate_fan_in_and_fan_out")
    fan_in, fan_out = _init.calculate_fan_in_and_fan_out(tensor)
    return fan_in, fan_out


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def calculate_gain(nonlinearity: str, param: Optional[Union[int, float]] = None) -> float:
    """The recommended gain for a nonlinearity, to scale an initialisation by.

    1 for linear / conv / sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + negative_slope^2)) for leaky_relu and 3/4 for selu.

    Args:
        nonlinearity (str): the function's name ('linear', 'conv1d', 'conv2d', 'conv3d',
            'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'sigmoid', 'tanh',
            'relu', 'leaky_relu', 'selu').
        param (float, optional): the negative slope of leaky_relu (0.01 when ``None``).
            Default: ``None``.

    Returns:
        float: the gain.
    """
    slope: Optional[float] = None
    if nonlinearity == "leaky_relu" and param is not None:
        if isinstance(param, bool) or not isinstance(param, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number")
        slope = float(param)
    return _init.calculate_gain(nonlinearity, slope)


def uniform_(tensor: _T, a: float = 0.0, b: float = 1.0,
             generator: Optional[object] = None) -> _T:
    """Fills `tensor` with values drawn from the uniform distribution U(a, b).

    Args:
        tensor (Tensor): the tensor to fill in place.
        a (float): the lower bound. Default: ``0.0``.
        b (float): the upper bound. Default: ``1.0``.
        generator (None): not supported (must be ``None``); seed with
            ``tandem.manual_seed``. Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "uniform_")
    _check_generator(generator, "uniform_")
    _init.uniform_(tensor, float(a), float(b))
    return tensor


def normal_(tensor: _T, mean: float = 0.0, std: float = 1.0,
            generator: Optional[object] = None) -> _T:
    """Fills `tensor` with values drawn from the normal distribution N(mean, std^2).

    Args:
        tensor (Tensor): the tensor to fill in place.
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation. Default: ``1.0``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "normal_")
    _check_generator(generator, "normal_")
    _init.normal_(tensor, float(mean), float(std))
    return tensor


def trunc_normal_(tensor: _T, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Optional[object] = None) -> _T:
    """Fills `tensor` with N(mean, std^2) truncated to [a, b] (exact inverse-CDF sampling,
    so no value sits on the bounds more often than the density says).

    Args:
        tensor (Tensor): the tensor to fill in place.
        mean (float): the mean of the untruncated normal. Default: ``0.0``.
        std (float): its standard deviation. Default: ``1.0``.
        a (float): the lower cut-off (an absolute value, not in units of std).
            Default: ``-2.0``.
        b (float): the upper cut-off. Default: ``2.0``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "trunc_normal_")
    _check_generator(generator, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    _init.trunc_normal_(tensor, float(mean), float(std), float(a), float(b))
    return tensor


def constant_(tensor: _T, val: Union[int, float, bool]) -> _T:
    """Fills `tensor` with the value `val`.

    Args:
        tensor (Tensor): the tensor to fill in place.
        val (float): the value.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "constant_")
    _init.constant_(tensor, val)
    return tensor


def ones_(tensor: _T) -> _T:
    """Fills `tensor` with ones.

    Args:
        tensor (Tensor): the tensor to fill in place.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "ones_")
    _init.ones_(tensor)
    return tensor


def zeros_(tensor: _T) -> _T:
    """Fills `tensor` with zeros.

    Args:
        tensor (Tensor): the tensor to fill in place.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "zeros_")
    _init.zeros_(tensor)
    return tensor


def eye_(tensor: _T) -> _T:
    """Fills a 2-D tensor with the identity matrix (ones on the diagonal of a rectangular
    one), keeping the identity of the inputs in linear layers.

    Args:
        tensor (Tensor): a 2-D tensor to fill in place.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "eye_")
    _init.eye_(tensor)
    return tensor


def dirac_(tensor: _T, groups: int = 1) -> _T:
    """Fills a 3/4/5-D convolution weight with the Dirac delta, so the convolution is the
    identity on as many channels as possible (per group).

    Args:
        tensor (Tensor): a weight (out_channels, in_channels, *kernel) to fill in place.
        groups (int): the convolution's groups; dim 0 is split into this many blocks.
            Default: ``1``.

    Returns:
        Tensor: `tensor`.
    """
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


def xavier_uniform_(tensor: _T, gain: float = 1.0,
                    generator: Optional[object] = None) -> _T:
    """Glorot / Xavier uniform initialisation (Glorot & Bengio, 2010): U(-a, a) with
    a = gain * sqrt(6 / (fan_in + fan_out)).

    Args:
        tensor (Tensor): a tensor of at least 2 dims to fill in place.
        gain (float): the scaling factor (see :func:`calculate_gain`). Default: ``1.0``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "xavier_uniform_")
    _check_generator(generator, "xavier_uniform_")
    _init.xavier_uniform_(tensor, float(gain))
    return tensor


def xavier_normal_(tensor: _T, gain: float = 1.0,
                   generator: Optional[object] = None) -> _T:
    """Glorot / Xavier normal initialisation: N(0, std^2) with
    std = gain * sqrt(2 / (fan_in + fan_out)).

    Args:
        tensor (Tensor): a tensor of at least 2 dims to fill in place.
        gain (float): the scaling factor. Default: ``1.0``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "xavier_normal_")
    _check_generator(generator, "xavier_normal_")
    _init.xavier_normal_(tensor, float(gain))
    return tensor


def _kaiming_args(tensor: Tensor, a: float, mode: str, nonlinearity: str,
                  fn: str) -> Tuple[float, str, str]:
    _check_tensor(tensor, fn)
    if isinstance(a, bool) or not isinstance(a, (int, float)):
        raise ValueError(f"negative_slope {a} not a valid number")
    return float(a), mode.lower(), nonlinearity


def kaiming_uniform_(tensor: _T, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Optional[object] = None) -> _T:
    """He / Kaiming uniform initialisation (He et al., 2015): U(-bound, bound) with
    bound = gain * sqrt(3 / fan).

    Args:
        tensor (Tensor): a tensor of at least 2 dims to fill in place.
        a (float): the negative slope of the rectifier after this layer (for leaky_relu).
            Default: ``0``.
        mode (str): 'fan_in' keeps the variance of the forward pass, 'fan_out' that of the
            backward pass. Default: ``'fan_in'``.
        nonlinearity (str): the function after this layer, for :func:`calculate_gain`
            ('relu' or 'leaky_relu' recommended). Default: ``'leaky_relu'``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor` (unchanged, with a warning, when it has no elements).
    """
    _check_generator(generator, "kaiming_uniform_")
    a, mode, nonlinearity = _kaiming_args(tensor, a, mode, nonlinearity, "kaiming_uniform_")
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    _init.kaiming_uniform_(tensor, a, mode, nonlinearity)
    return tensor


def kaiming_normal_(tensor: _T, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Optional[object] = None) -> _T:
    """He / Kaiming normal initialisation (He et al., 2015): N(0, std^2) with
    std = gain / sqrt(fan).

    Args:
        tensor (Tensor): a tensor of at least 2 dims to fill in place.
        a (float): the negative slope of the rectifier after this layer (for leaky_relu).
            Default: ``0``.
        mode (str): 'fan_in' or 'fan_out' (see :func:`kaiming_uniform_`).
            Default: ``'fan_in'``.
        nonlinearity (str): the function after this layer, for :func:`calculate_gain`.
            Default: ``'leaky_relu'``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor` (unchanged, with a warning, when it has no elements).
    """
    _check_generator(generator, "kaiming_normal_")
    a, mode, nonlinearity = _kaiming_args(tensor, a, mode, nonlinearity, "kaiming_normal_")
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    _init.kaiming_normal_(tensor, a, mode, nonlinearity)
    return tensor


def orthogonal_(tensor: _T, gain: float = 1.0,
                generator: Optional[object] = None) -> _T:
    """Fills `tensor` with a (semi-)orthogonal matrix times `gain` (Saxe et al., 2013); the
    dims after the first are flattened into the matrix's columns.

    Args:
        tensor (Tensor): a tensor of at least 2 dims to fill in place.
        gain (float): the scaling factor. Default: ``1.0``.
        generator (None): not supported (must be ``None``). Default: ``None``.

    Returns:
        Tensor: `tensor`.
    """
    _check_tensor(tensor, "orthogonal_")
    _check_generator(generator, "orthogonal_")
    _init.orthogonal_(tensor, float(gain))
    return tensor
