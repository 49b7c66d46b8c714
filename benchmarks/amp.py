"""Mixed precision: float32 vs bf16 autocast, tandem eager / @jit and torch eager autocast,
interleaved rep by rep (A B A B, each contender in its own process per rep), medians.

    TANDEM_BUILD_DIR=build PYTHONPATH=python .venv/bin/python benchmarks/amp.py [--quick]

Rows: GEMM 2048 (GFLOP/s, with the FMA peak measured in the same run), an MLP 784-256-256-10
training step (batch 256) and a LeNet training step (batch 64). torch is the test-oracle
install in .venv (or the peers venv); rows without it say so. Prints a markdown table with
ratios first.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

WORKER = r'''
import json, sys, time, statistics
lib, row, prec, mode, quick = sys.argv[1:6]
quick = quick == "1"
if lib == "tandem":
    import tandem as T
    from tandem import mint as M
    T.set_num_threads(2)
    nn, F, opt_mod = M.nn, M.nn.functional, M.optim
    autocast = lambda: M.autocast("cpu", dtype=M.bfloat16, enabled=prec == "bf16")
else:
    import torch as M
    M.set_num_threads(2)
    nn, F, opt_mod = M.nn, M.nn.functional, M.optim
    autocast = lambda: M.autocast("cpu", dtype=M.bfloat16, enabled=prec == "bf16")
M.manual_seed(0)

def timed(f, reps):
    for _ in range(3): f()
    xs = []
    for _ in range(reps):
        t = time.perf_counter(); f(); xs.append(time.perf_counter() - t)
    return statistics.median(xs)

if row == "gemm":
    n = 1024 if quick else 2048
    a, b = M.randn(n, n), M.randn(n, n)
    if prec == "bf16":
        a, b = a.bfloat16(), b.bfloat16()
    f = (T.jit(lambda x, y: x @ y) if lib == "tandem" and mode == "jit" else (lambda x, y: x @ y))
    s = timed(lambda: f(a, b), 5)
    print(json.dumps({"s": s, "gflops": 2 * n ** 3 / s / 1e9}))
    sys.exit()

if row == "mlp":
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
    X, y = M.randn(256, 784), M.randint(0, 10, (256,))
else:
    net = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2),
                        nn.Conv2d(6, 16, 5), nn.Sigmoid(), nn.AvgPool2d(2), nn.Flatten(),
                        nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(),
                        nn.Linear(84, 10))
    X, y = M.randn(64, 1, 28, 28), M.randint(0, 10, (64,))
opt = opt_mod.SGD(net.parameters(), lr=0.01)

def step(X, y):
    with autocast():
        loss = F.cross_entropy(net(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss

f = T.jit(step) if lib == "tandem" and mode == "jit" else step
s = timed(lambda: f(X, y), 10 if quick else 30)
print(json.dumps({"s": s}))
'''

CONTENDERS = [("tandem", "eager"), ("tandem", "jit"), ("torch", "eager")]


def run(lib, row, prec, mode, quick):
    py = sys.executable
    p = subprocess.run([py, "-c", WORKER, lib, row, prec, mode, "1" if quick else "0"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    from _common import fma_peak
    peak = fma_peak()
    results: dict = {}
    for r in range(args.rounds):
        order = [(lib, mode, row, prec) for row in ("gemm", "mlp", "lenet")
                 for prec in ("f32", "bf16") for lib, mode in CONTENDERS
                 if (lib != "torch" or have_torch) and not (row == "gemm" and mode == "jit")]
        if r % 2:
            order.reverse()  # rotate who runs first
        for lib, mode, row, prec in order:
            out = run(lib, row, prec, mode, args.quick)
            results.setdefault((row, lib, mode, prec), []).append(out)
    med = {}
    for k, outs in results.items():
        ok = [o for o in outs if "error" not in o]
        med[k] = statistics.median(o["s"] for o in ok) if ok else outs[0]["error"]
    print(f"FMA peak (fp32, 2 threads, same run): {peak:.0f} GFLOP/s\n")
    print("| row | contender | bf16 / f32 speedup | f32 | bf16 |")
    print("| --- | --- | --- | --- | --- |")
    for row in ("gemm", "mlp", "lenet"):
        for lib, mode in CONTENDERS:
            a, b = med.get((row, lib, mode, "f32")), med.get((row, lib, mode, "bf16"))
            if a is None:
                continue
            if isinstance(a, str) or isinstance(b, str):
                print(f"| {row} | {lib} {mode} | - | {a} | {b} |")
                continue
            n = 1024 if args.quick else 2048

            def unit(s, row=row, n=n):
                return f"{2 * n ** 3 / s / 1e9:.0f} GFLOP/s" if row == "gemm" else f"{s * 1e3:.2f} ms"
            print(f"| {row} | {lib} {mode} | **{a / b:.2f}x** | {unit(a)} | {unit(b)} |")


if __name__ == "__main__":
    main()
