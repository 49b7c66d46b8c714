"""Linear-algebra composites and the linalg norms."""
from __future__ import annotations

from typing import Any

from .. import _C

Tensor = _C.Tensor


def inner(input: Tensor, other: Tensor) -> Tensor:
    if input.ndim == 0 or other.ndim == 0:
        return _C.mul(input, other)
    return _C.tensordot(input, other, [-1], [-1])


def tensordot(a: Tensor, b: Tensor, dims: Any) -> Tensor:
    if isinstance(dims, int):
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _C.tensordot(a, b, da, db)


def einsum(equation: str, operands: tuple) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _C.einsum(equation, list(operands))


def _dims(dim: Any) -> Any:
    # dim=() reduces every dim, as in PyTorch
    return [dim] if isinstance(dim, int) else (None if dim is None or len(dim) == 0 else list(dim))


def vector_norm(x: Tensor, ord: Any, dim: Any, keepdim: bool, dtype: Any) -> Tensor:
    if dtype is not None:
        x = _C.to_dtype(x, dtype)
    return _C.norm(x, float(ord), _dims(dim), keepdim)


def matrix_norm(x: Tensor, ord: Any, dim: Any, keepdim: bool) -> Tensor:
    if ord != "fro":
        raise NotImplementedError(f"matrix_norm: ord={ord!r} needs an SVD; only 'fro' is supported")
    return _C.norm(x, 2.0, list(dim), keepdim)


def norm(x: Tensor, ord: Any, dim: Any, keepdim: bool) -> Tensor:
    if ord is None or ord == "fro":
        return _C.norm(x, 2.0, _dims(dim), keepdim)
    if isinstance(ord, str):
        raise NotImplementedError(f"linalg.norm: ord={ord!r} is not supported")
    if dim is None and x.ndim == 2:
        raise NotImplementedError("linalg.norm: numeric matrix norms need an SVD; pass dim for "
                                  "a vector norm")
    return vector_norm(x, ord, dim, keepdim, None)
