"""Graph mode: ``@jit`` traces a function once per input signature into a graph, optimizes
it (CSE, dead-code elimination), and runs later calls in C++ without calling the Python
function. ``set_context(mode=GRAPH_MODE)`` makes Cells compile their construct/forward.

Python control flow runs at trace time on symbolic tensors (shape and dtype). Where Python
reads a value (``if x.sum() > 0``, ``int(t)``, ``.item()``, ``.numpy()``) the tracer evaluates
it on the call's arguments and specializes the graph on it behind a guard: the compiled path
runs in segments split at the reads, checks each guard between them, and a call whose values
take another branch runs (or traces) another path; nothing is written back before the whole
path is validated. ``print`` inside a compiled function prints at run time, every call, in
program order. Tensors the function reads without receiving them (parameters, buffers) are
bound by reference: each call sees their current values, and in-place updates to them (and to
its arguments) are written back after each call.
"""
from __future__ import annotations

import builtins
import functools
import warnings
import weakref
from typing import Any, Callable, Optional, Sequence, Tuple, Union


from . import _C
from ._jit_args import _flatten, _frozen, _hashable, _unflatten
from ._jit_args import mutable as mutable  # re-exported: tandem.mutable

Tensor = _C.Tensor

PYNATIVE_MODE = 1
GRAPH_MODE = 0
#: MindSpore's jit_syntax_level values (set_context(jit_syntax_level=STRICT)).
STRICT, COMPATIBLE, LAX = 0, 1, 2
_context = {"mode": PYNATIVE_MODE}


def set_context(**kwargs: Any) -> None:
    """Sets execution options (MindSpore's mindspore.set_context).

    Args:
        kwargs (Any): ``mode=GRAPH_MODE`` (Cells compile their construct on the first call per
            input signature) or ``mode=PYNATIVE_MODE`` (eager, the default);
            ``device_target='CPU'`` (the only target); any other key is stored and returned
            by ``get_context``.

    Raises:
        ValueError: an unknown mode or an unavailable device target.
    """
    for k, v in kwargs.items():
        if k == "mode":
            if v not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"set_context: mode must be GRAPH_MODE ({GRAPH_MODE}) or "
                                 f"PYNATIVE_MODE ({PYNATIVE_MODE}), got {v!r}")
            _context["mode"] = v
        elif k == "jit_syntax_level":
            if v not in (STRICT, COMPATIBLE, LAX):
                raise ValueError(f"set_context: jit_syntax_level must be tandem.STRICT, "
                                 f"COMPATIBLE or LAX, got {v!r}")
            _context[k] = v  # tandem traces Python, so every level compiles the same code
        elif k == "device_target":
            if v not in ("CPU", "cpu"):
                raise ValueError(f"set_context: device_target {v!r} is not available; tandem "
                                 "runs on 'CPU'")
        else:
            _context[k] = v


def get_context(key: str) -> Any:
    """The value of an execution option set by ``set_context`` (MindSpore's get_context).

    Args:
        key (str): the option, e.g. ``'mode'``.

    Returns:
        Any, its value, or None when it was never set.
    """
    return _context.get(key)


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
        self.attr_writes: tuple = ()  # (attribute, result index) set on the instance per call
        self.owner = None  # the instance (weakly), when there are attribute writes

    def inputs(self, tensors):
        return tensors if self.take is None else [tensors[i] for i in self.take]

    def valid(self) -> bool:
        for ref, check, value in self.guards:
            obj = ref()
            if obj is None or check(obj) != value:
                return False
        return True


# print() inside a compiled function: each traced print becomes a print node whose format
# (the non-tensor arguments, sep, end, file) is kept here; the node calls _run_print with it
# and the tensors' values when it runs.
_real_print = builtins.print
_print_formats: list = []


class _TensorSlot:
    pass


