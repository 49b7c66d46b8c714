"""Timing helpers shared by the benchmarks: medians after warm-up, a 2-thread copy ceiling,
and running a worker function inside the peers venv."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# tandem sets GOMP_SPINCOUNT when imported; peers must run with the user's own settings.
_USER_OMP_ENV = {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
PEERS_PY = HERE / ".peers-venv" / "bin" / "python"
THREADS = 2


def median_time(fn, reps: int = 7, warmup: int = 2, inner: int = 1) -> float:
    """Median seconds per call of fn over `reps` repetitions of `inner` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t) / inner)
    return statistics.median(times)


def copy_ceiling_gbs(nbytes: int, reps: int = 9) -> float:
    """GB/s (read + write) of libc memcpy over nbytes, split over THREADS threads (ctypes
    releases the GIL), into a destination that was touched before (no page faults)."""
    import ctypes

    import numpy as np
    src = np.ones(nbytes, dtype=np.uint8)
    dst = np.zeros(nbytes, dtype=np.uint8)
    step = nbytes // THREADS
    parts = [(dst.ctypes.data + i * step, src.ctypes.data + i * step) for i in range(THREADS)]
    pool = ThreadPoolExecutor(THREADS)

    def copy():
        list(pool.map(lambda p: ctypes.memmove(p[0], p[1], step), parts))

    t = median_time(copy, reps=reps)
    pool.shutdown()
    return 2 * nbytes / t / 1e9


def run_peer(script: Path, worker: str, timeout: int = 600) -> dict:
    """Runs `script --worker NAME` in the peers venv; returns its JSON or {'error': reason}."""
    if not PEERS_PY.exists():
        setup = HERE / "setup_peers.sh"
        r = subprocess.run(["bash", str(setup)], capture_output=True, text=True)
        if r.returncode != 0 or not PEERS_PY.exists():
            return {"error": "peers venv could not be created: " + (r.stderr.strip()[-200:] or "unknown")}
    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS))
    env.pop("PYTHONPATH", None)
    for k, v in _USER_OMP_ENV.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    try:
        r = subprocess.run([str(PEERS_PY), str(script), "--worker", worker], capture_output=True,
                           text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"{worker} timed out after {timeout}s"}
    if r.returncode != 0:
        return {"error": f"{worker} failed: " + r.stderr.strip().splitlines()[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def machine() -> str:
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        model = "unknown CPU"
    return f"{model}, {os.cpu_count()} cores, {THREADS} threads used"
