"""Timing helpers shared by the benchmarks: medians after warm-up, a 2-thread copy ceiling,
and running a worker function inside the peers venv."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
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


def ensure_peers_venv() -> str | None:
    """Creates the peers venvs with setup_peers.sh when missing; returns an error or None."""
    if PEERS_PY.exists():
        return None
    r = subprocess.run(["bash", str(HERE / "setup_peers.sh")], capture_output=True, text=True)
    if r.returncode != 0 or not PEERS_PY.exists():
        return "peers venv could not be created: " + (r.stderr.strip()[-200:] or "unknown")
    return None


def peer_env(extra: dict | None = None) -> dict:
    """The environment of a peer process: THREADS threads, no PYTHONPATH, the user's own
    OpenMP spin settings."""
    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS))
    env.pop("PYTHONPATH", None)
    for k, v in _USER_OMP_ENV.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    env.update(extra or {})
    return env


def run_worker(python, argv: list, env: dict, timeout: int = 600, what: str = "worker") -> dict:
    """Runs `python argv...` and returns the JSON on its last stdout line, or
    {'error': reason} when it fails, crashes or times out."""
    try:
        r = subprocess.run([str(python), *map(str, argv)], capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"{what} timed out after {timeout}s"}
    except OSError as e:
        return {"error": f"{what} could not start: {e}"}
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        err = (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
        return {"error": f"{what} failed: " + err[:200]}
    return json.loads(lines[-1])


def run_peer(script: Path, worker: str, timeout: int = 600) -> dict:
    """Runs `script --worker NAME` in the peers venv; returns its JSON or {'error': reason}."""
    err = ensure_peers_venv()
    if err:
        return {"error": err}
    return run_worker(PEERS_PY, [script, "--worker", worker], peer_env(), timeout, worker)


def peak_rss_delta(step, warmup: int = 2, reps: int = 3) -> float:
    """Bytes: the process's peak RSS while running `step` reps times after warmup calls,
    minus its RSS before the first call (so it counts what the step allocates and keeps,
    caches included, but not the model and data that exist before, nor compilers'
    transient memory during warm-up: the peak is reset after warm-up)."""
    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
        raise OSError(f"{key} missing from /proc/self/status")
    import gc
    gc.collect()
    base = status("VmRSS")
    for _ in range(warmup):
        step()
    with open("/proc/self/clear_refs", "w") as f:  # resets VmHWM to the current RSS
        f.write("5")
    for _ in range(reps):
        step()
    return float(status("VmHWM") - base)


def fma_peak(kind: str = "fp32") -> float:
    """GFLOP/s of THREADS threads running a register-resident fp32 FMA loop, or with
    kind="bf16" the AVX512_BF16 dot-product loop (nan without it)
    ($TANDEM_BUILD_DIR/tandem_fma_peak)."""
    exe = HERE.parent / os.environ.get("TANDEM_BUILD_DIR", "build") / "tandem_fma_peak"
    try:
        return float(subprocess.run([str(exe), str(THREADS), kind], capture_output=True,
                                    text=True, timeout=120).stdout.strip())
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return float("nan")


def machine() -> str:
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        model = "unknown CPU"
    return f"{model}, {os.cpu_count()} cores, {THREADS} threads used"
