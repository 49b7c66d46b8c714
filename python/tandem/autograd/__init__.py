"""Reverse-mode autodiff, PyTorch style: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``grad`` and ``backward``. The MindSpore-style functional API (``tandem.grad``,
``tandem.value_and_grad``) lives in ``tandem._functional_grad``."""
from __future__ import annotations

import functools
from types import TracebackType
from typing import Any, Callable, List, Literal, Optional, Sequence, Tuple, Type, TypeVar, Union

from .. import _C

Tensor = _C.Tensor

_F = TypeVar("_F", bound=Callable[..., Any])
_G = TypeVar("_G", bound="_GradMode")
#: One tensor or a sequence of them.
_Tensors = Union[Tensor, Sequence[Tensor]]


class _GradMode:
    """Context manager and decorator that sets grad mode for a scope."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._prev: List[bool] = []

    def __enter__(self: _G) -> _G:
        """Enters the scope: saves the current grad mode and sets this one.

        Returns:
            The context manager itself.
        """
        self._prev.append(_C.is_grad_enabled())
        _C.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        """Leaves the scope: restores the grad mode saved on entry (exceptions propagate)."""
        _C.set_grad_enabled(self._prev.pop())
        return False

    def __call__(self, fn: _F) -> _F:
        """Decorates `fn` so that every call of it runs in this grad mode.

        Args:
            fn (Callable): the function to wrap.

        Returns:
            Callable: a function with `fn`'s signature that runs it in this grad mode.
        """
        enabled = self._enabled

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with _GradMode(enabled):
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]  # functools.wraps keeps fn's signature


class _NoParamGradMode(_GradMode):
    """A grad mode also usable as a bare decorator (``@no_grad`` as well as ``@no_grad()``),
    as PyTorch's no_grad / enable_grad / inference_mode are."""

    _mode = False

    def __new__(cls, orig_func: Optional[Callable[..., Any]] = None) -> Any:
        if orig_func is not None:
            if not callable(orig_func):
                raise TypeError(f"{cls.__name__}: expected a function to decorate, got "
                                f"{type(orig_func).__name__}")
            return cls()(orig_func)
        return super().__new__(cls)

    def __init__(self, orig_func: Optional[Callable[..., Any]] = None) -> None:
        super().__init__(self._mode)


class no_grad(_NoParamGradMode):
    """Disables gradient recording: ``with no_grad(): ...``, ``@no_grad()`` or ``@no_grad``.

    Inside the scope new tensors have ``requires_grad=False`` whatever their inputs, so no
    graph is kept (inference, parameter updates by hand). Used as a decorator, it applies to
    every call of the decorated function.

    Args:
        orig_func (Callable, optional): the decorated function, when written ``@no_grad``
            without parentheses. Default: ``None``.
    """

    _mode = False


class enable_grad(_NoParamGradMode):
    """Enables gradient recording inside a no_grad region: ``with enable_grad(): ...``,
    ``@enable_grad()`` or ``@enable_grad``.

    Args:
        orig_func (Callable, optional): the decorated function, when written
            ``@enable_grad`` without parentheses. Default: ``None``.
    """

    _mode = True


class inference_mode(_GradMode):
    """PyTorch's inference_mode: no gradient recording in the scope (tandem has no separate
    inference tensors, so it is no_grad); ``inference_mode(False)`` leaves grad mode as it
    is. A context manager and a decorator, with or without parentheses.

    Args:
        mode (bool or Callable): True disables recording; a function (bare ``@inference_mode``)
            is decorated. Default: ``True``.
    """

    def __new__(cls, mode: Union[bool, Callable[..., Any]] = True) -> Any:
        if callable(mode):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: Union[bool, Callable[..., Any]] = True) -> None:
        super().__init__(False if mode else _C.is_grad_enabled())
        self._keep = not mode

    def __enter__(self) -> "inference_mode":
        """Enters the scope.

        Returns:
            inference_mode: the context manager itself.
        """
        if self._keep:
            self._enabled = _C.is_grad_enabled()
        return super().__enter__()


