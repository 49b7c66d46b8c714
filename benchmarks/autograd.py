"""Autograd benchmark: an MLP training step and the per-op cost of recording, side by side.

    .venv/bin/python benchmarks/autograd.py          # tandem + torch (peers venv)
    .venv/bin/python benchmarks/autograd.py --quick  # fewer reps, no peers

Measured with 2 threads for everyone:
  1. MLP 784-256-256-10 (relu), batch 256: forward + loss + backward, median ms/step
     (and forward alone). The loss is cross_entropy when tandem can differentiate it, else
     mean((logits - onehot)^2); both libraries use the same one.
  2. per-op autograd overhead: `a + b` on 1-element float32 tensors, ns/call, with
     requires_grad (a graph node is recorded per call) and without.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS, machine, median_time, run_peer  # noqa: E402

BATCH, SIZES = 256, (784, 256, 256, 10)


def tandem_loss_kind() -> str:
    """'ce' when tandem's cross_entropy has a backward rule, else 'mse'."""
    import tandem
    from tandem.mint.nn import functional as F
    x = tandem.randn(2, 3).requires_grad_()
    try:
        F.cross_entropy(x, tandem.tensor([0, 2])).backward()
        return "ce"
    except (NotImplementedError, RuntimeError):
        return "mse"


def measure(lib: str, loss_kind: str, reps: int) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    onehot = np.eye(SIZES[-1], dtype=np.float32)[labels]
    params = []
    for i, o in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((i, o)) * np.sqrt(2 / i)).astype(np.float32))
        params.append(np.zeros(o, np.float32))
    if lib == "tandem":
        import tandem as T
        from tandem.mint.nn import functional as F
        T.set_num_threads(THREADS)
        mk = T.tensor
        relu = T.relu
    else:
        import torch as T
        import torch.nn.functional as F
        T.set_num_threads(THREADS)
        mk = T.from_numpy
        relu = T.relu
    X, Y, H = mk(xs), mk(labels), mk(onehot)
    ws = [mk(p).requires_grad_() for p in params]

    def forward():
        h = X
        for k in range(0, len(ws), 2):
            h = h @ ws[k] + ws[k + 1]
            if k + 2 < len(ws):
                h = relu(h)
        if loss_kind == "ce":
            return F.cross_entropy(h, Y)
        d = h - H
        return (d * d).mean()

    def step():
        for w in ws:
            w.grad = None
        forward().backward()

    res = {"loss": loss_kind}
    res["step_ms"] = median_time(step, reps=reps, warmup=3) * 1e3
    res["forward_ms"] = median_time(forward, reps=reps, warmup=3) * 1e3
    a, b = mk(np.ones(1, np.float32)), mk(np.ones(1, np.float32))
    ag, bg = mk(np.ones(1, np.float32)).requires_grad_(), mk(np.ones(1, np.float32))
    res["add_ns"] = median_time(lambda: a + b, reps=reps, inner=20000) * 1e9
    res["add_grad_ns"] = median_time(lambda: ag + bg, reps=reps, inner=20000) * 1e9
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    reps = 5 if args.quick else 15
    if args.worker:  # "torch:mse" / "torch:ce"
        lib, kind = args.worker.split(":")
        print(json.dumps(measure(lib, kind, reps)))
        return
    kind = tandem_loss_kind()
    rows = {"tandem": measure("tandem", kind, reps)}
    if not (args.quick or args.no_peers):
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), f"torch:{kind}")
    loss = "cross_entropy" if kind == "ce" else "mean((logits - onehot)^2)"
    print(f"# autograd ({machine()}; MLP {'-'.join(map(str, SIZES))} relu, batch {BATCH}, "
          f"loss {loss})\n")
    print("| metric | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key, label, fmt in [("step_ms", "forward + backward (ms/step)", "{:.2f}"),
                            ("forward_ms", "forward only (ms)", "{:.2f}"),
                            ("add_ns", "a+b, 1 element, no grad (ns)", "{:.0f}"),
                            ("add_grad_ns", "a+b, 1 element, requires_grad (ns)", "{:.0f}")]:
        cells = [r["error"] if "error" in r else fmt.format(r[key]) for r in rows.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")
    t = rows["tandem"]
    print(f"\ntandem recording cost per op: {t['add_grad_ns'] - t['add_ns']:.0f} ns")
    peer = rows.get("torch 2.13", {})
    if "step_ms" in peer:
        print(f"tandem step / torch step: {t['step_ms'] / peer['step_ms']:.2f}")
        print(f"torch recording cost per op: {peer['add_grad_ns'] - peer['add_ns']:.0f} ns")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "autograd.json").write_text(json.dumps({"rows": rows}, indent=1))


if __name__ == "__main__":
    main()
