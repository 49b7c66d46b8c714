"""Indexing family: gather / scatter, index_select, masks, nonzero, one_hot."""
from __future__ import annotations

from typing import Optional

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


@public(method=True)
def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True) -> Tensor:
    if not include_self:
        raise NotImplementedError("scatter_reduce: include_self=False is not supported yet")
    return _C.scatter(input, dim, _as_long(index), src, reduce)


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
    """A copy of input with values at the positions named by the tuple of index tensors."""
    dims = list(range(len(indices)))
    return _C.index_put(input, dims, [_as_long(i) for i in indices], values, accumulate)


def _as_long(index):
    if isinstance(index, Tensor):
        return index
    return _C.Tensor(index, _C.dtype.int64)