class set_grad_enabled(_GradMode):
    """Sets grad mode to `mode`, as a function call (``set_grad_enabled(False)`` switches it
    until changed again), a context manager (restored on exit) or a decorator (applies to
    the decorated function's calls only).

    Args:
        mode (bool): ``True`` records gradients, ``False`` does not.
    """

    def __init__(self, mode: bool) -> None:
        super().__init__(bool(mode))
        self._prev.append(_C.is_grad_enabled())
        _C.set_grad_enabled(bool(mode))

    def __enter__(self) -> "set_grad_enabled":
        """Enters the scope (the mode was already set by the constructor).

        Returns:
            set_grad_enabled: the context manager itself.
        """
        return self

    def __call__(self, fn: _F) -> _F:
        """Decorates `fn` so that its calls run with grad mode `mode`.

        Args:
            fn (Callable): the function to wrap.

        Returns:
            Callable: a function with `fn`'s signature that runs it in this grad mode.
        """
        # As a decorator the mode applies to calls only: undo what __init__ set.
        _C.set_grad_enabled(self._prev.pop())
        return super().__call__(fn)


def is_grad_enabled() -> bool:
    """Whether gradient recording is on in the current scope.

    Returns:
        bool: ``True`` unless inside ``no_grad()`` / ``set_grad_enabled(False)``.
    """
    return _C.is_grad_enabled()


def _as_list(x: Any) -> Any:
    """[x] for one tensor, list(x) for a sequence, None for None."""
    if x is None:
        return None
    return [x] if isinstance(x, Tensor) else list(x)


def grad(outputs: _Tensors, inputs: _Tensors,
         grad_outputs: Optional[Union[Tensor, Sequence[Optional[Tensor]]]] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: bool = False) -> Tuple[Optional[Tensor], ...]:
    """Gradients of outputs with respect to inputs, without touching ``.grad``.

    Args:
        outputs (Tensor or sequence of Tensor): the tensors to differentiate.
        inputs (Tensor or sequence of Tensor): the tensors to differentiate with respect to.
        grad_outputs (Tensor or sequence of Tensor, optional): the vector in the
            vector-Jacobian product, one per output (``None`` entries mean ones, which needs a
            scalar output). Default: ``None``.
        retain_graph (bool, optional): keep the graph for another backward pass; defaults to
            the value of `create_graph`. Default: ``None``.
        create_graph (bool): record the backward pass itself, so the gradients can be
            differentiated again (higher-order derivatives). Default: ``False``.
        allow_unused (bool): return ``None`` for an input the outputs do not depend on,
            instead of raising. Default: ``False``.

    Returns:
        tuple: one tensor per input (or ``None`` for an unused input when `allow_unused`).
    """
    outs, ins = _as_list(outputs), _as_list(inputs)
    gos: List[Optional[Tensor]] = [g if g is None or isinstance(g, Tensor) else Tensor(g)
                                   for g in (_as_list(grad_outputs) or [None] * len(outs))]
    retain = create_graph if retain_graph is None else bool(retain_graph)
    return tuple(_C.grad(outs, ins, gos, retain, bool(create_graph), bool(allow_unused)))


def backward(tensors: _Tensors, grad_tensors: Optional[_Tensors] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False) -> None:
    """Accumulates gradients of `tensors` into the leaves' ``.grad``.

    Args:
        tensors (Tensor or sequence of Tensor): the tensors whose gradient is computed.
        grad_tensors (Tensor or sequence of Tensor, optional): the gradient with respect to
            each of `tensors` (``None``: ones, for scalar tensors). Default: ``None``.
        retain_graph (bool, optional): keep the graph for another backward pass; defaults to
            the value of `create_graph`. Default: ``None``.
        create_graph (bool): record the backward pass itself (higher-order derivatives).
            Default: ``False``.
    """
    ts = _as_list(tensors)
    gs: List[Optional[Tensor]] = _as_list(grad_tensors) or [None] * len(ts)
    retain = create_graph if retain_graph is None else bool(retain_graph)
    _C.backward(ts, gs, retain, bool(create_graph))


__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled", "grad",
           "backward"]
