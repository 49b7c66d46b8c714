"""A few representative sections of the D2L book (zh, PyTorch edition) run through the
tools/d2l_book harness with only the import swap. Needs the book's git mirror (absent on CI
machines: then the test skips)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "d2l_book"))
import cells  # noqa: E402
from d2l_data import DATA  # noqa: E402

MIRROR = os.environ.get("D2L_BOOK_MIRROR", cells.DEFAULT_MIRROR)

pytestmark = pytest.mark.skipif(not os.path.isdir(MIRROR),
                                reason=f"no D2L book mirror at {MIRROR}")

SECTIONS = [
    "chapter_preliminaries/ndarray",
    "chapter_preliminaries/autograd",
    "chapter_linear-networks/linear-regression-scratch",
    "chapter_linear-networks/softmax-regression-concise",
    "chapter_deep-learning-computation/model-construction",
    "chapter_convolutional-neural-networks/lenet",
    "chapter_recurrent-neural-networks/rnn-scratch",
    "chapter_optimization/minibatch-sgd",
]
# Sections reading the book's data sets (../shared/data/d2l here; CI machines may lack it).
NEEDS_DATA = {"chapter_recurrent-neural-networks/rnn-scratch",
              "chapter_optimization/minibatch-sgd"}


def test_extraction_and_port_rules():
    secs = cells.load_sections(MIRROR, ["chapter_preliminaries"], "tandem.d2l",
                               ["chapter_preliminaries/ndarray"])
    assert len(secs) == 1 and len(secs[0].cells) > 10
    code = "\n".join(secs[0].cells)
    assert "from tandem import mint as torch" in code and "\nimport torch\n" not in code
    assert cells.port("from torch.utils import data\nfor e in range(num_epochs):") == \
        "from tandem.mint.utils import data\nfor e in range(__d2l_bound_epochs(num_epochs)):"


def test_representative_sections_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TANDEM_DATA=DATA,
               TANDEM_D2L_CACHE=str(tmp_path / "cache"))
    out = tmp_path / "result.json"
    sections = SECTIONS if DATA else [s for s in SECTIONS if s not in NEEDS_DATA]
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "d2l_book", "run_book.py"),
                        "--only", *sections, "--json", str(out), "--timeout", "240",
                        "--workdir", str(tmp_path / "work")],
                       env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr
    import json
    res = json.load(open(out))
    failed = {s["key"]: s["error"] for s in res["sections"] if s["error"]}
    assert len(res["sections"]) == len(sections)
    assert not failed, p.stdout
