"""Eager-op benchmark: per-op overhead and memory-bound throughput, side by side.

    .venv/bin/python benchmarks/eager_ops.py          # tandem + numpy + torch (peers venv)
    .venv/bin/python benchmarks/eager_ops.py --quick  # smaller sizes, no peers

Every contender runs in its own process, once per round, the order rotating between rounds
(A B C, B C A, ...), and the copy ceiling is measured inside each round; the table shows
medians over rounds, so a load change during the run moves every column alike. 2 threads
for everyone. Rows:
  1. per-op overhead: `a + b` on 1-element float32 tensors, and `a + 1.0` (a Python
     number), median ns/call;
  2. `a + b` and `exp(a)` on 16 M float32: GB/s vs a 2-thread copy of the same size;
  3. `sum(a)` of 16 M float32: GB/s (bytes read) vs the same copy ceiling.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    THREADS, copy_ceiling_gbs, machine, median_time, run_peer, run_worker)

N_BIG = 16 * 1024 * 1024
KEYS = [("overhead_ns", "a+b, 1 element (ns/call)"),
        ("scalar_ns", "a+1.0, 1 element (ns/call)"),
        ("add_gbs", "a+b (GB/s)"), ("exp_gbs", "exp(a) (GB/s)"), ("sum_gbs", "sum(a) (GB/s)")]


def measure(lib: str, n_big: int) -> dict:
    """Runs the measurements for 'tandem', 'numpy' or 'torch' in this process."""
    import numpy as np
    res = {}
    if lib == "tandem":
        import tandem as T
        T.set_num_threads(THREADS)
        a1, b1 = T.tensor([1.0]), T.tensor([2.0])
        a, b = T.rand(n_big), T.rand(n_big)
        exp, total = T.exp, T.sum
    elif lib == "torch":
        import torch as T
        T.set_num_threads(THREADS)
        a1, b1 = T.tensor([1.0]), T.tensor([2.0])
        a, b = T.rand(n_big), T.rand(n_big)
        exp, total = T.exp, T.sum
    else:
        a1, b1 = np.array([1.0], np.float32), np.array([2.0], np.float32)
        a = np.random.rand(n_big).astype(np.float32)
        b = np.random.rand(n_big).astype(np.float32)
        exp, total = np.exp, np.sum
    res["overhead_ns"] = median_time(lambda: a1 + b1, reps=7, inner=20000) * 1e9
    res["scalar_ns"] = median_time(lambda: a1 + 1.0, reps=7, inner=20000) * 1e9
    nbytes = n_big * 4
    res["add_gbs"] = 3 * nbytes / median_time(lambda: a + b) / 1e9
    res["exp_gbs"] = 2 * nbytes / median_time(lambda: exp(a)) / 1e9
    res["sum_gbs"] = nbytes / median_time(lambda: total(a)) / 1e9
    return res


def run_one(lib: str, quick: bool) -> dict:
    """One contender's measurements, in a fresh process (torch in the peers venv)."""
    here = Path(__file__).resolve()
    if lib == "torch 2.13":
        return run_peer(here, "torch")
    argv = [here, "--worker", lib] + (["--quick"] if quick else [])
    return run_worker(sys.executable, argv, dict(os.environ), what=lib)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--rounds", type=int, default=None, help="default 3 (1 with --quick)")
    args = ap.parse_args()
    n_big = N_BIG // 8 if args.quick else N_BIG
    if args.worker:
        print(json.dumps(measure(args.worker, n_big)))
        return
    libs = ["tandem", "numpy"] + ([] if args.quick or args.no_peers else ["torch 2.13"])
    rounds = args.rounds or (1 if args.quick else 3)
    runs: dict = {lib: [] for lib in libs}
    ceilings = []
    for r in range(rounds):
        order = libs[r % len(libs):] + libs[:r % len(libs)]
        for k, lib in enumerate(order):
            if k == len(order) // 2:
                ceilings.append(copy_ceiling_gbs(n_big * 4))
            runs[lib].append(run_one(lib, args.quick))
    ceiling = statistics.median(ceilings)
    rows = {}
    for lib, results in runs.items():
        ok = [x for x in results if "error" not in x]
        rows[lib] = ({k: statistics.median(x[k] for x in ok) for k, _ in KEYS} if ok
                     else results[0])
    print(f"# eager_ops ({machine()}; {n_big / 2**20:.0f} M float32; copy ceiling "
          f"{ceiling:.1f} GB/s; {rounds} interleaved round(s), medians)\n")
    print("| metric | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key, label in KEYS:
        cells = []
        for r in rows.values():
            cells.append(r["error"] if "error" in r else f"{r[key]:.0f}" if key.endswith("_ns")
                         else f"{r[key]:.1f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    t = rows["tandem"]
    if "error" in t:
        sys.exit(f"tandem failed: {t['error']}")
    print(f"\ntandem vs copy ceiling: add {t['add_gbs'] / ceiling:.2f}x, exp "
          f"{t['exp_gbs'] / ceiling:.2f}x, sum {t['sum_gbs'] / ceiling:.2f}x (target >= 0.8)")
    npy = rows["numpy"]
    if "error" not in npy:
        print(f"tandem overhead / numpy overhead: a+b {t['overhead_ns'] / npy['overhead_ns']:.2f}, "
              f"a+1.0 {t['scalar_ns'] / npy['scalar_ns']:.2f} (target <= 1.0)")
    peer = rows.get("torch 2.13", {})
    if "overhead_ns" in peer:
        print(f"tandem overhead / torch overhead: {t['overhead_ns'] / peer['overhead_ns']:.2f} "
              "(target <= 0.5)")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "eager_ops.json").write_text(json.dumps({"ceiling_gbs": ceiling, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
