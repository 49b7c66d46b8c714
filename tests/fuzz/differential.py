"""Differential fuzzer: every op of the mint face against PyTorch 2.13 CPU as the oracle.

Cases come from the op table (tests/fuzz/diff_gen.py): hostile arguments of every dtype, 0-d and
empty tensors, negative dims, non-contiguous views, NaN/inf, out-of-range Python numbers, wrong
Python types. Each case runs in a worker subprocess (tests/fuzz/diff_worker.py) in one of four
modes: forward (values, dtype, shape, and "torch raises" <=> "tandem raises a clean error"),
inplace (the ``op_`` method), backward (gradients of float inputs) and jit (tandem.jit vs eager,
bit for bit). A worker that dies is a crash, one that stops answering a hang; both print the
case as the reproducer. Deliberate differences are listed in tests/fuzz/known_differences.py.

    python -m tests.fuzz.differential --cases 100000 --seed 1      # long mode
    python -m tests.fuzz.differential --replay '<case json>'       # rerun one case
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import queue
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Optional

try:
    from . import diff_gen
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import diff_gen  # type: ignore

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKER = pathlib.Path(__file__).resolve().parent / "diff_worker.py"
#: Statuses that are findings (a CI failure); the rest are agreement or listed differences.
FAILURES = ("crash", "hang", "wrong", "tandem_accepts", "tandem_rejects", "unclear_error",
            "jit_accepts", "jit_rejects", "harness_error")
COLUMNS = ("tries", "ok", "both_raise", "known", "skip") + FAILURES


def _limit_memory() -> None:
    # A case asking for a huge tensor must fail to allocate, not push the machine into swap.
    gib = int(os.environ.get("TANDEM_FUZZ_MEM_GIB", "8"))
    resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))
    os.setsid()


class Worker:
    """One worker subprocess; restarted after a crash or a hang."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.proc: Optional[subprocess.Popen] = None
        self.err = None

    def start(self) -> None:
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "python"), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                  else []))
        env.setdefault("TANDEM_BUILD_DIR", str(ROOT / "build"))
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, env=env,
                                     preexec_fn=_limit_memory, text=True, bufsize=1)
        line = self._read(120.0)
        if line != "READY":
            raise RuntimeError(f"differential: the worker did not start: {self._stderr()}")

    def _read(self, timeout: float) -> Optional[str]:
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return None
        line = self.proc.stdout.readline()
        return line.strip() if line else ""

    def _stderr(self) -> str:
        self.err.seek(0, os.SEEK_END)
        size = self.err.tell()
        self.err.seek(max(0, size - 1500))
        return self.err.read().decode(errors="replace").strip()

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            self.proc = None

    def run(self, case: dict) -> dict:
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._read(self.timeout)
        if line:
            return json.loads(line)
        if line is None:  # no answer in time
            self.stop()
            return {"id": case["id"], "status": "hang",
                    "detail": f"no result after {self.timeout:.0f} s"}
        rc = self.proc.wait()
        tail = self._stderr()
        self.proc = None
        sig = -rc if rc < 0 else None
        what = f"signal {signal.Signals(sig).name}" if sig else f"exit status {rc}"
        detail = f"{what}; stderr: {tail[-600:]}"
        # The worker runs torch too: a crash that is torch's own is listed like any difference.
        reason = _known().match(case, "crash", detail)
        if reason:
            return {"id": case["id"], "status": "known", "detail": reason}
        return {"id": case["id"], "status": "crash", "detail": detail}


def _known():
    try:
        from . import known_differences
    except ImportError:  # run as a script from tests/fuzz
        import known_differences  # type: ignore
    return known_differences


