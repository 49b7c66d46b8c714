"""LeNet training steps (batch 64) while another process keeps one CPU busy: 2 threads
against 1 thread, for tandem graph, tandem eager and torch eager.

    python benchmarks/contention.py [--quick]      # prints the markdown section

A laptop or a shared server rarely gives a framework all its cores. With a spinning process
on one of the 2 CPUs, an OpenMP region on 2 threads finishes only when its descheduled
thread gets a time slice back, so a step of many regions can run several times slower than
on 1 thread (tandem's policy for this is src/tandem/core/threads.h). Each cell runs in its
own process, the 1- and 2-thread processes alternating round by round (A B A B, the first
rotating), while one spinning process runs throughout; the number is steps per second over
a fixed time (a mean, so rare long stalls count), and the ratio is 1-thread / 2-thread
throughput in the same round (goal <= 1.1x for tandem). run_all appends this section.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import PEERS_PY, peer_env, run_worker  # noqa: E402

ROOT = HERE.parent
GOAL = 1.1
CASES = [("tandem graph", "tandem", "jit"), ("tandem eager", "tandem", "eager"),
         ("torch eager", "torch", "eager")]


def worker(lib: str, mode: str, threads: int, seconds: float) -> dict:
    """Steps per second of LeNet b64 training (SGD) over `seconds`, after a warm-up."""
    import workloads_torchlike as W
    W.THREADS = threads
    step, X, y = W.model_step(lib, mode == "jit", "lenet", {"lenet_batch": 64})
    for _ in range(5):
        step(X, y)
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        float(step(X, y).detach() if lib == "torch" else step(X, y))
        times.append(time.perf_counter() - t0)
    return {"steps_per_s": len(times) / sum(times), "median_ms": statistics.median(times) * 1e3}


def _spin(stop) -> None:
    while not stop.is_set():
        pass


def _python_for(lib: str):
    # torch: the peers venv run_all sets up, else this interpreter (the test venv has torch)
    return PEERS_PY if lib == "torch" and PEERS_PY.exists() else Path(sys.executable)


def _env_for(lib: str) -> dict:
    if lib == "tandem":
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        env.pop("TANDEM_ADAPTIVE_THREADS", None)  # the policy under test
        return env
    return peer_env()


def run(quick: bool, log=lambda msg: None) -> dict:
    """Every case, alternating thread counts; {'rows': [...], ...}. Never imports tandem."""
    seconds, rounds = (1.0, 1) if quick else (3.0, 3)
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    spinner.start()
    t0 = time.monotonic()
    rows = []
    try:
        for name, lib, mode in CASES:
            if lib == "torch" and quick:
                continue
            per = {1: [], 2: []}
            ratios = []
            error = None
            for r in range(rounds):
                order = (1, 2) if r % 2 == 0 else (2, 1)
                got = {}
                for threads in order:
                    log(f"{name}, {threads} thread(s), round {r + 1}/{rounds}")
                    res = run_worker(_python_for(lib), [__file__, "--worker", lib, mode, threads,
                                                        seconds], _env_for(lib), 300, name)
                    if "error" in res:
                        error = res["error"]
                        break
                    got[threads] = res["steps_per_s"]
                    per[threads].append(res)
                if error:
                    break
                ratios.append(got[1] / got[2])
            if error:
                rows.append({"name": name, "error": error})
                continue
            log(f"{name}: slowdown {statistics.median(ratios):.2f}x")
            rows.append({"name": name,
                         "one": statistics.median(x["steps_per_s"] for x in per[1]),
                         "two": statistics.median(x["steps_per_s"] for x in per[2]),
                         "one_median_ms": statistics.median(x["median_ms"] for x in per[1]),
                         "two_median_ms": statistics.median(x["median_ms"] for x in per[2]),
                         "ratio": statistics.median(ratios), "ratios": ratios})
    finally:
        stop.set()
        spinner.join(5)
    return {"rows": rows, "quick": quick, "seconds": seconds, "rounds": rounds,
            "minutes": (time.monotonic() - t0) / 60}


def markdown(data: dict) -> str:
    lines = ["## Two threads with one CPU busy", "",
             f"`benchmarks/contention.py{' --quick' if data.get('quick') else ''}`: LeNet "
             "training step (batch 64, SGD) while a spinning process holds one of the 2 CPUs. "
             "Steps per second over "
             f"{data.get('seconds', 0):.0f} s per process, 1- and 2-thread processes "
             f"alternating for {data.get('rounds', 0)} round(s); **slowdown** = 1-thread / "
             f"2-thread throughput of a round, median over rounds (goal <= {GOAL}x for tandem; "
             "above 1 means the second thread hurts).", "",
             "| framework | 1 thread steps/s | 2 threads steps/s | 1 thread median ms | "
             "2 threads median ms | 2 threads' slowdown |",
             "|---|---|---|---|---|---|"]
    for r in data.get("rows", []):
        if "error" in r:
            lines.append(f"| {r['name']} | failed: {r['error']} | | | | |")
            continue
        lines.append(f"| {r['name']} | {r['one']:.0f} | {r['two']:.0f} | "
                     f"{r['one_median_ms']:.2f} | {r['two_median_ms']:.2f} | "
                     f"**{r['ratio']:.2f}x** |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 round of 1 s, tandem only")
    ap.add_argument("--worker", nargs=4, metavar=("LIB", "MODE", "THREADS", "SECONDS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        lib, mode, threads, seconds = args.worker
        print(json.dumps(worker(lib, mode, int(threads), float(seconds))))
        return 0
    data = run(args.quick, log=lambda m: print(f"[contention] {m}", file=sys.stderr, flush=True))
    print(markdown(data))
    return 1 if any("error" in r for r in data["rows"] if r["name"].startswith("tandem")) else 0


if __name__ == "__main__":
    sys.exit(main())
