"""Mixed precision, shared by both faces: the autocast scope (``mint.autocast``,
``amp.auto_mixed_precision``, ``Cell.to_float``), loss scaling (``mint.amp.GradScaler``,
``amp.DynamicLossScaler``) and the finiteness check.

The casting itself is in C++ (src/tandem/ops/autocast.h): the op functions on PyTorch's CPU
lower-precision list cast float32 inputs to the low dtype, those on its float32 list cast
low-precision inputs to float32 (mode "lists"), and inside a ``to_float`` cell every op's
floating inputs are cast to the cell's dtype (mode "all"). Casts are ordinary ops, so
autograd and graph mode see them; backward never autocasts.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Iterable

from . import _C

Tensor = _C.Tensor

OFF, LISTS, ALL = 0, 1, 2
_LOW = (_C.dtype.bfloat16, _C.dtype.float16)


def _floating(t: Any) -> bool:
    return isinstance(t, Tensor) and t.dtype.is_floating_point


def map_tensors(obj: Any, fn: Callable[[Tensor], Any]) -> Any:
    """fn applied to every tensor of a nested tuple/namedtuple/list/dict; other leaves kept."""
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(map_tensors(o, fn) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(map_tensors(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj


def cast_tree(obj: Any, dtype: Any) -> Any:
    """Floating tensors in a nested tuple/list/dict cast to dtype; everything else unchanged."""
    return map_tensors(obj, lambda t: t.to(dtype) if t.dtype.is_floating_point
                       and t.dtype != dtype else t)


class AutocastScope:
    """Sets this thread's autocast state for a ``with`` block or a decorated function and
    restores the previous one on exit (nesting and disabled inner regions work)."""

    def __init__(self, mode: int, dtype: Any) -> None:
        self._mode, self._dtype = mode, dtype
        self._saved: list = []

    def __enter__(self) -> "AutocastScope":
        self._saved.append(_C.autocast_state())
        _C.set_autocast_state(self._mode, self._dtype)
        return self

    def __exit__(self, *exc: Any) -> None:
        mode, dtype = self._saved.pop()
        _C.set_autocast_state(mode, dtype)

    def __call__(self, fn: Callable) -> Callable:
        """Decorates fn so that every call runs inside this scope.

        Args:
            fn (Callable): the function.

        Returns:
            Callable, the wrapped function.
        """
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapped


def state() -> tuple:
    """(mode, dtype) of this thread's autocast (mode 0 off, 1 op lists, 2 cast all)."""
    return _C.autocast_state()


def all_finite(inputs: Iterable[Tensor]) -> Tensor:
    """A 0-d bool tensor: every element of every tensor in inputs is finite. Written with
    tensor ops, so it compiles into a graph without reading values in Python."""
    flags = [_C.all(_C.isfinite(t), None, False) for t in inputs if isinstance(t, Tensor)
             and t.numel() > 0]
    if not flags:
        return _C.full([], 1, _C.dtype.bool)
    out = flags[0]
    for f in flags[1:]:
        out = _C.logical_and(out, f)
    return out


def check_autocast_dtype(dtype: Any, where: str) -> Any:
    if dtype not in _LOW:
        raise ValueError(f"{where}: dtype must be bfloat16 or float16 on CPU, got {dtype}")
    return dtype


def warn_disabled(msg: str) -> None:
    warnings.warn(msg, UserWarning, stacklevel=3)
