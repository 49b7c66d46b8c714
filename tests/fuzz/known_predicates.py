"""Predicates of the differential fuzzer's known differences (tests/fuzz/known_differences.py):
the ones that read a case's arguments or the mismatch's worst element, not only its message.
"""
from __future__ import annotations

import math
import re
from typing import Optional


def _norm_order(case: dict) -> Optional[float]:
    p = case["kwargs"].get("ord", case["kwargs"].get("p"))
    pos = 2 if case["op"] == "cdist" else 1  # cdist(x1, x2, p)
    if p is None and len(case["args"]) > pos:
        p = case["args"][pos]
    if isinstance(p, dict) and "F" in p:
        p = float(p["F"])
    return float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) else None


def _has_view(case: dict, view: str) -> bool:
    return any(isinstance(a, dict) and a.get("view") == view
               for a in list(case["args"]) + list(case["kwargs"].values()))


#: Differences that depend on the arguments, not only on the message: (predicate, status regex,
#: reason).
def _torch_overflowed(detail: str) -> bool:
    """torch's value at the worst element is 0, 1, +-inf or NaN (|x|^p over- or underflowed)
    where tandem's is finite."""
    m = re.search(r"worst at \[\d+\]: (?:np\.float64\()?([^ )]+)\)? vs (?:np\.float64\()?"
                  r"([^ );]+)", detail)
    if not m:
        return False
    got, want = float(m.group(1)), float(m.group(2))
    return (want in (0.0, 1.0) or not math.isfinite(want)) and math.isfinite(got)


_NORMS = ("vector_norm", "norm", "linalg_norm")


def _max_finite_abs(case: dict, ints: bool = False) -> float:
    """The largest finite |value| in the case's float tensor arguments (and integer ones with
    ints=True), regenerated from their seeds as the worker makes them."""
    try:
        from .diff_worker import _values
    except ImportError:  # run as a script from tests/fuzz
        from diff_worker import _values  # type: ignore
    import numpy as np
    best = 0.0
    for a in case["args"]:
        if isinstance(a, dict) and "T" in a and (
                a["T"].startswith(("float", "bfloat")) or ints and a["T"].startswith(("int", "uint"))):
            n = int(np.prod(a["shape"])) * (2 if a.get("view") == "slice" else 1)
            v = np.abs(_values(a, [n]).astype(np.float64))
            v = v[np.isfinite(v)]
            best = max(best, float(v.max()) if v.size else 0.0)
    return best

def _mixed_bounds(case: dict) -> bool:
    """clamp(x, min, max): one bound a Python number, the other a 0-d tensor."""
    names = ("min", "max")
    bounds = [case["args"][i] if len(case["args"]) > i else case["kwargs"].get(names[i - 1])
              for i in (1, 2)]
    kinds = {"number" if isinstance(b, (int, float)) or isinstance(b, dict) and "F" in b
             else "0d" if isinstance(b, dict) and b.get("shape") == [] else "other"
             for b in bounds}
    return kinds == {"number", "0d"}


def _pool_window_in_padding(case: dict) -> bool:
    """max_pool(input, kernel_size, stride, padding, dilation, ceil_mode): some output window
    (along any pooled dim) covers no input position."""
    names = ("kernel_size", "stride", "padding", "dilation")
    args = list(case["args"]) + [None] * 6
    x = args[0]
    if not isinstance(x, dict) or "shape" not in x:
        return False
    nd = 1 if case["op"] == "max_pool1d" else 2
    vals = [case["kwargs"].get(n, args[i + 1]) for i, n in enumerate(names)]

    def per_dim(v, default):
        v = default if v is None or v == [] else v
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        return (v * nd)[:nd] if len(v) == 1 else v[:nd]
    try:
        k = per_dim(vals[0], 1)
        s = per_dim(vals[1], k)
        p = per_dim(vals[2], 0)
        dl = per_dim(vals[3], 1)
        sizes = x["shape"][-nd:]
        for n, kk, ss, pp, dd in zip(sizes, k, s, p, dl):
            out = (n + 2 * pp - dd * (kk - 1) - 1) // ss + 2
            for o in range(max(out, 0)):
                start = o * ss - pp
                if not any(0 <= start + i * dd < n for i in range(kk)):
                    return True
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return False


def _int_beyond_sequence(case: dict) -> bool:
    """searchsorted(seq, v): v a Python int outside the range of seq's integer dtype."""
    import numpy as np
    if len(case["args"]) < 2 or not isinstance(case["args"][0], dict):
        return False
    seq, v = case["args"][0].get("T", ""), case["args"][1]
    if not isinstance(v, int) or isinstance(v, bool) or not seq.startswith(("int", "uint")):
        return False
    info = np.iinfo(seq)
    return not info.min <= v <= info.max


