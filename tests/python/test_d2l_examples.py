"""Every D2L example (examples/python/d2l) trains on a tiny subset in PyNative and in graph
mode: its training loss decreases, both modes agree from the same seed, and the plot is
written; examples/python/demo.py runs in its --quick form.

The mixed-precision runs (--amp) are held to the same: eager and compiled agree in bf16 /
fp16 too. The scripts run as subprocesses, two at a time with one OpenMP thread each (2 cores)."""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
D2L = os.path.join(ROOT, "examples", "python", "d2l")
MNIST = ("--limit", "96", "--test-limit", "64", "--batch-size", "32", "--epochs", "3")

# script -> extra arguments (small inputs for the big models; their minimum sizes)
SCRIPTS = {
    "linear_regression_scratch": ("--epochs", "3"),
    "linear_regression_concise": ("--epochs", "3"),
    "sequence": ("--epochs", "3"),
    "softmax_regression": MNIST,
    "mlp": MNIST,
    "dropout": MNIST,
    "lenet": MNIST,
    "batchnorm_lenet": MNIST + ("--lr", "0.1"),  # the book's lr 1.0 is for batch 256
    "alexnet": MNIST + ("--resize", "67", "--lr", "0.1"),  # 9 steps at the book's 0.01: flat
    "vgg": MNIST + ("--resize", "32"),
    "nin": MNIST + ("--resize", "67"),
    "googlenet": MNIST + ("--resize", "32"),
    "resnet": MNIST + ("--resize", "32"),
    "densenet": MNIST + ("--resize", "32"),
    # script:precision -> the script with --amp (mixed precision, both modes)
    "resnet:bf16": MNIST + ("--resize", "32", "--amp", "bf16"),
    "lenet:fp16": MNIST + ("--amp", "fp16"),
}
USES_MNIST = {s for s, a in SCRIPTS.items() if a[:len(MNIST)] == MNIST}
MODES = ("pynative", "graph")


def _mnist_present() -> bool:
    d = os.environ.get("TANDEM_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
    names = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
             "t10k-labels-idx1-ubyte")
    return all(os.path.exists(os.path.join(d, n)) or os.path.exists(os.path.join(d, n + ".gz"))
               for n in names)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(ROOT, "python"), env.get("PYTHONPATH")) if p)
    env["OMP_NUM_THREADS"] = "1"  # two runs share the two cores
    return env


def _run(cmd, timeout=120):
    p = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Runs every (script, mode) once, two at a time; maps them to (rc, stdout, stderr,
    plot path)."""
    tmp = tmp_path_factory.mktemp("d2l")
    jobs = {}
    for script, extra in SCRIPTS.items():
        if script in USES_MNIST and not _mnist_present():
            continue
        for mode in MODES:
            plot = str(tmp / f"{script}_{mode}.png")
            cmd = [sys.executable, os.path.join(D2L, script.split(":")[0] + ".py"), "--mode", mode,
                   "--plot", plot, "--no-progress", *extra]
            jobs[(script, mode)] = (cmd, plot)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futs = {k: pool.submit(_run, cmd) for k, (cmd, _) in jobs.items()}
        return {k: (*f.result(), jobs[k][1]) for k, f in futs.items()}


def _result(out: str) -> dict:
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, f"expected one RESULT line in:\n{out}"
    return json.loads(lines[0][len("RESULT "):])


def _get(runs, script, mode):
    if script in USES_MNIST and not _mnist_present():
        pytest.skip("Fashion-MNIST files are not installed")
    rc, out, err, plot = runs[(script, mode)]
    assert rc == 0, f"{script} --mode {mode} failed (rc {rc}):\n{out}\n{err[-3000:]}"
    return _result(out), out, plot


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_example_trains(runs, script, mode):
    res, out, plot = _get(runs, script, mode)
    losses = res["train_loss"]
    assert res["mode"] == mode and len(losses) == res["epochs"] >= 2
    assert all(l == l for l in losses), f"NaN loss: {losses}"  # noqa: E741
    assert losses[-1] < losses[0], f"{script} ({mode}): training loss did not decrease: {losses}"
    assert f"mode={mode}" in out and "sec_per_epoch=" in out
    assert res["amp"] == (script.split(":")[1] if ":" in script else "off")
    assert os.path.getsize(plot) > 1000 and open(plot, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    if script in USES_MNIST:
        assert 0.0 <= res["test_acc"][-1] <= 1.0 and "test_acc=" in out


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_modes_agree(runs, script):
    """Same seed, same model code: the compiled step computes what eager mode computes
    (dropout masks, BatchNorm statistics written back into the running buffers): the same
    losses and accuracies."""
    e, _, _ = _get(runs, script, "pynative")
    g, _, _ = _get(runs, script, "graph")
    assert g["train_loss"] == e["train_loss"]  # to the 5 digits RESULT prints
    if "test_acc" in e:
        assert g["test_acc"] == e["test_acc"]


@pytest.mark.parametrize("script", ["linear_regression_scratch", "linear_regression_concise"])
def test_linear_regression_recovers_parameters(runs, script):
    for mode in MODES:
        res, _, _ = _get(runs, script, mode)
        assert res["w_error"] < 0.01 and res["b_error"] < 0.01, res


def test_demo_quick(tmp_path):
    if not _mnist_present():
        pytest.skip("Fashion-MNIST files are not installed")
    rc, out, err = _run([sys.executable, os.path.join(ROOT, "examples", "python", "demo.py"),
                         "--quick", "--plot-dir", str(tmp_path)], timeout=60)
    assert rc == 0, f"{out}\n{err[-3000:]}"
    assert "seconds per epoch: eager" in out and "speed-up" in out
    for mode in ("eager", "graph"):
        assert (tmp_path / f"lenet_{mode}.png").stat().st_size > 1000
    assert str(tmp_path) in out  # the comparison says where the plots went
