"""Mixed precision: float32 vs bf16 autocast, tandem eager / @jit and torch eager autocast,
interleaved rep by rep (A B A B, each contender in its own process per rep), medians.

    TANDEM_BUILD_DIR=build PYTHONPATH=python .venv/bin/python benchmarks/amp.py [--quick]

Rows: GEMM 2048 (GFLOP/s, against the fp32 FMA peak and the bf16 dot-product peak measured
in the same run), the training step and the batch-64 inference of LeNet (Fashion-MNIST
shape, batch 64) and of the D2L ResNet-18 (1x96x96, batch 32 for training), and the MLP
784-256-256-10 training step (batch 256). Training rows also report the peak bytes the
caching allocator held during one step (tandem only: torch has no CPU counter). torch is
the test-oracle install in .venv (or the peers venv); rows without it say so. Prints a
markdown table.
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
sys.path.insert(0, sys.argv[6])
lib, row, prec, mode, quick = sys.argv[1:6]
quick = quick == "1"
if lib == "tandem":
    import tandem as T
    from tandem import mint as M
    T.set_num_threads(2)
else:
    import torch as M
    M.set_num_threads(2)
from workloads_torchlike import lenet, mlp, resnet18
nn, F = M.nn, M.nn.functional
autocast = lambda: M.autocast("cpu", dtype=M.bfloat16, enabled=prec == "bf16")
M.manual_seed(0)

def timed(f, reps):
    for _ in range(3): f()
    xs = []
    for _ in range(reps):
        t = time.perf_counter(); f(); xs.append(time.perf_counter() - t)
    return statistics.median(xs)

def peak_of(f):
    """Peak bytes the allocator held during one call beyond what was live before it."""
    if lib != "tandem":
        return None
    T._C.reset_peak_memory_stats()
    before = T.memory_stats()["bytes_in_use"]
    f()
    return (T.memory_stats()["peak_bytes_in_use"] - before) / 2 ** 20

compiled = lib == "tandem" and mode == "jit"
if row == "gemm":
    n = 1024 if quick else 2048
    a, b = M.randn(n, n), M.randn(n, n)
    if prec == "bf16":
        a, b = a.bfloat16(), b.bfloat16()
    f = T.jit(lambda x, y: x @ y) if compiled else (lambda x, y: x @ y)
    s = timed(lambda: f(a, b), 5)
    print(json.dumps({"s": s}))
    sys.exit()

model, what = row.rsplit("_", 1)
if model == "mlp":
    net, X = mlp(nn), M.randn(256, 784)
elif model == "lenet":
    net, X = lenet(nn), M.randn(64, 1, 28, 28)
else:
    hw = 64 if quick else 96
    net, X = resnet18(nn), M.randn(32 if what == "train" else 64, 1, hw, hw)
y = M.randint(0, 10, (X.shape[0],))
reps = 5 if quick else (10 if model == "resnet18" else 30)
if what == "train":
    opt = M.optim.SGD(net.parameters(), lr=0.01)

    def step(X, y):
        with autocast():
            loss = F.cross_entropy(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    f = T.jit(step) if compiled else step
    s = timed(lambda: f(X, y), reps)
    print(json.dumps({"s": s, "peak_mb": peak_of(lambda: f(X, y))}))
else:
    net.eval()

    def infer(X):
        with autocast():
            return net(X)
    f = T.jit(infer) if compiled else infer
    with M.no_grad():
        s = timed(lambda: f(X), reps)
    print(json.dumps({"s": s}))
'''

CONTENDERS = [("tandem", "eager"), ("tandem", "jit"), ("torch", "eager")]
ROWS = ["gemm", "lenet_train", "lenet_infer", "resnet18_train", "resnet18_infer", "mlp_train"]


def run(lib, row, prec, mode, quick):
    py = sys.executable
    p = subprocess.run([py, "-c", WORKER, lib, row, prec, mode, "1" if quick else "0", str(HERE)],
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", default=",".join(ROWS))
    args = ap.parse_args()
    rows = args.rows.split(",")
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    from _common import fma_peak
    peak, peak_bf16 = fma_peak(), fma_peak("bf16")
    results: dict = {}
    for r in range(args.rounds):
        order = [(lib, mode, row, prec) for row in rows for prec in ("f32", "bf16")
                 for lib, mode in CONTENDERS
                 if (lib != "torch" or have_torch) and not (row == "gemm" and mode == "jit")]
        if r % 2:
            order.reverse()  # rotate who runs first
        for lib, mode, row, prec in order:
            out = run(lib, row, prec, mode, args.quick)
            results.setdefault((row, lib, mode, prec), []).append(out)
    med, mem = {}, {}
    for k, outs in results.items():
        ok = [o for o in outs if "error" not in o]
        med[k] = statistics.median(o["s"] for o in ok) if ok else outs[0]["error"]
        peaks = [o["peak_mb"] for o in ok if o.get("peak_mb") is not None]
        if peaks:
            mem[k] = max(peaks)
    n = 1024 if args.quick else 2048
    print(f"fp32 FMA peak {peak:.0f} GFLOP/s, bf16 dot-product peak {peak_bf16:.0f} GFLOP/s "
          "(2 threads, same run)\n")
    print("| row | contender | bf16 / f32 speedup | f32 | bf16 | bf16 vs torch bf16 | "
          "peak MB f32 / bf16 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        torch_b = med.get((row, "torch", "eager", "bf16"))
        for lib, mode in CONTENDERS:
            a, b = med.get((row, lib, mode, "f32")), med.get((row, lib, mode, "bf16"))
            if a is None:
                continue
            if isinstance(a, str) or isinstance(b, str):
                print(f"| {row} | {lib} {mode} | - | {a} | {b} | - | - |")
                continue

            def unit(s, pk, row=row):
                if row != "gemm":
                    return f"{s * 1e3:.2f} ms"
                g = 2 * n ** 3 / s / 1e9
                return f"{g:.0f} GFLOP/s ({100 * g / pk:.0f} % of peak)"
            vs = (f"{torch_b / b:.2f}x faster" if lib == "tandem" and
                  isinstance(torch_b, float) else "-")
            m32, m16 = mem.get((row, lib, mode, "f32")), mem.get((row, lib, mode, "bf16"))
            mm = f"{m32:.0f} / {m16:.0f} ({m16 / m32:.2f}x)" if m32 and m16 else "-"
            print(f"| {row} | {lib} {mode} | **{a / b:.2f}x** | {unit(a, peak)} | "
                  f"{unit(b, peak_bf16)} | {vs} | {mm} |")


if __name__ == "__main__":
    main()
