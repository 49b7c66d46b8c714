"""The data-parallel scaling model of docs/distributed.md: predicted step time and weak-scaling
efficiency of ResNet-18 / ResNet-50 with ring all-reduce, with and without bucketed overlap,
from the figures benchmarks/distributed.py measured (its --json output) and stated
interconnect figures.

    .venv/bin/python benchmarks/scaling_model.py distributed.json

Model (n ranks, G gradient bytes in k = ceil(G / 25 MiB) buckets, link bandwidth B, per-message
latency alpha; per-rank compute T_c = T_fwd + T_bwd with T_bwd = 2/3 T_c, backward being
twice the forward's arithmetic):
    T_ar(n)       = 2(n-1)/n * G / B + k * 2(n-1) * alpha           ring all-reduce
    no overlap    T_step = T_c + T_ar(n)
    overlap       T_step = T_c + max(T_ar(n) / k, T_ar(n) - T_bwd)  (the last bucket is ready
                  only when backward ends; the rest can hide behind T_bwd at best)
    efficiency    = T_c / T_step  (throughput per rank relative to one rank without
                  communication: the per-rank batch is fixed)
Standard library only.
"""
from __future__ import annotations

import json
import math
import sys

RANKS = [2, 4, 8, 16, 32, 64, 128, 256]
BUCKET = 25 * 2**20
# Parameter counts of the ImageNet models (torchvision's, 1000 classes).
PARAMS = {"ResNet-18": 11.7e6, "ResNet-50": 25.6e6}
R50_FWD_GFLOP = 4.1  # per 224x224 image, as commonly quoted (it counts multiply-adds)
R50_BATCH = 32       # per rank
R18_BATCH = 16       # per rank: what distributed.py's 2-rank ResNet-18 row trains
ACCEL_GFLOPS = 10_000.0  # the stated second compute scenario: a rank sustaining 10 TFLOP/s
# Ethernet: line rate / 8 bytes per second; latency per message of a tuned TCP/RoCE stack.
LINKS = {"25 GbE": (25e9 / 8, 10e-6), "100 GbE": (100e9 / 8, 10e-6)}


def d2l_resnet18_fwd_macs(hw: int = 96, cin: int = 1, classes: int = 10) -> float:
    """Multiply-adds of one forward of D2L's ResNet-18 (benchmarks/workloads_torchlike.py)
    on a cin x hw x hw image: convolutions and the final linear layer."""
    def conv(h, ci, co, k, s, p):
        ho = (h + 2 * p - k) // s + 1
        return ho, ho * ho * co * ci * k * k
    h, m = conv(hw, cin, 64, 7, 2, 3)
    h = (h + 2 - 3) // 2 + 1  # max-pool 3x3 / 2, pad 1
    total, c = m, 64
    for cout, first in ((64, True), (128, False), (256, False), (512, False)):
        for block in range(2):
            s = 2 if (block == 0 and not first) else 1
            h2, m1 = conv(h, c, cout, 3, s, 1)
            _, m2 = conv(h2, cout, cout, 3, 1, 1)
            total += m1 + m2
            if block == 0 and not first:
                total += conv(h, c, cout, 1, s, 0)[1]
            h, c = h2, cout
    return float(total + 512 * classes)


def ring_time(n: int, nbytes: float, bw: float, alpha: float, k: int) -> float:
    return 2 * (n - 1) / n * nbytes / bw + k * 2 * (n - 1) * alpha


def step_times(tc: float, n: int, nbytes: float, bw: float, alpha: float) -> tuple:
    """(T_ar, no-overlap step, overlapped step) in seconds."""
    k = max(1, math.ceil(nbytes / BUCKET))
    tar = ring_time(n, nbytes, bw, alpha, k)
    return tar, tc + tar, tc + max(tar / k, tar - 2 / 3 * tc)


def scenarios(data: dict) -> tuple:
    """([(network, compute label, T_c)], the sustained rate of this machine in G/s)."""
    tc18 = data["steps"]["resnet18"]["local_s"]
    rate = 3 * d2l_resnet18_fwd_macs() * R18_BATCH / tc18 / 1e9  # "GFLOP"/s, same convention
    out = [("ResNet-18", f"this machine: measured, batch {R18_BATCH}/rank", tc18),
           ("ResNet-50", f"this machine: {rate:.1f} GFLOP/s, batch {R50_BATCH}/rank",
            3 * R50_FWD_GFLOP * R50_BATCH / rate)]
    accel18 = 3 * d2l_resnet18_fwd_macs(224, 3, 1000) * R18_BATCH / ACCEL_GFLOPS / 1e9
    out += [("ResNet-18", f"{ACCEL_GFLOPS / 1000:.0f} TFLOP/s rank, batch {R18_BATCH}/rank",
             accel18),
            ("ResNet-50", f"{ACCEL_GFLOPS / 1000:.0f} TFLOP/s rank, batch {R50_BATCH}/rank",
             3 * R50_FWD_GFLOP * R50_BATCH / ACCEL_GFLOPS)]
    return out, rate