def _traced_print(*args, sep=" ", end="\n", file=None, flush=False):
    """builtins.print while this thread traces: a print node (prints at run time)."""
    if not _C.is_tracing():
        return _real_print(*args, sep=sep, end=end, file=file, flush=flush)
    debug_print(*args, sep=sep, end=end, file=file, flush=flush)


def debug_print(*args: object, sep: str = " ", end: str = "\n", file: Any = None,
                flush: bool = False) -> None:
    """Prints its arguments when it runs: at once eagerly, every call (in program order)
    inside a compiled function, with tensors shown as eager print shows them (MindSpore's
    graph-mode print; ``ops.Print``).

    Args:
        args (object): what to print; tensors print their values at run time.
        sep (str): the separator, as print's. Default: ``" "``.
        end (str): the end of the line, as print's. Default: ``"\\n"``.
        file (object): the stream (sys.stdout when None). Default: ``None``.
        flush (bool): flush the stream. Default: ``False``.
    """
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not _C.is_tracing():
        return _real_print(*args, sep=sep, end=end, file=file, flush=flush)
    parts = [_TensorSlot if isinstance(a, Tensor) else a for a in args]
    _print_formats.append((parts, sep, end, file, flush))
    _C.print_values(tensors, len(_print_formats) - 1)


def _run_print(format_id: int, tensors) -> None:
    parts, sep, end, file, flush = _print_formats[format_id]
    it = iter(tensors)
    args = [next(it) if p is _TensorSlot else p for p in parts]
    _real_print(*args, sep=sep, end=end, file=file, flush=flush)


