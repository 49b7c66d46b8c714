"""Cell / Module: the building block of networks. One class with MindSpore's names (Cell,
construct, trainable_params, parameters_and_names, set_train, ...) and PyTorch's
(Module, forward, parameters, named_parameters, state_dict, train/eval, ...)."""
from __future__ import annotations

from collections import OrderedDict
from typing import (Any, Callable, Dict, List, Mapping, NamedTuple, Optional,
                    Set, Tuple, TypeVar, Union)

from .. import _C
from ..jit import note_guard, note_same_object
from .parameter import Parameter
from .tree import CellTree

Tensor = _C.Tensor

_T = TypeVar("_T", bound="Cell")
#: hook(module, args) -> None or replacement args.
PreHook = Callable[["Cell", Tuple[Any, ...]], Any]
#: hook(module, args, output) -> None or a replacement output.
PostHook = Callable[["Cell", Tuple[Any, ...], Any], Any]


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` did not match: the module's keys missing from the state dict
    and the state dict's keys the module does not have."""

    missing_keys: List[str]
    unexpected_keys: List[str]


class _HookHandle:
    """Returned by register_*_hook; remove() unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks: Dict[int, Any]) -> None:
        self._hooks = hooks
        self.id = _HookHandle._next_id
        _HookHandle._next_id += 1

    def remove(self) -> None:
        """Unregisters the hook (a second call does nothing)."""
        self._hooks.pop(self.id, None)


def _training_flag(cell: object) -> bool:
    flag: bool = cell.__dict__["_training"]
    return flag


class Cell(CellTree):
    """Base class of all networks. Subclasses define their layers in ``__init__`` (assigning
    Parameters and Cells as attributes registers them) and the computation in ``construct``
    (MindSpore) or ``forward`` (PyTorch); calling the cell runs it (compiled under
    ``set_context(mode=GRAPH_MODE)``).

    Args:
        *args: ignored (MindSpore's Cell accepts ``auto_prefix`` and ``flags``).
        **kwargs: ignored, as `args`.
    """

    # The registries, created by __init__ (declared for type checkers).
    _params: "OrderedDict[str, Optional[Parameter]]"
    _buffers: "OrderedDict[str, Optional[Tensor]]"
    _non_persistent: Set[str]
    _cells: "OrderedDict[str, Optional[Cell]]"
    _pre_hooks: "OrderedDict[int, PreHook]"
    _post_hooks: "OrderedDict[int, PostHook]"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_pre_hooks", OrderedDict())
        object.__setattr__(self, "_post_hooks", OrderedDict())
        object.__setattr__(self, "training", True)

    @property
    def training(self) -> bool:
        """Training mode (dropout active, batch norm on batch statistics). A jit-compiled
        function that read it recompiles when it changes."""
        note_guard(self, _training_flag)
        return _training_flag(self)

    @training.setter
    def training(self, mode: bool) -> None:
        object.__setattr__(self, "_training", bool(mode))

    # PyTorch's names for the registries, read (and written) by user code: the same
    # ordered dicts, so ``self._modules[name] = m`` registers a sub-module.
    @property
    def _modules(self) -> "OrderedDict[str, Optional[Cell]]":
        cells: "OrderedDict[str, Optional[Cell]]" = self.__dict__["_cells"]
        return cells

    @property
    def _parameters(self) -> "OrderedDict[str, Optional[Parameter]]":
        params: "OrderedDict[str, Optional[Parameter]]" = self.__dict__["_params"]
        return params

    # --- attribute registration --------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(f"cannot assign '{name}' before {type(self).__name__}.__init__ "
                                 "called super().__init__()")
        for d in (self._params, self._buffers, self._cells):
            d.pop(name, None)
        if isinstance(value, Parameter):
            self.__dict__.pop(name, None)
            self._params[name] = value
        elif isinstance(value, Cell):
            self.__dict__.pop(name, None)
            self._cells[name] = value
        elif name in self.__dict__.get("_buffer_names", ()) and (value is None or isinstance(value, Tensor)):
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Union[Tensor, "Cell"]:
        """A registered parameter, buffer or sub-cell (None for one registered as None)."""
        d = self.__dict__
        for store in ("_params", "_buffers", "_cells"):
            if store in d and name in d[store]:
                value: Union[Tensor, Cell] = d[store][name]
                if _C.is_tracing():  # a compiled graph holds while this stays the same object
                    note_same_object(d[store], name, value)
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._params, self._buffers, self._cells):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Registers a tensor that is state but not a parameter (BatchNorm's running mean):
        it moves with ``to()`` and, when persistent, is saved by ``state_dict()``.

        Args:
            name (str): the attribute name of the buffer.
            tensor (Tensor, optional): its value; ``None`` reserves the name without a value.
            persistent (bool): whether ``state_dict()`` includes it. Default: ``True``.
        """
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: expected a Tensor or None, got {type(tensor).__name__}")
        self.__dict__.setdefault("_buffer_names", set()).add(name)
        self.__dict__.pop(name, None)
        self._params.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Registers a parameter under `name` (what assigning a Parameter attribute does).

        Args:
            name (str): the attribute name.
            param (Parameter, optional): the parameter; ``None`` declares an absent one (a
                layer built with ``bias=False`` registers ``bias`` as ``None``).
        """
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: expected a Parameter, got {type(param).__name__}")
        self._params[name] = param

    def add_module(self, name: str, module: Optional["Cell"]) -> None:
        """Registers a sub-cell under `name` (what assigning a Cell attribute does).

        Args:
            name (str): the attribute name.
            module (Cell, optional): the sub-cell, or ``None`` for an empty slot.
        """
        if module is not None and not isinstance(module, Cell):
            raise TypeError(f"add_module: {type(module).__name__} is not a Module/Cell")
        self._cells[name] = module

    register_module = add_module
    insert_child_to_cell = add_module

    # --- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the forward pre-hooks, ``forward`` / ``construct`` and the forward hooks.

        Args:
            *args: the inputs, passed on to ``forward``.
            **kwargs: keyword inputs, passed on to ``forward``.

        Returns:
            Any: what ``forward`` returns (a Tensor for most layers, a tuple for some), or a
            forward hook's replacement of it.
        """
        for hook in list(self._pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        amp = self.__dict__.get("_amp_dtype")
        if amp is None:
            out = self._run_in_mode(*args, **kwargs)
        else:
            out = self._run_to_float(amp, args, kwargs)
        for post in list(self._post_hooks.values()):
            r = post(self, args, out)
            if r is not None:
                out = r
        return out

    def to_float(self, dst_type: Any) -> "Cell":
        """Runs this cell and its children in `dst_type` (MindSpore's ``Cell.to_float``):
        floating inputs, parameters and intermediate tensors are cast to it where ops use
        them. Parameters themselves stay as they are (float32 master weights); the casts
        are ops, so gradients reach them in their own dtype.

        Args:
            dst_type (dtype): float16, bfloat16 or float32 (float32 inside a low-precision
                network keeps a cell, e.g. a batch norm, in full precision).

        Returns:
            Cell, this cell.

        Raises:
            ValueError: dst_type is not one of those.
        """
        ok = (_C.dtype.float16, _C.dtype.bfloat16, _C.dtype.float32)
        if dst_type not in ok:
            raise ValueError(f"{type(self).__name__}.to_float: dst_type must be float16, "
                             f"bfloat16 or float32, got {dst_type}")
        object.__setattr__(self, "_amp_dtype", dst_type)
        return self

    def _run_to_float(self, dtype: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        from .. import _amp
        with _amp.AutocastScope(_amp.ALL, dtype):
            out = self._run_in_mode(*_amp.cast_tree(args, dtype), **_amp.cast_tree(kwargs, dtype))
        if self.__dict__.get("_amp_out_fp32"):
            out = _amp.cast_tree(out, _C.dtype.float32)
        return out

    def _run_in_mode(self, *args: Any, **kwargs: Any) -> Any:
        from ..jit import GRAPH_MODE, JitFunction, get_context
        if get_context("mode") != GRAPH_MODE or kwargs or _C.is_tracing():
            return self._run(*args, **kwargs)
        if _C.is_grad_enabled() and self._needs_tape(args):
            # A compiled forward has no backward outside a compiled step, so a call whose
            # result must be differentiable (PyTorch's loss.backward() after net(X)) runs
            # eagerly; no_grad calls (evaluation) and @jit training steps still compile.
            return self._run(*args, **kwargs)
        if self.__dict__.get("_graph_eager"):
            return self._run(*args, **kwargs)
        fn = self.__dict__.get("_graph_fn")
        if fn is None:  # compiled per signature and per train/eval flag
            fn = JitFunction(lambda training, *a: self._run(*a), static_argnums=0)  # type: ignore[arg-type]
            object.__setattr__(self, "_graph_fn", fn)
        try:
            return fn(self.training, *args)
        except RuntimeError as e:
            # forward reads tensor values (boolean-mask indexing, .item()): it cannot be
            # traced, so this cell runs eagerly from now on, as PyNative would
            if "this tensor is symbolic" not in str(e):
                raise
            import warnings
            warnings.warn(f"GRAPH_MODE: {type(self).__name__}.forward reads tensor values and "
                          f"cannot be compiled; it runs eagerly ({str(e).splitlines()[0][:80]})",
                          RuntimeWarning, stacklevel=3)
            object.__setattr__(self, "_graph_eager", True)
            return self._run(*args, **kwargs)

    def _needs_tape(self, args: Tuple[Any, ...]) -> bool:
        if any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return True
        return any(p.requires_grad for p in self.parameters())

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        cls = type(self)
        if cls.forward is not Cell.forward:
            return self.forward(*args, **kwargs)
        if cls.construct is not Cell.construct:
            return self.construct(*args, **kwargs)
        raise NotImplementedError(f"{cls.__name__} defines neither construct() nor forward()")

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        """The computation (MindSpore's name); ``forward()`` is the same hook under PyTorch's.
        Subclasses override one of the two.

        Args:
            *args: the inputs.
            **kwargs: keyword inputs.

        Returns:
            Any: the outputs.
        """
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation (PyTorch's name); ``construct()`` is the same hook under
        MindSpore's. Subclasses override one of the two; call the module, not this method,
        so that hooks and graph mode apply.

        Args:
            *args: the inputs.
            **kwargs: keyword inputs.

        Returns:
            Any: the outputs.
        """
        return self.construct(*args, **kwargs)

    def register_forward_pre_hook(self, hook: PreHook) -> _HookHandle:
        """Registers ``hook(module, args)``, run before forward; a value it returns replaces
        the positional inputs (a tuple, or one value wrapped in a tuple).

        Args:
            hook (Callable): the hook.

        Returns:
            A handle whose ``remove()`` unregisters the hook.
        """
        h = _HookHandle(self._pre_hooks)
        self._pre_hooks[h.id] = hook
        return h

    def register_forward_hook(self, hook: PostHook) -> _HookHandle:
        """Registers ``hook(module, args, output)``, run after forward; a value it returns
        replaces the output.

        Args:
            hook (Callable): the hook.

        Returns:
            A handle whose ``remove()`` unregisters the hook.
        """
        h = _HookHandle(self._post_hooks)
        self._post_hooks[h.id] = hook
        return h

    # --- modes and utilities -------------------------------------------------------------------
    def train(self: _T, mode: bool = True) -> _T:
        """Sets training mode on this cell and every sub-cell (dropout active, batch norm
        uses batch statistics).

        Args:
            mode (bool): ``True`` for training, ``False`` for evaluation. Default: ``True``.

        Returns:
            Cell: this cell.
        """
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self: _T) -> _T:
        """Sets evaluation mode (``train(False)``).

        Returns:
            Cell: this cell.
        """
        return self.train(False)

    def set_train(self: _T, mode: bool = True) -> _T:
        """MindSpore's name for ``train(mode)``.

        Args:
            mode (bool): ``True`` for training, ``False`` for evaluation. Default: ``True``.

        Returns:
            Cell: this cell.
        """
        return self.train(mode)

    def apply(self: _T, fn: Callable[["Cell"], None]) -> _T:
        """Calls `fn` on every sub-cell (children first) and then on this cell, like
        PyTorch (e.g. to initialise weights).

        Args:
            fn (Callable): called with each cell.

        Returns:
            Cell: this cell.
        """
        for c in self.children():
            c.apply(fn)
        fn(self)
        return self

    def requires_grad_(self: _T, requires_grad: bool = True) -> _T:
        """Sets ``requires_grad`` of every parameter (freezes or unfreezes the cell).

        Args:
            requires_grad (bool): the new value. Default: ``True``.

        Returns:
            Cell: this cell.
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradient of every parameter.

        Args:
            set_to_none (bool): set ``.grad`` to ``None`` instead of filling it with zeros.
                Default: ``True``.
        """
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def to(self: _T, *args: Any, **kwargs: Any) -> _T:
        """Converts the floating-point parameters and buffers to a dtype, in place (CPU is
        the only device: 'cpu' is accepted, a CUDA device raises).

        Args:
            *args: a dtype among them is the target (``to(tandem.float64)``,
                ``to('cpu', tandem.float16)``).
            **kwargs: ``dtype=`` gives the target too.

        Returns:
            Cell: this cell.
        """
        from .._device import as_device, device as _device
        dtype = kwargs.get("dtype")
        if kwargs.get("device") is not None:
            as_device(kwargs["device"], "Module.to")
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, (str, _device)) or (isinstance(a, int) and not isinstance(a, bool)):
                as_device(a, "Module.to")
        if dtype is None:
            return self
        from .. import no_grad
        with no_grad():
            for m in self.modules():
                for p in m._params.values():
                    if p is not None and p.dtype.is_floating_point:
                        p.set_data(_C.to_dtype(p, dtype))
                for k, b in list(m._buffers.items()):
                    if b is not None and b.dtype.is_floating_point:
                        m._buffers[k] = _C.to_dtype(b, dtype)
        return self

    def float(self: _T) -> _T:
        """Converts floating parameters and buffers to float32.

        Returns:
            Cell: this cell.
        """
        return self.to(_C.dtype.float32)

    def double(self: _T) -> _T:
        """Converts floating parameters and buffers to float64.

        Returns:
            Cell: this cell.
        """
        return self.to(_C.dtype.float64)

    def half(self: _T) -> _T:
        """Converts floating parameters and buffers to float16.

        Returns:
            Cell: this cell.
        """
        return self.to(_C.dtype.float16)

    def cpu(self: _T) -> _T:
        """Does nothing (CPU is the only device); for PyTorch code.

        Returns:
            Cell: this cell.
        """
        return self

    def cuda(self: _T, device: Any = None) -> _T:
        """Raises: tandem has no CUDA backend (PyTorch code should check
        ``mint.cuda.is_available()``, as D2L's ``try_gpu()`` does).

        Args:
            device: the CUDA device asked for.

        Returns:
            Cell: never returns.
        """
        raise RuntimeError(f"{type(self).__name__}.cuda: tandem has no CUDA backend "
                           f"(mint.cuda.is_available() is False); keep the module on the CPU")

    # --- state ---------------------------------------------------------------------------------
    def state_dict(self, destination: Optional[Dict[str, Tensor]] = None, prefix: str = "",
                   keep_vars: bool = False) -> Dict[str, Tensor]:
        """Parameters and persistent buffers by dotted name.

        Args:
            destination (dict, optional): a dict to fill and return instead of a new
                ordered dict. Default: ``None``.
            prefix (str): prepended to every name. Default: ``''``.
            keep_vars (bool): return the parameters themselves instead of detached tensors
                sharing their data. Default: ``False``.

        Returns:
            Dict[str, Tensor]: an ordered dict name -> tensor.
        """
        out: Dict[str, Tensor] = OrderedDict() if destination is None else destination
        for mprefix, m in self.named_modules(prefix=prefix.rstrip(".")):
            for name, p in m._params.items():
                if p is not None:
                    out[f"{mprefix}.{name}" if mprefix else name] = p if keep_vars else p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[f"{mprefix}.{name}" if mprefix else name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> IncompatibleKeys:
        """Copies values into the parameters and buffers, in place.

        Args:
            state_dict (Mapping[str, Tensor]): name -> value, as ``state_dict()`` returns
                (values that are not tensors are converted).
            strict (bool): raise when a key is missing or unexpected. Default: ``True``.

        Returns:
            IncompatibleKeys: the missing and unexpected keys. A shape mismatch (and, when
            `strict`, any missing or unexpected key) raises RuntimeError.
        """
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        from .. import no_grad
        with no_grad():
            for k, target in own.items():
                if k not in state_dict:
                    continue
                v = state_dict[k]
                if not isinstance(v, Tensor):
                    v = Tensor(v)
                if tuple(v.shape) != tuple(target.shape):
                    errors.append(f"size mismatch for {k}: copying a param with shape "
                                  f"{tuple(v.shape)}, the shape in current model is "
                                  f"{tuple(target.shape)}")
                    continue
                target.copy_(v)
        if strict and (missing or unexpected):
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(map(repr, missing)))
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(map(repr, unexpected)))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return IncompatibleKeys(missing, unexpected)

    # --- printing ------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The layer's settings for its repr (``in_features=3, out_features=4, ...``);
        subclasses override it.

        Returns:
            str: the text inside the parentheses of the repr (empty by default).
        """
        return ""

    def __repr__(self) -> str:
        if _mindspore_styled(type(self)):
            return self._ms_repr()
        lines = []
        extra = self.extra_repr()
        if extra:
            lines.extend(extra.split("\n"))
        for name, cell in self._cells.items():
            child = repr(cell).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        main = type(self).__name__ + "("
        if not lines:
            return main + ")"
        if len(lines) == 1 and not self._cells:
            return main + lines[0] + ")"
        return main + "\n  " + "\n  ".join(lines) + "\n)"

    def _ms_repr(self) -> str:
        """MindSpore's layout: ``Name<extra>`` for a leaf, children indented beneath and
        the closing ``>`` on its own line for a container."""
        ms_extra = getattr(self, "ms_extra_repr", None)
        extra = ms_extra() if ms_extra is not None else self.extra_repr()
        name = type(self).__name__
        if not self._cells:
            return f"{name}<{extra}>"
        lines = [extra] if extra else []
        for key, cell in self._cells.items():
            child = "None" if cell is None else cell._ms_repr()
            lines.append(f"({key}): " + child.replace("\n", "\n  "))
        return name + "<\n  " + "\n  ".join(lines) + "\n  >"

    def __dir__(self) -> List[str]:
        return list(super().__dir__()) + list(self._params) + list(self._buffers) + list(self._cells)


def _mindspore_styled(cls: type) -> bool:
    """A Cell written MindSpore's way (construct, no forward) prints as MindSpore prints it;
    PyTorch-style modules (forward) keep PyTorch's layout."""
    for klass in cls.__mro__:
        if klass is Cell:
            return False
        if "forward" in klass.__dict__:
            return False
        if "construct" in klass.__dict__:
            return True
    return False


Module = Cell