#: Differences that depend on the arguments, not only on the message: (predicate of the case
#: and the detail, status regex, reason).
_NONFINITE_MARK = re.compile(
    r"; (non-finite inputs|huge inputs|subnormal inputs|non-finite parameter)")
_WORST = re.compile(r"worst at \[[^\]]*\]: np\.float64\(([^)]*)\) vs np\.float64\(([^)]*)\)"
                    r"(?:; input there: np\.float64\(([^)]*)\))?")


def _nonfinite_gradient(case: dict, detail: str) -> bool:
    """A gradient mismatch at an element that is not finite (or beyond 1e30) on either side,
    or whose input is not finite, in a case whose inputs or parameters hold such values."""
    if case["mode"] != "backward" or not _NONFINITE_MARK.search(detail):
        return False
    if re.search(r"; (huge inputs|subnormal inputs|non-finite parameter)", detail):
        return True  # overflow and cancellation at 1e30 scales: any element may differ
    m = _WORST.search(detail)
    if not m:
        return False
    vals = [float(v) for v in m.groups() if v is not None]
    return any(not math.isfinite(v) or abs(v) >= 1e30 for v in vals)


_CONTRACTIONS = {"inner", "dot", "vdot", "mv", "mm", "matmul", "bmm", "addmm", "baddbmm",
                 "addbmm", "addmv", "addr", "tensordot", "einsum", "outer", "linear",
                 "bilinear", "conv1d", "conv2d", "conv_transpose2d", "cdist", "trace"}


def _worst_extreme(detail: str) -> bool:
    """The mismatch's worst element is not finite (or beyond 1e30) on either side."""
    m = _WORST.search(detail)
    return bool(m) and any(not math.isfinite(float(v)) or abs(float(v)) >= 1e30
                           for v in m.groups()[:2])


def _nonfinite_value(detail: str) -> bool:
    """A mismatch in a case with non-finite, huge or subnormal inputs whose worst element is
    extreme (not finite, or beyond 1e30) on either side."""
    return bool(_NONFINITE_MARK.search(detail)) and _worst_extreme(detail)


def _no_degrees_of_freedom(case: dict) -> bool:
    """var / std (and their _mean forms) with correction >= the number of reduced elements."""
    c = case["kwargs"].get("correction")
    if isinstance(c, dict) and "F" in c:
        c = float(c["F"])
    x = case["args"][0] if case["args"] else None
    if not isinstance(c, (int, float)) or isinstance(c, bool) or not isinstance(x, dict):
        return False
    shape = x.get("shape", [])
    dim = case["kwargs"].get("dim", case["kwargs"].get("axis"))
    if dim is None and len(case["args"]) > 1:
        dim = case["args"][1]
    dims = [dim] if isinstance(dim, int) and not isinstance(dim, bool) else dim
    if dims is None or dims == []:
        dims = list(range(len(shape)))
    try:
        n = math.prod(shape[d] for d in dims) if shape else 1
    except (IndexError, TypeError):
        return False
    return not math.isfinite(c) or c >= n


def _integer_operands(case: dict) -> bool:
    return any(isinstance(a, dict) and a.get("T", "").startswith(("int", "uint"))
               for a in list(case["args"]) + list(case["kwargs"].values()))


def _has_empty(v) -> bool:
    if isinstance(v, dict):
        if "T" in v and "shape" in v:
            return 0 in v["shape"]
        return any(_has_empty(x) for x in v.get("L", []))
    if isinstance(v, list):
        return any(_has_empty(x) for x in v)
    return False


_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
              "float32": 3.4028234663852886e38}


def _value_beyond_an_operand(case: dict) -> bool:
    """addcdiv / addcmul: value (keyword or fourth positional) does not fit one of the three
    operands' float dtypes."""
    vals = [case["kwargs"].get("value")] + list(case["args"][3:4])
    v = next((x for x in vals if isinstance(x, (int, float)) and not isinstance(x, bool)), None)
    if v is None:
        return False
    limits = [_FLOAT_MAX[a["T"]] for a in case["args"][:3]
              if isinstance(a, dict) and a.get("T") in _FLOAT_MAX]
    return bool(limits) and abs(v) > min(limits)


def _elements(shape) -> int:
    """The number of elements a shape argument (an int or a list of ints) names; -1 for
    anything else."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        return shape
    if isinstance(shape, (list, tuple)) and all(isinstance(v, int) for v in shape):
        return math.prod(shape)
    return -1


def _worst_below(detail: str, limit: float) -> bool:
    """Both values at the mismatch's worst element are finite and below limit in size."""
    m = _WORST.search(detail)
    if not m:
        return False
    a, b = float(m.group(1)), float(m.group(2))
    return math.isfinite(a) and math.isfinite(b) and max(abs(a), abs(b)) < limit
