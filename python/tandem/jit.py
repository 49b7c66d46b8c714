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


# (container, key, object) triples: the trace in progress read `object` from a dict
# (module globals, a Cell's parameter / buffer / submodule table) or a closure cell (key
# None). A compiled graph is used only while each container still holds the same object, so
# rebinding a global tensor or replacing a Parameter retraces instead of reusing stale state.
_same = None


def note_same_object(container, key, value) -> None:
    """Records that the trace in progress read `value` from container[key] (a dict) or from
    a closure cell (key None)."""
    if _same is not None:
        _same.append((container, key, value))


def _read_state(fn) -> list:
    """The globals and closure cells fn reads that hold tensors or Cells."""
    from ._layers.cell import Cell
    while isinstance(fn, (functools.partial, _WeakMethod)):
        fn = fn.func
    code, out = getattr(fn, "__code__", None), []
    if code is None:
        return out
    g = getattr(fn, "__globals__", {})
    for name in code.co_names:
        v = g.get(name)
        if isinstance(v, (Tensor, Cell)):
            # The function, weakly: its globals usually hold this very JitFunction.
            out.append((weakref.ref(fn), name, v))
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(v, (Tensor, Cell)):
            out.append((cell, None, v))
    return out


def note_guard(owner, check: Callable[[object], object]) -> None:
    """Records that the trace in progress baked in check(owner) (a Cell's train/eval flag,
    an optimizer's learning rates): the compiled graph is used only while check(owner)
    returns the same value; otherwise the function is traced again."""
    if _guards is not None:
        _guards.append((weakref.ref(owner), check, check(owner)))


class _Entry:
    """What the C++ cache keeps for Python with each compiled graph."""

    def __init__(self, exe, spec, traced_text, traced_cost, guards, take=None, eager=False):
        self.exe, self.spec, self.traced_text = exe, spec, traced_text
        self.traced_cost = traced_cost
        self.guards = guards  # ((owner ref, check, value), ...) the graph assumed
        self.take = take  # the graph's arguments: these of the call's tensors (aliases once)
        self.eager = eager  # overlapping arguments that the function writes: run eagerly

    def inputs(self, tensors):
        return tensors if self.take is None else [tensors[i] for i in self.take]

    def valid(self) -> bool:
        for ref, check, value in self.guards:
            obj = ref()
            if obj is None or check(obj) != value:
                return False
        return True


def _result_kind(spec) -> int:
    """How the C++ cache may return this result without Python: 0 one tensor, 1 a tuple,
    2 a list of the outputs in order; -1 when Python must rebuild the structure."""
    kind, val = spec
    if kind == "T":
        return 0
    if kind in ("tuple", "list") and all(s == ("T", i) for i, s in enumerate(val)):
        return 1 if kind == "tuple" else 2
    return -1


