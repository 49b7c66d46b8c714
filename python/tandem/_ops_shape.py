"""Shape and view ops. Views share memory with their input, so writes show through."""
from __future__ import annotations

from typing import List, Optional, Sequence, Union

from . import _C
from ._registry import public, method

Tensor = _C.Tensor


def _shape_args(shape):
    """Accepts f(2, 3), f((2, 3)) and f([2, 3])."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return shape


@public
def reshape(input, shape) -> Tensor:
    """A view with the new shape when strides allow, else a copy; one dim may be -1."""
    return _C.reshape(input, shape)


@method(name="reshape")
def _reshape(self, *shape) -> Tensor:
    return _C.reshape(self, _shape_args(shape))


@method(name="view")
def _view(self, *shape) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], _C.dtype):
        raise NotImplementedError("view(dtype) reinterpretation is not supported; use .to(dtype)")
    return _C.view(self, _shape_args(shape))


@method
def view_as(self, other) -> Tensor:
    return _C.view(self, other.shape)


@method
def reshape_as(self, other) -> Tensor:
    return _C.reshape(self, other.shape)


@public
def permute(input, dims) -> Tensor:
    """A view with dims reordered."""
    return _C.permute(input, dims)


@method(name="permute")
def _permute(self, *dims) -> Tensor:
    return _C.permute(self, _shape_args(dims))


@public(method=True)
def transpose(input, dim0: int, dim1: int) -> Tensor:
    """A view with two dims swapped."""
    return _C.transpose(input, dim0, dim1)


@public(method=True)
def swapaxes(input, axis0: int, axis1: int) -> Tensor:
    return _C.transpose(input, axis0, axis1)


@public(method=True)
def swapdims(input, dim0: int, dim1: int) -> Tensor:
    return _C.transpose(input, dim0, dim1)


@public(method=True)
def t(input) -> Tensor:
    """Transpose of a 2-D tensor (0-D and 1-D are returned as they are)."""
    return _C.t(input)


@public(method=True)
def adjoint(input) -> Tensor:
    return _C.transpose(input, -2, -1)


@public(method=True)
def squeeze(input, dim=None) -> Tensor:
    """Removes size-1 dims (all, or those in `dim`)."""
    return _C.squeeze(input, dim)


@public(method=True)
def unsqueeze(input, dim: int) -> Tensor:
    """Inserts a size-1 dim at `dim`."""
    return _C.unsqueeze(input, dim)


@public
def expand(input, size) -> Tensor:
    return _C.expand(input, size)


@method(name="expand")
def _expand(self, *size) -> Tensor:
    """A broadcast view; -1 keeps a dim's size."""
    return _C.expand(self, _shape_args(size))


@method
def expand_as(self, other) -> Tensor:
    return _C.expand(self, other.shape)


@public(method=True)
def broadcast_to(input, shape) -> Tensor:
    return _C.broadcast_to(input, shape)


@public
def broadcast_tensors(*tensors) -> List[Tensor]:
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return [_C.broadcast_to(t, shape) for t in tensors]


@public
def broadcast_shapes(*shapes) -> tuple:
    """The numpy-broadcast shape of several shapes."""
    out: list = []
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        n = builtin_max(len(out), len(s))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(s)) + list(s)
        res = []
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise ValueError(f"broadcast_shapes: shapes {tuple(out)} and {s} cannot be "
                                 f"broadcast: dimension {i} is {x} vs {y}")
            res.append(y if x == 1 else x)
        out = res
    return tuple(out)


builtin_max = max


@public(method=True)
def narrow(input, dim: int, start: int, length: int) -> Tensor:
    """A view of `length` elements from `start` along `dim`."""
    return _C.narrow(input, dim, int(start), length)


@public(method=True)
def select(input, dim: int, index: int) -> Tensor:
    """A view of index `index` along `dim` (the dim is removed)."""
    return _C.select(input, dim, int(index))


@public(method=True)
def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _C.diagonal(input, offset, dim1, dim2)


@public(method=True)
def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return _C.flatten(input, start_dim, end_dim)


@public(method=True)
def unflatten(input, dim: int, sizes) -> Tensor:
    return _C.unflatten(input, dim, sizes)


@public(method=True)
def ravel(input) -> Tensor:
    """A contiguous flattened tensor (a view when already contiguous)."""
    return _C.reshape(input.contiguous(), (-1,))


@public(method=True)
def as_strided(input, size, stride, storage_offset: Optional[int] = None) -> Tensor:
    off = input.storage_offset() if storage_offset is None else storage_offset
    return _C.as_strided(input, list(size), list(stride), off)


@public(method=True)
def split(tensor, split_size_or_sections, dim: int = 0):
    """Views of equal pieces (int) or of the given sizes (list) along dim."""
    if isinstance(split_size_or_sections, int):
        return tuple(_C.split(tensor, split_size_or_sections, dim))
    return tuple(_C.split_sizes(tensor, list(split_size_or_sections), dim))


@public(method=True)
def chunk(input, chunks: int, dim: int = 0):
    return tuple(_C.chunk(input, chunks, dim))


@public(method=True)
def unbind(input, dim: int = 0):
    return tuple(_C.unbind(input, dim))


@public(method=True)
def movedim(input, source, destination) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.ndim
    src = [s % n if n else 0 for s in src]
    dst = [d % n if n else 0 for d in dst]
    order = [i for i in range(n) if i not in src]
    perm = [None] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return _C.permute(input, perm)


PUBLIC_ALIASES = {"moveaxis": movedim}
from ._registry import PUBLIC as _P, METHODS as _M  # noqa: E402

for _k, _v in PUBLIC_ALIASES.items():
    _P[_k] = _v
    _M[_k] = _v
