"""Shape and view ops. Views share memory with their input, so writes show through."""
from __future__ import annotations

import operator
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


def _wrap_dim(d: int, ndim: int, op: str) -> int:
    """d wrapped into [0, ndim) (a 0-d tensor accepts 0 and -1), else IndexError."""
    lim = builtin_max(ndim, 1)
    if not -lim <= d < lim:
        raise IndexError(f"{op}: dimension out of range (expected to be in range of "
                         f"[{-lim}, {lim - 1}], but got {d})")
    return d % lim if ndim else 0


@public(method=True)
def movedim(input, source, destination) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"movedim: source {src} and destination {dst} must name the same "
                         "number of dims")
    n = input.ndim
    src = [_wrap_dim(s, n, "movedim") for s in src]
    dst = [_wrap_dim(d, n, "movedim") for d in dst]
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise ValueError(f"movedim: repeated dim in {name} {ds}")
    if n == 0:
        return _C.permute(input, [])
    order = [i for i in range(n) if i not in src]
    perm = [None] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return _C.permute(input, perm)




# --- copies ----------------------------------------------------------------------------------

def _tensors(tensors, op: str) -> list:
    """A list of Tensors from a list / tuple (PyTorch rejects a bare Tensor here too)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}: expected a list or tuple of Tensors, got {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: expected a sequence of Tensors, but element {i} is "
                            f"{type(t).__name__}")
    return list(tensors)


def _ints(v, op: str, what: str) -> list:
    """An int, a sequence of ints or an integer Tensor as a list of ints."""
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, int):
        return [v]
    try:
        return [operator.index(e) for e in v]
    except TypeError:
        raise TypeError(f"{op}: {what} must be an int or a sequence of ints, got {v!r}") from None


def _varargs(args, op: str, what: str) -> list:
    """Tensor.repeat(2, 3), .repeat((2, 3)) and .repeat([2, 3]) alike."""
    if len(args) == 1 and not isinstance(args[0], int):
        return _ints(args[0], op, what)
    return _ints(args, op, what)


def _axis(dim, axis):
    return dim if axis is None else axis


@public
def cat(tensors, dim: int = 0, *, axis: Optional[int] = None) -> Tensor:
    """Joins tensors along an existing dim; the result dtype is their promoted type.

    As in PyTorch, 1-D tensors of shape (0,) are skipped in the shape checks, so
    ``cat([empty(0), x])`` works for any x."""
    return _C.cat(_tensors(tensors, "cat"), _axis(dim, axis))


@public
def concat(tensors, dim: int = 0, *, axis: Optional[int] = None) -> Tensor:
    """Alias of cat."""
    return _C.cat(_tensors(tensors, "concat"), _axis(dim, axis))


@public
def concatenate(tensors, axis: int = 0, *, dim: Optional[int] = None) -> Tensor:
    """Alias of cat with numpy's argument name."""
    return _C.cat(_tensors(tensors, "concatenate"), _axis(axis, dim))


@public
def stack(tensors, dim: int = 0, *, axis: Optional[int] = None) -> Tensor:
    """Joins equal-shaped tensors along a new dim."""
    return _C.stack(_tensors(tensors, "stack"), _axis(dim, axis))


@public
def hstack(tensors) -> Tensor:
    """Joins along dim 1 (dim 0 for 1-D tensors); 0-d tensors count as 1-D."""
    return _C.hstack(_tensors(tensors, "hstack"))


@public
def vstack(tensors) -> Tensor:
    """Joins along dim 0 after turning 0-d and 1-D tensors (n,) into rows (1, n)."""
    return _C.vstack(_tensors(tensors, "vstack"))


@public
def flip(input, dims) -> Tensor:
    """A copy with the order of elements reversed along `dims`."""
    return _C.flip(input, _ints(dims, "flip", "dims"))


@method(name="flip")
def _flip(self, *dims) -> Tensor:
    return _C.flip(self, _varargs(dims, "flip", "dims"))


@public(method=True)
def fliplr(input) -> Tensor:
    """Flips left-right (dim 1); needs at least 2 dims."""
    if input.ndim < 2:
        raise ValueError(f"fliplr: input must have at least 2 dims, got shape {tuple(input.shape)}")
    return _C.flip(input, [1])


