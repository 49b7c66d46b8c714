"""Reverse-mode autodiff, PyTorch style: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``grad`` and ``backward``. The MindSpore-style functional API (``tandem.grad``,
``tandem.value_and_grad``) lives in ``tandem._functional_grad``."""
from __future__ import annotations

import functools
from typing import Optional, Sequence, Union

from .. import _C

Tensor = _C.Tensor


class _GradMode:
    """Context manager and decorator that sets grad mode for a scope."""

    def __init__(self, enabled: bool):
        self._enabled = enabled
        self._prev = []

    def __enter__(self):
        self._prev.append(_C.is_grad_enabled())
        _C.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._prev.pop())
        return False

    def __call__(self, fn):
        enabled = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(enabled):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Disables gradient recording: ``with no_grad(): ...`` or ``@no_grad()``."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
    """Enables gradient recording inside a no_grad region."""

    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):
    """Sets grad mode to `mode`, as a function call or a context manager."""

    def __init__(self, mode: bool):
        super().__init__(bool(mode))
        self._prev.append(_C.is_grad_enabled())
        _C.set_grad_enabled(bool(mode))

    def __enter__(self):
        return self

    def __call__(self, fn):
        # As a decorator the mode applies to calls only: undo what __init__ set.
        _C.set_grad_enabled(self._prev.pop())
        return super().__call__(fn)


def is_grad_enabled() -> bool:
    return _C.is_grad_enabled()


def _as_list(x):
    if x is None:
        return None
    return [x] if isinstance(x, Tensor) else list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, allow_unused: bool = False):
    """Gradients of outputs with respect to inputs, without touching ``.grad``.

    Returns a tuple with one tensor (or None when unused and allow_unused) per input."""
    outs, ins = _as_list(outputs), _as_list(inputs)
    gos = _as_list(grad_outputs) or [None] * len(outs)
    gos = [g if g is None or isinstance(g, Tensor) else Tensor(g) for g in gos]
    retain = create_graph if retain_graph is None else bool(retain_graph)
    return tuple(_C.grad(outs, ins, gos, retain, bool(create_graph), bool(allow_unused)))


def backward(tensors, grad_tensors=None, retain_graph: Optional[bool] = None,
             create_graph: bool = False) -> None:
    """Accumulates gradients of `tensors` into the leaves' ``.grad``."""
    ts = _as_list(tensors)
    gs = _as_list(grad_tensors) or [None] * len(ts)
    retain = create_graph if retain_graph is None else bool(retain_graph)
    _C.backward(ts, gs, retain, bool(create_graph))

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "grad", "backward"]
