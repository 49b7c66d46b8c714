"""Graph mode without walls, measured: what a guard costs, what a data-dependent `if` costs
against the same function without it, what a print node costs, and the repeat-call floor.

    .venv/bin/python benchmarks/jit_control_flow.py [--quick]

Variants are timed interleaved rep by rep (A B A B, the first rotating), medians reported
with the ratio to the variant they are compared with; no assertions. A row per comparison:
  one `if` on a tensor (steady branch)   vs the same function with the branch removed
                                         (GEMM-bound MLP layer; memory-bound elementwise)
  one `if`, alternating branch           vs the same, branch removed (every call mispredicts)
  16 guards on argument values           per-guard cost, against the same graph without them
  print node (to /dev/null)              vs the same print run eagerly
  repeat call of x + 1 (1 element)       absolute, and vs an eager x + 1
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time

import tandem
from tandem import jit, mint


def _interleaved(fns: dict, reps: int, inner: int) -> dict:
    """Median seconds per call of each fn, timed rep by rep in rotating order."""
    names = list(fns)
    for f in fns.values():  # warm up (traces, caches)
        for _ in range(3):
            f()
    times = {n: [] for n in names}
    for r in range(reps):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            f = fns[n]
            t = time.perf_counter()
            for _ in range(inner):
                f()
            times[n].append((time.perf_counter() - t) / inner)
    return {n: statistics.median(v) for n, v in times.items()}


def _branch_pair(body_if, body_plain, x, reps, inner, tag):
    f, g = jit(body_if), jit(body_plain)
    t = _interleaved({"if": lambda: f(x), "plain": lambda: g(x)}, reps, inner)
    return {f"{tag}_if_us": t["if"] * 1e6, f"{tag}_no_if_us": t["plain"] * 1e6,
            f"{tag}_if_vs_no_if": t["if"] / t["plain"]}


def branch_rows(size: int, reps: int, inner: int) -> dict:
    """An `if` on a value computed inside: the path runs to the read, checks it, goes on.
    MLP-like (GEMM-bound) and elementwise-only (memory-bound: the read needs the whole
    intermediate before the rest can run, so fusion stops there: the worst case)."""
    w1, w2 = mint.randn(512, 512) * 0.05, mint.randn(512, 10) * 0.05

    def mlp_if(x):
        y = mint.relu(x @ w1)
        y = y * 2 if y.mean() > 0 else y * 0.5
        return y @ w2

    def mlp_plain(x):
        return (mint.relu(x @ w1) * 2) @ w2

    def ew_if(x):
        y = mint.tanh(x) * 2 + 1
        y = y * 3 if y.sum() > 0 else y - 3
        return mint.relu(y) + x

    def ew_plain(x):
        return mint.relu((mint.tanh(x) * 2 + 1) * 3) + x

    rows = _branch_pair(mlp_if, mlp_plain, mint.rand(256, 512), reps, inner, "mlp")
    rows.update(_branch_pair(ew_if, ew_plain, mint.rand(size) + 0.1, reps, inner,
                             "elementwise"))
    f = jit(ew_if)
    pos, neg = mint.rand(size) + 0.1, -mint.rand(size) - 5.0
    flip = [pos, neg]
    state = {"i": 0}

    def alternating():
        state["i"] ^= 1
        return f(flip[state["i"]])

    g = jit(ew_plain)
    t = _interleaved({"alt": alternating, "plain": lambda: g(pos)}, reps, inner)
    rows["elementwise_if_alternating_vs_no_if"] = t["alt"] / t["plain"]
    return rows


def guard_rows(reps: int, inner: int) -> dict:
    """16 guards (Python reads of the arguments' values) on an otherwise identical graph."""
    flags = [mint.tensor(True) for _ in range(16)]

    def reads(x, *fl):
        n = sum(1 for f in fl if f)  # 16 reads: 16 guards, before the first node
        return x + n

    def no_reads(x, *fl):
        return x + 16

    f, g = jit(reads), jit(no_reads)
    x = mint.ones(4)
    t = _interleaved({"k16": lambda: f(x, *flags), "k0": lambda: g(x, *flags)}, reps, inner)
    return {"guards_0_us": t["k0"] * 1e6, "guards_16_us": t["k16"] * 1e6,
            "ns_per_guard": (t["k16"] - t["k0"]) / 16 * 1e9}


def print_rows(reps: int, inner: int) -> dict:
    """print(t) inside jit (a print node) against the same print done eagerly."""
    body = lambda x: (print("x", x.sum()), x + 1)[1]  # noqa: E731
    f = jit(body)
    x = mint.ones(4)
    sink = open(os.devnull, "w")
    with contextlib.redirect_stdout(sink):
        t = _interleaved({"print": lambda: f(x), "eager": lambda: body(x)}, reps, inner)
    sink.close()
    return {"print_node_us": t["print"] * 1e6, "eager_print_us": t["eager"] * 1e6}


def call_rows(reps: int, inner: int) -> dict:
    f = jit(lambda a: a + 1)
    a = mint.ones(1)
    t = _interleaved({"jit": lambda: f(a), "eager": lambda: a + 1}, reps, inner)
    return {"repeat_call_us": t["jit"] * 1e6, "eager_add_us": t["eager"] * 1e6,
            "repeat_call_vs_eager": t["jit"] / t["eager"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps, inner = (5, 20) if args.quick else (15, 200)
    tandem.set_num_threads(2)
    rows = {}
    rows.update(branch_rows(1 << 16 if args.quick else 1 << 20, reps, max(inner // 20, 2)))
    rows.update(guard_rows(reps, inner))
    rows.update(print_rows(reps, inner))
    rows.update(call_rows(reps, inner * 10))
    for k, v in rows.items():
        print(f"{k:28s} {v:10.3f}" if isinstance(v, float) else f"{k:28s} {v}")
    print("RESULT " + json.dumps(rows))


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, line_buffering=True)
    main()
