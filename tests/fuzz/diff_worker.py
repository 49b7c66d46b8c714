"""The subprocess side of the differential fuzzer: reads cases (JSON lines) on stdin, runs each
on tandem and on PyTorch (the oracle, test-only), and writes one JSON result line per case to
the result pipe. A crash or a hang of this process is detected and attributed by the parent
(tests/fuzz/differential.py), which prints the case as the reproducer.

    python -m tests.fuzz.diff_worker          (normally started by differential.py)
"""
from __future__ import annotations

import json
import re
import math
import os
import sys
import warnings

import numpy as np

try:
    from . import known_differences as known
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import known_differences as known  # type: ignore

CLEAN = (TypeError, ValueError, IndexError, RuntimeError, ArithmeticError, MemoryError)
_DUMPS = ("incompatible function arguments", "Invoked with types", "nanobind")

_NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
       "int32": np.int32, "int64": np.int64, "float16": np.float16, "float32": np.float32,
       "float64": np.float64}
_INT_LIMITS = {k: (np.iinfo(v).min, np.iinfo(v).max) for k, v in _NP.items()
               if k not in ("bool", "float16", "float32", "float64")}

_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1e-2, 3e-2), "float32": (1e-5, 2e-4),
        "float64": (1e-10, 1e-7)}
_GRAD_TOL = {"float16": (1e-2, 5e-2), "bfloat16": (5e-2, 1e-1), "float32": (1e-4, 2e-3),
             "float64": (1e-8, 1e-6)}


class Lib:
    """One framework: the namespaces an op row can live in and how to make its tensors."""

    def __init__(self, name: str):
        self.name = name
        if name == "torch":
            import torch
            torch.set_num_threads(1)
            self.m = torch
            self.ns = {"torch": torch, "F": torch.nn.functional, "linalg": torch.linalg}
            self.Tensor = torch.Tensor
        else:
            import tandem
            import tandem.mint as mint
            import tandem.mint.nn.functional as F
            tandem.set_num_threads(1)
            self.m = mint
            self.jit = tandem.jit
            self.ns = {"torch": mint, "F": F, "linalg": mint.linalg}
            self.Tensor = tandem.Tensor
        self.dtypes = {k: getattr(self.m, "bool" if k == "bool" else k) for k in
                       list(_NP) + ["bfloat16"]}
        self.dtype_names = {v: k for k, v in self.dtypes.items()}

    def fn(self, case):
        mod = self.ns[case["ns"]]
        f = getattr(mod, case["op"], None)
        if f is None and case["ns"] == "torch":
            f = getattr(self.Tensor, case["op"], None)
        return f

    def tensor(self, arr: np.ndarray, dtype: str):
        t = self.m.tensor(arr)
        if dtype == "bfloat16":
            t = t.to(self.dtypes["bfloat16"])
        return t


def _values(spec: dict, shape) -> np.ndarray:
    rng = np.random.default_rng(spec["seed"])
    fill, dt = spec["fill"], spec["T"]
    shape = tuple(shape)
    if dt == "bool" or fill == "bool":
        v = rng.random(shape) < 0.5
    elif fill == "index":
        v = rng.integers(0, 3, shape)
        bad = rng.random(shape) < 0.04
        v = np.where(bad, rng.choice([-1, 5, 100], shape), v)
    elif dt in _INT_LIMITS:
        lo, hi = _INT_LIMITS[dt]
        if fill == "special":
            v = rng.choice([0, 1, -1, lo, hi, 2, 0], shape)
        elif fill == "positive":
            v = rng.integers(1, 6, shape)
        else:
            v = rng.integers(-5, 6, shape)
        v = np.clip(v, lo, hi)
    elif fill == "special":
        v = rng.choice([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e30, -1e30, 0.5,
                        65504.0, 1e-40, 3.0], shape)
    elif fill == "positive":
        v = rng.uniform(0.1, 5.0, shape)
    elif fill == "unit":
        v = rng.uniform(-0.99, 0.99, shape)
    elif fill == "small_int":
        v = rng.integers(-4, 5, shape).astype(np.float64)
    else:
        v = rng.standard_normal(shape) * 2.0
    np_dt = np.float32 if dt == "bfloat16" else _NP[dt]
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(np_dt)


