"""Scans (cumsum, cummax, ...), sorting and selection (sort, topk, median, ...) and counting
(unique, bincount, histc, searchsorted), with PyTorch's signatures. Ops along one dim also
accept numpy/MindSpore's ``axis``; ops returning values and indices return a namedtuple."""
from __future__ import annotations

from typing import Optional

from . import _C
from ._ops_reduce import _dim, values_indices
from ._registry import public

Tensor = _C.Tensor


def _req_dim(op: str, dim, axis) -> int:
    d = _dim(dim, axis)
    if d is None:
        raise TypeError(f"{op}: missing the required argument dim")
    return int(d)


@public(method=True)
def cumsum(input, dim: Optional[int] = None, *, dtype=None, axis: Optional[int] = None) -> Tensor:
    """Running sum along `dim`; integers and bool accumulate in int64 unless dtype is given."""
    return _C.cumsum(input, _req_dim("cumsum", dim, axis), dtype)


@public(method=True)
def cumprod(input, dim: Optional[int] = None, *, dtype=None, axis: Optional[int] = None) -> Tensor:
    """Running product along `dim`; integers and bool accumulate in int64 unless dtype is given."""
    return _C.cumprod(input, _req_dim("cumprod", dim, axis), dtype)


@public(method=True)
def cummax(input, dim: Optional[int] = None, *, axis: Optional[int] = None):
    """(values, indices) of the running maximum along `dim`."""
    return values_indices(*_C.cummax(input, _req_dim("cummax", dim, axis)))


@public(method=True)
def cummin(input, dim: Optional[int] = None, *, axis: Optional[int] = None):
    """(values, indices) of the running minimum along `dim`."""
    return values_indices(*_C.cummin(input, _req_dim("cummin", dim, axis)))


@public(method=True)
def logcumsumexp(input, dim: Optional[int] = None, *, axis: Optional[int] = None) -> Tensor:
    """log(cumsum(exp(input))) along `dim`, computed without overflow."""
    return _C.logcumsumexp(input, _req_dim("logcumsumexp", dim, axis))


def _dim_or_last(dim, axis) -> int:
    d = _dim(dim, axis)
    return -1 if d is None else int(d)


@public(method=True)
def sort(input, dim: int = -1, descending: bool = False, stable: bool = False, *,
         axis: Optional[int] = None):
    """(values, indices) sorted along `dim`; NaN sorts last (first when descending).
    The sort is always stable."""
    return values_indices(*_C.sort(input, _dim_or_last(dim, axis), bool(descending), bool(stable)))


@public(method=True)
def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False, *,
            axis: Optional[int] = None) -> Tensor:
    """Indices that sort `input` along `dim` (stable)."""
    return _C.argsort(input, _dim_or_last(dim, axis), bool(descending), bool(stable))


@public(method=True)
def msort(input) -> Tensor:
    """`input` sorted along dim 0."""
    return _C.msort(input)


@public(method=True)
def topk(input, k: int, dim: Optional[int] = -1, largest: bool = True, sorted: bool = True, *,
         axis: Optional[int] = None):  # noqa: A002 - PyTorch's name
    """(values, indices) of the k largest (smallest when largest=False) along `dim`, best
    first; NaN counts as the largest value."""
    return values_indices(*_C.topk(input, int(k), _dim_or_last(dim, axis), bool(largest),
                                   bool(sorted)))


@public(method=True)
def kthvalue(input, k: int, dim: Optional[int] = -1, keepdim: bool = False, *,
             axis: Optional[int] = None, keepdims: bool = False):
    """(values, indices) of the k-th smallest element (1-based) along `dim`."""
    return values_indices(*_C.kthvalue(input, int(k), _dim_or_last(dim, axis),
                                       bool(keepdim or keepdims)))


def _median(name, input, dim, keepdim, axis, keepdims):
    d = _dim(dim, axis)
    if d is None:
        return getattr(_C, name)(input)
    return values_indices(*getattr(_C, name + "_dim")(input, int(d), bool(keepdim or keepdims)))


@public(method=True)
def median(input, dim: Optional[int] = None, keepdim: bool = False, *,
           axis: Optional[int] = None, keepdims: bool = False):
    """median(input) -> the lower median of all elements (NaN if any is NaN);
    median(input, dim) -> (values, indices) along `dim`."""
    return _median("median", input, dim, keepdim, axis, keepdims)


@public(method=True)
def nanmedian(input, dim: Optional[int] = None, keepdim: bool = False, *,
              axis: Optional[int] = None, keepdims: bool = False):
    """median ignoring NaNs (NaN only where every element is NaN)."""
    return _median("nanmedian", input, dim, keepdim, axis, keepdims)


@public(method=True)
def mode(input, dim: Optional[int] = -1, keepdim: bool = False, *, axis: Optional[int] = None,
         keepdims: bool = False):
    """(values, indices): the most frequent value along `dim` (the smallest on ties) and the
    index of its last occurrence."""
    return values_indices(*_C.mode(input, _dim_or_last(dim, axis), bool(keepdim or keepdims)))


def _unique_result(res, return_inverse, return_counts):
    values, inverse, counts = res
    out = [values]
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


@public(method=True)
def unique(input, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: Optional[int] = None):
    """Distinct elements (of the flattened input, or distinct slices along `dim`), sorted;
    optionally the inverse indices and the counts. Eager only: the size depends on the data."""
    res = _C.unique(input, bool(sorted), bool(return_inverse), bool(return_counts),
                    None if dim is None else int(dim))
    return _unique_result(res, return_inverse, return_counts)


@public(method=True)
def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None):
    """Collapses runs of equal neighbours (elements, or slices along `dim`), keeping order."""
    res = _C.unique_consecutive(input, bool(return_inverse), bool(return_counts),
                                None if dim is None else int(dim))
    return _unique_result(res, return_inverse, return_counts)


@public(method=True)
def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count of each non-negative integer in the 1-D `input` (summed `weights` when given)."""
    return _C.bincount(input, weights, int(minlength))


@public(method=True)
def histc(input, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Histogram with `bins` equal bins over [min, max] (the data's range when min == max);
    values outside the range are ignored."""
    return _C.histc(input, int(bins), float(min), float(max))


@public
def searchsorted(sorted_sequence, input, *, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter=None) -> Tensor:
    """Indices where `input` would be inserted into the last dim of `sorted_sequence` to keep
    it sorted (side='right' / right=True: after equal elements)."""
    return _C.searchsorted(sorted_sequence, input, bool(out_int32), bool(right), side, sorter)
