"""Indexing family: gather / scatter, index_select, masks, nonzero, one_hot."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import _C
from ._registry import public, method

Tensor = _C.Tensor


@public(method=True)
def index_select(input, dim: int, index) -> Tensor:
    """Entries of `input` at `index` (1-D int64) along `dim`."""
    return _C.index_select(input, dim, _as_long(index))


@public(method=True)
def gather(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] (for dim 0); out has index's shape."""
    return _C.gather(input, dim, _as_long(index))


@public(method=True)
def scatter(input, dim: int, index, src=None, *, value=None, reduce: Optional[str] = None) -> Tensor:
    """A copy of input with `src` (or `value`) written at `index` along `dim`."""
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter: pass src or value")
    return _C.scatter(input, dim, _as_long(index), src, reduce)


@public(method=True)
def scatter_add(input, dim: int, index, src) -> Tensor:
    """A copy of input with `src` added at `index` along `dim` (duplicates accumulate)."""
    return _C.scatter_add(input, dim, _as_long(index), src)


_REDUCE_NAMES = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dt):
    """The value that leaves `reduce` unchanged, in dtype dt."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt == _C.dtype.bool:
        return reduce == "amin"
    if dt in (_C.dtype.float16, _C.dtype.bfloat16, _C.dtype.float32, _C.dtype.float64):
        return -math.inf if reduce == "amax" else math.inf
    info = np.iinfo(np.dtype(dt.name))
    return int(info.min if reduce == "amax" else info.max)


@public(method=True)
def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True) -> Tensor:
    """A copy of input with `src` reduced into it at `index` along `dim` ('sum', 'prod',
    'mean', 'amax', 'amin'); include_self=False leaves input's values out of the reduction
    at the positions that receive src."""
    if reduce not in _REDUCE_NAMES:
        raise ValueError(f"scatter_reduce: reduce must be one of {_REDUCE_NAMES}, got {reduce!r}")
    index = _as_long(index)
    if include_self:
        return _C.scatter(input, dim, index, src, reduce)
    hit = _C.scatter(_C.full(input.shape, False, _C.dtype.bool), dim, index, True, None)
    if reduce == "mean":  # sum of src / number of src values, where any arrived
        total = _C.scatter(_C.masked_fill(input, hit, 0), dim, index, src, "sum")
        ones = _C.full(index.shape, 1, _C.dtype.int64)
        count = _C.scatter(_C.full(input.shape, 0, _C.dtype.int64), dim, index, ones, "sum")
        count = _C.masked_fill(count, _C.logical_not(hit), 1)
        mode = None if input.dtype.is_floating_point else "floor"
        return _C.to_dtype(_C.div(total, count, mode), input.dtype)
    base = _C.masked_fill(input, hit, _identity(reduce, input.dtype))
    return _C.scatter(base, dim, index, src, reduce)


@public(method=True)
def index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """A copy of input with alpha * source added at `index` along `dim`."""
    return _C.index_add(input, dim, _as_long(index), source, alpha)


@public(method=True)
def masked_fill(input, mask, value) -> Tensor:
    """A copy of input with `value` where mask is True."""
    return _C.masked_fill(input, mask, value)


@method
def masked_fill_(self, mask, value) -> Tensor:
    return _C.masked_fill_(self, mask, value)


@public(method=True)
def masked_select(input, mask) -> Tensor:
    """The elements where mask (broadcast) is True, as a 1-D tensor."""
    return _C.masked_select(input, mask)


@public(method=True)
def take(input, index) -> Tensor:
    """Elements of the flattened input at `index`."""
    return _C.take(input, _as_long(index))


@public(method=True)
def nonzero(input, *, as_tuple: bool = False):
    """Indices of non-zero elements: (N, ndim) int64, or one 1-D tensor per dim."""
    nz = _C.nonzero(input)
    if as_tuple:
        if input.ndim == 0:
            return (_C.select(nz, 1, 0) if nz.shape[1] else _C.full((nz.shape[0],), 0, _C.dtype.int64),)
        return tuple(_C.select(nz, 1, d).contiguous() for d in range(input.ndim))
    return nz


@public(method=True)
def argwhere(input) -> Tensor:
    return _C.nonzero(input)


@public
def one_hot(tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim of size num_classes."""
    return _C.one_hot(tensor, num_classes)


@method
def index_put_(self, indices, values, accumulate: bool = False) -> Tensor:
    out = index_put(self, indices, values, accumulate)
    return self.copy_(out)


@public(method=True)
def index_put(input, indices, values, accumulate: bool = False) -> Tensor:
    """A copy of input with values at the positions named by the tuple of index tensors
    (a bool mask stands for the indices of its True elements over as many dims)."""
    idx = []
    for i in indices:
        i = _as_long(i)
        if i.dtype in (_C.dtype.bool, _C.dtype.uint8) and i.ndim > 0:
            nz = _C.nonzero(i)
            idx.extend(_C.select(nz, 1, d).contiguous() for d in range(i.ndim))
        else:
            idx.append(i)
    return _C.index_put(input, list(range(len(idx))), idx, values, accumulate)


def _as_long(index):
    """Index tensors as they are; lists / arrays of ints as int64 (bools stay bool)."""
    if isinstance(index, Tensor):
        return index
    t = _C.Tensor(index, None)
    if t.dtype == _C.dtype.bool or t.dtype.is_floating_point and t.numel() > 0:
        return t  # masks are expanded by the caller; float indices are rejected by the op
    return _C.to_dtype(t, _C.dtype.int64)
