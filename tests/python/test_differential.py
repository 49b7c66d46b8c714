"""The CI budget of the differential fuzzer (tests/fuzz/differential.py): a fixed seed range of
generated calls to every mint op, each run in a worker subprocess against PyTorch 2.13 CPU
(test-only; skipped when torch is not installed), forward, in-place, backward and under
tandem.jit. Any crash, hang, wrong value, dtype or shape, unclear error, or a call one side
accepts and the other rejects fails, unless tests/fuzz/known_differences.py lists it with its
reason. Cases found by longer runs are kept in REGRESSIONS and replayed every time.

Long mode: python -m tests.fuzz.differential --cases 100000 --seed 1
"""
import json
import os
import pathlib
import sys

import pytest

pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
import diff_gen  # noqa: E402
import differential  # noqa: E402

#: Cases once found failing (crashes and wrong results), replayed on every run.
REGRESSIONS_FILE = ROOT / "tests" / "fuzz" / "regressions_differential.jsonl"

CI_CASES = int(os.environ.get("TANDEM_DIFF_CASES", "30000"))
CI_SEED = 20260


def _failures(cases, results):
    return [(c, r) for c, r in zip(cases, results) if r["status"] in differential.FAILURES]


def _report(cases, results, elapsed):
    table = differential.format_table(differential.tally(cases, results), elapsed, "mode")
    found = differential.findings(cases, results, 2)
    return table + ("\n" + "\n".join(found) if found else "")


def test_ci_budget():
    """A fixed seed range of every mode; prints the per-mode table (pytest -s shows it)."""
    cases, results, elapsed = differential.fuzz(CI_CASES, CI_SEED, workers=2, timeout=30)
    report = _report(cases, results, elapsed)
    print("\n" + report)
    assert not _failures(cases, results), report
    modes = {c["mode"] for c in cases}
    assert modes == set(diff_gen.MODES)
    # the budget must exercise values, not only argument errors
    ok = sum(r["status"] == "ok" for r in results)
    assert ok > len(cases) // 4, report


def test_regressions():
    if not REGRESSIONS_FILE.exists():
        pytest.skip("no recorded regressions")
    cases = [json.loads(line) for line in REGRESSIONS_FILE.read_text().splitlines()
             if line.strip()]
    for i, c in enumerate(cases):
        c.setdefault("id", f"regression:{i}")
    results = differential.run_cases(cases, workers=2, timeout=30)
    fails = _failures(cases, results)
    assert not fails, "\n".join(f"{r['status']}: {r['detail']}\n{differential.reproducer(c)}"
                                for c, r in fails)


def test_worker_reports_crash_and_hang(tmp_path, monkeypatch):
    """The harness itself: a worker that dies is a crash with the case as reproducer, one that
    stops answering is a hang, and the next case runs on a fresh worker."""
    script = tmp_path / "worker.py"
    script.write_text(
        "import json, os, sys, time\n"
        "print('READY', flush=True)\n"
        "for line in sys.stdin:\n"
        "    c = json.loads(line)\n"
        "    if c['op'] == 'die': os.abort()\n"
        "    if c['op'] == 'hang': time.sleep(60)\n"
        "    print(json.dumps({'id': c['id'], 'status': 'ok', 'detail': ''}), flush=True)\n")
    monkeypatch.setattr(differential, "WORKER", script)
    base = {"ns": "torch", "mode": "forward", "form": "function", "args": [], "kwargs": {}}
    cases = [dict(base, op=o, id=str(i)) for i, o in enumerate(["add", "die", "hang", "add"])]
    results = differential.run_cases(cases, workers=1, timeout=3)
    assert [r["status"] for r in results] == ["ok", "crash", "hang", "ok"]
    assert "SIGABRT" in results[1]["detail"]
    assert "die" in differential.reproducer(cases[1])
