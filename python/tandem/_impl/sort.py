"""Scans, sorting and counting: dim defaults and result tuples."""
from __future__ import annotations

from typing import Any

from .. import _C
from . import args as _args
from .reduce import values_indices

__all__ = ["values_indices", "required_dim", "dim_or_last", "median", "unique_result"]


def required_dim(op: str, dim: Any, axis: Any) -> int:
    d = _args.dims(dim, axis)
    if d is None:
        raise TypeError(f"{op}: missing the required argument dim")
    return int(d)


def dim_or_last(dim: Any, axis: Any) -> int:
    d = _args.dims(dim, axis)
    return -1 if d is None else int(d)


def median(name: str, input: Any, dim: Any, keepdim: bool, axis: Any) -> Any:
    d = _args.dims(dim, axis)
    if d is None:
        return getattr(_C, name)(input)
    return values_indices(*getattr(_C, name + "_dim")(input, int(d), bool(keepdim)))


def unique_result(res: Any, return_inverse: bool, return_counts: bool) -> Any:
    values, inverse, counts = res
    out = [values]
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)
