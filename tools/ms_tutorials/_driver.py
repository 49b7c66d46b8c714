"""Runs one tutorial's cells in this process, notebook style, and writes a JSON result.

Invoked by run.py in a fresh subprocess whose working directory holds the data as MindSpore's
download lays it out. Usage: _driver.py TUTORIAL MODE RESULT_JSON
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract  # noqa: E402

_IMPORT = re.compile(r"^(\s*)import mindspore\b(\.[\w.]+)?(\s+as\s+(\w+))?")
_FROM = re.compile(r"^(\s*)from mindspore\b")


def port(source: str) -> str:
    """Only the import lines change: ``mindspore`` becomes ``tandem``, bound to the same name."""
    out = []
    for line in source.splitlines():
        m = _IMPORT.match(line)
        if m:
            indent, sub, _, alias = m.groups()
            rest = line[m.end():]
            if sub and alias:  # import mindspore.dataset as ds
                line = f"{indent}import tandem{sub} as {alias}"
            elif sub:  # import mindspore.nn binds the name mindspore
                line = f"{indent}import tandem{sub}; import tandem as mindspore"
            else:
                line = f"{indent}import tandem as {alias or 'mindspore'}"
            line += rest
        else:
            line = _FROM.sub(r"\1from tandem", line)
        out.append(line)
    return "\n".join(out)


def run_cell(source: str, namespace: dict, filename: str) -> None:
    """Executes a cell; a trailing expression is shown with repr, as a notebook shows it."""
    tree = ast.parse(source)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


def first_error(exc: BaseException, source: str, filename: str) -> str:
    """The exception and the cell line it came from (the innermost frame inside the cell)."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    where = ""
    if line is not None:
        where = f" (cell line {line}: {source.splitlines()[line - 1].strip()})"
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0] if msg else ''}{where}"


def main() -> int:
    name, mode, result_path = sys.argv[1:4]
    cells = extract.cells(name)
    namespace: dict = {"__name__": "__main__"}
    results = []
    import tandem
    if mode == "graph":
        tandem.set_context(mode=tandem.GRAPH_MODE)
    for cell in cells:
        buf = io.StringIO()
        t0 = time.perf_counter()
        error = None
        try:
            with contextlib.redirect_stdout(buf):
                run_cell(port(cell.source), namespace, f"<cell {cell.index}>")
        except BaseException as exc:  # noqa: BLE001 - a notebook keeps going after a failing cell
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = first_error(exc, port(cell.source), f"<cell {cell.index}>")
            if os.environ.get("MS_TUTORIALS_TRACE"):
                traceback.print_exc()
        results.append({
            "index": cell.index, "ok": error is None, "error": error,
            "output": buf.getvalue(), "saved": cell.saved_output,
            "seconds": round(time.perf_counter() - t0, 3),
        })
        with open(result_path + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"tutorial": name, "mode": mode, "cells": results}, f)
        os.replace(result_path + ".tmp", result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
