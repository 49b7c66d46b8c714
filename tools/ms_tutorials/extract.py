"""Read the code cells of MindSpore's beginner tutorials from a local docs mirror.

The tutorials are markdown files converted from notebooks: every fenced ``python`` block is a
code cell (some are indented under a list item), and the ``text`` block right after one is that
cell's saved output. Nothing is copied into this repository: the cells are read from the mirror
each time the harness runs.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import textwrap

DEFAULT_MIRROR = "/work/.mirror/mindspore-ai+docs/repo"
TUTORIAL_DIR = "tutorials/source_en/beginner"
TUTORIALS = (
    "quick_start",
    "tensor",
    "dataset",
    "model",
    "autograd",
    "train",
    "save_load",
    "accelerate_with_static_graph",
    "mixed_precision",
)


@dataclasses.dataclass
class Cell:
    """One code cell and the output the tutorial saved for it (None when it shows none)."""

    index: int
    source: str
    saved_output: str | None


def mirror_path() -> str:
    """The docs mirror to read: ``$MS_DOCS_MIRROR`` or the default fetch location."""
    return os.environ.get("MS_DOCS_MIRROR", DEFAULT_MIRROR)


def mirror_available(mirror: str | None = None) -> bool:
    """Whether the mirror exists and holds the beginner tutorials."""
    mirror = mirror or mirror_path()
    if not os.path.isdir(mirror):
        return False
    try:
        read_markdown("quick_start", mirror)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def read_markdown(name: str, mirror: str | None = None) -> str:
    """The markdown of tutorial ``name`` (a bare git repository or a checkout)."""
    mirror = mirror or mirror_path()
    # "compile/statements": a tutorial of another folder of tutorials/source_en.
    rel = f"tutorials/source_en/{name}.md" if "/" in name else f"{TUTORIAL_DIR}/{name}.md"
    checkout = os.path.join(mirror, rel)
    if os.path.isfile(checkout):
        with open(checkout, encoding="utf-8") as f:
            return f.read()
    return subprocess.run(
        ["git", "-C", mirror, "show", f"HEAD:{rel}"],
        check=True, capture_output=True, text=True,
    ).stdout


def _fence(line: str) -> tuple[int, str] | None:
    stripped = line.lstrip(" ")
    if not stripped.startswith("```"):
        return None
    return len(line) - len(stripped), stripped[3:].strip()


def cells(name: str, mirror: str | None = None) -> list[Cell]:
    """The code cells of tutorial ``name`` in order, each with its saved output."""
    lines = read_markdown(name, mirror).splitlines()
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        fence = _fence(lines[i])
        if fence is None:
            i += 1
            continue
        indent, lang = fence
        body = []
        i += 1
        while i < len(lines) and _fence(lines[i]) is None:
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        # The web pages put no-break spaces into some code lines; a notebook has plain ones.
        blocks.append((lang, textwrap.dedent("\n".join(body)).replace("\u00a0", " ")))
    out: list[Cell] = []
    for k, (lang, body) in enumerate(blocks):
        if lang != "python":
            continue
        saved = blocks[k + 1][1] if k + 1 < len(blocks) and blocks[k + 1][0] == "text" else None
        out.append(Cell(len(out), body, saved))
    return out