def build_tensor(spec: dict, lib: Lib, leaves: list = None, grad: bool = False):
    """The tensor a spec describes, made the same way in either framework: its values from a
    seeded numpy generator, then the view (a transpose, an expand or a strided slice of a
    larger base, so the op sees a non-contiguous input)."""
    shape = list(spec["shape"])
    view = spec["view"]
    if view == "transpose" and len(shape) < 2 or view == "slice" and not shape:
        view = "contig"
    if view == "transpose":
        base_shape = shape[:-2] + [shape[-1], shape[-2]]
    elif view == "expand":
        r = np.random.default_rng(spec["seed"] + 1)
        base_shape = [1 if r.random() < 0.5 else s for s in shape]
    elif view == "slice":
        base_shape = [shape[0] * 2] + shape[1:]
    else:
        base_shape = shape
    base = lib.tensor(_values(spec, base_shape), spec["T"])
    if grad and spec["T"] in _TOL:
        base.requires_grad_(True)
        if leaves is not None:
            leaves.append(base)
    if view == "transpose":
        return base.transpose(-1, -2)
    if view == "expand":
        return base.expand(shape)
    if view == "slice":
        return base[::2]
    return base


def decode(v, lib: Lib, leaves: list = None, grad: bool = False):
    if isinstance(v, dict):
        if "T" in v:
            return build_tensor(v, lib, leaves, grad)
        if "D" in v:
            return lib.dtypes[v["D"]]
        if "L" in v:
            return [decode(x, lib, leaves, grad) for x in v["L"]]
        if "F" in v:
            return float(v["F"])
        if "O" in v:
            return object()
    if isinstance(v, list):
        return [decode(x, lib, leaves, grad) for x in v]
    return v


def _call(case, lib: Lib, leaves=None, grad=False):
    out = _call1(case, lib, leaves, grad)
    if out is NotImplemented:  # what a binary operator turns into TypeError
        raise TypeError(f"{case['op']}: unsupported operand (NotImplemented)")
    return out


def _call1(case, lib: Lib, leaves=None, grad=False):
    args = [decode(a, lib, leaves, grad) for a in case["args"]]
    kwargs = {k: decode(v, lib, leaves, grad) for k, v in case["kwargs"].items()}
    f = lib.fn(case)
    if case["mode"] == "inplace":
        if not args or not isinstance(args[0], lib.Tensor):
            raise TypeError("in-place form needs a tensor")
        out = getattr(args[0], case["op"] + "_")(*args[1:], **kwargs)
        return (out, args[0])
    if case["form"] == "method":
        if not args or not isinstance(args[0], lib.Tensor):
            raise TypeError("method form needs a tensor")
        return getattr(args[0], case["op"])(*args[1:], **kwargs)
    return f(*args, **kwargs)


