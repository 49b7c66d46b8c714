"""Cell / Module: the building block of networks. One class with MindSpore's names (Cell,
construct, trainable_params, parameters_and_names, set_train, ...) and PyTorch's
(Module, forward, parameters, named_parameters, state_dict, train/eval, ...)."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Callable, Dict, Iterator, Optional, Tuple

from .. import _C
from ..jit import note_guard
from .parameter import Parameter

Tensor = _C.Tensor

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class _HookHandle:
    """Returned by register_*_hook; remove() unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = _HookHandle._next_id
        _HookHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


def _training_flag(cell: "Cell") -> bool:
    return cell.__dict__["_training"]


class Cell:
    """Base class of all networks. Subclasses define their layers in __init__ (assigning
    Parameters and Cells as attributes registers them) and the computation in
    construct (MindSpore) or forward (PyTorch)."""

    def __init__(self, *args, **kwargs):
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
        return self.__dict__["_training"]

    @training.setter
    def training(self, mode: bool) -> None:
        object.__setattr__(self, "_training", bool(mode))

    # --- attribute registration --------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
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

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_params", "_buffers", "_cells"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._params, self._buffers, self._cells):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """A tensor that is state but not a parameter (BatchNorm's running mean)."""
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
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: expected a Parameter, got {type(param).__name__}")
        self._params[name] = param

    def add_module(self, name: str, module: Optional["Cell"]) -> None:
        if module is not None and not isinstance(module, Cell):
            raise TypeError(f"add_module: {type(module).__name__} is not a Module/Cell")
        self._cells[name] = module

    register_module = add_module
    insert_child_to_cell = add_module

    # --- calling ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        for hook in list(self._pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        out = self._run_in_mode(*args, **kwargs)
        for hook in list(self._post_hooks.values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        return out

    def _run_in_mode(self, *args, **kwargs):
        from ..jit import GRAPH_MODE, JitFunction, get_context
        if get_context("mode") != GRAPH_MODE or kwargs or _C.is_tracing():
            return self._run(*args, **kwargs)
        fn = self.__dict__.get("_graph_fn")
        if fn is None:  # compiled per signature and per train/eval flag
            fn = JitFunction(lambda training, *a: self._run(*a), static_argnums=0)
            object.__setattr__(self, "_graph_fn", fn)
        return fn(self.training, *args)

    def _run(self, *args, **kwargs):
        cls = type(self)
        if cls.forward is not Cell.forward:
            return self.forward(*args, **kwargs)
        if cls.construct is not Cell.construct:
            return self.construct(*args, **kwargs)
        raise NotImplementedError(f"{cls.__name__} defines neither construct() nor forward()")

    def construct(self, *args, **kwargs):
        """The computation (MindSpore's name); forward() is the same hook under PyTorch's."""
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self.construct(*args, **kwargs)

    def register_forward_pre_hook(self, hook: Callable) -> _HookHandle:
        """hook(module, args) runs before forward; a returned value replaces args."""
        h = _HookHandle(self._pre_hooks)
        self._pre_hooks[h.id] = hook
        return h

    def register_forward_hook(self, hook: Callable) -> _HookHandle:
        """hook(module, args, output) runs after forward; a returned value replaces output."""
        h = _HookHandle(self._post_hooks)
        self._post_hooks[h.id] = hook
        return h

    # --- traversal -------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix: str = "") -> Iterator[Tuple[str, "Cell"]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["Cell"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[Tuple[str, "Cell"]]:
        seen = set()
        for name, cell in self._cells.items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                yield name, cell

    def children(self) -> Iterator["Cell"]:
        for _, c in self.named_children():
            yield c

    def cells_and_names(self, cells=None, name_prefix: str = ""):
        """MindSpore's name for named_modules()."""
        return self.named_modules(prefix=name_prefix)

    def cells(self):
        return self.children()

    def name_cells(self) -> Dict[str, "Cell"]:
        return OrderedDict(self.named_children())

    def _named(self, store: str, prefix: str, recurse: bool):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True):
        """(name, Parameter) pairs; a parameter shared by two layers appears once."""
        for name, p in self._named("_params", prefix, recurse):
            if getattr(p, "name", None) is None:
                p.name = name
            yield name, p

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True):
        return self._named("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # MindSpore names
    def parameters_and_names(self, name_prefix: str = "", expand: bool = True):
        return self.named_parameters(prefix=name_prefix, recurse=expand)

    def get_parameters(self, expand: bool = True):
        return self.parameters(recurse=expand)

    def trainable_params(self, recurse: bool = True):
        """The parameters that require grad, as a list (MindSpore)."""
        return [p for p in self.parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True):
        return [p for p in self.parameters(recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True):
        return OrderedDict(self.named_parameters(recurse=recurse))

    # --- modes and utilities -------------------------------------------------------------------
    def train(self, mode: bool = True) -> "Cell":
        """Sets training mode (dropout active, batch norm uses batch statistics)."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> "Cell":
        return self.train(False)

    def set_train(self, mode: bool = True) -> "Cell":
        return self.train(mode)

    def apply(self, fn: Callable[["Cell"], None]) -> "Cell":
        """Calls fn on every submodule (children first) and on self, like PyTorch."""
        for c in self.children():
            c.apply(fn)
        fn(self)
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Cell":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def to(self, *args, **kwargs) -> "Cell":
        """Converts floating parameters and buffers to a dtype (CPU is the only device)."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
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

    def float(self) -> "Cell":
        return self.to(_C.dtype.float32)

    def double(self) -> "Cell":
        return self.to(_C.dtype.float64)

    def half(self) -> "Cell":
        return self.to(_C.dtype.float16)

    def cpu(self) -> "Cell":
        return self

    # --- state ---------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (detached unless keep_vars)."""
        out = OrderedDict() if destination is None else destination
        for mprefix, m in self.named_modules(prefix=prefix.rstrip(".")):
            for name, p in m._params.items():
                if p is not None:
                    out[f"{mprefix}.{name}" if mprefix else name] = p if keep_vars else p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[f"{mprefix}.{name}" if mprefix else name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict: bool = True) -> IncompatibleKeys:
        """Copies values into parameters and buffers; reports missing / unexpected keys
        (an error when strict)."""
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
        return ""

    def __repr__(self) -> str:
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

    def __dir__(self):
        return list(super().__dir__()) + list(self._params) + list(self._buffers) + list(self._cells)


Module = Cell