_C.set_print_hook(_run_print)


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
                 static_argnames: Sequence[str] = (), max_paths: int = 8):
        functools.update_wrapper(self, fn)
        self._max_paths = int(max_paths)
        self._path_warned = False
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
                                self._static_argnames, self._max_paths)
            functools.update_wrapper(bound, self._fn)
            try:
                self._bound[obj] = bound
            except TypeError:
                pass
        return bound

    def _split(self, args, kwargs):
        """(tensor arguments, static id): the tensors' shapes and dtypes go into the C++ key;
        everything else is a static part named by a small id (0: all-tensor positional).
        Tensors inside list / tuple / dict arguments (a batch given as [premises,
        hypotheses]) are arguments too; the container's structure is part of the static id."""
        if not kwargs and not self._static_argnums and all(isinstance(a, Tensor) for a in args):
            return list(args), 0
        tensors, static = [], []

        def part(a, where, is_static):
            if isinstance(a, Tensor) and not is_static:
                tensors.append(a)
                return "T"
            if not is_static and isinstance(a, (list, tuple, dict)):
                return ("P", _frozen(_flatten(a, tensors), where))
            return ("S", _hashable(a, where))

        for i, a in enumerate(args):
            static.append(part(a, i, i in self._static_argnums))
        for k in sorted(kwargs):
            static.append((k, part(kwargs[k], k, k in self._static_argnames)))
        static = tuple(static)
        if all(s == "T" for s in static):
            return tensors, 0
        return tensors, self._static_ids.setdefault(static, len(self._static_ids) + 1)

    def _slots(self, args, kwargs):
        """Where the tensor arguments go back: (positional index or keyword, count, spec of a
        container or None) in _split's order."""
        slots = []
        named = [(i, a, i in self._static_argnums) for i, a in enumerate(args)]
        named += [(k, kwargs[k], k in self._static_argnames) for k in sorted(kwargs)]
        for where, a, is_static in named:
            if is_static:
                continue
            if isinstance(a, Tensor):
                slots.append((where, 1, None))
            elif isinstance(a, (list, tuple, dict)):
                leaves: list = []
                spec = _flatten(a, leaves)
                slots.append((where, len(leaves), spec))
        return slots

    def _trace(self, args, kwargs, tensors, static_id):
        slots_of_args = self._slots(args, kwargs)
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
        owner = self._fn._obj() if isinstance(self._fn, _WeakMethod) else None

        def traced(sym):
            a = list(args)
            kw = dict(kwargs)
            it = iter([sym[k] for k in slot])
            for where, count, spec in slots_of_args:
                v = next(it) if spec is None else _unflatten(spec, [next(it) for _ in range(count)])
                if isinstance(where, int):
                    a[where] = v
                else:
                    kw[where] = v
            leaves = []
            before = _tensor_attrs(owner)
            holder["spec"] = _flatten(self._fn(*a, **kw), leaves)
            # Attributes the function set to tensors it computed (self.attr = x + 1, as
            # MindSpore's graph mode allows): extra results, assigned after every call.
            writes = []
            for name, v in _tensor_attrs(owner).items():
                if v._is_symbolic() and before.get(name) is not v:
                    writes.append((name, len(leaves)))
                    leaves.append(v)
            holder["writes"] = writes
            return leaves

        global _guards, _same
        saved, _guards = (_guards, _same), []
        _same = _read_state(self._fn)
        patched, builtins.print = builtins.print, _traced_print
        try:
            exe, text, cost = _C.jit_compile(traced, [tensors[i] for i in take])
            reads, same = _guards, _same
        finally:
            _guards, _same = saved
            builtins.print = patched
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
        entry.attr_writes = tuple(holder.get("writes", ()))
        entry.owner = weakref.ref(owner) if owner is not None and entry.attr_writes else None
        direct = (static_id == 0 and not kwargs and len(tensors) == len(args)
                  and entry.take is None and not entry.eager and not entry.attr_writes
                  and not entry.guards and not exe.has_grad_guards
                  and not exe.outputs_require_grad)
        seen_same, same_objects = set(), []
        for c, k, v in same:
            if (id(c), k) not in seen_same:
                seen_same.add((id(c), k))
                same_objects.append((c, k, v))
        self._cache.insert(tensors, static_id, exe, entry, entry.valid if entry.guards else None,
                           _result_kind(entry.spec) if direct else -1, same_objects,
                           entry.take or [], entry.eager or exe.outputs_require_grad)
        entry.signature = (static_id, tuple((tuple(t.shape), t.dtype.name) for t in tensors))
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
        """(tensors, an entry for this call) for explain and profile, without running it: the
        latest path traced for this signature, or a new trace."""
        tensors, sid = self._split(args, kwargs)
        sig = (sid, tuple((tuple(t.shape), t.dtype.name) for t in tensors))
        for e in reversed(self._entries_list):
            if getattr(e, "signature", None) == sig:
                return tensors, e
        return tensors, self._trace(args, kwargs, tensors, sid)

    def __call__(self, *args, **kwargs):
        if not kwargs:
            out = self._cache.call(*args)
            if out is not None:
                return out
        if _C.is_tracing():  # called from another jitted function: inline into its graph
            return self._fn(*args, **kwargs)
        tensors, sid = self._split(args, kwargs)
        r = self._cache.run(tensors, sid)
        if r is None:  # a new signature, or values that take a path not traced yet
            if self._cache.count(tensors, sid) >= self._max_paths:
                return self._too_many_paths(args, kwargs)
            entry = self._trace(args, kwargs, tensors, sid)
            r = self._cache.run(tensors, sid)
            if r is None or r[0] is not entry:
                raise RuntimeError(f"jit: {getattr(self._fn, '__name__', 'function')} read "
                                   "different values when traced twice with the same "
                                   f"arguments ({self._cache.last_failure}); its Python "
                                   "code is not deterministic")
        entry, outs = r
        if outs is None:
            # The compiled graph records no tape: results the caller may differentiate come
            # from eager execution (a training step computing its gradients inside returns
            # plain values and runs compiled); so do calls whose arguments overlap.
            return self._fn(*args, **kwargs)
        if entry.attr_writes:
            owner = entry.owner() if entry.owner is not None else None
            for name, k in entry.attr_writes:
                if owner is not None:
                    setattr(owner, name, outs[k])
        return _unflatten(entry.spec, outs)

    def _too_many_paths(self, args, kwargs):
        if not self._path_warned:
            self._path_warned = True
            warnings.warn(f"jit: {getattr(self._fn, '__name__', 'function')} has {self._max_paths} "
                          f"compiled paths for these argument shapes, and this call takes "
                          f"another: Python reads a value that keeps changing at "
                          f"{self._cache.last_failure}. Later such calls run eagerly; compute "
                          "the value with tensor ops (mint.where, ops.cond), mark it static, "
                          "or raise max_paths in jit(max_paths=...)", stacklevel=3)
        return self._fn(*args, **kwargs)

    def explain(self, *args, **kwargs) -> str:
        """A report for these arguments: the traced graph (what eager mode runs) and the
        optimized graph, each with its kernel count, whole-array reads + writes, bytes moved
        and peak memory of the buffers it allocates."""
        _, entry = self._entry(args, kwargs)
        traced_nodes = sum(1 for line in entry.traced_text.splitlines()
                           if " = " in line and "captured" not in line)
        report = (f"traced graph ({traced_nodes} kernels):\n{entry.traced_text}\n"
                  f"optimized graph ({entry.exe.num_kernels} kernels):\n"
                  f"{entry.exe.graph_text}\n"
                  f"eager:    {entry.traced_cost}\n"
                  f"compiled: {entry.exe.cost_text}\n")
        paths = [e for e in self._entries_list
                 if getattr(e, "signature", None) == getattr(entry, "signature", None)]
        if any(e.exe.num_guards for e in paths):
            report += (f"paths for these argument shapes: {len(paths)} of at most "
                       f"{self._max_paths} (this call's: {paths.index(entry) + 1})\n")
            for k, e in enumerate(paths, 1):
                reads = "; ".join(f"{where} read {value.tolist()!r}" for where, value in
                                  e.exe.guards) or "no reads"
                report += f"  path {k}: {reads}\n"
        prints = entry.exe.graph_text.count("= print(")
        if prints:
            report += f"print points: {prints} (they print at run time, every call)\n"
        return report

    def export(self, *inputs, file_name: str, file_format: str = "MINDIR", **kwargs) -> str:
        """tandem.export of this function traced at inputs (deployment: tandem/export.py)."""
        from .export import jit_export
        return jit_export(self, *inputs, file_name=file_name, file_format=file_format, **kwargs)

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