def _run(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return None, fn()
        except BaseException as e:  # noqa: BLE001 - the oracle decides what is right
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            return e, None


def _clean(e: BaseException) -> bool:
    return isinstance(e, CLEAN) and not any(d in str(e) for d in _DUMPS)


def _norm(x, lib: Lib):
    """Outputs as comparable plain data: tensors become (dtype, shape, float64/int/bool array)."""
    if isinstance(x, lib.Tensor):
        name = lib.dtype_names.get(x.dtype, str(x.dtype))
        t = x.detach()
        if name in ("float16", "bfloat16", "float32"):
            t = t.to(lib.dtypes["float64"])
        arr = np.array(t.numpy(), copy=True)
        return ("T", name, tuple(int(s) for s in x.shape), arr)
    if isinstance(x, (tuple, list)):
        return ("S", [_norm(v, lib) for v in x])
    if lib.name == "torch":
        import torch
        if isinstance(x, torch.Size):
            return ("S", [_norm(int(v), lib) for v in x])
    if isinstance(x, np.ndarray):
        return ("N", x)
    return ("P", x)


_PRECISION = ["bfloat16", "float16", "float32", "float64"]  # loosest first


def _lowest_float(case) -> str:
    """The least precise float dtype among a case's tensors: a float64 result computed from a
    bfloat16 input is only as exact as bfloat16."""
    found = []

    def walk(v):
        if isinstance(v, dict):
            if "T" in v and v["T"] in _PRECISION:
                found.append(v["T"])
            elif "D" in v and v["D"] in _PRECISION:  # a dtype= argument computes in it
                found.append(v["D"])
            elif "L" in v:
                for x in v["L"]:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for v in list(case["args"]) + list(case["kwargs"].values()):
        walk(v)
    return min(found, key=_PRECISION.index) if found else "float64"


def _close(a: np.ndarray, b: np.ndarray, dtype: str, tol, floor: str = "float64") -> bool:
    if a.shape != b.shape:
        return False
    if dtype not in tol:
        return np.array_equal(a, b)
    atol, rtol = tol[dtype]
    if floor in tol and _PRECISION.index(floor) < _PRECISION.index(dtype):
        atol, rtol = max(atol, tol[floor][0]), max(rtol, tol[floor][1])
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    inf_a, inf_b = np.isinf(a), np.isinf(b)
    if not np.array_equal(inf_a, inf_b) or not np.array_equal(a[inf_a], b[inf_b]):
        return False
    fa, fb = a[~(nan_a | inf_a)], b[~(nan_b | inf_b)]
    if fa.size == 0:
        return True
    scale = max(1.0, float(np.max(np.abs(fb))))
    return bool(np.all(np.abs(fa - fb) <= atol * scale + rtol * np.abs(fb)))


def _exact(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        a, b = a.reshape(-1), b.reshape(-1)
        return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)) or
                    np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def compare(got, want, path="out", tol=_TOL, values=True, exact=False, floor="float64"):
    """None when `got` (tandem) matches `want` (the oracle), else what differs."""
    if got[0] != want[0]:
        return f"{path}: kind {got[0]} vs {want[0]}"
    if got[0] == "S":
        if len(got[1]) != len(want[1]):
            return f"{path}: {len(got[1])} items vs {len(want[1])}"
        for i, (g, w) in enumerate(zip(got[1], want[1])):
            d = compare(g, w, f"{path}[{i}]", tol, values, exact, floor)
            if d:
                return d
        return None
    if got[0] == "T":
        _, gd, gs, ga = got
        _, wd, ws, wa = want
        if gd != wd:
            return f"{path}: dtype {gd} vs {wd}"
        if gs != ws:
            return f"{path}: shape {gs} vs {ws}"
        if not values:
            return None
        ok = _exact(ga, wa) if exact else _close(ga, wa, gd, tol, floor)
        if not ok:
            return f"{path}: values differ: {_show(ga)} vs {_show(wa)}{_first_diff(ga, wa)}"
        return None
    g, w = got[1], want[1]
    if isinstance(w, float) and isinstance(g, (int, float)):
        if math.isnan(w) and math.isnan(g) or g == w or abs(g - w) <= 1e-6 * max(1, abs(w)):
            return None
    elif type(g) is type(w) and g == w or (isinstance(g, np.ndarray) and np.array_equal(g, w)):
        return None
    return f"{path}: {g!r} vs {w!r}"


def _show(a: np.ndarray) -> str:
    flat = a.reshape(-1)
    s = np.array2string(flat[:8], precision=6, threshold=8)
    return s + ("..." if flat.size > 8 else "")


def _first_diff(a: np.ndarray, b: np.ndarray) -> str:
    """The worst differing element (a NaN/inf mismatch first, else the largest difference), so
    the rules see a NaN or inf beyond the shown prefix."""
    if a.shape != b.shape or a.size == 0 or a.dtype.kind not in "fiub":
        return ""
    fa, fb = a.reshape(-1).astype(np.float64), b.reshape(-1).astype(np.float64)
    odd = (np.isnan(fa) != np.isnan(fb)) | (np.isinf(fa) & (fa != fb)) | (np.isinf(fb) & (fa != fb))
    if odd.any():
        i = int(np.flatnonzero(odd)[0])
    else:
        with np.errstate(invalid="ignore"):
            d = np.where(np.isnan(fa) & np.isnan(fb), 0.0, np.abs(fa - fb))
        i = int(np.argmax(d))
    return f"; worst at [{i}]: {fa[i]!r} vs {fb[i]!r}"


def _exc(e) -> str:
    return f"{type(e).__name__}: {str(e)[:300]}"


