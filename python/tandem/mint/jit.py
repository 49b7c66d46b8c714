"""``mint.jit``: TorchScript's entry points mapped onto tandem's compiler. ``script(module)``
and ``trace(module, example_inputs)`` return a module whose calls run a compiled graph
(tandem.jit: traced on the first call of each input signature, then run in C++), with the
same parameters; ``save(path)`` writes tandem's deployable model file (graph and weights,
runnable by the Python-free runtime), which is what a saved TorchScript module is for. It is
not a TorchScript archive: ``mint.jit.load`` reads tandem's file back as a runnable model."""
from __future__ import annotations

import os
from typing import Any, Callable, Optional, Tuple, Union

from ..jit import jit as _jit
from .._layers.cell import Module

__all__ = ["script", "trace", "load", "ScriptModule"]


class ScriptModule(Module):
    """A module whose forward is compiled by tandem.jit; ``.original`` is the wrapped module
    (its parameters are this module's).

    Args:
        module (Module or Callable): the module or function to compile.
        example_inputs (tuple, optional): inputs to compile for right away (trace).
    """

    def __init__(self, module: Union[Module, Callable[..., Any]],
                 example_inputs: Optional[Tuple[Any, ...]] = None) -> None:
        super().__init__()
        if isinstance(module, Module):
            self.original = module
        else:
            object.__setattr__(self, "original_fn", module)
        object.__setattr__(self, "_compiled", _jit(self._call_original))
        object.__setattr__(self, "_last_inputs", None)
        if example_inputs is not None:
            self(*example_inputs)

    def _call_original(self, *args: Any) -> Any:
        target = self.__dict__.get("original_fn") or self.original
        return target(*args)

    def forward(self, *args: Any) -> Any:
        """The compiled call.

        Args:
            *args: the module's inputs.

        Returns:
            Any: its outputs.
        """
        object.__setattr__(self, "_last_inputs", args)
        return self._compiled(*args)

    def save(self, f: Union[str, "os.PathLike[str]"], **kwargs: Any) -> str:
        """Writes tandem's model file (graph and weights) traced at the last inputs seen.

        Args:
            f (str or PathLike): the path, used as given.
            **kwargs: ignored (TorchScript's _extra_files).

        Returns:
            str: the path written.
        """
        if self._last_inputs is None:
            raise RuntimeError("ScriptModule.save: call the module once first (tandem traces "
                               "the graph it saves at real inputs)")
        from ..export import mint_export
        target = self.__dict__.get("original_fn") or self.original
        mint_export(target, tuple(self._last_inputs), os.fspath(f))
        return os.fspath(f)


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> ScriptModule:
    """Compiles a module (or function) with tandem.jit.

    Args:
        obj (Module or Callable): what to compile.
        optimize: ignored (TorchScript's deprecated flag).
        _frames_up: ignored.
        _rcb: ignored.
        example_inputs: ignored (the graph is traced at the first call).

    Returns:
        ScriptModule: the compiled module.
    """
    if isinstance(obj, ScriptModule):
        return obj
    if not callable(obj):
        raise TypeError(f"mint.jit.script: expected a module or a function, got "
                        f"{type(obj).__name__}")
    return ScriptModule(obj)


def trace(func: Any, example_inputs: Any = None, **kwargs: Any) -> ScriptModule:
    """Compiles a module (or function) and traces it at ``example_inputs`` now.

    Args:
        func (Module or Callable): what to compile.
        example_inputs (Tensor or tuple): the inputs to trace at.
        **kwargs: ignored (TorchScript's check_trace and friends).

    Returns:
        ScriptModule: the compiled module.
    """
    if example_inputs is None:
        raise TypeError("mint.jit.trace: example_inputs is required")
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    return ScriptModule(func, example_inputs)


def load(f: Union[str, "os.PathLike[str]"], map_location: Any = None) -> Any:
    """Loads a model file written by ScriptModule.save as a runnable model.

    Args:
        f (str or PathLike): the path.
        map_location: only the CPU.

    Returns:
        Any: the loaded model (tandem.load's GraphCell).
    """
    if map_location is not None:
        from .._device import as_device
        as_device(map_location, "mint.jit.load")
    from ..export import load as _load
    return _load(os.fspath(f))