@public(method=True)
def flipud(input) -> Tensor:
    """Flips up-down (dim 0); needs at least 1 dim."""
    if input.ndim < 1:
        raise ValueError("flipud: input must have at least 1 dim, got a 0-d tensor")
    return _C.flip(input, [0])


@public(method=True)
def roll(input, shifts, dims=None) -> Tensor:
    """Shifts elements circularly along `dims`; without dims, rolls the flattened tensor and
    restores the shape."""
    d = [] if dims is None else _ints(dims, "roll", "dims")
    return _C.roll(input, _ints(shifts, "roll", "shifts"), d)


@method(name="repeat")
def _repeat(self, *sizes) -> Tensor:
    """Tiles the tensor sizes[i] times along dim i (PyTorch's Tensor.repeat; extra leading
    sizes add dims)."""
    return _C.repeat(self, _varargs(sizes, "repeat", "sizes"))


@public
def tile(input, dims) -> Tensor:
    """numpy's tile: like Tensor.repeat, with fewer `dims` than input dims padded by ones."""
    return _C.tile(input, _ints(dims, "tile", "dims"))


@method(name="tile")
def _tile(self, *dims) -> Tensor:
    return _C.tile(self, _varargs(dims, "tile", "dims"))


@public(method=True)
def repeat_interleave(input, repeats=None, dim: Optional[int] = None, *,
                      output_size: Optional[int] = None) -> Tensor:
    """Repeats each element `repeats` times along `dim` (of the flattened input when dim is
    None). repeats is an int or an integer tensor with one entry per element along dim.
    With repeats omitted, `input` holds the repeats and the result is the repeated indices
    (``repeat_interleave(tensor([2, 1])) == tensor([0, 0, 1])``)."""
    if repeats is None:
        if not isinstance(input, Tensor) or input.ndim > 1:
            raise ValueError("repeat_interleave: with repeats omitted, input must be a 0-d or "
                             "1-d integer tensor of repeats")
        n = 1 if input.ndim == 0 else input.numel()
        out = _C.repeat_interleave_tensor(_C.arange(0, n, 1, _C.dtype.int64), input, 0)
    elif isinstance(repeats, Tensor):
        out = _C.repeat_interleave_tensor(input, repeats, dim)
    elif isinstance(repeats, (list, tuple)):
        out = _C.repeat_interleave_tensor(input, _C.Tensor(list(repeats), _C.dtype.int64), dim)
    else:
        out = _C.repeat_interleave(input, operator.index(repeats), dim)
    if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
        raise ValueError(f"repeat_interleave: output_size={output_size} doesn't match the "
                         f"repeated size {out.shape[0 if dim is None else dim]}")
    return out


@public(method=True)
def tril(input, diagonal: int = 0) -> Tensor:
    """The lower triangle (j - i <= diagonal) of the last two dims; the rest is zeroed."""
    return _C.tril(input, diagonal)


@public(method=True)
def triu(input, diagonal: int = 0) -> Tensor:
    """The upper triangle (j - i >= diagonal) of the last two dims; the rest is zeroed."""
    return _C.triu(input, diagonal)


@public(method=True)
def diag(input, diagonal: int = 0) -> Tensor:
    """1-D: a square matrix with input on the given diagonal. 2-D: that diagonal as a 1-D copy."""
    return _C.diag(input, diagonal)


@public
def pad(input, pad, mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """Pads with (left, right) pairs starting from the LAST dim, like
    torch.nn.functional.pad. mode: 'constant' (fill with value; negative pads crop),
    'reflect' (mirror, pads < size), 'replicate' (repeat the edge) or 'circular' (wrap)."""
    if mode != "constant" and value not in (None, 0):
        raise ValueError(f"pad: mode '{mode}' doesn't take a value argument")
    return _C.pad(input, _ints(pad, "pad", "pad"), mode, 0.0 if value is None else float(value))


PUBLIC_ALIASES = {"moveaxis": movedim}
from ._registry import PUBLIC as _P, METHODS as _M  # noqa: E402

for _k, _v in PUBLIC_ALIASES.items():
    _P[_k] = _v
    _M[_k] = _v
