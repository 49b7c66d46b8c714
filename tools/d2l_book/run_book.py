"""Runs the D2L book's (zh, PyTorch edition) code cells against tandem, section by section.

    TANDEM_BUILD_DIR=build PYTHONPATH=python .venv/bin/python tools/d2l_book/run_book.py \
        [--chapters chapter_preliminaries ...] [--only chapter/section ...] [--mode graph] \
        [--d2l tandem|book] [-j 2] [--timeout 120] [--json out.json]

Each section's ``#@tab pytorch`` / ``#@tab all`` cells are read from the book's git mirror,
ported by the import rules in cells.py (torch -> tandem.mint, torchvision -> tandem.vision,
d2l -> tandem.d2l, or with ``--d2l book`` the book's own d2l/torch.py ported the same way),
and run in a fresh subprocess with a timeout; epochs and batches are bounded
(TANDEM_D2L_MAX_EPOCHS, TANDEM_D2L_MAX_BATCHES). A section runs when all its cells do."""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cells as book  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


def _preamble(mode: str) -> str:
    lines = ["import tandem"]
    if mode == "graph":
        lines.append("tandem.set_context(mode=tandem.GRAPH_MODE)")
    return "\n".join(lines) + "\n"


# Chapters whose loops log only after a whole number of passes over a dataset (minibatch-sgd
# plots every 200 examples and full-batch GD passes 1500): bounded to this many epochs.
CHAPTER_EPOCHS = {"chapter_optimization": 2}


def run_section(sec: book.Section, root: str, mode: str, timeout: float,
                env: Dict[str, str], mirror: str) -> dict:
    """Runs one section in a subprocess under ``root`` (cwd root/<name>/work, the book's
    ../data next to it); returns the worker's result plus wall seconds."""
    base = os.path.join(root, sec.chapter, sec.name)
    work = os.path.join(base, "work")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(base, "data")
    os.makedirs(data, exist_ok=True)
    for f, p in book.local_data_files().items():  # the book's download() finds them cached
        dst = os.path.join(data, f)
        if not os.path.exists(dst):
            os.symlink(p, dst)
    imgs = book.images_used(sec)
    if imgs:  # the book's ../img files, read from the mirror into this run's folder only
        img_dir = os.path.join(base, "img")
        os.makedirs(img_dir, exist_ok=True)
        for name in imgs:
            dst = os.path.join(img_dir, name)
            if not os.path.exists(dst):
                try:
                    data = book.git_bytes(mirror, f"img/{name}")
                except subprocess.CalledProcessError:
                    continue
                with open(dst, "wb") as f:
                    f.write(data)
    job = os.path.join(base, "job.json")
    result = os.path.join(base, "result.json")
    with open(job, "w") as f:
        json.dump({"cells": sec.cells, "preamble": _preamble(mode), "result": result}, f)
    t0 = time.time()
    try:
        if sec.chapter in CHAPTER_EPOCHS:
            env = dict(env, TANDEM_D2L_MAX_EPOCHS=str(max(int(env["TANDEM_D2L_MAX_EPOCHS"]),
                                                          CHAPTER_EPOCHS[sec.chapter])))
        p = subprocess.run([sys.executable, WORKER, job], cwd=work, env=env, timeout=timeout,
                           capture_output=True, text=True)
        with open(os.path.join(base, "output.txt"), "w") as f:  # what the cells printed
            f.write(p.stdout or "")
            f.write(p.stderr or "")
        crashed = p.returncode != 0
        tail = (p.stderr or "").strip().splitlines()[-1:] if crashed else []
    except subprocess.TimeoutExpired:
        crashed, tail = None, []
    wall = time.time() - t0
    try:
        res = json.load(open(result))
    except (OSError, ValueError):
        res = {"cells_ok": 0, "cells": len(sec.cells), "error": None}
    if crashed is None and res.get("error") is None and res["cells_ok"] < res["cells"]:
        res["error"] = {"type": "Timeout", "message": f"over {timeout:.0f} s",
                        "where": f"<cell {res['cells_ok']}>", "inner": ""}
    elif crashed and res.get("error") is None:
        res["error"] = {"type": "Crash", "message": " ".join(tail)[:300],
                        "where": f"<cell {res['cells_ok']}>", "inner": ""}
    res["wall"] = wall
    res["key"] = sec.key
    return res


def cause(err: dict) -> str:
    """A failure's cause with the numbers taken out, so alike failures group together."""
    msg = re.sub(r"0x[0-9a-f]+", "0x…", err.get("message", ""))
    msg = re.sub(r"\b\d+\b", "N", msg)[:140]
    return f"{err['type']}: {msg}"


