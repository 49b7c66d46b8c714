"""Helpers shared by the layer files: lazy access to the op tables (filled while tandem
imports) and the default initialisations of PyTorch's and MindSpore's layers."""
from __future__ import annotations

import math
from typing import Sequence

from ... import _C
from ..._generated import functional_api as F  # noqa: F401 - re-exported to the layer files
from ..._generated import torch_api as ops  # noqa: F401
from ...autograd import no_grad
from ..cell import Cell  # noqa: F401 - re-exported to the layer files
from ..parameter import Parameter

Tensor = _C.Tensor


def tup(v, n: int, name: str = "argument") -> tuple:
    """An int or a sequence of n ints as a tuple of n ints."""
    if isinstance(v, int):
        return (v,) * n
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"expected {name} to be an int or a sequence of {n} ints, got {v}")
    return v


def new_param(shape: Sequence[int], dtype=None, requires_grad: bool = True) -> Parameter:
    return Parameter(ops.empty(*shape, dtype=dtype), requires_grad=requires_grad)


def fans(shape: Sequence[int]) -> tuple:
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel)."""
    if len(shape) < 2:
        raise ValueError(f"fan in and fan out need a tensor with at least 2 dims, got {tuple(shape)}")
    rf = math.prod(shape[2:])
    return shape[1] * rf, shape[0] * rf


def uniform_(t: Tensor, low: float, high: float) -> Tensor:
    with no_grad():
        t.uniform_(low, high)
    return t


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    with no_grad():
        t.normal_(mean, std)
    return t


def fill_(t: Tensor, value: float) -> Tensor:
    with no_grad():
        t.fill_(value)
    return t


def kaiming_uniform_(t: Tensor, a: float = math.sqrt(5), fan_in=None) -> Tensor:
    """He-uniform in fan_in mode for leaky_relu(a): bound sqrt(6 / ((1 + a^2) fan_in))."""
    fan_in = fans(t.shape)[0] if fan_in is None else fan_in
    bound = math.sqrt(6.0 / ((1 + a * a) * fan_in)) if fan_in > 0 else 0.0
    return uniform_(t, -bound, bound)


def xavier_uniform_(t: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = fans(t.shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -bound, bound)


def fan_in_bias_(bias: Tensor, fan_in: int) -> Tensor:
    """PyTorch's (and MindSpore's) bias default: uniform(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    return uniform_(bias, -bound, bound)


def ms_init(init, shape: Sequence[int], dtype=None) -> Tensor:
    """A tensor of `shape` from a MindSpore-style initializer: a name ('zeros', 'ones',
    'normal' = N(0, 0.01), 'uniform' = U(-0.07, 0.07), 'he_uniform', 'he_normal',
    'xavier_uniform', 'truncatedNormal'), a number, a Tensor / array of that shape, or an
    object with an ``init_tensor(tensor)`` / callable(tensor) that fills a tensor."""
    shape = tuple(int(s) for s in shape)
    if isinstance(init, (Tensor,)) or hasattr(init, "__array__"):
        t = init if isinstance(init, Tensor) else ops.tensor(init)
        if tuple(t.shape) != shape:
            raise ValueError(f"initializer tensor has shape {tuple(t.shape)}, expected {shape}")
        return t.to(dtype) if dtype is not None else t.clone()
    t = ops.empty(*shape, dtype=dtype)
    if isinstance(init, bool) or not isinstance(init, (str, int, float)):
        if callable(init):
            with no_grad():
                init(t)
            return t
        raise TypeError(f"unsupported initializer {init!r}: use a name, a number or a Tensor")
    if isinstance(init, (int, float)):
        return fill_(t, float(init))
    name = init.lower()
    if name in ("zeros", "zero"):
        return fill_(t, 0.0)
    if name in ("ones", "one"):
        return fill_(t, 1.0)
    if name == "normal":
        return normal_(t, 0.0, 0.01)
    if name == "uniform":
        return uniform_(t, -0.07, 0.07)
    if name == "truncatednormal":
        with no_grad():
            t.normal_(0.0, 0.01)
            t.copy_(t.clamp(-0.02, 0.02))
        return t
    if name == "he_uniform":
        return kaiming_uniform_(t, a=0.0)
    if name == "he_normal":
        return normal_(t, 0.0, math.sqrt(2.0 / fans(shape)[0]))
    if name == "xavier_uniform":
        return xavier_uniform_(t)
    raise ValueError(f"unknown initializer name {init!r}")


def inplace_result(input: Tensor, y: Tensor, inplace: bool) -> Tensor:
    """Writes y into input for the inplace=True forms of activations and dropout."""
    return input.copy_(y) if inplace else y
