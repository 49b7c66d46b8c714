"""Runs MindSpore's beginner tutorials against tandem and reports cells run per tutorial.

    TANDEM_BUILD_DIR=build PYTHONPATH=python .venv/bin/python tools/ms_tutorials/run.py \
        [--modes pynative graph] [--tutorials quick_start tensor ...] [--train-limit 2048] \
        [--json report.json] [--show-output]

Each tutorial's code cells are read from the MindSpore docs mirror ($MS_DOCS_MIRROR, default
/work/.mirror/mindspore-ai+docs/repo), the import lines are switched from ``mindspore`` to
``tandem`` and nothing else, and the cells run in order in a fresh subprocess (a failing cell is
reported and the next one runs, as "Run All" with errors continuing would). The working
directory holds what MindSpore's MNIST download unpacks (MNIST_Data/train and MNIST_Data/test
with the four idx files) built from Debian's Fashion-MNIST, cut to --train-limit / --test-limit
images so the training cells finish quickly; ``download.download`` is a local no-op. In the
graph run, ``set_context(mode=GRAPH_MODE)`` is called before the first cell.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract  # noqa: E402

FASHION = "/usr/share/datasets/fashion-mnist"
_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}

_DOWNLOAD_STUB = '''"""Stands in for the ``download`` package: the data is already in place."""


def download(url, path="./", kind="file", replace=False, **kwargs):
    """Returns ``path``; run.py laid the archive's contents out beforehand."""
    return path
'''


def _write_idx(src_gz: str, dst: str, limit: int) -> None:
    with gzip.open(src_gz, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    item = 1
    for k in range(1, ndim):
        item *= struct.unpack(">I", data[4 + 4 * k: 8 + 4 * k])[0]
    n = count if limit <= 0 else min(limit, count)
    body = data[header: header + n * item]
    with open(dst, "wb") as f:
        f.write(struct.pack(">II", magic, n) + data[8:header] + body)


def lay_out_data(root: str, train_limit: int, test_limit: int, source: str = FASHION) -> None:
    """Writes MNIST_Data/{train,test} (uncompressed idx files, MNIST's names) under ``root``."""
    for split, limit in (("train", train_limit), ("test", test_limit)):
        d = os.path.join(root, "MNIST_Data", split)
        os.makedirs(d, exist_ok=True)
        for name in _FILES[split]:
            _write_idx(os.path.join(source, name + ".gz"), os.path.join(d, name), limit)
    with open(os.path.join(root, "download.py"), "w", encoding="utf-8") as f:
        f.write(_DOWNLOAD_STUB)


def run_one(name: str, mode: str, args: argparse.Namespace) -> dict:
    """Runs tutorial ``name`` in ``mode`` in a subprocess; returns the driver's result."""
    with tempfile.TemporaryDirectory(prefix=f"ms_{name.replace('/', '_')}_") as work:
        lay_out_data(work, args.train_limit, args.test_limit)
        result_path = os.path.join(work, "result.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [work] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep))
        env.setdefault("MPLBACKEND", "Agg")
        if env.get("TANDEM_BUILD_DIR"):
            env["TANDEM_BUILD_DIR"] = os.path.abspath(env["TANDEM_BUILD_DIR"])
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, os.path.join(HERE, "_driver.py"), name, mode, result_path],
            cwd=work, env=env, capture_output=True, text=True, timeout=args.timeout,
        )
        total = len(extract.cells(name))
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as f:
                result = json.load(f)
        else:
            result = {"tutorial": name, "mode": mode, "cells": []}
        done = len(result["cells"])
        if done < total:  # the process died (crash, timeout): the remaining cells did not run
            tail = (proc.stderr or "").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            for k in range(done, total):
                result["cells"].append({"index": k, "ok": False, "output": "", "saved": None,
                                        "error": f"process ended: {tail[0]}", "seconds": 0})
        result["total"] = total
        result["ran"] = sum(c["ok"] for c in result["cells"])
        result["seconds"] = round(time.perf_counter() - t0, 1)
        if args.verbose and proc.stderr:
            sys.stderr.write(proc.stderr[-4000:])
        return result


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", nargs="+", default=["pynative", "graph"],
                    choices=["pynative", "graph"])
    ap.add_argument("--tutorials", nargs="+", default=list(extract.TUTORIALS))
    ap.add_argument("--train-limit", type=int, default=2048,
                    help="training images written to MNIST_Data/train (0: all 60000)")
    ap.add_argument("--test-limit", type=int, default=1024,
                    help="test images written to MNIST_Data/test (0: all 10000)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per tutorial run")
    ap.add_argument("--json", help="write the full report (outputs included) here")
    ap.add_argument("--show-output", action="store_true",
                    help="print each cell's output next to the tutorial's saved output")
    ap.add_argument("--diff", action="store_true",
                    help="print the cells whose output differs from the saved output "
                         "(trailing spaces ignored)")
    ap.add_argument("--verbose", action="store_true", help="show the subprocess's stderr")
    args = ap.parse_args(argv)
    if not extract.mirror_available():
        print(f"MindSpore docs mirror not found at {extract.mirror_path()}", file=sys.stderr)
        return 2
    report = []
    for name in args.tutorials:
        for mode in args.modes:
            r = run_one(name, mode, args)
            report.append(r)
            print(f"{name:30s} {mode:8s} {r['ran']:3d}/{r['total']:<3d} ({r['seconds']} s)",
                  flush=True)
            for c in r["cells"]:
                if not c["ok"]:
                    print(f"    cell {c['index']}: {c['error']}", flush=True)
                differs = _norm(c["output"]) != _norm(c["saved"] or "")
                if args.diff and c["ok"] and differs and (c["output"] or c["saved"]):
                    print(f"    --- cell {c['index']} differs; tandem:\n{c['output']}"
                          f"    --- MindSpore's saved output:\n{c['saved']}")
                if args.show_output and (c["output"] or c["saved"]):
                    print(f"    --- cell {c['index']} output:\n{c['output']}"
                          f"    --- saved:\n{c['saved']}")
    ran = sum(r["ran"] for r in report)
    total = sum(r["total"] for r in report)
    print(f"total: {ran}/{total} cells ran")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return 0 if ran == total else 1


if __name__ == "__main__":
    sys.exit(main())
