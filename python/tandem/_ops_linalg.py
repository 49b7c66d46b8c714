"""Linear algebra: matmul family, contractions, and the ``linalg`` namespace."""
from __future__ import annotations

import math
import types
from typing import Sequence, Union

from . import _C
from ._registry import public, method, PUBLIC

Tensor = _C.Tensor


@public(method=True)
def matmul(input, other) -> Tensor:
    """Matrix product with numpy semantics (1-D promotion, broadcast batch dims)."""
    return _C.matmul(input, other)


@method(name="__matmul__")
def _matmul(self, other):
    return _C.matmul(self, other if isinstance(other, Tensor) else Tensor(other))


@method(name="__rmatmul__")
def _rmatmul(self, other):
    return _C.matmul(Tensor(other), self)


@public(method=True)
def mm(input, mat2) -> Tensor:
    return _C.mm(input, mat2)


@public(method=True)
def bmm(input, mat2) -> Tensor:
    return _C.bmm(input, mat2)


@public(method=True)
def mv(input, vec) -> Tensor:
    return _C.mv(input, vec)


@public(method=True)
def dot(input, other) -> Tensor:
    return _C.dot(input, other)


@public(method=True)
def inner(input, other) -> Tensor:
    if input.ndim == 0 or other.ndim == 0:
        return _C.mul(input, other)
    return _C.tensordot(input, other, [-1], [-1])


@public(method=True)
def outer(input, vec2) -> Tensor:
    return _C.outer(input, vec2)


PUBLIC["ger"] = outer


@public(method=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    return _C.addmm(input, mat1, mat2, beta, alpha)


@public(method=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    return _C.baddbmm(input, batch1, batch2, beta, alpha)


@public
def tensordot(a, b, dims: Union[int, Sequence] = 2) -> Tensor:
    """Contraction over the last `dims` dims of a and the first of b, or explicit lists."""
    if isinstance(dims, int):
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _C.tensordot(a, b, da, db)


@public
def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation, e.g. einsum('bij,bjk->bik', a, b)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _C.einsum(equation, list(operands))


@public(method=True)
def trace(input) -> Tensor:
    return _C.trace(input)


@public(method=True)
def cross(input, other, dim: int = -1) -> Tensor:
    return _C.cross(input, other, -1 if dim is None else dim)


@public
def cdist(x1, x2, p: float = 2.0) -> Tensor:
    return _C.cdist(x1, x2, p)


def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        x = _C.to_dtype(x, dtype)
    d = [dim] if isinstance(dim, int) else (None if dim is None else list(dim))
    return _C.norm(x, float(ord), d, keepdim)


def _matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False):
    if ord != "fro":
        raise NotImplementedError(f"matrix_norm: ord={ord!r} needs an SVD; only 'fro' is supported")
    return _C.norm(x, 2.0, list(dim), keepdim)


def _norm(x, ord=None, dim=None, keepdim=False):
    if ord is None or ord == "fro":
        return _C.norm(x, 2.0, None if dim is None else ([dim] if isinstance(dim, int) else list(dim)), keepdim)
    if isinstance(ord, str):
        raise NotImplementedError(f"linalg.norm: ord={ord!r} is not supported")
    if dim is None and x.ndim == 2:
        raise NotImplementedError("linalg.norm: numeric matrix norms need an SVD; pass dim for a vector norm")
    return _vector_norm(x, ord, dim, keepdim)


linalg = types.SimpleNamespace(
    inv=_C.inv, norm=_norm, vector_norm=_vector_norm, matrix_norm=_matrix_norm,
    matmul=_C.matmul, cross=cross,
)
PUBLIC["linalg"] = linalg
PUBLIC["inverse"] = _C.inv