def _outcome_raise(te, de):
    """Classifies a case where at least one side raised."""
    if de is not None and not _clean(de):
        return "unclear_error", _exc(de)
    if te is not None and de is not None:
        return "both_raise", _exc(de)
    if te is not None:
        return "tandem_accepts", "torch raised " + _exc(te)
    return "tandem_rejects", _exc(de)


def run_forward(case, T: Lib, D: Lib):
    te, tout = _run(lambda: _norm(_call(case, T), T))
    de, dout = _run(lambda: _norm(_call(case, D), D))
    if te is not None or de is not None:
        return _outcome_raise(te, de)
    values = case["op"] not in known.SHAPE_ONLY
    floor = _lowest_float(case)
    diff = compare(dout, tout, values=values, floor=floor)
    if diff and values and case["op"] in known.TIES:
        diff = compare(dout, tout, values=False) or _ties_ok(dout, tout, floor)
    if diff:
        args = [decode(a, D) for a in list(case["args"]) + list(case["kwargs"].values())
                if isinstance(a, dict) and "T" in a]
        diff += _extremes(case, [a for a in args if a.dtype.is_floating_point], D)
    return ("wrong", diff) if diff else ("ok", "")


def _ties_ok(dout, tout, floor):
    """For ops returning (values, indices): any index of a tied value is right, so only the
    values (the first output) are compared exactly."""
    if dout[0] == "S" and dout[1] and dout[1][0][0] == "T":
        return compare(dout[1][0], tout[1][0], floor=floor)
    return None


def _loss(out, lib: Lib, seed: int):
    """sum(out_i * w_i) over the float outputs that carry gradients, with fixed weights."""
    leaves = []

    def collect(x):
        if isinstance(x, lib.Tensor):
            leaves.append(x)
        elif isinstance(x, (tuple, list)):
            for v in x:
                collect(v)
    collect(out)
    total = None
    rng = np.random.default_rng(seed)
    for t in leaves:
        name = lib.dtype_names.get(t.dtype)
        if name not in _TOL or not t.requires_grad:
            rng.standard_normal(tuple(t.shape))
            continue
        w = lib.tensor(rng.standard_normal(tuple(int(s) for s in t.shape)), "float64")
        term = (t.to(lib.dtypes["float64"]) * w).sum()
        total = term if total is None else total + term
    return total


def _input_at(leaves: list, lib: Lib, diff: str) -> str:
    """The input value where a gradient differs most: a gradient at a NaN or inf input is
    the OPEN class of known_differences, a finite one is a finding."""
    m = re.search(r"grad\[(\d+)\].*worst at \[(\d+)\]", diff, re.S)
    if not m or int(m.group(1)) >= len(leaves):
        return ""
    leaf = leaves[int(m.group(1))].detach().to(lib.dtypes["float64"]).numpy().reshape(-1)
    i = int(m.group(2))
    return f"; input there: {leaf[i]!r}" if i < leaf.size else ""


def _extremes(case, leaves: list, lib: Lib) -> str:
    """Marks a mismatch whose inputs hold +-inf / NaN, values whose products overflow float32
    (|x| >= 1e30) or float32 subnormals (whose reciprocals do), or whose Python-number
    parameters are not finite: the known_differences rules for non-finite arithmetic match
    on these marks."""
    marks = []
    vals = [leaf.detach().to(lib.dtypes["float64"]).numpy() for leaf in leaves]
    if any(not np.isfinite(v).all() for v in vals):
        marks.append("non-finite inputs")
    with np.errstate(invalid="ignore"):
        if any((np.abs(v[np.isfinite(v)]) >= 1e30).any() for v in vals):
            marks.append("huge inputs")
        # float32 subnormals: dividing by one overflows, and association decides where
        if any(((np.abs(v) > 0) & (np.abs(v) < 1.1754944e-38)).any() for v in vals):
            marks.append("subnormal inputs")
    params = list(case["args"]) + list(case["kwargs"].values())
    if any(isinstance(p, dict) and p.get("F") in ("inf", "-inf", "nan") for p in params):
        marks.append("non-finite parameter")
    return "".join(f"; {m}" for m in marks)


