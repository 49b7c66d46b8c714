"""Builds and instruction sets side by side: run_all's tandem workloads, each contender in
its own process, rep by rep in rotating order (A B C, B C A, ...), medians of the reps.

    benchmarks/cpu_dispatch.py native=build portable=build-portable \\
        portable-avx2=build-portable:avx2 [--reps 3] [--modes eager graph] [--quick]

A contender is LABEL=BUILD_DIR[:ISA]: the library from BUILD_DIR (tools/build.sh's
TANDEM_BUILD_DIR), and TANDEM_ISA=ISA when given (avx2 keeps the run-time dispatched kernels
and oneDNN off AVX-512). The table gives each contender's time over the first one's (below
1 is faster) and their geometric mean; a build whose library lacks the workload's code path
shows it as a ratio, not as an error. Ratios from the same run only: the machine is shared.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_all  # noqa: E402
from workloads import FRESH_PROCESS, RUN_ORDER, WORKLOADS  # noqa: E402

ROOT = HERE.parent


def parse_contender(spec: str) -> tuple[str, str, str | None]:
    label, eq, rest = spec.partition("=")
    if not eq or not label or not rest:
        raise SystemExit(f"cpu_dispatch: a contender is LABEL=BUILD_DIR[:ISA], got {spec!r}")
    build, _, isa = rest.partition(":")
    if not (ROOT / build / "python" / "tandem").is_dir() and not Path(build, "python").is_dir():
        raise SystemExit(f"cpu_dispatch: {build!r} is not a tandem build directory "
                         "(TANDEM_BUILD_DIR=... bash tools/build.sh makes one)")
    return label, build, isa or None


def run_once(build: str, isa: str | None, mode: str, keys: list, quick: bool) -> dict:
    """One process (run_all's worker, its thread and spin settings): the workloads `keys` of
    tandem:<mode> on that build."""
    py, env = run_all.worker_python("tandem")
    env = dict(env, TANDEM_BUILD_DIR=build, PYTHONPATH=str(ROOT / "python"))
    env.pop("TANDEM_ISA", None)
    if isa:
        env["TANDEM_ISA"] = isa
    argv = [HERE / "run_all.py", "--worker", "workloads_torchlike", f"tandem:{mode}"] + (
        ["--quick"] if quick else [])
    res = run_all.run_resuming(py, argv, env, 1800, f"{build} {mode}", keys)
    for k, v in res.items():
        if isinstance(v, dict) and "error" in v:
            print(f"[cpu_dispatch] {build} {mode} {k}: {v['error']}", file=sys.stderr)
    return {k: v for k, v in res.items() if isinstance(v, float)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("contenders", nargs="+", help="LABEL=BUILD_DIR[:ISA], the first is the base")
    ap.add_argument("--reps", type=int, default=3, help="processes per contender and mode")
    ap.add_argument("--modes", nargs="+", default=["eager", "graph"], choices=["eager", "graph"])
    ap.add_argument("--only", action="append", help="workload keys (default: all time rows)")
    ap.add_argument("--quick", action="store_true", help="run_all --quick's sizes")
    args = ap.parse_args()
    cons = [parse_contender(s) for s in args.contenders]
    units = {k: u for k, _, u in WORKLOADS}
    keys = args.only or [k for k in RUN_ORDER if k not in FRESH_PROCESS and units[k] == "s"]
    times: dict = {}
    for rep in range(args.reps):
        order = cons[rep % len(cons):] + cons[:rep % len(cons)]
        for mode in args.modes:
            for label, build, isa in order:
                res = run_once(build, isa, mode, keys, args.quick)
                for k, v in res.items():
                    times.setdefault((mode, k, label), []).append(v)
                print(f"[cpu_dispatch] rep {rep + 1}/{args.reps} {mode} {label}: "
                      f"{len(res)} rows", file=sys.stderr, flush=True)
    base = cons[0][0]
    others = [c[0] for c in cons[1:]]
    print(f"| mode | workload | {base} (ms) | " + " | ".join(f"{o} / {base}" for o in others)
          + " |")
    print("|---" * (3 + len(others)) + "|")
    logs: dict = {o: [] for o in others}
    for mode in args.modes:
        for k in keys:
            b = times.get((mode, k, base))
            if not b:
                continue
            bm = statistics.median(b)
            cells = []
            for o in others:
                t = times.get((mode, k, o))
                if t:
                    ratio = statistics.median(t) / bm
                    logs[o].append(math.log(ratio))
                    cells.append(f"{ratio:.3f}")
                else:
                    cells.append("n/a")
            print(f"| {mode} | {k} | {bm * 1e3:.3f} | " + " | ".join(cells) + " |")
    gm = " | ".join(f"{math.exp(sum(v) / len(v)):.3f}" if v else "n/a" for v in logs.values())
    print(f"| | **geometric mean** | | {gm} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