def stop_point(tc: float, nbytes: float, bw: float, alpha: float, which: int) -> str:
    for n in RANKS:
        if tc / step_times(tc, n, nbytes, bw, alpha)[which] < 0.5:
            return str(n)
    return "> 256"


def tables(data: dict) -> str:
    fit = data["allreduce"]["fit"]
    links = dict(LINKS)
    # At n = 2 the ring is bytes / B + 2 alpha: the fit's intercept is two latencies.
    links["this machine (shm fit)"] = (1 / fit["beta_s_per_byte"], fit["alpha_s"] / 2)
    rows, rate = scenarios(data)
    lines = [f"Inputs: D2L ResNet-18 forward = {d2l_resnet18_fwd_macs() / 1e9:.3f} G multiply-adds"
             f" per 1x96x96 image, ImageNet ResNet-18 = "
             f"{d2l_resnet18_fwd_macs(224, 3, 1000) / 1e9:.2f} G per 3x224x224 image, ResNet-50 = "
             f"{R50_FWD_GFLOP} G; this machine's ResNet-18 step sustains {rate:.1f} G/s; "
             f"shared-memory fit: intercept {fit['alpha_s'] * 1e6:.2f} µs (= 2 alpha), 1/beta = "
             f"{1e-9 / fit['beta_s_per_byte']:.2f} GB/s.", "",
             "Efficiency (no overlap / bucketed overlap) at n ranks:", "",
             "| network, compute | T_c | link | " + " | ".join(f"n={n}" for n in RANKS)
             + " | < 50 % from n = (no overlap / overlap) |",
             "|---|---|---|" + "---|" * (len(RANKS) + 1)]
    for net, label, tc in rows:
        nbytes = 4 * PARAMS[net]
        for link, (bw, alpha) in links.items():
            cells = []
            for n in RANKS:
                _, a, b = step_times(tc, n, nbytes, bw, alpha)
                cells.append(f"{100 * tc / a:.0f} / {100 * tc / b:.0f}")
            lines.append(f"| {net}, {label} | {tc * 1e3:.0f} ms | {link} | " + " | ".join(cells)
                         + f" | {stop_point(tc, nbytes, bw, alpha, 1)} / "
                         f"{stop_point(tc, nbytes, bw, alpha, 2)} |")
    lines += ["", "Predicted step time at 256 ranks (T_ar; no overlap; overlap):", "",
              "| network, compute | link | T_ar(256) | step, no overlap | step, overlap |",
              "|---|---|---|---|---|"]
    for net, label, tc in rows:
        for link, (bw, alpha) in LINKS.items():
            tar, a, b = step_times(tc, 256, 4 * PARAMS[net], bw, alpha)
            lines.append(f"| {net}, {label} | {link} | {tar * 1e3:.1f} ms | {a * 1e3:.0f} ms | "
                         f"{b * 1e3:.0f} ms |")
    return "\n".join(lines) + "\n"


def check_two_ranks(data: dict) -> str:
    """The model at n = 2 with the shared-memory fit against the measured 2-rank DDP step."""
    fit = data["allreduce"]["fit"]
    r = data["steps"]["resnet18"]
    k = int(r["tensors"])
    tar = ring_time(2, r["grad_bytes"], 1 / fit["beta_s_per_byte"], fit["alpha_s"] / 2, k)
    return (f"Check at n = 2 (this machine, ResNet-18, one all_reduce per gradient tensor as in "
            f"the measured 'all_reduce alone', k = {k}): "
            f"predicted T_ar = {tar * 1e3:.1f} ms, step = {(r['local_s'] + tar) * 1e3:.0f} ms; "
            f"measured all_reduce alone = {r['alone_s'] * 1e3:.1f} ms, DDP step = "
            f"{r['ddp_s'] * 1e3:.0f} ms, step without DDP = {r['local_s'] * 1e3:.0f} ms.\n")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    data = json.load(open(sys.argv[1]))
    if "steps" not in data or "resnet18" not in data["steps"]:
        print("needs the JSON of a full (not --quick) benchmarks/distributed.py run",
              file=sys.stderr)
        return 2
    print(tables(data))
    print(check_two_ranks(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
