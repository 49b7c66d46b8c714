"""Graph-mode benchmark: elementwise chains and a LeNet training step, tandem eager vs
tandem compiled (@jit) vs torch 2.13 eager vs torch.compile, plus the copy ceiling and the
compile time of the LeNet step.

    .venv/bin/python benchmarks/jit.py [--quick]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS, copy_ceiling_gbs, machine, median_time, run_peer  # noqa: E402

N = 16 * 1024 * 1024


def chain_fns(mint):
    def triple(x):
        return x + x + x

    def gelu_tanh(x):  # six elementwise ops
        return 0.5 * x * (1 + mint.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
    return triple, gelu_tanh


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
        nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))


def measure_tandem(n):
    import tandem
    from tandem import jit, mint
    from tandem import nn as ms_nn
    from tandem.mint import nn
    tandem.set_num_threads(THREADS)
    res = {}
    x = mint.randn(n)
    for f in chain_fns(mint):
        g = jit(f)
        res[f"{f.__name__} eager"] = median_time(lambda: f(x))
        res[f"{f.__name__} compiled"] = median_time(lambda: g(x))
    X, y = mint.rand(256, 1, 28, 28), mint.randint(0, 10, (256,))
    loss_fn = nn.CrossEntropyLoss()
    net = lenet(nn)
    opt = mint.optim.SGD(net.parameters(), lr=0.1)

    def eager_step():
        loss = loss_fn(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    res["lenet step eager"] = median_time(eager_step)
    net2 = lenet(nn)
    opt2 = ms_nn.SGD(net2.trainable_params(), learning_rate=0.1)
    grad_fn = tandem.value_and_grad(lambda X, y: loss_fn(net2(X), y), None, opt2.parameters)

    @jit
    def step(X, y):
        loss, grads = grad_fn(X, y)
        opt2(grads)
        return loss
    t0 = time.perf_counter()
    step(X, y)
    first = time.perf_counter() - t0
    res["lenet step compiled"] = median_time(lambda: step(X, y))
    res["lenet compile time"] = first - res["lenet step compiled"]
    return res


def measure_torch(n):
    import torch
    import torch.nn as nn
    torch.set_num_threads(THREADS)
    res = {}
    x = torch.randn(n)
    for f in chain_fns(torch):
        res[f"{f.__name__} eager"] = median_time(lambda: f(x))
        try:
            g = torch.compile(f)
            g(x)
            res[f"{f.__name__} compiled"] = median_time(lambda: g(x))
        except Exception as e:  # inductor needs a working C++ toolchain
            res[f"{f.__name__} compiled"] = f"torch.compile failed: {type(e).__name__}"
    X, y = torch.rand(256, 1, 28, 28), torch.randint(0, 10, (256,))
    loss_fn = nn.CrossEntropyLoss()
    net = lenet(nn)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def step():
        loss = loss_fn(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    res["lenet step eager"] = median_time(step)
    try:
        cstep = torch.compile(step)
        t0 = time.perf_counter()
        cstep()
        first = time.perf_counter() - t0
        res["lenet step compiled"] = median_time(cstep)
        res["lenet compile time"] = first - res["lenet step compiled"]
    except Exception as e:
        res["lenet step compiled"] = f"torch.compile failed: {type(e).__name__}"
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = N // 8 if args.quick else N
    if args.worker:
        print(json.dumps(measure_torch(n)))
        return
    ceiling = copy_ceiling_gbs(n * 4)
    copy_s = 2 * n * 4 / ceiling / 1e9
    rows = {"tandem": measure_tandem(n)}
    if not args.quick:
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), "torch", timeout=1200)
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