def report(results: List[dict], sections: List[book.Section], out=sys.stdout) -> Dict[str, dict]:
    """Prints the per-chapter table and the failures grouped by cause; returns the table."""
    by_ch: Dict[str, dict] = collections.OrderedDict()
    for sec, r in zip(sections, results):
        c = by_ch.setdefault(sec.chapter, {"sections": 0, "ok": 0, "cells": 0, "cells_ok": 0})
        c["sections"] += 1
        c["cells"] += r["cells"]
        c["cells_ok"] += r["cells_ok"]
        c["ok"] += int(r.get("error") is None and r["cells_ok"] == r["cells"])
    print(f"{'chapter':48s} {'sections':>10s} {'cells':>11s}", file=out)
    tot = [0, 0, 0, 0]
    for ch, c in by_ch.items():
        print(f"{ch:48s} {c['ok']:>4d} / {c['sections']:<3d} {c['cells_ok']:>4d} / {c['cells']:<4d}",
              file=out)
        tot = [tot[0] + c["ok"], tot[1] + c["sections"], tot[2] + c["cells_ok"], tot[3] + c["cells"]]
    print(f"{'total':48s} {tot[0]:>4d} / {tot[1]:<3d} {tot[2]:>4d} / {tot[3]:<4d}", file=out)
    groups: Dict[str, List[str]] = collections.defaultdict(list)
    for r in results:
        if r.get("error"):
            groups[cause(r["error"])].append(r["key"])
    print("\nfailing sections by first error (most frequent first):", file=out)
    for c, keys in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  [{len(keys)}] {c}", file=out)
        for k in keys:
            r = next(x for x in results if x["key"] == k)
            print(f"        {k}  ({r['error'].get('where', '')})", file=out)
    return by_ch


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mirror", default=os.environ.get("D2L_BOOK_MIRROR", book.DEFAULT_MIRROR))
    ap.add_argument("--chapters", nargs="*", default=book.CHAPTERS)
    ap.add_argument("--only", nargs="*", default=None, help="chapter/section keys or chapters")
    ap.add_argument("--mode", choices=["pynative", "graph"], default="pynative")
    ap.add_argument("--d2l", choices=["tandem", "book"], default="tandem",
                    help="tandem.d2l, or the book's d2l/torch.py ported by the same rules")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=240.0)
    ap.add_argument("--max-epochs", type=int, default=1)
    ap.add_argument("--max-batches", type=int, default=3)
    ap.add_argument("--min-examples", type=int, default=300,
                    help="a bounded pass still sees this many examples (small-batch loops)")
    ap.add_argument("--json", default=None, help="write every section's result here")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--tandem-python", default=None,
                    help="the python/ folder of the tandem to test (default: this checkout's)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.mirror):
        print(f"run_book: no book mirror at {a.mirror}", file=sys.stderr)
        return 2
    root = a.workdir or tempfile.mkdtemp(prefix="d2l_book_")
    mod = "tandem.d2l" if a.d2l == "tandem" else "d2l_port"
    sections = book.load_sections(a.mirror, a.chapters, mod, a.only)
    env = dict(os.environ)
    env.update({"TANDEM_D2L_MAX_EPOCHS": str(a.max_epochs),
                "TANDEM_D2L_MAX_BATCHES": str(a.max_batches),
                "TANDEM_D2L_MIN_EXAMPLES": str(a.min_examples), "MPLBACKEND": "Agg",
                "PYTHONDONTWRITEBYTECODE": "1"})
    env.setdefault("TANDEM_DATA", "/work/shared/data/d2l")
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pypath = [a.tandem_python or os.path.join(here, "python")] + \
        env.get("PYTHONPATH", "").split(os.pathsep)
    if a.d2l == "book":
        lib = os.path.join(root, "_lib")
        os.makedirs(lib, exist_ok=True)
        with open(os.path.join(lib, "d2l_port.py"), "w") as f:
            f.write(book.book_d2l_source(a.mirror))
        pypath.insert(0, lib)
    # the sections run in their own cwd: relative paths must not change meaning
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in pypath if p)
    if env.get("TANDEM_BUILD_DIR"):
        env["TANDEM_BUILD_DIR"] = os.path.abspath(env["TANDEM_BUILD_DIR"])
    t0 = time.time()
    with ThreadPoolExecutor(max(1, a.jobs)) as ex:
        results = list(ex.map(lambda s: run_section(s, root, a.mode, a.timeout, env, a.mirror), sections))
    print(f"D2L book ({a.mode}, d2l={a.d2l}): {len(sections)} sections in "
          f"{time.time() - t0:.0f} s\n")
    table = report(results, sections)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"mode": a.mode, "d2l": a.d2l, "chapters": table, "sections": results}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
