"""Shape ops with argument logic: views by *shape, broadcasting, splits, movedim, flips,
repeat_interleave, pad."""
from __future__ import annotations

import builtins
import operator
from typing import Any, List, Optional, Sequence

from .. import _C
from . import args as _args

Tensor = _C.Tensor


def view(self: Tensor, shape: tuple) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], _C.dtype):
        raise NotImplementedError("view(dtype) reinterpretation is not supported; use .to(dtype)")
    return _C.view(self, _args.shape(shape, "view"))


def broadcast_shapes(shapes: Sequence[Any]) -> tuple:
    """The numpy-broadcast shape of several shapes."""
    out: list = []
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        if builtins.any(not isinstance(d, int) or d < 0 for d in s):
            raise ValueError(f"broadcast_shapes: a shape must hold non-negative ints, got {s}")
        n = builtins.max(len(out), len(s))
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


def broadcast_tensors(tensors: Sequence[Tensor]) -> List[Tensor]:
    shape = broadcast_shapes([t.shape for t in tensors])
    return [_C.broadcast_to(t, shape) for t in tensors]


def split(tensor: Tensor, split_size_or_sections: Any, dim: int) -> tuple:
    if isinstance(split_size_or_sections, int):
        return tuple(_C.split(tensor, split_size_or_sections, dim))
    return tuple(_C.split_sizes(tensor, list(split_size_or_sections), dim))


def _wrap_dim(d: int, ndim: int, op: str) -> int:
    """d wrapped into [0, ndim) (a 0-d tensor accepts 0 and -1), else IndexError."""
    lim = builtins.max(ndim, 1)
    if not -lim <= d < lim:
        raise IndexError(f"{op}: dimension out of range (expected to be in range of "
                         f"[{-lim}, {lim - 1}], but got {d})")
    return d % lim if ndim else 0


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
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
    perm: List[Optional[int]] = [None] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    return _C.permute(input, [p if p is not None else next(it) for p in perm])


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise ValueError(f"fliplr: input must have at least 2 dims, got shape {tuple(input.shape)}")
    return _C.flip(input, [1])


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise ValueError("flipud: input must have at least 1 dim, got a 0-d tensor")
    return _C.flip(input, [0])


def repeat_interleave(input: Tensor, repeats: Any, dim: Optional[int],
                      output_size: Optional[int]) -> Tensor:
    if dim is not None and isinstance(input, Tensor) and input.ndim == 0:
        raise IndexError(f"repeat_interleave: dimension specified as {dim} but the tensor has "
                         "no dimensions; pass dim=None to repeat a 0-d tensor")
    if repeats is None:
        if not isinstance(input, Tensor) or input.ndim != 1:
            raise ValueError("repeat_interleave: with repeats omitted, input must be a 1-d "
                             "integer tensor of repeats (as in PyTorch)")
        n = input.numel()
        # the indices have the repeats' dtype, as in torch (int32 repeats give int32)
        idx = _C.dtype.int32 if input.dtype == _C.dtype.int32 else _C.dtype.int64
        out = _C.repeat_interleave_tensor(_C.arange(0, n, 1, idx), input, 0)
    elif isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise ValueError(f"repeat_interleave: repeats must be a 0-d or 1-d tensor, got shape "
                             f"{list(repeats.shape)}")
        out = _C.repeat_interleave_tensor(input, repeats, dim)
    elif isinstance(repeats, (list, tuple)):
        out = _C.repeat_interleave_tensor(input, _C.Tensor(list(repeats), _C.dtype.int64), dim)
    else:
        out = _C.repeat_interleave(input, operator.index(repeats), dim)
    if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
        raise ValueError(f"repeat_interleave: output_size={output_size} doesn't match the "
                         f"repeated size {out.shape[0 if dim is None else dim]}")
    return out


def pad(input: Tensor, pad: Any, mode: str, value: Optional[float]) -> Tensor:
    if mode != "constant" and value not in (None, 0):
        raise ValueError(f"pad: mode '{mode}' doesn't take a value argument")
    return _C.pad(input, _args.ints(pad, "pad", "pad"), mode, 0.0 if value is None else float(value))
