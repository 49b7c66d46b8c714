"""Graph mode: ``@jit`` traces a function once per input signature into a graph, optimizes
it (CSE, dead-code elimination), and runs later calls in C++ without calling the Python
function. ``set_context(mode=GRAPH_MODE)`` makes Cells compile their construct/forward.

Tracing follows JAX: Python control flow runs at trace time on symbolic tensors (shape and
dtype, no values); reading a value (``.item()``, ``float(t)``, ``if t > 0``) raises.
Tensors the function reads without receiving them (parameters, buffers) are bound by
reference: each call sees their current values, and in-place updates to them are written
back after each call.
"""
from __future__ import annotations

import functools
import warnings
import weakref
from typing import Callable, Sequence

from . import _C

Tensor = _C.Tensor

PYNATIVE_MODE = 1
GRAPH_MODE = 0
_context = {"mode": PYNATIVE_MODE}


def set_context(**kwargs) -> None:
    """Sets execution options: mode=GRAPH_MODE or PYNATIVE_MODE (device_target='CPU')."""
    for k, v in kwargs.items():
        if k == "mode":
            if v not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"set_context: mode must be GRAPH_MODE ({GRAPH_MODE}) or "
                                 f"PYNATIVE_MODE ({PYNATIVE_MODE}), got {v!r}")
            _context["mode"] = v
        elif k == "device_target":
            if v not in ("CPU", "cpu"):
                raise ValueError(f"set_context: device_target {v!r} is not available; tandem "
                                 "runs on 'CPU'")
        else:
            _context[k] = v


def get_context(key: str):
    return _context.get(key)


