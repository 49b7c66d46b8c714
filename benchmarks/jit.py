"""Graph-mode benchmark: elementwise chains, LeNet and ResNet-18 (D2L's, 1x96x96, batch 32)
training steps, tandem eager vs tandem compiled (@jit) vs torch 2.13 eager vs torch.compile,
plus the copy ceiling, the compile time of the LeNet step, and the peak memory of the
ResNet-18 step eager vs compiled.

    .venv/bin/python benchmarks/jit.py [--quick]

Peak memory is the same measure for every column: the process's peak RSS while running the
step (after two warm-up steps) minus its RSS before the first step, each configuration in a
fresh process (benchmarks/_common.py peak_rss_delta); tandem's rows add its caching
allocator's own peak (bytes in use at the peak above those in use before the steps).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (THREADS, copy_ceiling_gbs, machine, median_time, run_peer,  # noqa: E402
                     run_worker)
from workloads import chain_fns, sizes  # noqa: E402
from workloads_torchlike import build, framework, model_step  # noqa: E402

N = 16 * 1024 * 1024
PEAK_ROWS = [("eager", "resnet18 peak RSS eager"), ("compiled", "resnet18 peak RSS compiled")]


def measure(lib: str, n: int, quick: bool) -> dict:
    """Rows for 'tandem' or 'torch' in this process (torch.compile failures become cells)."""
    T, mint, _, _ = framework(lib)
    compile_ = T.jit if lib == "tandem" else T.compile
    res = {}
    x = mint.randn(n)
    for f in chain_fns(mint):
        res[f"{f.__name__} eager"] = median_time(lambda: f(x))
        try:
            g = compile_(f)
            g(x)
            res[f"{f.__name__} compiled"] = median_time(lambda: g(x))
        except Exception as e:  # inductor needs a working C++ toolchain
            res[f"{f.__name__} compiled"] = f"compile failed: {type(e).__name__}"
    sz = dict(sizes(quick), lenet_batch=256)
    for model in ("lenet", "resnet18"):
        reps = 5 if model == "resnet18" else 7
        step, X, y = model_step(lib, False, model, sz)
        res[f"{model} step eager"] = median_time(lambda: step(X, y), reps=reps)
        try:
            step, X, y = model_step(lib, True, model, sz)
            t0 = time.perf_counter()
            step(X, y)
            first = time.perf_counter() - t0
            res[f"{model} step compiled"] = median_time(lambda: step(X, y), reps=reps)
            if model == "lenet":
                res["lenet compile time"] = first - res["lenet step compiled"]
        except Exception as e:
            res[f"{model} step compiled"] = f"compile failed: {type(e).__name__}"
    return res


def peak_worker(lib: str, mode: str, quick: bool) -> dict:
    """One fresh process: the ResNet-18 step's peak RSS delta (and tandem's allocator peak)."""
    T = framework(lib)[0]
    sz = sizes(quick)
    key = f"{lib}:{'eager' if mode == 'eager' else ('graph' if lib == 'tandem' else 'compile')}"
    peak = build(key, sz)["resnet18_peak"]
    if lib != "tandem":
        return {"rss": peak()}
    before = T.memory_stats()["bytes_in_use"]
    T._C.reset_peak_memory_stats()
    rss = peak()
    return {"rss": rss, "alloc": T.memory_stats()["peak_bytes_in_use"] - before}


def peak_rows(lib: str, quick: bool) -> dict:
    res = {}
    for mode, label in PEAK_ROWS:
        argv = ["--worker", f"peak:{lib}:{mode}"] + (["--quick"] if quick else [])
        # sys.executable: tandem's venv here, the peers venv inside the torch worker.
        r = run_worker(sys.executable, [Path(__file__).resolve(), *argv],
                       dict(os.environ, OMP_NUM_THREADS=str(THREADS)), 900, label)
        res[label] = r.get("error") or f"{r['rss'] / 2**20:.0f} MiB"
        if "alloc" in r:
            res[label.replace("RSS", "allocator")] = f"{r['alloc'] / 2**20:.0f} MiB"
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = N // 8 if args.quick else N
    if args.worker:
        if args.worker.startswith("peak:"):
            _, lib, mode = args.worker.split(":")
            print(json.dumps(peak_worker(lib, mode, args.quick)))
        else:
            print(json.dumps({**measure("torch", n, args.quick), **peak_rows("torch", args.quick)}))
        return
    ceiling = copy_ceiling_gbs(n * 4)
    copy_s = 2 * n * 4 / ceiling / 1e9
    rows = {"tandem": {**measure("tandem", n, args.quick), **peak_rows("tandem", args.quick)}}
    if not args.quick:
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), "torch", timeout=1800)
    print(f"# jit ({machine()}; {n / 2**20:.0f} M float32; copy of x: {copy_s * 1e3:.2f} ms)\n")
    print("| workload | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key in rows["tandem"]:
        cells = []
        for r in rows.values():
            v = r.get(key, r.get("error", "-"))
            cells.append(f"{v * 1e3:.2f} ms" if isinstance(v, float) else str(v))
        print(f"| {key} | " + " | ".join(cells) + " |")
    t = rows["tandem"]
    print(f"\ncompiled vs eager: x+x+x {t['triple eager'] / t['triple compiled']:.2f}x, "
          f"gelu {t['gelu_tanh eager'] / t['gelu_tanh compiled']:.2f}x faster; compiled x+x+x "
          f"= {t['triple compiled'] / copy_s:.2f}x a plain copy's time")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "jit.json").write_text(json.dumps({"copy_s": copy_s, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
