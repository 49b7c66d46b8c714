"""Elementwise ops with more than one form."""
from __future__ import annotations

from typing import Any

from .. import _C
from . import args as _args

Tensor = _C.Tensor


def where(condition: Tensor, input: Any, other: Any) -> Any:
    """where(c, x, y) chooses elementwise; where(c) is nonzero(c, as_tuple=True)."""
    if input is None and other is None:
        from .index import nonzero
        return nonzero(condition, True)
    return _C.where(condition, input, other)


def float_power(input: Any, exponent: Any) -> Tensor:
    """pow computed in float64."""
    # a Python base goes straight to float64 (through float32, 1e300 would be inf); an int
    # beyond PyTorch's Scalar range raises as in PyTorch instead of becoming a float
    if type(input) is int:
        _args.number_arg("float_power", "input", input)
    a = input if isinstance(input, Tensor) else _C.Tensor(input, _C.dtype.float64)
    if isinstance(exponent, Tensor):  # a 0-d base must not leave a float32 exponent's dtype
        exponent = _C.to_dtype(exponent, _C.dtype.float64)
    return _C.pow(_C.to_dtype(a, _C.dtype.float64), exponent)
