"""Compile time of @jit for long elementwise graphs: the first call (trace + passes + codegen +
first run) minus a steady call, for chains of 1k, 4k and 10k elementwise ops on a small input,
so the time is the compiler's and not the kernels'. Each length runs in a fresh process, so the
compile cache of one length does not help the next.

    .venv/bin/python benchmarks/jit_compile_long.py [--lengths 1000,4000,10000] [--profile]

--profile also prints where the compile time goes (the TANDEM_JIT_DISABLE switches turned off
one at a time: the time saved by dropping a pass bounds its cost).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_OPS = ("add", "mul", "sub", "tanh", "neg", "abs")


def chain(n: int):
    """x -> n elementwise ops, a mix of binary (with a constant) and unary ones, each feeding
    the next (so nothing is dead and CSE cannot merge them)."""
    def f(x):
        y = x
        for i in range(n):
            k = _OPS[i % len(_OPS)]
            if k == "add":
                y = y + 0.5
            elif k == "mul":
                y = y * 0.999
            elif k == "sub":
                y = y - 0.25
            elif k == "tanh":
                y = y.tanh()
            elif k == "neg":
                y = -y
            else:
                y = y.abs()
        return y
    return f


def one(n: int) -> dict:
    import tandem
    from tandem import mint
    x = mint.randn(64)
    g = tandem.jit(chain(n))
    t0 = time.perf_counter()
    g(x)
    first = time.perf_counter() - t0
    steady = []
    for _ in range(5):
        t0 = time.perf_counter()
        g(x)
        steady.append(time.perf_counter() - t0)
    steady.sort()
    t0 = time.perf_counter()
    chain(n)(x)
    eager = time.perf_counter() - t0
    return {"ops": n, "first_call_s": first, "steady_s": steady[2],
            "compile_s": first - steady[2], "eager_s": eager}


def run(n: int, env_extra=None) -> dict:
    env = dict(os.environ, **(env_extra or {}))
    out = subprocess.run([sys.executable, __file__, "--one", str(n)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", default="1000,4000,10000")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    if a.one is not None:
        print(json.dumps(one(a.one)))
        return
    lengths = [int(v) for v in a.lengths.split(",")]
    print(f"{'ops':>7} {'compile s':>10} {'first call s':>13} {'steady s':>10} {'eager s':>9}")
    rows = []
    for n in lengths:
        r = run(n)
        rows.append(r)
        print(f"{n:>7} {r['compile_s']:>10.3f} {r['first_call_s']:>13.3f} {r['steady_s']:>10.5f} "
              f"{r['eager_s']:>9.4f}", flush=True)
    if len(rows) > 1:
        a0, a1 = rows[0], rows[-1]
        growth = (a1["compile_s"] / max(a0["compile_s"], 1e-9)) / (a1["ops"] / a0["ops"])
        print(f"compile time grows {growth:.2f}x faster than the op count "
              f"({a0['ops']} -> {a1['ops']} ops); 1.0 is linear")
    if a.profile:
        n = lengths[-1]
        base = rows[-1]["compile_s"]
        for sw in ("cse", "simplify", "dce", "fold_activation", "fuse_elementwise",
                   "schedule_updates", "arena", "inplace", "codegen"):
            r = run(n, {"TANDEM_JIT_DISABLE": sw})
            print(f"  without {sw:<17} compile {r['compile_s']:.3f} s "
                  f"(saves {base - r['compile_s']:+.3f} s)", flush=True)


if __name__ == "__main__":
    main()