class JitFunction:
    """A function compiled per input signature (shapes, dtypes, requires_grad, static
    arguments, grad mode). The compiled graphs live in the C++ jit cache (tandem::JitCache,
    the one that C++'s tandem::jit uses), which also serves the common call (all-tensor
    positional arguments, no guards) without entering Python."""

    def __init__(self, fn: Callable, static_argnums: Sequence[int] = (),
                 static_argnames: Sequence[str] = ()):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._static_argnums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
        self._static_argnames = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
        self._cache = _C.JitCache()
        self._static_ids = {}  # the static part of a call's signature -> its id in the cache keys
        self._traced = []  # (static part, tensor signature) of each trace, for the warning
        self._entries_list = []
        self._warned = False
        self._bound = weakref.WeakKeyDictionary()  # instance -> its bound JitFunction

    def __get__(self, obj, objtype=None):
        """@jit on a method (a Cell's construct, say): the instance is bound, its tensors are
        captured by reference, and each instance has its own compiled cache."""
        if obj is None:
            return self
        try:
            bound = self._bound.get(obj)
        except TypeError:  # not weak-referenceable: keep the compiled cache on the instance
            bound = None
        if bound is None:
            # The instance weakly: the per-instance cache is a value keyed by the instance.
            bound = JitFunction(_WeakMethod(self._fn, obj),
                                {i - 1 for i in self._static_argnums if i > 0},
                                self._static_argnames)
            functools.update_wrapper(bound, self._fn)
            try:
                self._bound[obj] = bound
            except TypeError:
                pass
        return bound

    def _split(self, args, kwargs):
        """(tensor arguments, static id): the tensors' shapes and dtypes go into the C++ key;
        everything else is a static part named by a small id (0: all-tensor positional)."""
        if not kwargs and not self._static_argnums and all(isinstance(a, Tensor) for a in args):
            return list(args), 0
        tensors, static = [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and i not in self._static_argnums:
                tensors.append(a)
                static.append("T")
            else:
                static.append(("S", _hashable(a, i)))
        for k in sorted(kwargs):
            a = kwargs[k]
            if isinstance(a, Tensor) and k not in self._static_argnames:
                tensors.append(a)
                static.append((k, "T"))
            else:
                static.append((k, "S", _hashable(a, k)))
        static = tuple(static)
        if all(s == "T" for s in static):
            return tensors, 0
        return tensors, self._static_ids.setdefault(static, len(self._static_ids) + 1)

    def _trace(self, args, kwargs, tensors, static_id):
        positions = [i for i, a in enumerate(args)
                     if isinstance(a, Tensor) and i not in self._static_argnums]
        names = [k for k in sorted(kwargs)
                 if isinstance(kwargs[k], Tensor) and k not in self._static_argnames]
        # f(x, x): one graph argument stands for both, so a write through one is seen by the
        # other, as eagerly. Overlapping views of one buffer stay separate arguments.
        aliases = _C.jit_aliases(tensors) if len(tensors) > 1 else [-1] * len(tensors)
        take, slot = [], []
        for i, a in enumerate(aliases):
            if a >= 0:
                slot.append(slot[a])
            else:
                slot.append(len(take))
                take.append(i)
        holder = {}

        def traced(sym):
            a = list(args)
            kw = dict(kwargs)
            it = iter([sym[k] for k in slot])
            for i in positions:
                a[i] = next(it)
            for k in names:
                kw[k] = next(it)
            leaves = []
            holder["spec"] = _flatten(self._fn(*a, **kw), leaves)
            return leaves

        global _guards, _same
        saved, _guards = (_guards, _same), []
        _same = _read_state(self._fn)
        try:
            exe, text, cost = _C.jit_compile(traced, [tensors[i] for i in take])
            reads, same = _guards, _same
        finally:
            _guards, _same = saved
        guards, seen = [], set()
        for g in reads:  # one guard per (owner, check)
            if (id(g[0]), g[1]) not in seen:
                seen.add((id(g[0]), g[1]))
                guards.append(g)
        overlap = any(a < -1 for a in aliases)
        if overlap and exe.num_argument_writes:
            warnings.warn(f"jit: {getattr(self._fn, '__name__', 'function')} writes an argument "
                          "in place and its arguments overlap in memory; these calls run "
                          "eagerly (pass separate tensors to compile them)", stacklevel=4)
        entry = _Entry(exe, holder["spec"], text, cost, tuple(guards),
                       None if len(take) == len(tensors) else take,
                       overlap and exe.num_argument_writes > 0)
        direct = (static_id == 0 and not kwargs and len(tensors) == len(args)
                  and entry.take is None and not entry.eager
                  and not entry.guards and not exe.has_grad_guards
                  and not exe.outputs_require_grad)
        seen_same, same_objects = set(), []
        for c, k, v in same:
            if (id(c), k) not in seen_same:
                seen_same.add((id(c), k))
                same_objects.append((c, k, v))
        self._cache.insert(tensors, static_id, exe, entry, entry.valid if entry.guards else None,
                           _result_kind(entry.spec) if direct else -1, same_objects)
        self._entries_list.append(entry)
        self._note_retrace(static_id, tensors)
        return entry

    def _note_retrace(self, static_id, tensors) -> None:
        sig = tuple((tuple(t.shape), t.dtype.name, bool(t.requires_grad)) for t in tensors)
        self._traced.append((static_id, sig))
        if len(self._cache) > 8 and not self._warned:
            self._warned = True
            (s0, a), (s1, b) = self._traced[-2], self._traced[-1]
            why = "a Cell's train/eval mode" if (s0, a) == (s1, b) else (
                "its static arguments" if s0 != s1 else _diff(a, b))
            warnings.warn(f"jit: {getattr(self._fn, '__name__', 'function')} was compiled for "
                          f"{len(self._cache)} different signatures; the latest differs in "
                          f"{why}. Keep shapes fixed or mark changing Python values static.",
                          stacklevel=4)

    def _entries(self):
        """Every compiled entry, in trace order (for introspection and tests)."""
        return list(self._entries_list)

    def _entry(self, args, kwargs):
        tensors, sid = self._split(args, kwargs)
        entry = self._cache.lookup(tensors, sid)
        return tensors, entry if entry is not None else self._trace(args, kwargs, tensors, sid)

    def __call__(self, *args, **kwargs):
        if not kwargs:
            out = self._cache.call(*args)
            if out is not None:
                return out
        if _C.is_tracing():  # called from another jitted function: inline into its graph
            return self._fn(*args, **kwargs)
        tensors, entry = self._entry(args, kwargs)
        if entry.exe.outputs_require_grad or entry.eager:  # (grad mode is part of the key)
            # The compiled graph records no tape: results the caller may differentiate come
            # from eager execution. A training step that computes its gradients inside
            # (value_and_grad + optimizer) returns plain values and runs compiled.
            return self._fn(*args, **kwargs)
        return _unflatten(entry.spec, entry.exe(entry.inputs(tensors)))

    def explain(self, *args, **kwargs) -> str:
        """A report for these arguments: the traced graph (what eager mode runs) and the
        optimized graph, each with its kernel count, whole-array reads + writes, bytes moved
        and peak memory of the buffers it allocates."""
        _, entry = self._entry(args, kwargs)
        traced_nodes = sum(1 for line in entry.traced_text.splitlines()
                           if " = " in line and "captured" not in line)
        return (f"traced graph ({traced_nodes} kernels):\n{entry.traced_text}\n"
                f"optimized graph ({entry.exe.num_kernels} kernels):\n{entry.exe.graph_text}\n"
                f"eager:    {entry.traced_cost}\n"
                f"compiled: {entry.exe.cost_text}\n")

    def profile(self, *args, reps: int = 10, top: int = 15, **kwargs) -> str:
        """Runs the compiled graph for these arguments `reps` times (after one warm-up) and
        reports the median time of each node, slowest first, plus the time per op kind."""
        tensors, entry = self._entry(args, kwargs)
        rows = entry.exe.profile(entry.inputs(tensors), reps)
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


class _WeakMethod:
    """fn bound to obj without keeping obj alive."""

    def __init__(self, fn, obj):
        self.func, self._obj = fn, weakref.ref(obj)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        obj = self._obj()
        if obj is None:
            raise ReferenceError(f"jit: the instance {self.func.__name__} was bound to is gone")
        return self.func(obj, *args, **kwargs)


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
            return f"tensor argument {i} ({a} -> {b})"
    return "the number of arguments"


def jit(fn: Callable = None, *, static_argnums=(), static_argnames=()):
    """Compiles fn into a graph on its first call for each input signature.

    Usable as ``@jit``, ``@jit(static_argnums=1)`` or ``jit(fn)``."""
    if fn is None:
        return lambda f: JitFunction(f, static_argnums, static_argnames)
    return JitFunction(fn, static_argnums, static_argnames)
