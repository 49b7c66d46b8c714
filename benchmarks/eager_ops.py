"""Eager-op benchmark: per-op overhead and memory-bound throughput, side by side.

    .venv/bin/python benchmarks/eager_ops.py          # tandem + numpy + torch (peers venv)
    .venv/bin/python benchmarks/eager_ops.py --quick  # smaller sizes, no peers

Measured in one run with 2 threads for everyone:
  1. per-op overhead: `a + b` on 1-element float32 tensors, median ns/call;
  2. `a + b` and `exp(a)` on 16 M float32: GB/s vs a 2-thread copy of the same size;
  3. `sum(a)` of 16 M float32: GB/s (bytes read) vs the same copy ceiling.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS, copy_ceiling_gbs, machine, median_time, run_peer  # noqa: E402

N_BIG = 16 * 1024 * 1024


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
    nbytes = n_big * 4
    res["add_gbs"] = 3 * nbytes / median_time(lambda: a + b) / 1e9
    res["exp_gbs"] = 2 * nbytes / median_time(lambda: exp(a)) / 1e9
    res["sum_gbs"] = nbytes / median_time(lambda: total(a)) / 1e9
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    n_big = N_BIG // 8 if args.quick else N_BIG
    if args.worker:
        print(json.dumps(measure(args.worker, n_big)))
        return
    # The machine is shared: take the ceiling as the median of measurements spread over the run.
    ceilings = [copy_ceiling_gbs(n_big * 4)]
    rows = {"tandem": measure("tandem", n_big)}
    ceilings.append(copy_ceiling_gbs(n_big * 4))
    rows["numpy"] = measure("numpy", n_big)
    if not (args.quick or args.no_peers):
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), "torch")
    ceilings.append(copy_ceiling_gbs(n_big * 4))
    ceiling = sorted(ceilings)[1]
    print(f"# eager_ops ({machine()}; {n_big / 2**20:.0f} M float32; copy ceiling "
          f"{ceiling:.1f} GB/s)\n")
    print("| metric | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key, label in [("overhead_ns", "a+b, 1 element (ns/call)"), ("add_gbs", "a+b (GB/s)"),
                       ("exp_gbs", "exp(a) (GB/s)"), ("sum_gbs", "sum(a) (GB/s)")]:
        cells = []
        for r in rows.values():
            cells.append(r["error"] if "error" in r else f"{r[key]:.1f}" if key != "overhead_ns"
                         else f"{r[key]:.0f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    t = rows["tandem"]
    print(f"\ntandem vs copy ceiling: add {t['add_gbs'] / ceiling:.2f}x, exp "
          f"{t['exp_gbs'] / ceiling:.2f}x, sum {t['sum_gbs'] / ceiling:.2f}x (target >= 0.8)")
    peer = rows.get("torch 2.13", {})
    if "overhead_ns" in peer:
        print(f"tandem overhead / torch overhead: {t['overhead_ns'] / peer['overhead_ns']:.2f} "
              "(target <= 0.5)")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "eager_ops.json").write_text(json.dumps({"ceiling_gbs": ceiling, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
