"""Linear-algebra composites and the linalg norms."""
from __future__ import annotations

import math
from typing import Any

from .. import _C

Tensor = _C.Tensor


def inner(input: Tensor, other: Tensor) -> Tensor:
    if input.ndim == 0 or other.ndim == 0:
        return _C.mul(input, other)
    if input.shape[-1] != other.shape[-1]:  # tensordot would broadcast a size-1 dim
        raise ValueError(f"inner: the last dimension must match on both inputs, got shapes "
                         f"{list(input.shape)} and {list(other.shape)}")
    return _C.tensordot(input, other, [-1], [-1])


def cross_dim(input: Tensor, dim: Any) -> int:
    """cross's dim: the given one, or (dim=None) the first dim of input with size 3, the rule
    of torch.cross and mindspore.mint.cross (linalg.cross defaults to -1 instead)."""
    if dim is not None:
        return int(dim)
    for d, n in enumerate(input.shape):
        if n == 3:
            return d
    raise ValueError(f"cross: no dimension of size 3 in input of shape {list(input.shape)}; "
                     "pass dim= naming the dim that holds the 3-vectors")


def tensordot(a: Tensor, b: Tensor, dims: Any) -> Tensor:
    if isinstance(dims, int):
        if dims < 0:
            raise ValueError(f"tensordot: dims must be >= 0 (the number of trailing dims of a "
                             f"contracted with leading dims of b), got {dims}")
        if dims > a.ndim or dims > b.ndim:
            raise ValueError(f"tensordot: dims={dims} exceeds the dims of a ({a.ndim}-D) or b "
                             f"({b.ndim}-D)")
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _C.tensordot(a, b, da, db)


def adjoint(input: Tensor) -> Tensor:
    if input.ndim == 1:
        raise ValueError("adjoint: only supported on matrices or batches of matrices, got a 1-D "
                         "tensor")
    if input.ndim == 0:  # torch returns a 0-d tensor unchanged (a view)
        return _C.reshape(input, [])
    return _C.transpose(input, -2, -1)


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
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        raise ValueError(f"linalg.matrix_norm: dim must be a pair of dims, got {dim!r}")
    if x.ndim < 2:
        raise ValueError(f"linalg.matrix_norm: the input must have at least 2 dimensions, got "
                         f"{x.ndim}-D")
    if ord == "fro":
        return _C.norm(x, 2.0, dims, keepdim)
    if ord in (1, -1, math.inf, -math.inf):  # (True is 1, as in torch)
        # the largest (smallest) column sum of |x| for +-1, row sum for +-inf (torch's order)
        d0, d1 = (d % x.ndim for d in dims)
        if d0 == d1:
            raise ValueError(f"linalg.matrix_norm: dims must be different, got {dim!r}")
        if abs(ord) == math.inf:
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        sums = _C.sum(_C.abs(x), [d0], keepdim, None)
        if sums.shape[d1] == 0 and ord > 0:  # nothing to pick from: 0 (torch; amin raises)
            return _C.sum(sums, [d1], keepdim, None)
        return (_C.amax if ord > 0 else _C.amin)(sums, [d1], keepdim)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"matrix_norm: ord={ord!r} needs an SVD; 'fro', 1, -1, inf "
                                  "and -inf are supported")
    raise ValueError(f"linalg.matrix_norm: order {ord!r} is not supported (use 'fro', 'nuc', "
                     "1, -1, 2, -2, inf or -inf)")


def norm(x: Tensor, ord: Any, dim: Any, keepdim: bool) -> Tensor:
    # PyTorch's rules: an explicit dim names one dim (a vector norm) or two (a matrix norm);
    # an ord without dim needs a 1-D or 2-D input; a string ord is a matrix norm.
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise ValueError(f"linalg.norm: dim must name 1 or 2 dims, got {dim!r}")
    elif ord is not None and x.ndim not in (1, 2):
        raise ValueError(f"linalg.norm: with ord and no dim the input must be 1-D or 2-D, got "
                         f"{x.ndim}-D; pass dim")
    if isinstance(ord, str):
        return matrix_norm(x, ord, [0, 1] if dim is None else dim, keepdim)
    if ord is None:
        return _C.norm(x, 2.0, _dims(dim), keepdim)
    if dim is not None and not isinstance(dim, int) and len(dim) == 2:
        return matrix_norm(x, ord, dim, keepdim)  # a numeric ord over two dims
    if dim is None and x.ndim == 2:
        return matrix_norm(x, ord, [0, 1], keepdim)
    return vector_norm(x, ord, dim, keepdim, None)
