"""Reductions. Each accepts PyTorch's ``dim``/``keepdim`` and numpy/MindSpore's
``axis``/``keepdims`` spellings; dim may be an int, a list or a tuple."""
from __future__ import annotations

import math
import operator
from collections import namedtuple
from typing import Optional, Sequence, Union

from . import _C
from ._registry import public

Tensor = _C.Tensor
Dim = Optional[Union[int, Sequence[int]]]

values_indices = namedtuple("values_indices", ["values", "indices"])


def _dim(dim, axis):
    """dim (or its alias axis) as None, an int or a list of ints."""
    if axis is not None:
        if dim is not None:
            raise TypeError("pass either dim or axis, not both")
        dim = axis
    if isinstance(dim, Tensor):
        dim = dim.tolist()
    if dim is None:
        return None
    try:
        if isinstance(dim, (list, tuple)):
            return [operator.index(d) for d in dim]
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, a sequence of ints or None, got {dim!r}") from None


def _keep(keepdim, keepdims) -> bool:
    return bool(keepdim or keepdims)


@public(method=True)
def sum(input, dim: Dim = None, keepdim: bool = False, *, dtype=None, axis: Dim = None,
        keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `dim` (all dims when None). Integers and bool accumulate in int64."""
    return _C.sum(input, _dim(dim, axis), _keep(keepdim, keepdims), dtype)


@public(method=True)
def mean(input, dim: Dim = None, keepdim: bool = False, *, dtype=None, axis: Dim = None,
         keepdims: bool = False) -> Tensor:
    """Arithmetic mean over `dim`; input must be floating point (or pass dtype)."""
    return _C.mean(input, _dim(dim, axis), _keep(keepdim, keepdims), dtype)


@public(method=True)
def prod(input, dim: Dim = None, keepdim: bool = False, *, dtype=None, axis: Dim = None,
         keepdims: bool = False) -> Tensor:
    """Product over `dim`."""
    return _C.prod(input, _dim(dim, axis), _keep(keepdim, keepdims), dtype)


@public(method=True)
def amax(input, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
         keepdims: bool = False) -> Tensor:
    """Maximum over `dim` (all dims when None or ()), NaN-propagating."""
    d = _dim(dim, axis)
    return _C.amax(input, None if d == [] else d, _keep(keepdim, keepdims))


@public(method=True)
def amin(input, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
         keepdims: bool = False) -> Tensor:
    """Minimum over `dim` (all dims when None or ()), NaN-propagating."""
    d = _dim(dim, axis)
    return _C.amin(input, None if d == [] else d, _keep(keepdim, keepdims))


def _max_min(name, input, dim, keepdim, other, axis, keepdims):
    # PyTorch's overload order: a Tensor in the dim slot (0-d included) is `other`.
    if isinstance(dim, Tensor) and other is None:
        other, dim = dim, None
    if other is not None:
        return (_C.maximum if name == "max" else _C.minimum)(input, other)
    d = _dim(dim, axis)
    if d is None:
        return (_C.amax if name == "max" else _C.amin)(input, None, False)
    if isinstance(d, list):
        raise TypeError(f"{name}: dim must be a single int, got {d}; use a{name} for several dims")
    v, i = (_C.max_dim if name == "max" else _C.min_dim)(input, d, _keep(keepdim, keepdims))
    return values_indices(v, i)


@public(method=True)
def max(input, dim=None, keepdim: bool = False, *, other=None, axis=None, keepdims: bool = False):  # noqa: A001
    """max(input) -> the largest element; max(input, dim) -> (values, indices);
    max(input, other) -> elementwise maximum."""
    return _max_min("max", input, dim, keepdim, other, axis, keepdims)


@public(method=True)
def min(input, dim=None, keepdim: bool = False, *, other=None, axis=None, keepdims: bool = False):  # noqa: A001
    """min(input) -> the smallest element; min(input, dim) -> (values, indices);
    min(input, other) -> elementwise minimum."""
    return _max_min("min", input, dim, keepdim, other, axis, keepdims)


@public(method=True)
def argmax(input, dim: Optional[int] = None, keepdim: bool = False, *, axis=None,
           keepdims: bool = False) -> Tensor:
    """Index of the first maximum (of the flattened tensor when dim is None)."""
    return _C.argmax(input, _dim(dim, axis), _keep(keepdim, keepdims))


@public(method=True)
def argmin(input, dim: Optional[int] = None, keepdim: bool = False, *, axis=None,
           keepdims: bool = False) -> Tensor:
    """Index of the first minimum (of the flattened tensor when dim is None)."""
    return _C.argmin(input, _dim(dim, axis), _keep(keepdim, keepdims))


@public(method=True)
def all(input, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
        keepdims: bool = False) -> Tensor:  # noqa: A001
    """True where every element along `dim` is non-zero."""
    return _C.all(input, _dim(dim, axis), _keep(keepdim, keepdims))


@public(method=True)
def any(input, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
        keepdims: bool = False) -> Tensor:  # noqa: A001
    """True where some element along `dim` is non-zero."""
    return _C.any(input, _dim(dim, axis), _keep(keepdim, keepdims))


def _correction(correction, unbiased, ddof):
    if correction is not None:
        return float(correction)
    if ddof is not None:
        return float(ddof)
    if unbiased is not None:
        return 1.0 if unbiased else 0.0
    return 1.0


@public(method=True)
def var(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction=None, axis: Dim = None, keepdims: bool = False, ddof=None) -> Tensor:
    """Variance with Bessel correction (correction=1 unbiased, 0 population)."""
    if isinstance(unbiased, (int, list, tuple)) and not isinstance(unbiased, bool):
        dim, unbiased = unbiased, None  # var(x, dim) written positionally in older code
    return _C.var(input, _dim(dim, axis), _correction(correction, unbiased, ddof),
                  _keep(keepdim, keepdims))


@public(method=True)
def std(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction=None, axis: Dim = None, keepdims: bool = False, ddof=None) -> Tensor:
    """Standard deviation with Bessel correction."""
    return _C.std(input, _dim(dim, axis), _correction(correction, unbiased, ddof),
                  _keep(keepdim, keepdims))


@public
def var_mean(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction=None, axis: Dim = None, keepdims: bool = False):
    """(variance, mean) in one call."""
    return _C.var_mean(input, _dim(dim, axis), _correction(correction, unbiased, None),
                       _keep(keepdim, keepdims))


@public
def std_mean(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction=None, axis: Dim = None, keepdims: bool = False):
    """(standard deviation, mean) in one call."""
    return _C.std_mean(input, _dim(dim, axis), _correction(correction, unbiased, None),
                       _keep(keepdim, keepdims))


@public(method=True)
def logsumexp(input, dim: Dim, keepdim: bool = False, *, axis: Dim = None,
              keepdims: bool = False) -> Tensor:
    """log(sum(exp(input), dim)), computed stably."""
    return _C.logsumexp(input, _dim(dim, axis), _keep(keepdim, keepdims))


@public(method=True)
def norm(input, p: Union[float, str, None] = "fro", dim: Dim = None, keepdim: bool = False,
         dtype=None) -> Tensor:
    """Vector p-norm over `dim` ('fro' and None mean 2; inf / -inf max / min abs)."""
    if p is None or p == "fro":
        p = 2.0
    elif p == "nuc":
        raise NotImplementedError("norm: the nuclear norm needs an SVD, which tandem lacks yet")
    elif isinstance(p, str):
        raise ValueError(f"norm: unsupported p={p!r}; use a number, inf, 'fro'")
    x = input if dtype is None else _C.to_dtype(input, dtype)
    return _C.norm(x, float(p), _dim(dim, None), keepdim)


@public(method=True)
def count_nonzero(input, dim: Dim = None, *, axis: Dim = None) -> Tensor:
    """Number of non-zero elements along `dim`."""
    return _C.count_nonzero(input, _dim(dim, axis))


@public(method=True)
def aminmax(input, *, dim: Optional[int] = None, keepdim: bool = False):
    """(min, max) in one call."""
    mm = namedtuple("aminmax", ["min", "max"])
    return mm(amin(input, dim, keepdim), amax(input, dim, keepdim))