def run_backward(case, T: Lib, D: Lib):
    kept = {}

    def grads(lib):
        leaves = kept.setdefault(lib.name, [])
        out = _call(case, lib, leaves, grad=True)
        loss = _loss(out, lib, 7)
        if loss is None:  # no output carries a gradient: every input's gradient is zero
            return ("S", [_norm(lib.m.zeros_like(leaf), lib) for leaf in leaves])
        loss.backward()
        res = []
        for leaf in leaves:
            g = leaf.grad
            res.append(_norm(g if g is not None else lib.m.zeros_like(leaf), lib))
        return ("S", res)
    te, tout = _run(lambda: grads(T))
    de, dout = _run(lambda: grads(D))
    if te is not None or de is not None:
        return _outcome_raise(te, de)
    diff = compare(dout, tout, "grad", tol=_GRAD_TOL, values=case["op"] not in known.SHAPE_ONLY,
                   floor=_lowest_float(case))
    if diff:
        diff += _input_at(kept.get(D.name, []), D, diff) + _extremes(case, kept.get(D.name, []), D)
    return ("wrong", diff) if diff else ("ok", "")


def run_jit(case, D: Lib):
    """Eager tandem vs the same call compiled by tandem.jit (tensor arguments become the
    compiled function's inputs; everything else is a constant of the trace)."""
    specs = []

    def lift(v):
        if isinstance(v, dict) and "T" in v:
            specs.append(v)
            return ("arg", len(specs) - 1)
        if isinstance(v, dict) and "L" in v:
            return [lift(x) for x in v["L"]]
        if isinstance(v, list):
            return ("list", [lift(x) for x in v])
        return ("const", v)
    a = [lift(x) for x in case["args"]]
    k = {n: lift(x) for n, x in case["kwargs"].items()}

    def put(spec, xs):
        if isinstance(spec, list):
            return [put(s, xs) for s in spec]
        if spec[0] == "arg":
            return xs[spec[1]]
        if spec[0] == "list":
            return [put(s, xs) for s in spec[1]]
        return decode(spec[1], D)

    def fn(*xs):
        args = [put(s, xs) for s in a]
        kwargs = {n: put(s, xs) for n, s in k.items()}
        if case["form"] == "method":
            return getattr(args[0], case["op"])(*args[1:], **kwargs)
        return D.fn(case)(*args, **kwargs)

    def fresh():  # in-place ops write to their inputs: every run gets its own
        return [build_tensor(s, D) for s in specs]
    ee, eout = _run(lambda: _norm(fn(*fresh()), D))
    jitted = D.jit(fn)
    je, jout = _run(lambda: _norm(jitted(*fresh()), D))
    if je is None:  # the second call runs the compiled graph
        je, jout = _run(lambda: _norm(jitted(*fresh()), D))
    if ee is not None or je is not None:
        if je is not None and not _clean(je):
            return "unclear_error", _exc(je)
        if ee is not None and je is not None:
            return "both_raise", _exc(je)
        if ee is not None:
            return "jit_accepts", "eager raised " + _exc(ee)
        return "jit_rejects", _exc(je)
    values = case["op"] not in known.SHAPE_ONLY
    exact = case["op"] not in known.JIT_INEXACT
    diff = compare(jout, eout, "jit", values=values, exact=exact)
    return ("wrong", diff) if diff else ("ok", "")


def run_case(case, T: Lib, D: Lib):
    if case["op"] in known.SKIP:
        return "skip", known.SKIP[case["op"]]
    if T.fn(case) is None:
        return "skip", "no torch counterpart"
    if case["mode"] == "jit":
        if case["op"] in known.NO_JIT:
            return "skip", known.NO_JIT[case["op"]]
        return run_jit(case, D)
    if case["mode"] == "backward":
        return run_backward(case, T, D)
    return run_forward(case, T, D)


def main() -> None:
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything the libraries print goes to stderr, not into the results
    T, D = Lib("torch"), Lib("tandem")
    out.write("READY\n")
    for line in sys.stdin:
        case = json.loads(line)
        try:
            status, detail = run_case(case, T, D)
        except BaseException as e:  # noqa: BLE001 - a harness error is reported, not hidden
            status, detail = "harness_error", _exc(e)
        if status not in ("ok", "skip", "both_raise"):
            k = known.match(case, status, detail)
            if k:
                status, detail = "known", k
        out.write(json.dumps({"id": case["id"], "status": status, "detail": detail}) + "\n")


if __name__ == "__main__":
    main()
