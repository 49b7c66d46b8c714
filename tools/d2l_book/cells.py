"""Reading the D2L book's PyTorch code cells from a git mirror, and the import rules that port
them to tandem. Nothing of the book is stored here: the cells are read at run time."""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional

DEFAULT_MIRROR = "/work/.mirror/d2l-ai+d2l-zh/repo"

# Chapters 2-14 of the zh edition, in reading order.
CHAPTERS = [
    "chapter_preliminaries", "chapter_linear-networks", "chapter_multilayer-perceptrons",
    "chapter_deep-learning-computation", "chapter_convolutional-neural-networks",
    "chapter_convolutional-modern", "chapter_recurrent-neural-networks",
    "chapter_recurrent-modern", "chapter_attention-mechanisms", "chapter_optimization",
    "chapter_computational-performance", "chapter_computer-vision",
    "chapter_natural-language-processing-pretraining",
    "chapter_natural-language-processing-applications",
]

_FENCE_OPEN = re.compile(r"^```\{\.python \.input[^}]*\}\s*$")
_TAB = re.compile(r"^#@tab\s+(.*)$")


@dataclass
class Section:
    """One markdown file of the book with its PyTorch cells (already ported)."""
    chapter: str
    name: str
    cells: List[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """chapter/name, the id used in reports and on the command line."""
        return f"{self.chapter}/{self.name}"


def git_show(mirror: str, path: str) -> str:
    """The text of ``path`` at HEAD of the bare mirror."""
    return subprocess.run(["git", "-C", mirror, "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def git_bytes(mirror: str, path: str) -> bytes:
    """The bytes of ``path`` at HEAD of the bare mirror (images)."""
    return subprocess.run(["git", "-C", mirror, "show", f"HEAD:{path}"], check=True,
                          capture_output=True).stdout


_IMG_REF = re.compile(r"\.\./img/([\w.-]+)")


def images_used(sec: "Section") -> List[str]:
    """The book's images (``../img/<name>``) a section opens."""
    return sorted({m for c in sec.cells for m in _IMG_REF.findall(c)})


def list_sections(mirror: str, chapter: str) -> List[str]:
    """The section files of a chapter (index.md excluded), sorted by name."""
    out = subprocess.run(["git", "-C", mirror, "ls-tree", "--name-only", "HEAD", f"{chapter}/"],
                         check=True, capture_output=True, text=True).stdout.split()
    # *_origin.md are the English originals of the zh sections: not sections of this edition
    return sorted(p for p in out if p.endswith(".md") and not p.endswith("/index.md")
                  and not p.endswith("_origin.md"))


def _is_pytorch(first_line: str) -> bool:
    m = _TAB.match(first_line.strip())
    if not m:
        return False  # an untagged cell is the book's default tab, MXNet
    tabs = [t.strip() for t in m.group(1).split(",")]
    return "pytorch" in tabs or "all" in tabs


def extract_cells(markdown: str) -> List[str]:
    """The PyTorch (and all-framework) code cells of one section, in order, unported."""
    cells, cur, inside = [], [], False
    for line in markdown.splitlines():
        if not inside:
            if _FENCE_OPEN.match(line.strip()):
                inside, cur = True, []
            continue
        if line.strip() == "```":
            inside = False
            if cur and _is_pytorch(cur[0]):
                cells.append("\n".join(cur[1:]))
            continue
        cur.append(line)
    return cells


# (pattern, replacement) applied line by line, first match wins.
def import_rules(d2l_module: str) -> List[tuple]:
    """The rules a student applies: torch -> tandem.mint, torchvision -> tandem.vision, the
    book's d2l -> ``d2l_module``."""
    return [
        (re.compile(r"^(\s*)from d2l import torch as d2l\s*$"), rf"\1import {d2l_module} as d2l"),
        (re.compile(r"^(\s*)import torchvision\s*$"), r"\1from tandem import vision as torchvision"),
        (re.compile(r"^(\s*)from torchvision((?:\.\w+)*) import (.*)$"), r"\1from tandem.vision\2 import \3"),
        (re.compile(r"^(\s*)import torch\s*$"), r"\1from tandem import mint as torch"),
        (re.compile(r"^(\s*)import torch\.nn\.functional as F\s*$"), r"\1from tandem.mint.nn import functional as F"),
        (re.compile(r"^(\s*)import torch\.nn as nn\s*$"), r"\1from tandem.mint import nn"),
        (re.compile(r"^(\s*)from torch((?:\.\w+)*) import (.*)$"), r"\1from tandem.mint\2 import \3"),
    ]


_EPOCH_RANGE = re.compile(r"range\((\s*num_epochs\s*)\)")
# The book's training loops assert the quality a full run reaches; a bounded run cannot.
_QUALITY_ASSERT = re.compile(r"^\s*assert\s+(train_loss|train_acc|test_acc)\b")


def port(code: str, d2l_module: str = "tandem.d2l") -> str:
    """Applies the import rules, drops IPython magics/shell lines, and bounds epoch loops
    (``range(num_epochs)`` -> at most $TANDEM_D2L_MAX_EPOCHS epochs)."""
    rules = import_rules(d2l_module)
    out = []
    for line in code.splitlines():
        s = line.strip()
        if s.startswith("%") or s.startswith("!"):
            continue
        if _QUALITY_ASSERT.match(line):
            line = line[:len(line) - len(line.lstrip())] + "pass  # bounded run: " + s
        for pat, rep in rules:
            if pat.match(line):
                line = pat.sub(rep, line)
                break
        line = _EPOCH_RANGE.sub(r"range(__d2l_bound_epochs(\1))", line)
        out.append(line)
    return "\n".join(out)


def load_sections(mirror: str, chapters: List[str], d2l_module: str,
                  only: Optional[List[str]] = None) -> List[Section]:
    """Every section of ``chapters`` that has PyTorch cells, ported; ``only`` filters by
    section key (chapter/name) or chapter."""
    secs = []
    for ch in chapters:
        for path in list_sections(mirror, ch):
            name = os.path.splitext(os.path.basename(path))[0]
            key = f"{ch}/{name}"
            if only and key not in only and ch not in only:
                continue
            cells = [port(c, d2l_module) for c in extract_cells(git_show(mirror, path))]
            if cells:
                secs.append(Section(ch, name, cells))
    return secs


def book_d2l_source(mirror: str) -> str:
    """The book's own d2l/torch.py ported by the same rules (the baseline helper library)."""
    bound = ("import os as _os\n\n\ndef __d2l_bound_epochs(n):  # the harness's epoch bound\n"
             "    cap = int(_os.environ.get('TANDEM_D2L_MAX_EPOCHS', '1'))\n"
             "    return min(int(n), cap)\n\n\n")
    return bound + port(git_show(mirror, "d2l/torch.py"), "d2l_port")


def local_data_files() -> Dict[str, str]:
    """File name -> path of the book's data sets available offline."""
    d = os.environ.get("TANDEM_DATA", "/work/shared/data/d2l")
    if not os.path.isdir(d):
        return {}
    return {f: os.path.join(d, f) for f in os.listdir(d) if not f.startswith(".")}