def run_cases(cases: List[dict], workers: int = 2, timeout: float = 20.0,
              progress: bool = False) -> List[dict]:
    """Runs the cases on `workers` subprocesses; results in the order of `cases`."""
    todo: "queue.Queue" = queue.Queue()
    for i, c in enumerate(cases):
        todo.put((i, c))
    results: List[Optional[dict]] = [None] * len(cases)
    done = [0]
    lock = threading.Lock()
    t0 = time.time()

    def loop():
        w = Worker(timeout)
        try:
            while True:
                try:
                    i, c = todo.get_nowait()
                except queue.Empty:
                    return
                results[i] = w.run(c)
                with lock:
                    done[0] += 1
                    if progress and done[0] % 2000 == 0:
                        rate = done[0] / (time.time() - t0)
                        print(f"  {done[0]}/{len(cases)} cases, {rate:.0f}/s", file=sys.stderr,
                              flush=True)
        finally:
            w.stop()
    threads = [threading.Thread(target=loop) for _ in range(max(1, workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results  # type: ignore[return-value]


def tally(cases: List[dict], results: List[dict], key: str = "mode") -> Dict[str, Counter]:
    table: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for c, r in zip(cases, results):
        for k in (c[key], "all"):
            table[k]["tries"] += 1
            table[k][r["status"]] += 1
    return table


Counter = collections.Counter


def format_table(table, elapsed: float, title: str) -> str:
    cols = [c for c in COLUMNS if c == "tries" or any(row[c] for row in table.values())]
    head = f"{title:<12}" + "".join(f"{c:>15}" for c in cols)
    lines = [head]
    for k in sorted(table, key=lambda k: (k == "all", k)):
        lines.append(f"{k:<12}" + "".join(f"{table[k][c]:>15}" for c in cols))
    n = table["all"]["tries"] if "all" in table else 0
    lines.append(f"{n} cases in {elapsed:.1f} s: {n / max(elapsed, 1e-9):.0f} cases/s")
    return "\n".join(lines)


def reproducer(case: dict) -> str:
    j = json.dumps({k: v for k, v in case.items()}, separators=(",", ":"))
    return (f"  {diff_gen.describe(case)}\n"
            f"  replay: python -m tests.fuzz.differential --replay '{j}'")


def findings(cases, results, limit_per_class: int = 3) -> List[str]:
    """The failing cases grouped by (op, mode, status), a few reproducers each."""
    groups: Dict[tuple, list] = collections.defaultdict(list)
    for c, r in zip(cases, results):
        if r["status"] in FAILURES:
            detail = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", r["detail"])[:80]
            groups[(c["op"], c["mode"], r["status"], detail)].append((c, r))
    out = []
    for (op, mode, status, _), items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        c, r = items[0]
        out.append(f"{status} x{len(items)}: {op} [{mode}]: {r['detail'][:400]}")
        for c, r in items[:limit_per_class]:
            out.append(reproducer(c))
    return out


def fuzz(n: int, seed: int, workers: int = 2, timeout: float = 20.0, modes=diff_gen.MODES,
         ops: Optional[str] = None, progress: bool = False):
    specs = diff_gen.mint_ops()
    if ops:
        specs = [s for s in specs if re.fullmatch(ops, s.name)]
    pairs = diff_gen.generate(specs, n, seed, modes)
    cases = [c for _, c in pairs]
    t0 = time.time()
    results = run_cases(cases, workers, timeout, progress)
    return cases, results, time.time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    ap.add_argument("--modes", default=",".join(diff_gen.MODES))
    ap.add_argument("--ops", default=None, help="regex of op names")
    ap.add_argument("--by-family", action="store_true", help="also tabulate per op family")
    ap.add_argument("--show", type=int, default=2, help="reproducers printed per class")
    ap.add_argument("--json", default=None, help="write every result to this file")
    ap.add_argument("--replay", default=None, help="run one case (JSON) and print its result")
    a = ap.parse_args(argv)
    if a.replay:
        case = json.loads(a.replay)
        case.setdefault("id", "replay")
        r = run_cases([case], 1, a.timeout)[0]
        print(diff_gen.describe(case))
        print(f"{r['status']}: {r['detail']}")
        return 0 if r["status"] not in FAILURES else 1
    cases, results, elapsed = fuzz(a.cases, a.seed, a.workers, a.timeout,
                                   tuple(a.modes.split(",")), a.ops, progress=True)
    print(format_table(tally(cases, results), elapsed, "mode"))
    if a.by_family:
        print(format_table(tally(cases, results, "family"), elapsed, "family"))
    found = findings(cases, results, a.show)
    if found:
        print("\nfindings (status xcount: op [mode]: detail, then reproducers):")
        print("\n".join(found))
    if a.json:
        with open(a.json, "w") as f:
            for c, r in zip(cases, results):
                f.write(json.dumps({"case": c, "result": r}) + "\n")
    return 1 if any(r["status"] in FAILURES for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
