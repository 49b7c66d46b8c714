"""One-command benchmark suite: tandem eager / graph against torch eager, torch.compile,
MindSpore PyNative / GRAPH and jax.jit, plus the machine's copy and FMA ceilings.

    benchmarks/run_all            # full run (~45 min on 2 cores): BENCHMARKS.md + benchmarks/benchmarks.png
    benchmarks/run_all --quick    # tandem only, small sizes, < 3 min (CI): benchmarks/results/

Both end with benchmarks/d2l_epochs.py's section (seconds per epoch of the D2L chapter models,
each framework with its own DataLoader), benchmarks/contention.py's (LeNet steps on 2
threads against 1 while another process keeps a CPU busy) and benchmarks/distributed.py's (tandem's all_reduce vs
MPI_Allreduce from C, DDP training steps on 2 ranks); the latter says why when mpirun /
mpicc / tandem's MPI build is missing, and --no-distributed leaves it out.

Each column runs in its own process (a crash or a missing package loses only that column,
and every cell says why it is empty), pinned to THREADS CPUs, each framework also told to
use THREADS threads. A full run makes ROUNDS interleaved passes (A B C ..., then the
reverse), and a cell is the median over them, so load that comes and goes during the run
lands on every column. The peak-memory row runs in a fresh process per column. Exits non-zero
when a tandem cell fails; peers never make it fail.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import (PEERS_PY, THREADS, copy_ceiling_gbs, fma_peak, machine,  # noqa: E402
                     peer_env, run_worker)
from workloads import FRESH_PROCESS, RUN_ORDER, WORKLOADS, run_column  # noqa: E402

import contention  # noqa: E402  (its own section: a busy CPU throughout, not a column)
import d2l_epochs  # noqa: E402  (its own section: whole epochs with each DataLoader)
import distributed  # noqa: E402  (its own section: MPI jobs, not a column)

ROOT = HERE.parent
PEERS_MS_PY = HERE / ".peers-venv" / "ms" / "bin" / "python"
# (column, framework, module, mode)
COLUMNS = [
    ("tandem eager", "tandem", "workloads_torchlike", "tandem:eager"),
    ("tandem graph", "tandem", "workloads_torchlike", "tandem:graph"),
    ("torch eager", "torch", "workloads_torchlike", "torch:eager"),
    ("torch.compile", "torch", "workloads_torchlike", "torch:compile"),
    ("MindSpore PyNative", "mindspore", "workloads_mindspore", "mindspore:pynative"),
    ("MindSpore GRAPH", "mindspore", "workloads_mindspore", "mindspore:graph"),
    ("jax.jit", "jax", "workloads_jax", "jax:jit"),
]
BASE = "tandem graph"
ROUNDS = 2  # interleaved passes over the columns in a full run
SINGLE_PASS = {"mindspore"}  # frameworks measured in the first pass only
SLOW_WEIGHT = 4  # their share of the budget, relative to one pass of another column
REPS_PER_ROUND = 3  # timed repetitions per workload and round
THREAD_NOTES = {
    "tandem": "tandem.set_num_threads(2)",
    "torch": "torch.set_num_threads(2)",
    "mindspore": "mindspore.device_context.cpu.op_tuning.threads_num(2)",
    "jax": "XLA's CPU pool follows the 2-CPU affinity",
}


def versions_of(framework: str) -> dict:
    if framework == "tandem":
        import tandem
        try:
            rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            rev = "?"
        return {"tandem": f"{tandem.__version__} (git {rev}, working tree)"}
    if framework == "jax":
        import jax
        import jaxlib
        return {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    mod = __import__(framework)
    return {framework: mod.__version__}


def worker(module: str, mode: str, quick: bool, only: list | None) -> dict:
    cpus = sorted(os.sched_getaffinity(0))[:THREADS]
    os.sched_setaffinity(0, cpus)
    framework = mode.split(":")[0]
    try:
        vers = versions_of(framework)
    except Exception as e:  # not installed: every cell says so
        return {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps({"_versions": vers}), flush=True)  # kept even if the column dies
    mod = __import__(module)

    def emit(key, value):
        print(json.dumps({"workload": key, "value": value}), flush=True)
    out = run_column(mod.build, mode, quick, only, emit)
    if "error" not in out:
        out["_versions"] = vers
    return out


def worker_python(framework: str):
    """(python, env) of a column's process. Every column gets the same OpenMP spin limit
    (tandem's default, GOMP_SPINCOUNT=20000, unless the user set one): on this shared
    2-core machine libgomp's default spinning makes torch and inductor kernels 10-50x
    slower whenever another process holds a core, which would measure the load, not them."""
    spin = {} if {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & set(os.environ) else {
        "GOMP_SPINCOUNT": "20000"}
    if framework == "tandem":
        return sys.executable, dict(os.environ, OMP_NUM_THREADS=str(THREADS), **spin)
    env = peer_env({"JAX_PLATFORMS": "cpu", "GLOG_v": "3", "TF_CPP_MIN_LOG_LEVEL": "2", **spin})
    return (PEERS_MS_PY if framework == "mindspore" else PEERS_PY), env


def setup_peers() -> dict:
    """Runs setup_peers.sh; returns {framework: reason} for the peers that are unavailable."""
    r = subprocess.run(["bash", str(HERE / "setup_peers.sh")], capture_output=True, text=True)
    missing = {}
    for line in r.stdout.splitlines():
        if line.startswith("unavailable "):
            name, _, why = line[len("unavailable "):].partition(": ")
            missing[name] = why
    if r.returncode != 0 and not missing:
        missing["torch"] = missing["jax"] = missing["mindspore"] = (
            "setup_peers.sh failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:200])
    return missing


def run_resuming(py, argv: list, env: dict, timeout: int, col: str,
                 keys: list | None = None) -> dict:
    """Runs a column's worker on `keys` (default: every row but the fresh-process ones); when
    it dies (a segfault, an abort, the time limit) the workload it was running gets the
    reason and a new worker runs the remaining ones."""
    keys = list(keys) if keys is not None else [k for k in RUN_ORDER if k not in FRESH_PROCESS]
    res, deadline = {}, time.monotonic() + timeout
    while keys:
        left = int(deadline - time.monotonic())
        if left <= 0:
            res.update({k: {"error": f"not run: {col} used its {timeout} s"} for k in keys})
            break
        only = [a for k in keys for a in ("--only", k)]
        try:
            r = subprocess.run([str(py), *map(str, argv), *only], capture_output=True,
                               text=True, timeout=left, env=env)
            out, err, code = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err, code = f"timed out ({timeout} s for the column)", -1
        except OSError as e:
            return {"error": f"{col} could not start: {e}"}
        done = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        for d in done:
            if "workload" in d:
                res[d["workload"]] = d["value"]
                keys.remove(d["workload"])
            else:  # the final summary line
                res.update({k: v for k, v in d.items() if k not in res})
        if "error" in res:  # the framework could not start at all
            return {"error": res["error"]}
        if code == 0:
            break
        if keys:
            why = (err.strip().splitlines() or [f"exit code {code}"])[-1][:160]
            res[keys.pop(0)] = {"error": f"process died (exit {code}): {why}"}
    return res


def combine(rounds: list) -> dict:
    """One column's cells over interleaved rounds: the median of a workload's numbers (a
    {'value', 'note'} cell keeps its note), else the first round's error."""
    out = {}
    for res in rounds:
        for key, v in res.items():
            out.setdefault(key, []).append(v)
    merged = {}
    for key, vals in out.items():
        nums = [v["value"] if isinstance(v, dict) and "value" in v else v for v in vals
                if isinstance(v, (int, float)) or (isinstance(v, dict) and "value" in v)]
        if key.startswith("_") or not nums:
            merged[key] = vals[0]
            continue
        m = statistics.median(nums)
        note = next((v["note"] for v in vals if isinstance(v, dict) and "note" in v), None)
        merged[key] = {"value": m, "note": note} if note else m
    return merged


def measure(quick: bool, columns: list, budget: int) -> dict:
    """Runs every column ROUNDS times, interleaved: each round runs the columns one after the
    other, the next round in the reverse order (A B C, C B A, ...), so a load change during
    the run lands on every column instead of reversing a verdict; a cell is the median over
    rounds. The ceilings are measured at each round's start and at the end."""
    missing = {} if quick else setup_peers()
    rounds = 1 if quick else ROUNDS
    ceilings, peaks = [], []
    per_round = {c[0]: [] for c in columns}
    errors = {}
    # MindSpore's CPU columns are 30-500x slower than the others (a ResNet-18 step takes
    # ~25 s): they run once, last in the first round, with SLOW_WEIGHT shares of the budget;
    # the rounds interleave the other columns.
    order = sorted(columns, key=lambda c: c[1] in SINGLE_PASS)
    deadline = time.monotonic() + budget
    runs = [(r, c) for r in range(rounds) for c in (order if r % 2 == 0 else order[::-1])
            if r == 0 or c[1] not in SINGLE_PASS]
    weight = [SLOW_WEIGHT if c[1] in SINGLE_PASS else 1 for _, c in runs]
    with tempfile.TemporaryDirectory(prefix="run_all_inductor_") as cache:
        for i, (r, (col, framework, module, mode)) in enumerate(runs):
            if i == 0 or runs[i - 1][0] != r:
                ceilings.append(copy_ceiling_gbs(64 << 20))
                peaks.append(fma_peak())
            if framework in missing:
                errors[col] = {"error": f"{framework}: {missing[framework]}"}
                continue
            if col in errors:  # the framework could not start in an earlier round
                continue
            share = max(60, int((deadline - time.monotonic()) * weight[i] / sum(weight[i:])))
            col_end = time.monotonic() + share
            py, env = worker_python(framework)
            env["TORCHINDUCTOR_CACHE_DIR"] = cache  # cold compiles; the peak-memory run reuses them
            env["BENCH_REPS"] = str(REPS_PER_ROUND if rounds > 1 else 5)
            argv = [HERE / "run_all.py", "--worker", module, mode] + (["--quick"] if quick else [])
            print(f"[run_all] round {r + 1}/{rounds}: {col} (up to {share} s) ...",
                  file=sys.stderr, flush=True)
            t = time.monotonic()
            res = run_resuming(py, argv, env, int(share * 0.75), col)
            if "error" in res:
                errors[col] = res
                continue
            if r == 0:  # memory, not time: one fresh process is enough
                for key in FRESH_PROCESS:
                    left = max(30, int(col_end - time.monotonic()))
                    one = run_worker(py, argv + ["--only", key], env, left, f"{col} {key}")
                    res[key] = one.get(key, {"error": one.get("error", "not measured")})
            print(f"[run_all] {col}: {time.monotonic() - t:.0f} s", file=sys.stderr, flush=True)
            per_round[col].append(res)
    ceilings.append(copy_ceiling_gbs(64 << 20))
    peaks.append(fma_peak())
    results = {col: errors.get(col) or combine(per_round[col]) for col in per_round}
    return {"results": results, "rounds": rounds,
            "copy_gbs": sorted(ceilings)[len(ceilings) // 2],
            "fma_gflops": max(p for p in peaks if not math.isnan(p)) if any(
                not math.isnan(p) for p in peaks) else float("nan")}


def fmt(value: float, unit: str) -> str:
    if unit == "bytes":
        return f"{value / 2**20:.0f} MiB"
    for scale, name in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {name}"
    return f"{value * 1e9:.0f} ns"


def cell(res: dict, key: str):
    """(value or None, reason or None) of one column's result for one workload."""
    if "error" in res:
        return None, res["error"]
    v = res.get(key)
    if v is None:
        return None, "n/a (no graph step to compile)" if key == "lenet_compile" else "n/a"
    if isinstance(v, dict):
        return (v["value"], None) if "value" in v else (None, v["error"])
    return v, None


def note(res: dict, key: str) -> str | None:
    v = res.get(key)
    return v.get("note") if isinstance(v, dict) else None


def report(data: dict, quick: bool, columns: list, start: dict, end: dict) -> tuple:
    results = data["results"]
    cols = [c[0] for c in columns]
    lines = ["# Benchmarks", "",
             f"Generated by `benchmarks/run_all{' --quick' if quick else ''}` on {start['date']}"
             f" ({end['minutes']:.1f} min). Machine: {machine()}.", "",
             f"Load average (1/5/15 min) at start {start['load']}, at end {end['load']} "
             "(the machine is shared with other jobs; numbers move with it).", "",
             f"Ceilings measured in the same run: copy bandwidth {data['copy_gbs']:.1f} GB/s "
             f"(memcpy, read + write, {THREADS} threads); fp32 FMA peak "
             f"{data['fma_gflops']:.0f} GFLOP/s ({THREADS} threads, register-resident FMA "
             "loop, tools/cpp/fma_peak.cpp).", "",
             f"Each cell: the median over {data.get('rounds', 1)} interleaved round(s) (every "
             "column runs once per round, the next round in reverse order, so a load change "
             "falls on all of them; MindSpore's columns, 30-500x slower, run in the first "
             "round only) of the median of the round's repetitions after warm-up; "
             f"in parentheses the ratio to **{BASE}** (> 1: slower / more memory than tandem "
             "graph). Single ops that "
             "have no graph form are compiled anyway (the same call through @jit / "
             "torch.compile / mindspore.jit / jax.jit). The best time of a row is in bold.", ""]
    if quick:
        lines += ["**--quick**: reduced sizes (2 M elements, softmax 512x4096, GEMM 256 and 512, "
                  "conv batch 8, MLP / LeNet batch 64, ResNet-18 batch 4); the labels give the "
                  "full run's sizes.", ""]
    lines.append("| workload | " + " | ".join(cols) + " | best tandem / best peer |")
    lines.append("|---|" + "---|" * (len(cols) + 1))
    gaps, notes = [], set()
    for key, label, unit in WORKLOADS:
        base, _ = cell(results.get(BASE, {}), key)
        vals = {c: cell(results.get(c, {"error": "not run"}), key) for c in cols}
        finite = [v for v, _ in vals.values() if v is not None]
        best = min(finite) if finite and unit != "compile" else None
        cells = []
        for c in cols:
            v, why = vals[c]
            if v is None:
                cells.append(why.replace("|", "/"))
                continue
            text = fmt(v, unit)
            if base and c != BASE:
                text += f" ({v / base:.2f}x)"
            if note(results.get(c, {}), key):
                text += " †"
                notes.add(note(results[c], key))
            cells.append(f"**{text}**" if v == best else text)
        tandem = [vals[c][0] for c in cols if c.startswith("tandem") and vals[c][0] is not None]
        peers = [vals[c][0] for c in cols if not c.startswith("tandem") and vals[c][0] is not None]
        gap = min(tandem) / min(peers) if tandem and peers and min(peers) > 0 else None
        if gap is not None:
            gaps.append((gap, label))
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {f'{gap:.3g}x' if gap else '-'} |")
    lines += [f"\n† {n}." for n in sorted(notes)]
    versions = {k: v for res in results.values() for k, v in res.get("_versions", {}).items()}
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; Python {sys.version.split()[0]}.", "",
        "Threads: every column runs in its own process pinned to 2 CPUs (sched_setaffinity) with "
        "OMP_NUM_THREADS=MKL_NUM_THREADS=2, GOMP_SPINCOUNT=20000 (tandem's default, given to "
        "every column: libgomp's default spinning collapses under the shared machine's load), and " + "; ".join(
            f"{k}: {v}" for k, v in THREAD_NOTES.items()) + ".", "",
        "Peak memory: the process's peak RSS (VmHWM, reset through /proc/self/clear_refs after "
        "one warm-up step, so compilers' transient memory is excluded) while running 2 "
        "training steps, minus its RSS before the first step (model and batch already "
        "allocated); a fresh process per column, the same method for every column.", "",
        "Workload details: training steps are SGD (lr 0.05, no momentum) with cross-entropy on"
        " random Fashion-MNIST-shaped batches; ResNet-18 is D2L's (1 input channel, 96x96, "
        "BatchNorm in training mode); MindSpore uses mindspore.nn / mindspore.ops (CPU "
        "kernels); JAX uses jax.lax / jax.numpy functions (no Flax), parameters donated to the "
        "jitted step. Compile time = first call minus a steady call. conv2d fwd+bwd = conv2d, "
        "sum, and the gradients for input, weight and bias.", ""]
    gaps.sort(reverse=True)
    if gaps:
        lines.append("Rows where tandem is furthest behind the best peer: " + "; ".join(
            f"{label} ({g:.3g}x)" for g, label in gaps[:3]) + ".")
    return "\n".join(lines) + "\n", gaps


def chart(data: dict, columns: list, path: Path) -> str | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"no chart: {e}"
    results = data["results"]
    rows = [(k, label) for k, label, unit in WORKLOADS if unit != "compile"]
    cols = [c[0] for c in columns]
    fig, ax = plt.subplots(figsize=(13, 0.55 * len(rows) * len(cols) / 3 + 2))
    h = 0.8 / len(cols)
    for j, c in enumerate(cols):
        ys, xs = [], []
        for i, (k, _) in enumerate(rows):
            v, _ = cell(results.get(c, {"error": ""}), k)
            base, _ = cell(results.get(BASE, {}), k)
            if v is not None and base:
                ys.append(i + j * h)
                xs.append(v / base)
        ax.barh(ys, xs, height=h, label=c)
    ax.set_yticks([i + 0.4 - h / 2 for i in range(len(rows))])
    ax.set_yticklabels([label for _, label in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"time (or memory) relative to {BASE}, log scale; < 1 is better than {BASE}")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"tandem vs peers, {THREADS} threads ({machine()})", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tandem columns only, small sizes")
    ap.add_argument("--columns", help="comma-separated column names (default: all)")
    ap.add_argument("--out", help="markdown path (default BENCHMARKS.md; --quick: benchmarks/results/)")
    ap.add_argument("--budget", type=float, default=40,
                    help="minutes for all columns and rounds (default 40; --quick: 2.5)")
    ap.add_argument("--from-json", help="re-render the report of a saved run_all.json")
    ap.add_argument("--no-distributed", action="store_true",
                    help="leave out benchmarks/distributed.py's section (MPI jobs)")
    ap.add_argument("--worker", nargs=2, metavar=("MODULE", "MODE"), help=argparse.SUPPRESS)
    ap.add_argument("--only", action="append", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.quick, args.only)))
        return 0
    columns = [c for c in COLUMNS if not args.quick or c[1] == "tandem"]
    if args.columns:
        wanted = set(args.columns.split(","))
        columns = [c for c in columns if c[0] in wanted]
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        start, end = saved.pop("start"), saved.pop("end")
        data = saved
    else:
        t0 = datetime.datetime.now(datetime.timezone.utc)
        start = {"date": t0.strftime("%Y-%m-%d %H:%M UTC"),
                 "load": "/".join(f"{v:.2f}" for v in os.getloadavg())}
        data = measure(args.quick, columns, int(60 * (2.5 if args.quick else args.budget)))
        print("[run_all] D2L epochs ...", file=sys.stderr, flush=True)
        data["d2l_epochs"] = d2l_epochs.run(args.quick, log=lambda m: print(
            f"[run_all] d2l_epochs: {m}", file=sys.stderr, flush=True))
        print("[run_all] contention (one CPU busy) ...", file=sys.stderr, flush=True)
        data["contention"] = contention.run(args.quick, log=lambda m: print(
            f"[run_all] contention: {m}", file=sys.stderr, flush=True))
        if not args.no_distributed:
            print("[run_all] distributed (MPI, 2 ranks) ...", file=sys.stderr, flush=True)
            try:
                data["distributed"] = distributed.run(args.quick, log=lambda m: print(
                    f"[run_all] distributed: {m}", file=sys.stderr, flush=True))
            except Exception as e:  # the section reports it; the other sections still print
                data["distributed"] = {"error": f"{type(e).__name__}: {e}"}
        end = {"load": "/".join(f"{v:.2f}" for v in os.getloadavg()),
               "minutes": (datetime.datetime.now(datetime.timezone.utc) - t0).total_seconds() / 60}
    results_dir = HERE / "results"
    md_path = Path(args.out) if args.out else (
        results_dir / "BENCHMARKS.quick.md" if args.quick else ROOT / "BENCHMARKS.md")
    png = results_dir / "benchmarks.quick.png" if args.quick else HERE / "benchmarks.png"
    text, _ = report(data, args.quick, columns, start, end)
    if "d2l_epochs" in data:
        text += "\n" + d2l_epochs.markdown(data["d2l_epochs"])
    if "contention" in data:
        text += "\n" + contention.markdown(data["contention"])
    if "distributed" in data:
        text += "\n" + distributed.markdown(data["distributed"])
    why = chart(data, columns, png)
    if why is None:
        text += f"\n![ratios vs {BASE}]({os.path.relpath(png, md_path.parent)})\n"
    else:
        text += f"\n({why})\n"
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text(text)
    results_dir.mkdir(exist_ok=True)
    if not args.from_json:
        (results_dir / ("run_all.quick.json" if args.quick else "run_all.json")).write_text(
            json.dumps({"start": start, "end": end, **data}, indent=1))
    print(text)
    print(f"[run_all] wrote {md_path} and {png if why is None else why}", file=sys.stderr)
    failed = [(c[0], k) for c in columns if c[1] == "tandem"
              for k, _, _ in WORKLOADS if cell(data["results"].get(c[0], {}), k)[1]
              and not cell(data["results"].get(c[0], {}), k)[1].startswith("n/a")]
    failed += [("contention", r["error"]) for r in data.get("contention", {}).get("rows", [])
               if "error" in r and r["name"].startswith("tandem")]
    failed += [("d2l_epochs", c) for c, cells in data.get("d2l_epochs", {}).get("cells", {}).items()
               if c.startswith("tandem") and any(isinstance(v, dict) and "error" in v
                                                 for k, v in cells.items() if not k.startswith("_"))]
    if "error" in data.get("distributed", {}):
        failed.append(("distributed", data["distributed"]["error"]))
    if failed:
        print(f"[run_all] tandem failures: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