def _tensor_attrs(owner) -> dict:
    """The tensor-valued plain attributes of a compiled method's instance."""
    if owner is None:
        return {}
    return {k: v for k, v in vars(owner).items() if isinstance(v, Tensor)}


def _diff(old, new):
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return f"tensor argument {i} ({a} -> {b})"
    return "the number of arguments"


_JIT_OPTIONS = {"capture_mode": ("ast", "bytecode", "trace"), "jit_level": ("O0", "O1", "O2"),
                "backend": ("", "ms_backend", "GE")}


def jit(fn: Optional[Callable] = None, *, static_argnums: Union[int, Sequence[int]] = (),
        static_argnames: Union[str, Sequence[str]] = (),
        max_paths: int = 8, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str = "",
        **options: Any) -> Union[JitFunction, Callable[[Callable], JitFunction]]:
    """Compiles fn into a graph on its first call for each input signature.

    Usable as ``@jit``, ``@jit(static_argnums=1)`` or ``jit(fn)``, on functions and on methods
    (each instance gets its own cache). Where fn's Python code reads tensor values (a
    data-dependent ``if``), each combination of values read compiles its own path.

    Args:
        fn (Callable, optional): the function to compile; omitted when used as ``@jit(...)``.
        static_argnums (Union[int, Sequence[int]]): positional arguments that are Python values
            baked into the graph (each distinct value compiles its own graph). Default: ().
        static_argnames (Union[str, Sequence[str]]): keyword arguments treated the same way.
            Default: ().
        max_paths (int): compiled paths kept per input signature; past it, calls that take a
            new path run eagerly with a warning. Default: 8.
        capture_mode (str): MindSpore's front end ('ast', 'bytecode' or 'trace'). tandem
            always traces the function (Python runs once per path), so each is accepted and
            compiles the same graph. Default: ``'ast'`` .
        jit_level (str): MindSpore's optimization level ('O0', 'O1', 'O2'); tandem runs its
            passes at every level. Default: ``'O0'`` .
        dynamic (int): 0 or 1, MindSpore's dynamic-shape switch; tandem compiles one graph
            per input signature either way. Default: ``0`` .
        fullgraph (bool): MindSpore raises where a function cannot be compiled whole;
            tandem compiles the whole function or raises already. Default: ``False`` .
        backend (str): '', 'ms_backend' or 'GE'; tandem has one CPU backend.
            Default: ``''`` .
        **options: MindSpore's further compiler options (accepted, not used).

    Returns:
        JitFunction, callable like fn (with ``explain(*args)`` and ``export(...)``), or a
        decorator making one when fn is omitted.
    """
    for name, value in (("capture_mode", capture_mode), ("jit_level", jit_level),
                        ("backend", backend)):
        if value not in _JIT_OPTIONS[name]:
            raise ValueError(f"jit: {name} must be one of {_JIT_OPTIONS[name]}, got {value!r}")
    if dynamic not in (0, 1) or isinstance(dynamic, bool):
        raise ValueError(f"jit: dynamic must be 0 or 1, got {dynamic!r}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"jit: fullgraph must be a bool, got {fullgraph!r}")
    if fn is None:
        return lambda f: JitFunction(f, static_argnums, static_argnames, max_paths)
    return JitFunction(fn, static_argnums, static_argnames, max_paths)


def jit_class(cls: type) -> type:
    """Marks a class whose instances compiled functions use (MindSpore's jit_class).

    tandem's tracer reads any Python object's attributes while tracing (numbers and strings
    become constants of the graph, tensors are captured by reference), so this only checks
    that ``cls`` is a plain class (not a Cell: those compile already) and marks it.

    Args:
        cls (type): the class to mark.

    Returns:
        type, the class itself.
    """
    from ._layers.cell import Cell
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: decorates a class, got {type(cls).__name__}")
    if issubclass(cls, Cell):
        raise TypeError(f"jit_class: {cls.__name__} is a Cell, which graph mode compiles "
                        "already; jit_class is for plain classes")
    cls.__jit_class__ = True
    return cls


def _axes(spec, n: int, what: str) -> list:
    if spec is None or isinstance(spec, int):
        return [spec] * n
    spec = list(spec)
    if len(spec) != n:
        raise ValueError(f"vmap: {what} has {len(spec)} entries for {n} values")
    for a in spec:
        if a is not None and not isinstance(a, int):
            raise TypeError(f"vmap: {what} entries must be ints or None, got {a!r}")
    return spec


def vmap(fn: Callable[..., Any], in_axes: Union[int, None, Sequence[Optional[int]]] = 0,
         out_axes: Union[int, Sequence[int]] = 0) -> Callable[..., Any]:
    """A function that maps fn over a batch dimension (MindSpore's and JAX's vmap).

    Each argument is sliced along its entry of ``in_axes`` (None: passed whole to every
    call), fn runs on each slice, and the results are stacked along ``out_axes``. Inside a
    compiled function the calls unroll into the graph, so the batch compiles as one graph.

    Args:
        fn (Callable): the function of one example.
        in_axes (int, None or sequence): the batch dim of each argument. Default: ``0``.
        out_axes (int or sequence): where the batch dim goes in each result. Default: ``0``.

    Returns:
        Callable: the batched function.
    """
    from ._generated import torch_api as _ops

    @functools.wraps(fn)
    def batched(*args):
        axes = _axes(in_axes, len(args), "in_axes")
        sizes = {a.shape[ax] for a, ax in zip(args, axes) if ax is not None}
        if len(sizes) != 1:
            raise ValueError(f"vmap: the mapped arguments must share one batch size, got "
                             f"{sorted(sizes) or 'none (in_axes all None)'}")
        n = sizes.pop()
        results = [fn(*[a if ax is None else _ops.select(a, ax, i) for a, ax in zip(args, axes)])
                   for i in range(n)]
        single = not isinstance(results[0], (tuple, list))
        columns = [[r] if single else list(r) for r in results]
        outs = _axes(out_axes, len(columns[0]), "out_axes")
        stacked = [_ops.stack([c[k] for c in columns], dim=outs[k]) for k in range(len(outs))]
        return stacked[0] if single else tuple(stacked)

    return batched


def cond(pred: Union[Tensor, bool], true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         operands: Union[Tensor, Sequence[Tensor]] = ()) -> Any:
    """true_fn(*operands) where pred holds, else false_fn(*operands), as one graph inside a
    compiled function: both branches are computed and each result is chosen with where(), so
    no guard or second path is needed (torch.cond; lax.cond). The branches must be free of
    side effects and return results of the same structure and shapes. Eagerly, only the
    taken branch runs.

    Args:
        pred (Tensor or bool): a one-element condition.
        true_fn (Callable): the branch for a true pred.
        false_fn (Callable): the branch for a false pred.
        operands (Tensor or sequence of Tensors): the branches' arguments. Default: ``()``.

    Returns:
        object: the branch's result (a tensor or a tuple / list of tensors).
    """
    operands = tuple(operands) if isinstance(operands, (tuple, list)) else (operands,)
    if not _C.is_tracing() or not isinstance(pred, Tensor):
        return true_fn(*operands) if bool(pred) else false_fn(*operands)
    if pred.numel() != 1:
        raise ValueError(f"cond: pred must have one element, got shape {tuple(pred.shape)}")
    a, b = true_fn(*operands), false_fn(*operands)
    seq = isinstance(a, (tuple, list))
    la, lb = (list(a), list(b)) if seq else ([a], [b])
    if len(la) != len(lb):
        raise ValueError(f"cond: the branches return {len(la)} and {len(lb)} results")
    p = pred.reshape(())
    out = [_C.where(p, x, y) for x, y in zip(la, lb)]
    return type(a)(out) if seq else out[0]


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any],
               carried_inputs: Union[Tensor, Sequence[Tensor]]) -> Tuple[Any, ...]:
    """Runs ``carry = body_fn(*carry)`` while ``cond_fn(*carry)`` holds and returns the final
    carry (torch's while_loop; lax.while_loop). Inside a compiled function each iteration's
    condition is a guarded read, so each trip count compiles its own path (bounded by
    jit(max_paths=...)); a loop whose trip count does not depend on the data compiles once.

    Args:
        cond_fn (Callable): the condition, from the carry.
        body_fn (Callable): the next carry, from the carry.
        carried_inputs (Tensor or sequence of Tensors): the initial carry.

    Returns:
        tuple: the final carry.
    """
    carry = tuple(carried_inputs) if isinstance(carried_inputs, (tuple, list)) else (carried_inputs,)
    while bool(cond_fn(*carry)):
        nxt = body_fn(*carry)
        carry = tuple(nxt) if isinstance(nxt, (tuple, list)) else (nxt,)
    return carry


def partial(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """func with its first arguments fixed (MindSpore's ops.partial; functools.partial).

    Args:
        func (Callable): the function.
        args (object): its leading positional arguments.
        kwargs (object): keyword arguments.

    Returns:
        Callable, the partial function.
    """
    return functools.partial(func, *args, **kwargs)
