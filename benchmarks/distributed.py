"""Data parallelism over MPI: tandem's all_reduce against MPI_Allreduce called from C in the
same run, and DistributedDataParallel training steps on 2 ranks against one process.

    TANDEM_BUILD_DIR=build PYTHONPATH=python .venv/bin/python benchmarks/distributed.py
    ... benchmarks/distributed.py --quick            # sizes up to 16 MB, LeNet rows only
    ... benchmarks/distributed.py --json out.json    # also the raw figures

all_reduce rows (2 ranks, float32, SUM, in place): bus bandwidth as NCCL-tests defines it,
busbw = algbw * 2(n-1)/n with algbw = bytes / time. Three contenders per size:
  - tandem: `mint.distributed.all_reduce(t)` from Python;
  - ceiling: MPI_Allreduce from C (benchmarks/mpi_allreduce_ceiling.c built as a shared
    library with mpicc), called through ctypes in the same ranks, repetition by repetition
    alternating with tandem's (A B B A ...), so both see the same load;
  - C program: the same file built as a program and run as its own mpirun job (MPI_Init,
    no thread support asked), alternating with the tandem jobs round by round.
A repetition is `iters_for(bytes)` back-to-back calls after a barrier, its time the slowest
rank's; cells are medians over repetitions (and rounds). alpha / beta: the weighted least
squares fit time = alpha + beta * bytes of the ceiling (relative errors, so the 1 KB point
counts as much as the 256 MB one).

Step rows: LeNet (global batch 64, 1x28x28) and ResNet-18 (D2L's, global batch 32, 1x96x96),
SGD, eager: 2 ranks x 1 thread with DDP (per-rank batch half the global) against 1 process x
2 threads on the global batch; the 2-rank job also times the same step without DDP and the
gradients' all_reduce alone (`comm_in_step`).

Skips (exit 0, a message) when mpirun or mpicc is absent or tandem was built without MPI.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CEILING_C = HERE / "mpi_allreduce_ceiling.c"
RANKS = 2
SIZES = [1024 * 4 ** i for i in range(10)]  # 1 KB .. 256 MB
QUICK_MAX = 16 << 20
GOAL_BW, GOAL_LAT = 0.9, 1.2  # issue #21: >= 0.9x busbw from 1 MB, <= 1.2x time at 1 KB
STEP_ROWS = {"lenet": (64, (1, 28, 28)), "resnet18": (32, (1, 96, 96))}


def iters_for(nbytes: int) -> int:
    """Calls per repetition (the C file's iters_for)."""
    return max(1, min(2000, (4 << 20) // nbytes))


def busbw(nbytes: int, seconds: float, n: int = RANKS) -> float:
    """NCCL-tests' bus bandwidth (bytes/s) of an all-reduce of nbytes taking seconds."""
    return nbytes / seconds * 2 * (n - 1) / n


# ---------------------------------------------------------------- workers (inside the ranks)

def _max_over_ranks(dist, tandem, values: list) -> list:
    t = tandem.tensor([float(v) for v in values], dtype=tandem.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return [float(v) for v in t.numpy()]


def allreduce_worker(lib: str, reps: int, sizes: list) -> None:
    """Under mpirun: per size, reps repetitions of tandem and of the C ceiling, alternating
    which goes first; rank 0 prints one JSON line per size."""
    import numpy as np

    import tandem
    import tandem.mint.distributed as dist
    dist.init_process_group(backend="mpi")
    from tandem import _distributed
    group, SUM = _distributed.group("benchmark"), dist.ReduceOp.SUM  # the C++ binding itself
    c = ctypes.CDLL(lib)
    c.ceiling_rep.restype = ctypes.c_double
    c.ceiling_rep.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_long]
    for nbytes in sizes:
        count, iters = nbytes // 4, iters_for(nbytes)
        t = tandem.zeros(count)
        buf = np.zeros(count, dtype=np.float32)

        def tandem_rep(n, t=t):
            dist.barrier()
            s = time.perf_counter()
            for _ in range(n):
                dist.all_reduce(t)
            return _max_over_ranks(dist, tandem, [(time.perf_counter() - s) / n])[0]

        def binding_rep(n, t=t):
            dist.barrier()
            s = time.perf_counter()
            for _ in range(n):
                group.all_reduce(t, SUM)
            return _max_over_ranks(dist, tandem, [(time.perf_counter() - s) / n])[0]

        def ceiling_rep(n, buf=buf, count=count):
            return c.ceiling_rep(buf.ctypes.data, count, n)
        fns = {"tandem": tandem_rep, "binding": binding_rep, "ceiling": ceiling_rep}
        for f in fns.values():
            f(max(2, iters))  # warm-up
        times: dict = {k: [] for k in fns}
        for r in range(reps):
            for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                times[k].append(fns[k](iters))
        if dist.get_rank() == 0:
            print(json.dumps({"bytes": nbytes, "iters": iters, **{
                f"{k}_s": statistics.median(v) for k, v in times.items()}}), flush=True)
        del t, buf
    dist.destroy_process_group()


class TimedGroup:
    """Stands in for tandem's process group and adds up the seconds spent inside its
    all_reduce calls (the gradient hooks of DistributedDataParallel call it)."""

    def __init__(self, group):
        self._group, self.seconds, self.calls, self.async_calls = group, 0.0, 0, 0

    def all_reduce(self, tensor, op, *rest):
        if rest and rest[0]:  # async_op: the time is spent on the communication thread
            self.async_calls += 1
            return self._group.all_reduce(tensor, op, *rest)
        s = time.perf_counter()
        out = self._group.all_reduce(tensor, op, *rest)
        self.seconds += time.perf_counter() - s
        self.calls += 1
        return out

    def __getattr__(self, name):
        return getattr(self._group, name)


def comm_in_step(ddp_step, local_step, grads: list, reps: int, timed: TimedGroup | None):
    """What the collectives cost a DDP step, measured in the 2-rank job, interleaved rep by
    rep (each rank's median, then the slowest rank's):
      ddp_s:    the DDP training step;
      local_s:  the same step on the same per-rank batch without DDP (no collectives);
      exposed_s = ddp_s - local_s: the step time the collectives add;
      alone_s:  all_reduce(AVG) of tensors shaped like every gradient, back to back outside
                the step: the communication the step has to do;
      inside_s: seconds inside the all_reduce calls of the DDP hooks during a step (None
                when the hooks do not go through the wrapped group);
      hidden_fraction = 1 - exposed_s / alone_s: the share of the communication that
                overlaps computation (about 0 while the collectives are synchronous)."""
    import tandem
    import tandem.mint.distributed as dist

    def timed_call(f):
        dist.barrier()
        s = time.perf_counter()
        f()
        return time.perf_counter() - s

    def alone():
        for g in grads:
            dist.all_reduce(g, op=dist.ReduceOp.AVG)
    for _ in range(2):  # warm-up
        ddp_step(), local_step(), alone()
    rows = []
    for r in range(reps):
        rec = {}

        def ddp():
            before = timed.seconds if timed else 0.0
            ddp_step()
            rec["inside"] = (timed.seconds - before) if timed else 0.0
        order = [("ddp", ddp), ("local", local_step), ("alone", alone)]
        rec.update({k: timed_call(f) for k, f in (order if r % 2 == 0 else order[::-1])})
        rows.append(rec)
    keys = ["ddp", "local", "alone", "inside"]
    med = _max_over_ranks(dist, tandem, [statistics.median(x[k] for x in rows) for k in keys])
    out = {f"{k}_s": v for k, v in zip(keys, med)}
    if not timed or timed.calls == 0 or timed.async_calls:
        out["inside_s"] = None  # the hooks bypass the group, or reduce asynchronously
    out["exposed_s"] = out["ddp_s"] - out["local_s"]
    out["hidden_fraction"] = 1.0 - out["exposed_s"] / out["alone_s"]
    return out


def _model(model: str, nn):
    sys.path.insert(0, str(HERE))
    from workloads_torchlike import lenet, resnet18
    return lenet(nn) if model == "lenet" else resnet18(nn)


def _train_step(mint, net, X, y, jit=None):
    """A zero-argument SGD step on (X, y); with jit (tandem.jit) the same step compiled
    (forward, backward, DDP's bucket all_reduces and the update in one graph)."""
    opt = mint.optim.SGD(net.parameters(), lr=0.05)
    loss_fn = mint.nn.CrossEntropyLoss()

    def step(X, y):
        loss = loss_fn(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    run = jit(step) if jit is not None else step
    return lambda: run(X, y)


def _median_time(step, reps: int, barrier=None) -> float:
    for _ in range(2):
        step()
    times = []
    for _ in range(reps):
        if barrier:
            barrier()
        s = time.perf_counter()
        step()
        times.append(time.perf_counter() - s)
    return statistics.median(times)


def step_worker(model: str, how: str, reps: int) -> None:
    """how='ddp': under mpirun, 1 thread per rank, per-rank batch global/world; prints
    comm_in_step's figures. how='single': one process, 2 threads, the global batch."""
    import tandem
    from tandem import _distributed, mint
    batch, shape = STEP_ROWS[model]
    if how == "single":
        tandem.set_num_threads(2)
        mint.manual_seed(0)
        net = _model(model, mint.nn)
        X, y = mint.randn(batch, *shape), mint.randint(0, 10, (batch,))
        step = _train_step(mint, net, X, y)
        jnet = _model(model, mint.nn)
        jnet.load_state_dict(net.state_dict())
        out = {"step_s": _median_time(step, reps),
               "step_jit_s": _median_time(_train_step(mint, jnet, X, y, tandem.jit), reps)}
        print(json.dumps(out), flush=True)
        return
    import tandem.mint.distributed as dist
    tandem.set_num_threads(1)
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    per_rank = batch // world
    mint.manual_seed(1 + rank)
    X, y = mint.randn(per_rank, *shape), mint.randint(0, 10, (per_rank,))
    mint.manual_seed(0)
    net, local = _model(model, mint.nn), _model(model, mint.nn)
    local.load_state_dict(net.state_dict())
    timed = TimedGroup(_distributed.group("benchmark"))
    _distributed._group = timed
    try:
        ddp = mint.nn.parallel.DistributedDataParallel(net)
    except TypeError:  # the group is handed to code that needs the real object
        _distributed._group, timed = timed._group, None
        ddp = mint.nn.parallel.DistributedDataParallel(net)
    local_step = _train_step(mint, local, X, y)
    local_step()
    grads = [p.grad.clone() for p in local.parameters() if p.grad is not None]
    out = comm_in_step(_train_step(mint, ddp, X, y), local_step, grads, reps, timed)
    if timed:  # graph nodes take the real group
        _distributed._group = timed._group
    jnet = _model(model, mint.nn)
    jnet.load_state_dict(local.state_dict())
    jddp = mint.nn.parallel.DistributedDataParallel(jnet)
    jlocal = _model(model, mint.nn)
    jlocal.load_state_dict(local.state_dict())
    ddp_jit = _train_step(mint, jddp, X, y, tandem.jit)
    local_jit = _train_step(mint, jlocal, X, y, tandem.jit)
    out["ddp_jit_s"], out["local_jit_s"] = _max_over_ranks(
        dist, tandem, [_median_time(ddp_jit, reps, dist.barrier),
                       _median_time(local_jit, reps, dist.barrier)])
    out["grad_bytes"] = sum(4 * g.numel() for g in grads)
    out["tensors"] = len(grads)
    if rank == 0:
        print(json.dumps(out), flush=True)
    dist.destroy_process_group()


# ---------------------------------------------------------------- orchestration

def mpi_env(threads: int = 1) -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    # The caller's PYTHONPATH (it names the tandem being measured), else this checkout's.
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH") or str(ROOT / "python")
    return env


def mpirun(argv: list) -> list:
    return [shutil.which("mpirun"), "--oversubscribe", "--allow-run-as-root", "--bind-to",
            "core", "-n", str(RANKS), *map(str, argv)]


def launch(cmd: list, env: dict, timeout: int) -> list:
    """JSON lines a command prints; raises RuntimeError with its last error line."""
    try:
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        what = " ".join(map(str, cmd[-4:]))
        raise RuntimeError(f"timed out after {timeout} s: {what}") from None
    if r.returncode != 0:
        # mpirun ends with its own banner (dashes); the rank's exception line says more.
        lines = [x for x in r.stderr.splitlines() if x.strip().strip("-")]
        errs = [x for x in lines if "Error" in x or "error" in x]
        err = (errs or lines or [f"exit code {r.returncode}"])[-1]
        raise RuntimeError(f"{Path(str(cmd[-1])).name if cmd else '?'} failed: {err[:240]}")
    return [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]


def skip_reason() -> str | None:
    for tool in ("mpirun", "mpicc"):
        if shutil.which(tool) is None:
            return f"{tool} not found (Debian: openmpi-bin libopenmpi-dev)"
    r = subprocess.run([sys.executable, "-c", "import tandem.mint.distributed as d; "
                        "print(d.is_available())"], capture_output=True, text=True,
                       env=mpi_env(), timeout=120)
    if r.stdout.strip() != "True":
        return "tandem was built without MPI" if r.returncode == 0 else (
            "tandem does not import: " + (r.stderr.strip().splitlines() or ["?"])[-1][:200])
    return None


def fit_alpha_beta(points: list) -> tuple:
    """(alpha s, beta s/byte) of time = alpha + beta * bytes, least squares on relative
    errors (weights 1/time)."""
    import numpy as np
    b = np.array([p[0] for p in points], dtype=np.float64)
    t = np.array([p[1] for p in points], dtype=np.float64)
    A = np.stack([np.ones_like(b), b], axis=1) / t[:, None]
    (alpha, beta), *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    return float(alpha), float(beta)


def measure_allreduce(tmp: Path, quick: bool, log) -> dict:
    sizes = [s for s in SIZES if not quick or s <= QUICK_MAX]
    lib, exe = tmp / "libceiling.so", tmp / "ceiling"
    for cmd in (["mpicc", "-O2", "-shared", "-fPIC", "-DCEILING_LIBRARY", "-o", lib, CEILING_C],
                ["mpicc", "-O2", "-o", exe, CEILING_C]):
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("mpicc failed: " + r.stderr.strip()[-300:])
    rounds, reps = (2, 7) if quick else (3, 15)
    runs: dict = {s: {"tandem": [], "binding": [], "ceiling": [], "program": []} for s in sizes}
    env = mpi_env()
    for r in range(rounds):
        jobs = [("in-process", mpirun([sys.executable, __file__, "--worker", "allreduce", lib,
                                       reps, *sizes])),
                ("program", mpirun([exe, reps, *sizes]))]
        for name, cmd in (jobs if r % 2 == 0 else jobs[::-1]):
            log(f"all_reduce round {r + 1}/{rounds}: {name}")
            for row in launch(cmd, env, 600):
                if name == "program":
                    runs[row["bytes"]]["program"].append(row["s"])
                else:
                    for k in ("tandem", "binding", "ceiling"):
                        runs[row["bytes"]][k].append(row[f"{k}_s"])
    rows = []
    for s in sizes:
        m = {k: statistics.median(v) for k, v in runs[s].items()}
        rows.append({"bytes": s, "iters": iters_for(s), **{f"{k}_s": v for k, v in m.items()},
                     "bw_ratio": busbw(s, m["tandem"]) / busbw(s, m["ceiling"]),
                     "program_bw_ratio": busbw(s, m["tandem"]) / busbw(s, m["program"])})
    return {"rows": rows, "rounds": rounds, "reps": reps,
            "fit": fits([(r["bytes"], r["ceiling_s"]) for r in rows]),
            "fit_program": fits([(r["bytes"], r["program_s"]) for r in rows])}


def fits(points: list) -> dict:
    """alpha from the small messages (<= 64 KB), beta from the large ones (>= 1 MB, where
    gradients live; they no longer fit in cache), and the fit of the whole range."""
    small = [p for p in points if p[0] <= 64 << 10]
    large = [p for p in points if p[0] >= 1 << 20]
    whole = fit_alpha_beta(points)
    return {"alpha_s": fit_alpha_beta(small)[0] if len(small) >= 2 else whole[0],
            "beta_s_per_byte": fit_alpha_beta(large)[1] if len(large) >= 2 else whole[1],
            "whole_range": {"alpha_s": whole[0], "beta_s_per_byte": whole[1]}}


def measure_steps(quick: bool, log) -> dict:
    out = {}
    models = ["lenet"] if quick else ["lenet", "resnet18"]
    for model in models:
        reps = {"lenet": 15 if quick else 41, "resnet18": 7}[model]
        rounds = 1 if quick else 2
        single, ddp = [], []
        for r in range(rounds):
            jobs = [("ddp", mpirun([sys.executable, __file__, "--worker", "step", model, "ddp",
                                    reps]), mpi_env(1)),
                    ("single", [sys.executable, __file__, "--worker", "step", model, "single",
                                reps], mpi_env(2))]
            for how, cmd, env in (jobs if r % 2 == 0 else jobs[::-1]):
                log(f"{model} round {r + 1}/{rounds}: {how}")
                res = launch(cmd, env, 900)[-1]
                (ddp if how == "ddp" else single).append(res)
        d = {k: statistics.median(x[k] for x in ddp) if ddp[0][k] is not None else None
             for k in ddp[0]}
        d["single_s"] = statistics.median(x["step_s"] for x in single)
        d["single_jit_s"] = statistics.median(x["step_jit_s"] for x in single)
        d["hidden_fraction"] = 1.0 - d["exposed_s"] / d["alone_s"]
        out[model] = d
    return out


def run(quick: bool, log=lambda msg: None) -> dict:
    """Every measurement; {'skipped': reason} where MPI is missing, {'error': ...} when a
    tandem job fails. Never imports tandem in this process."""
    why = skip_reason()
    if why:
        return {"skipped": why}
    t0 = time.monotonic()
    load0 = "/".join(f"{v:.2f}" for v in os.getloadavg())
    try:
        with tempfile.TemporaryDirectory(prefix="tandem_dist_bench_") as tmp:
            data = {"allreduce": measure_allreduce(Path(tmp), quick, log)}
        data["steps"] = measure_steps(quick, log)
    except RuntimeError as e:
        return {"error": str(e)}
    data.update(quick=quick, minutes=(time.monotonic() - t0) / 60, load_start=load0,
                load_end="/".join(f"{v:.2f}" for v in os.getloadavg()),
                mpi=subprocess.run(["mpirun", "--version"], capture_output=True,
                                   text=True).stdout.splitlines()[0].strip())
    data["markdown"] = markdown(data)
    return data


def _size(b: int) -> str:
    return f"{b >> 20} MB" if b >= 1 << 20 else f"{b >> 10} KB"


def _t(s: float) -> str:
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def markdown(data: dict) -> str:
    if "skipped" in data:
        return f"## Data parallelism (MPI)\n\nskipped: {data['skipped']}\n"
    if "error" in data:
        return f"## Data parallelism (MPI)\n\nfailed: {data['error']}\n"
    ar = data["allreduce"]
    lines = ["## Data parallelism (MPI)", "",
             f"`benchmarks/distributed.py{' --quick' if data['quick'] else ''}`, {data['mpi']}, "
             f"{RANKS} ranks on one machine (shared-memory transport), load average "
             f"{data['load_start']} at start, {data['load_end']} at end, "
             f"{data['minutes']:.1f} min.", "",
             f"all_reduce, float32, SUM, in place; medians of {ar['reps']} repetitions x "
             f"{ar['rounds']} round(s); busbw = bytes / time * 2(n-1)/n (n = {RANKS}). Ceiling: "
             "MPI_Allreduce from C in the same ranks, alternating with tandem repetition by "
             "repetition; binding: tandem's C++ ProcessGroup.all_reduce called directly "
             "(tandem without its Python wrapper); C program: the same C code as its own "
             "mpirun job.", "",
             "| size | calls/rep | ceiling | tandem | binding | C program | ceiling busbw | "
             "tandem busbw | tandem/ceiling busbw | tandem/C program busbw |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in ar["rows"]:
        gb = lambda s, r=r: f"{busbw(r['bytes'], s) / 1e9:.2f} GB/s"
        goal = f" (goal >= {GOAL_BW})" if r["bytes"] >= 1 << 20 else ""
        lines.append(f"| {_size(r['bytes'])} | {r['iters']} | {_t(r['ceiling_s'])} | "
                     f"{_t(r['tandem_s'])} | {_t(r['binding_s'])} | {_t(r['program_s'])} | "
                     f"{gb(r['ceiling_s'])} | {gb(r['tandem_s'])} | **{r['bw_ratio']:.2f}x**"
                     f"{goal} | {r['program_bw_ratio']:.2f}x |")
    first = ar["rows"][0]

    def fit_text(f):
        w = f["whole_range"]
        return (f"alpha = {f['alpha_s'] * 1e6:.2f} µs (sizes <= 64 KB), beta = "
                f"{f['beta_s_per_byte'] * 1e9:.3f} ns/byte = {1e-9 / f['beta_s_per_byte']:.2f} "
                f"GB/s (sizes >= 1 MB); whole range: {w['alpha_s'] * 1e6:.2f} µs, "
                f"{w['beta_s_per_byte'] * 1e9:.3f} ns/byte")
    lines += ["", f"Latency at {_size(first['bytes'])}: tandem / ceiling time = "
              f"**{first['tandem_s'] / first['ceiling_s']:.2f}x** (goal <= {GOAL_LAT}x); "
              f"binding / ceiling = {first['binding_s'] / first['ceiling_s']:.2f}x; "
              f"tandem / C program = {first['tandem_s'] / first['program_s']:.2f}x.", "",
              "Fit time = alpha + beta * bytes (least squares on relative errors). Ceiling: "
              f"{fit_text(ar['fit'])}. C program: {fit_text(ar['fit_program'])}.", ""]
    lines += ["Training steps, eager, SGD: 2 ranks x 1 thread with DistributedDataParallel "
              "(per-rank batch = global / 2) vs 1 process x 2 threads (global batch). Without "
              "DDP: the same 2-rank step with no collectives; all_reduce alone: the gradients' "
              "all_reduce(AVG) back to back outside the step; hidden = 1 - (DDP - without DDP)"
              " / all_reduce alone.", "",
              "| model (global batch) | 1 x 2 threads | 2 ranks x 1 thread, DDP | ratio 2x1 / "
              "1x2 | without DDP | all_reduce alone | inside the DDP hooks | gradients | hidden |",
              "|---|---|---|---|---|---|---|---|---|"]
    for model, d in data["steps"].items():
        batch, shape = STEP_ROWS[model]
        inside = _t(d["inside_s"]) if d.get("inside_s") is not None else "n/a"
        lines.append(f"| {model} ({batch}, {'x'.join(map(str, shape))}) | {_t(d['single_s'])} | "
                     f"{_t(d['ddp_s'])} | **{d['ddp_s'] / d['single_s']:.2f}x** | "
                     f"{_t(d['local_s'])} | {_t(d['alone_s'])} | {inside} | "
                     f"{int(d['tensors'])} tensors, {d['grad_bytes'] / 2**20:.1f} MiB | "
                     f"{100 * d['hidden_fraction']:.0f} % |")
    lines += ["", "The same steps compiled by @jit (DDP's bucket all_reduces are nodes of the "
              "compiled step):", "",
              "| model | 1 x 2 threads, @jit | 2 ranks x 1 thread, DDP @jit | ratio 2x1 / 1x2 | "
              "DDP @jit / DDP eager | without DDP, @jit | hidden |", "|---|---|---|---|---|---|---|"]
    for model, d in data["steps"].items():
        hidden = 1.0 - (d["ddp_jit_s"] - d["local_jit_s"]) / d["alone_s"]
        lines.append(f"| {model} | {_t(d['single_jit_s'])} | {_t(d['ddp_jit_s'])} | "
                     f"**{d['ddp_jit_s'] / d['single_jit_s']:.2f}x** | "
                     f"{d['ddp_jit_s'] / d['ddp_s']:.2f}x | {_t(d['local_jit_s'])} | "
                     f"{100 * hidden:.0f} % |")
    if data["quick"]:
        lines += ["", "--quick: sizes up to 16 MB, fewer repetitions, LeNet only."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="sizes up to 16 MB, LeNet rows only")
    ap.add_argument("--json", help="also write the figures to this path")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "allreduce":
            allreduce_worker(rest[0], int(rest[1]), [int(s) for s in rest[2:]])
        else:
            step_worker(rest[0], rest[1], int(rest[2]))
        return 0
    data = run(args.quick, log=lambda m: print(f"[distributed] {m}", file=sys.stderr, flush=True))
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1))
    print(data.get("markdown") or markdown(data))
    return 1 if "error" in data else 0


if __name__ == "__main__":
    sys.exit(main())
