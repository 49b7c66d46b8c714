"""Indexing ops: index coercion, scatter variants, nonzero's tuple form, index_put masks."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _C

Tensor = _C.Tensor
_REDUCE_NAMES = ("sum", "prod", "mean", "amax", "amin")


def as_long(index: Any) -> Tensor:
    """Index tensors as they are; lists / arrays of ints as int64 (bools stay bool)."""
    if isinstance(index, Tensor):
        return index
    t = _C.Tensor(index, None)
    if t.dtype == _C.dtype.bool or t.dtype.is_floating_point and t.numel() > 0:
        return t  # masks are expanded by the caller; float indices are rejected by the op
    return _C.to_dtype(t, _C.dtype.int64)


def _vector_index(input: Tensor, index: Any, src: Any) -> tuple:
    """A 0-d index into a 1-D input is a one-element index (and a 0-d src its one value), as
    PyTorch reads them."""
    if (isinstance(index, Tensor) and index.ndim == 0 and isinstance(input, Tensor)
            and input.ndim == 1):
        index = index.reshape(1)
        if isinstance(src, Tensor) and src.ndim == 0:
            src = src.reshape(1)
    return index, src


def check_src(op: str, index: Any, src: Any) -> None:
    """A 0-d src *tensor* holds one element, as in PyTorch: only a 0-d or one-element 1-d index
    fits it (a Python number, or value=, fills every indexed position)."""
    if not (isinstance(src, Tensor) and src.ndim == 0 and isinstance(index, Tensor)):
        return
    if index.ndim > 1:
        raise ValueError(f"{op}: index tensor must have the same number of dimensions as src "
                         f"tensor (index has {index.ndim}, src has 0)")
    if index.numel() > 1:
        raise ValueError(f"{op}: index {list(index.shape)} must not be larger than src [] (a "
                         "0-d src tensor is one element; pass a Python number to fill)")


def scatter(input: Tensor, dim: int, index: Any, src: Any, value: Any,
            reduce: Optional[str]) -> Tensor:
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter: pass src or value")
    if reduce not in (None, "add", "multiply"):
        raise ValueError(f"scatter: reduce must be None, 'add' or 'multiply', got {reduce!r} "
                         "(scatter_reduce takes 'sum', 'prod', 'mean', 'amax' and 'amin')")
    index, src = _vector_index(input, index, src)
    check_src("scatter", index, src)
    return _C.scatter(input, dim, as_long(index), src, reduce, False)


def scatter_add(input: Tensor, dim: int, index: Any, src: Any) -> Tensor:
    index, src = _vector_index(input, index, src)
    check_src("scatter_add", index, src)
    return _C.scatter_add(input, dim, as_long(index), src, False)


def _identity(reduce: str, dt: _C.dtype) -> Any:
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


def scatter_reduce(input: Tensor, dim: int, index: Any, src: Tensor, reduce: str,
                   include_self: bool) -> Tensor:
    """include_self=False leaves input's values out of the reduction at the positions that
    receive src."""
    # torch also takes 'max' / 'min' for 'amax' / 'amin' (undocumented, but accepted).
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _REDUCE_NAMES:
        raise ValueError(f"scatter_reduce: reduce must be one of {_REDUCE_NAMES}, got {reduce!r}")
    index, src = _vector_index(input, index, src)
    check_src("scatter_reduce", index, src)
    index = as_long(index)
    if include_self:
        return _C.scatter(input, dim, index, src, reduce, False)
    # torch's indices: [0, n) (the first scatter checks them for the rest)
    hit = _C.scatter(_C.full(input.shape, False, _C.dtype.bool), dim, index, True, None, False)
    if reduce == "mean":  # sum of src / number of src values, where any arrived
        total = _C.scatter(_C.masked_fill(input, hit, 0), dim, index, src, "sum")
        ones = _C.full(index.shape, 1, _C.dtype.int64)
        count = _C.scatter(_C.full(input.shape, 0, _C.dtype.int64), dim, index, ones, "sum")
        count = _C.masked_fill(count, _C.logical_not(hit), 1)
        mode = None if input.dtype.is_floating_point else "floor"
        return _C.to_dtype(_C.div(total, count, mode), input.dtype)
    base = _C.masked_fill(input, hit, _identity(reduce, input.dtype))
    return _C.scatter(base, dim, index, src, reduce)


def nonzero(input: Tensor, as_tuple: bool) -> Any:
    nz = _C.nonzero(input)
    if as_tuple:
        if input.ndim == 0:
            return (_C.select(nz, 1, 0) if nz.shape[1]
                    else _C.full((nz.shape[0],), 0, _C.dtype.int64),)
        return tuple(_C.select(nz, 1, d).contiguous() for d in range(input.ndim))
    return nz


def index_put(input: Tensor, indices: Any, values: Any, accumulate: bool) -> Tensor:
    """A bool mask among the indices stands for the indices of its True elements."""
    idx = []
    for i in indices:
        i = as_long(i)
        if i.dtype in (_C.dtype.bool, _C.dtype.uint8) and i.ndim > 0:
            nz = _C.nonzero(i)
            idx.extend(_C.select(nz, 1, d).contiguous() for d in range(i.ndim))
        else:
            idx.append(i)
    return _C.index_put(input, list(range(len(idx))), idx, values, accumulate)