def _flatten(obj, leaves):
    """Replaces tensors in a nested tuple/list/dict by their index in `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple, e.g. (values, indices)
        return ("namedtuple", (type(obj), [_flatten(o, leaves) for o in obj]))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, [_flatten(o, leaves) for o in obj])
    if isinstance(obj, dict):
        return ("dict", [(k, _flatten(v, leaves)) for k, v in obj.items()])
    return ("C", obj)  # a Python value computed at trace time


def _unflatten(spec, leaves):
    kind, val = spec
    if kind == "T":
        return leaves[val]
    if kind == "tuple":
        return tuple(_unflatten(s, leaves) for s in val)
    if kind == "list":
        return [_unflatten(s, leaves) for s in val]
    if kind == "namedtuple":
        cls, items = val
        return cls(*(_unflatten(s, leaves) for s in items))
    if kind == "dict":
        return {k: _unflatten(s, leaves) for k, s in val}
    return val


# Python state a trace read and baked into its graph (Cell.training flags, optimizer
# hyper-parameters): (weakref to the owner, check, value) triples, or None when no trace is
# recording. A compiled graph is used only while every check still returns its value.
_guards = None


def note_guard(owner, check: Callable[[object], object]) -> None:
    """Records that the trace in progress baked in check(owner) (a Cell's train/eval flag,
    an optimizer's learning rates): the compiled graph is used only while check(owner)
    returns the same value; otherwise the function is traced again."""
    if _guards is not None:
        _guards.append((weakref.ref(owner), check, check(owner)))


class _Entry:
    def __init__(self, exe, spec, traced_text, traced_cost, guards):
        self.exe, self.spec, self.traced_text = exe, spec, traced_text
        self.traced_cost = traced_cost
        self.guards = guards  # ((owner ref, check, value), ...) the graph assumed
        self.unguarded = not guards and not exe.has_grad_guards

    def valid(self) -> bool:
        for ref, check, value in self.guards:
            obj = ref()
            if obj is None or check(obj) != value:
                return False
        return True


class JitFunction:
    """A function compiled per input signature (shapes, dtypes, requires_grad, static
    arguments, grad mode)."""

    def __init__(self, fn: Callable, static_argnums: Sequence[int] = (),
                 static_argnames: Sequence[str] = ()):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._static_argnums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
        self._static_argnames = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
        self._cache = {}
        self._warned = False
        self._fast = _C.JitFastPath()  # the common call, entirely in C++

    def _split(self, args, kwargs):
        if not kwargs and not self._static_argnums:  # the common call: tensors only
            sig = _C.jit_signature(*args)
            if sig is not None:
                return list(args), (sig, _C.is_grad_enabled())
        tensors, key = [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and i not in self._static_argnums:
                tensors.append(a)
                key.append(_C.jit_tensor_key(a))
            else:
                key.append(("S", _hashable(a, i)))
        for k in sorted(kwargs):
            a = kwargs[k]
            if isinstance(a, Tensor) and k not in self._static_argnames:
                tensors.append(a)
                key.append((k,) + _C.jit_tensor_key(a)[1:])
            else:
                key.append((k, "S", _hashable(a, k)))
        return tensors, (tuple(key), _C.is_grad_enabled())

    def _trace(self, args, kwargs, key):
        positions = [i for i, a in enumerate(args)
                     if isinstance(a, Tensor) and i not in self._static_argnums]
        names = [k for k in sorted(kwargs)
                 if isinstance(kwargs[k], Tensor) and k not in self._static_argnames]
        holder = {}

        def traced(sym):
            a = list(args)
            kw = dict(kwargs)
            it = iter(sym)
            for i in positions:
                a[i] = next(it)
            for k in names:
                kw[k] = next(it)
            leaves = []
            holder["spec"] = _flatten(self._fn(*a, **kw), leaves)
            return leaves

        tensors = [args[i] for i in positions] + [kwargs[k] for k in names]
        global _guards
        saved, _guards = _guards, []
        try:
            exe, text, cost = _C.jit_compile(traced, tensors)
            reads = _guards
        finally:
            _guards = saved
        guards, seen = [], set()
        for g in reads:  # one guard per (owner, check)
            if (id(g[0]), g[1]) not in seen:
                seen.add((id(g[0]), g[1]))
                guards.append(g)
        entry = _Entry(exe, holder["spec"], text, cost, tuple(guards))
        self._cache.setdefault(key, []).append(entry)
        if sum(len(v) for v in self._cache.values()) > 8 and not self._warned:
            self._warned = True
            keys = list(self._cache)
            why = ("a Cell's train/eval mode" if len(self._cache[key]) > 1 or len(keys) < 2
                   else _diff(keys[-2][0], key[0]))
            warnings.warn(f"jit: {getattr(self._fn, '__name__', 'function')} was compiled for "
                          f"{sum(len(v) for v in self._cache.values())} different signatures; "
                          f"the latest differs in {why}. Keep shapes fixed or mark changing "
                          "Python values static.", stacklevel=3)
        return entry

    def _lookup(self, key):
        """The cached graph for this signature whose train/eval assumptions still hold."""
        for entry in self._cache.get(key, ()):
            if entry.unguarded or (entry.valid() and entry.exe.grad_guards_hold()):
                return entry
        return None

    def __call__(self, *args, **kwargs):
        if not kwargs:
            out = self._fast(*args)
            if out is not None:
                return out
        if _C.is_tracing():  # called from another jitted function: inline into its graph
            return self._fn(*args, **kwargs)
        tensors, key = self._split(args, kwargs)
        entry = self._lookup(key)
        if entry is None:
            entry = self._trace(args, kwargs, key)
        self._offer_fast_path(args, kwargs, tensors, key, entry)
        if entry.exe.outputs_require_grad:  # (grad mode is part of the cache key)
            # The compiled graph records no tape: results the caller may differentiate come
            # from eager execution. A training step that computes its gradients inside
            # (value_and_grad + optimizer) returns plain values and runs compiled.
            return self._fn(*args, **kwargs)
        return _unflatten(entry.spec, entry.exe(tensors))

    def _offer_fast_path(self, args, kwargs, tensors, key, entry) -> None:
        """Registers an entry the C++ fast path can serve: all-tensor positional arguments,
        no guards, results that need no autograd, a tensor or a flat tuple/list result."""
        if kwargs or self._static_argnums or len(tensors) != len(args):
            return
        if not entry.unguarded or entry.exe.outputs_require_grad:
            return
        kind, val = entry.spec
        if kind == "T":
            code = 0
        elif kind in ("tuple", "list") and all(s == ("T", i) for i, s in enumerate(val)):
            code = 1 if kind == "tuple" else 2
        else:
            return
        self._fast.add(list(tensors), key[1], entry.exe, code)

    def explain(self, *args, **kwargs) -> str:
        """A report for these arguments: the traced graph (what eager mode runs) and the
        optimized graph, each with its kernel count, whole-array reads + writes, bytes moved
        and peak memory of the buffers it allocates."""
        tensors, key = self._split(args, kwargs)
        entry = self._lookup(key) or self._trace(args, kwargs, key)
        traced_nodes = sum(1 for line in entry.traced_text.splitlines()
                           if " = " in line and "captured" not in line)
        return (f"traced graph ({traced_nodes} kernels):\n{entry.traced_text}\n"
                f"optimized graph ({entry.exe.num_kernels} kernels):\n{entry.exe.graph_text}\n"
                f"eager:    {entry.traced_cost}\n"
                f"compiled: {entry.exe.cost_text}\n")

    def profile(self, *args, reps: int = 10, top: int = 15, **kwargs) -> str:
        """Runs the compiled graph for these arguments `reps` times (after one warm-up) and
        reports the median time of each node, slowest first, plus the time per op kind."""
        tensors, key = self._split(args, kwargs)
        entry = self._lookup(key) or self._trace(args, kwargs, key)
        rows = entry.exe.profile(tensors, reps)
        total = sum(t for _, t in rows) or 1e-30
        by_op = {}
        for text, t in rows:
            op = text.split(" = ", 1)[1].split("(", 1)[0]
            by_op[op] = by_op.get(op, 0.0) + t
        lines = [f"{len(rows)} nodes, {total * 1e3:.3f} ms per run (sum of node medians)",
                 "by op:"]
        for op, t in sorted(by_op.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {t * 1e3:8.3f} ms {100 * t / total:5.1f}%  {op}")
        lines.append(f"slowest {min(top, len(rows))} nodes:")
        for text, t in sorted(rows, key=lambda r: -r[1])[:top]:
            lines.append(f"  {t * 1e3:8.3f} ms {100 * t / total:5.1f}%  {text[:140]}")
        return "\n".join(lines)


def _hashable(v, where):
    try:
        hash(v)
        return v
    except TypeError:
        raise TypeError(f"jit: argument {where!r} of type {type(v).__name__} is not hashable; "
                        "pass tensors or hashable Python values (mark it static)") from None


def _diff(old, new):
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return f"argument {i} ({a} -> {b})"
    return "the number of arguments"


def jit(fn: Callable = None, *, static_argnums=(), static_argnames=()):
    """Compiles fn into a graph on its first call for each input signature.

    Usable as ``@jit``, ``@jit(static_argnums=1)`` or ``jit(fn)``."""
    if fn is None:
        return lambda f: JitFunction(f, static_argnums, static_argnames)
    return JitFunction(fn, static_argnums, static_argnames)
