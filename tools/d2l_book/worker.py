"""Runs one ported section in this process: ``python worker.py job.json``. The job gives the
cells, a preamble and where to write progress; the result file is rewritten after every cell
so the parent still learns how far a section got when it times out."""
from __future__ import annotations

import json
import os
import sys
import traceback


def _bound_epochs(n):  # the harness rewrites range(num_epochs) to range(__d2l_bound_epochs(...))
    cap = int(os.environ.get("TANDEM_D2L_MAX_EPOCHS", "1"))
    try:
        return min(int(n), cap)
    except (TypeError, ValueError):
        return n


def _cap_loader_batches() -> None:
    """Every DataLoader pass stops after $TANDEM_D2L_MAX_BATCHES batches and at least
    $TANDEM_D2L_MIN_EXAMPLES examples (len() unchanged), so the book's own training loops
    finish in seconds."""
    cap = int(os.environ.get("TANDEM_D2L_MAX_BATCHES", "0"))
    if cap <= 0:
        return
    from tandem.utils.data import dataloader as dl
    cls = dl.DataLoader
    orig = cls.__iter__

    need = int(os.environ.get("TANDEM_D2L_MIN_EXAMPLES", "0") or 0)

    def capped(self):  # the same rule as tandem.d2l.core.limit_batches (kept standalone so
        seen = 0       # the harness also measures tandem versions without tandem.d2l)
        for i, b in enumerate(orig(self)):
            if i >= cap and seen >= need:
                return
            first = b[0] if isinstance(b, (list, tuple)) and b else b
            if isinstance(first, (list, tuple)) and first:
                first = first[0]
            shape = getattr(first, "shape", None)
            seen += int(shape[0]) if shape else 1
            yield b
    cls.__iter__ = capped


def _error(e: BaseException, cell: str) -> dict:
    tb = traceback.extract_tb(e.__traceback__)
    where = ""
    for fr in reversed(tb):
        if fr.filename.startswith("<cell"):
            where = f"{fr.filename} line {fr.lineno}: {(fr.line or '').strip()}"
            break
    inner = tb[-1] if tb else None
    return {"type": type(e).__name__, "message": str(e).strip().splitlines()[0][:300] if str(e).strip() else "",
            "where": where,
            "inner": f"{os.path.relpath(inner.filename) if inner else ''}:{inner.lineno if inner else ''}"}


def main() -> int:
    job = json.load(open(sys.argv[1]))
    out = job["result"]
    res = {"cells_ok": 0, "cells": len(job["cells"]), "error": None}

    def flush():
        with open(out + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(out + ".tmp", out)
    flush()
    import matplotlib
    matplotlib.use("Agg")  # a subprocess has no display; the book's plots still render
    ns = {"__name__": "__main__", "__d2l_bound_epochs": _bound_epochs}
    try:
        exec(compile(job["preamble"], "<preamble>", "exec"), ns)
        _cap_loader_batches()
    except BaseException as e:  # noqa: BLE001
        res["error"] = _error(e, "")
        res["error"]["where"] = "preamble"
        flush()
        return 0
    for i, cell in enumerate(job["cells"]):
        try:
            exec(compile(cell, f"<cell {i}>", "exec"), ns)
        except SystemExit:
            pass
        except BaseException as e:  # noqa: BLE001
            res["error"] = _error(e, cell)
            res["error"]["cell"] = i
            flush()
            return 0
        res["cells_ok"] = i + 1
        flush()
        try:
            import matplotlib.pyplot as plt
            plt.close("all")
        except Exception:  # noqa: BLE001
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
