"""The D2L zoo's helpers (examples/python/d2l/common.py) used from a notebook: no argparse
namespace, no global matplotlib backend switch, and a progress bar that updates one output."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python", "d2l"))
common = pytest.importorskip("common")
matplotlib = pytest.importorskip("matplotlib")


def test_run_finish_without_args_writes_plot_and_keeps_backend(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = matplotlib.get_backend()
    run = common.Run("net", "pynative", None)
    run.history["train loss"] += [1.0, 0.5]
    run.epoch_times += [0.1, 0.1]
    res = run.finish()
    assert res["batch_size"] is None
    assert os.path.getsize(tmp_path / "net_pynative.png") > 0
    assert matplotlib.get_backend() == before


class _Handle:
    def __init__(self):
        self.shown = []

    def update(self, obj, raw=False):
        self.shown.append(obj["text/plain"])


def test_progress_bar_updates_one_display_output(monkeypatch, capsys):
    handle = _Handle()
    monkeypatch.setattr(common, "_notebook_display", lambda: handle)
    bar = common.ProgressBar(1, 2, 10)
    for i in range(1, 11):
        bar.update(i, 0.5, 0.9, 32 * i, force=True)
    bar.close("epoch 1 done")
    assert len(handle.shown) == 11 and handle.shown[-1] == "epoch 1 done"
    assert "10/10 loss 0.5000 acc 0.900" in handle.shown[-2]
    out = capsys.readouterr()
    assert "\r" not in out.err and out.out == ""


def test_in_notebook_false_in_plain_python():
    assert common.in_notebook() is False
    assert common._notebook_display() is None


class _Tty:
    """A terminal-like stream that records what is written."""

    def __init__(self):
        self.parts = []

    def isatty(self):
        return True

    def write(self, s):
        self.parts.append(s)

    def flush(self):
        pass


def test_progress_bar_is_a_tqdm_bar_on_a_terminal_when_tqdm_is_installed(capsys):
    pytest.importorskip("tqdm")
    stream = _Tty()
    bar = common.ProgressBar(2, 3, 5, stream=stream)
    assert bar.tqdm is not None
    for i in range(1, 6):
        bar.update(i, 0.25, 0.5, 64 * i)
    assert bar.tqdm.n == 5
    bar.tqdm.refresh()  # tqdm redraws at most every 0.1 s by itself
    bar.close("epoch 2 done")
    drawn = "".join(stream.parts)
    assert "epoch 2/3" in drawn and "loss 0.2500 acc 0.500" in drawn
    assert capsys.readouterr().out == "epoch 2 done\n"


def test_progress_bar_without_tqdm_or_off_a_terminal_is_the_plain_line(monkeypatch, capsys):
    stream = _Tty()
    monkeypatch.setattr(common, "_tqdm_class", lambda s: None)  # tqdm not installed
    bar = common.ProgressBar(1, 1, 2, stream=stream)
    bar.update(2, 0.5, None, 10, force=True)
    assert bar.tqdm is None and stream.parts[-1].startswith("\repoch 1/1 [")
    import io
    plain = io.StringIO()  # a pipe: never tqdm, even where it is installed
    monkeypatch.undo()
    assert common.ProgressBar(1, 1, 2, stream=plain).tqdm is None
