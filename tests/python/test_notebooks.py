"""The D2L zoo's notebooks (examples/notebooks) executed in a real Jupyter kernel, as a
student runs them: every cell runs without an error, and every training cell displays its
figure (the Animator's inline image). Loops are bounded (TANDEM_D2L_MAX_EPOCHS /
TANDEM_D2L_MAX_BATCHES); notebooks that read the book's data sets skip where it is absent."""
import glob
import os

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from d2l_data import DATA  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "examples", "notebooks", "*.ipynb")))
NEEDS_DATA = {"06_rnn": "timemachine.txt", "07_seq2seq": "fra-eng.zip"}
TRAINING_CALLS = ("train_ch3(", "train_ch6(", "train_ch8(", "train_seq2seq(", "d2l.plot(")
IMAGE_TYPES = ("image/png", "image/svg+xml")


def _kernel_env(tmp_path):
    env = dict(os.environ, TANDEM_D2L_MAX_EPOCHS="1", TANDEM_D2L_MAX_BATCHES="3",
               TANDEM_D2L_CACHE=str(tmp_path / "cache"), MPLBACKEND="")
    env.pop("MPLBACKEND")  # the kernel's own inline backend, as in a real session
    if DATA:
        env["TANDEM_DATA"] = DATA
    # the kernel runs in another directory: relative paths of the test run made absolute
    for k in ("TANDEM_BUILD_DIR", "PYTHONPATH"):
        if env.get(k):
            env[k] = os.pathsep.join(os.path.abspath(p) for p in env[k].split(os.pathsep))
    return env


def test_the_zoo_ships_a_notebook_per_chapter_model():
    names = {os.path.basename(p)[:-6] for p in NOTEBOOKS}
    assert {"01_linear_regression", "02_softmax_regression", "03_mlp", "04_lenet",
            "05_resnet", "06_rnn", "07_seq2seq"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: os.path.basename(p)[:-6])
def test_notebook_runs_in_a_kernel(path, tmp_path):
    name = os.path.basename(path)[:-6]
    need = NEEDS_DATA.get(name)
    if need and not (DATA and os.path.exists(os.path.join(DATA, need))):
        pytest.skip(f"needs the book's {need} (set TANDEM_DATA)")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=_kernel_env(tmp_path))  # raises CellExecutionError on a failing cell
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code), "a cell did not run"
    for c in code:
        errors = [o for o in c.outputs if o.output_type == "error"]
        assert not errors, (c.source, errors)
        if any(call in c.source for call in TRAINING_CALLS):
            images = [o for o in c.outputs if o.output_type in ("display_data", "execute_result")
                      and any(t in o.get("data", {}) for t in IMAGE_TYPES)]
            assert images, f"{name}: the training cell displayed no figure:\n{c.source}"
