"""NN-kernel benchmark: GEMM, convolution, pooling, softmax, cross-entropy; tandem vs torch.

    .venv/bin/python benchmarks/kernels.py            # full run, torch from the peers venv
    .venv/bin/python benchmarks/kernels.py --quick    # small subset, tandem only

Same shapes, 2 threads, median of repeated runs. GEMM is reported as GFLOP/s against the
fp32 FMA peak measured in the same run (build/tandem_fma_peak). tandem has no autodiff yet,
so its "fwd+bwd" rows call the explicit backward ops (conv2d_backward_input/weight,
max_pool2d_backward, log_softmax_backward) that the vjp rules will use; torch uses autograd.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS, fma_peak, machine, median_time, run_peer  # noqa: E402


GEMM = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
        (256, 256, 784), (256, 10, 256), (256, 120, 400)]  # MLP / LeNet FC shapes (M, N, K)
# Linear layers' x W^T (B transposed), (M, N, K): D2L's MLP and LeNet FC layers, a square one.
LINEAR = [(256, 256, 784), (256, 120, 400), (512, 512, 512)]
# (name, N, C, H, W, O, k, stride, pad)
CONV = [("lenet conv1", 256, 1, 28, 28, 6, 5, 1, 2), ("lenet conv2", 256, 6, 14, 14, 16, 5, 1, 0),
        ("resnet18 s1", 32, 64, 24, 24, 64, 3, 1, 1), ("resnet18 s2", 32, 128, 12, 12, 128, 3, 1, 1),
        ("resnet18 s3", 32, 256, 6, 6, 256, 3, 1, 1), ("resnet18 s4", 32, 512, 3, 3, 512, 3, 1, 1),
        ("alexnet conv1", 16, 1, 224, 224, 96, 11, 4, 1), ("alexnet conv2", 16, 96, 26, 26, 256, 5, 1, 2)]


def measure(lib: str, quick: bool) -> dict:
    res = {}
    if lib == "torch":
        import torch
        torch.set_num_threads(THREADS)
        F = torch.nn.functional
        T = torch
    else:
        import tandem
        tandem.set_num_threads(THREADS)
        from tandem.mint.nn import functional as F
        T = tandem
        C = tandem._C
    gemms = GEMM[:2] if quick else GEMM
    for (m, n, k) in gemms:
        a, b = T.randn(m, k), T.randn(k, n)
        t = median_time(lambda: T.matmul(a, b), reps=7 if m < 2048 else 5)
        res[f"gemm {m}x{n}x{k}"] = {"s": t, "gflops": 2 * m * n * k / t / 1e9}
    for (m, n, k) in (LINEAR[:1] if quick else LINEAR):
        x, w = T.randn(m, k), T.randn(n, k)
        t = median_time(lambda: F.linear(x, w), reps=7)
        res[f"linear x W^T {m}x{n}x{k}"] = {"s": t, "gflops": 2 * m * n * k / t / 1e9}
    convs = CONV[:2] if quick else CONV
    for (name, N, Ci, H, W, O, k, s, p) in convs:
        x, w, bias = T.randn(N, Ci, H, W), T.randn(O, Ci, k, k) * 0.1, T.randn(O)
        if lib == "torch":
            x.requires_grad_(True), w.requires_grad_(True), bias.requires_grad_(True)

            def step():
                y = F.conv2d(x, w, bias, stride=s, padding=p)
                y.backward(torch.ones_like(y))
        else:
            def step():
                y = F.conv2d(x, w, bias, stride=s, padding=p)
                g = T.ones_like(y)
                C.conv2d_backward_input(g, w, list(x.shape), [s, s], [p] * 4, [1, 1], 1)
                C.conv2d_backward_weight(x, g, list(w.shape), [s, s], [p] * 4, [1, 1], 1)
        res[f"conv {name} fwd+bwd"] = {"s": median_time(step, reps=5)}
    x = T.randn(32, 64, 56, 56)
    if lib == "torch":
        x.requires_grad_(True)

        def pool():
            y = F.max_pool2d(x, 3, 2, 1)
            y.backward(torch.ones_like(y))
    else:
        def pool():
            y, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
            C.max_pool2d_backward(T.ones_like(y), idx, list(x.shape))
    res["max_pool2d 32x64x56x56 fwd+bwd"] = {"s": median_time(pool, reps=5)}
    xb = T.randn(32, 64, 56, 56)
    wb, bb = T.ones(64), T.zeros(64)
    rm, rv = T.zeros(64), T.ones(64)
    if lib == "torch":
        xb.requires_grad_(True), wb.requires_grad_(True), bb.requires_grad_(True)

        def bn():
            y = F.batch_norm(xb, rm, rv, wb, bb, training=True)
            y.backward(torch.ones_like(y))
    else:
        def bn():
            y, mean, invstd = C.batch_norm_forward(xb, wb, bb, rm, rv, True, 1e-5)
            C.batch_norm_backward(T.ones_like(y), xb, wb, mean, invstd, True)
    res["batch_norm 32x64x56x56 fwd+bwd"] = {"s": median_time(bn, reps=5)}
    z = T.randn(4096, 1000)
    res["softmax 4096x1000"] = {"s": median_time(lambda: F.softmax(z, dim=1), reps=7)}
    res["log_softmax 4096x1000"] = {"s": median_time(lambda: F.log_softmax(z, dim=1), reps=7)}
    tgt = T.randint(0, 1000, (4096,))
    if lib == "torch":
        zz = z.clone().requires_grad_(True)

        def ce():
            loss = F.cross_entropy(zz, tgt)
            loss.backward()
    else:
        # What autograd will run: log_softmax, nll (gather), nll's backward (scatter of
        # -1/N at the targets) and the fused log_softmax backward.
        idx = tgt.unsqueeze(1)

        def ce():
            logp = F.log_softmax(z, dim=1)
            F.nll_loss(logp, tgt)
            g = T.zeros_like(z).scatter(1, idx, -1.0 / 4096)
            C.log_softmax_backward(logp, g, 1)
    res["cross_entropy 4096x1000 fwd+bwd"] = {"s": median_time(ce, reps=7)}
    return res


def numpy_gemm(quick: bool) -> dict:
    """numpy's bundled OpenBLAS on the GEMM rows: the BLAS alternative to oneDNN."""
    import numpy as np
    try:
        from threadpoolctl import threadpool_limits
        limit = threadpool_limits(THREADS)
    except ImportError:
        limit = None
    res = {}
    for (m, n, k) in (GEMM[:2] if quick else GEMM):
        a = np.random.randn(m, k).astype(np.float32)
        b = np.random.randn(k, n).astype(np.float32)
        t = median_time(lambda: a @ b, reps=7 if m < 2048 else 5)
        res[f"gemm {m}x{n}x{k}"] = {"s": t, "gflops": 2 * m * n * k / t / 1e9}
    for (m, n, k) in (LINEAR[:1] if quick else LINEAR):
        x = np.random.randn(m, k).astype(np.float32)
        w = np.random.randn(n, k).astype(np.float32)
        t = median_time(lambda: x @ w.T, reps=7)
        res[f"linear x W^T {m}x{n}x{k}"] = {"s": t, "gflops": 2 * m * n * k / t / 1e9}
    del limit
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(measure(args.worker, args.quick)))
        return
    peak = fma_peak()
    rows = {"tandem": measure("tandem", args.quick)}
    if not args.quick:
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), "torch")
    rows["numpy (OpenBLAS)"] = numpy_gemm(args.quick)
    peak = max(peak, fma_peak())
    print(f"# kernels ({machine()}; fp32 FMA peak {peak:.0f} GFLOP/s)\n")
    names = list(rows["tandem"])
    print("| workload | tandem | " + " | ".join(k for k in rows if k != "tandem") + " | tandem / best peer |")
    print("|---|---|" + "---|" * (len(rows) - 1) + "---|")
    for name in names:
        t = rows["tandem"][name]
        cells = [_fmt(t, peak)]
        peer_times = []
        for k, r in rows.items():
            if k == "tandem":
                continue
            if "error" in r:
                cells.append(r["error"])
            elif name not in r:
                cells.append("-")
            else:
                cells.append(_fmt(r[name], peak))
                if not k.startswith("numpy"):
                    peer_times.append(r[name]["s"])
        ratio = f"{t['s'] / min(peer_times):.2f}x time" if peer_times else "n/a"
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "kernels.json").write_text(json.dumps({"fma_peak_gflops": peak, "rows": rows}, indent=1))


def _fmt(r, peak):
    if "gflops" in r:
        return f"{r['gflops']:.0f} GFLOP/s ({r['gflops'] / peak:.0%} of peak)"
    return f"{r['s'] * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
