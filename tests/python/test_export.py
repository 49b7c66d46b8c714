"""Export to tandem's model format and the C++ runtime from Python: tandem.export / load /
nn.GraphCell, mint.export, jit(fn).export, dynamic batch, what export folds, refusals, file
validation, and the tandem-run CLI."""
import os
import subprocess

import numpy as np
import pytest

import tandem
from tandem import jit, mint, nn as msnn
import tandem.mint.nn.functional as F

import deploy_zoo as zoo


def _eager(net, *xs):
    with tandem.no_grad():
        return net(*xs)


@pytest.mark.parametrize("name", sorted(zoo.D2L))
def test_d2l_model_runs_in_the_runtime(name, tmp_path):
    net, x = zoo.build(zoo.D2L, name, batch=2)
    path = tandem.export(net, x, file_name=str(tmp_path / name), dynamic=True)
    cell = msnn.GraphCell(tandem.load(path))
    zoo.close(cell(x).numpy(), _eager(net, x).numpy())
    x3 = mint.randn(3, *x.shape[1:])
    zoo.close(cell(x3).numpy(), _eager(net, x3).numpy())


@pytest.mark.parametrize("name", sorted(zoo.MINDSPORE))
def test_mindspore_cell_runs_in_the_runtime(name, tmp_path):
    net, x = zoo.build(zoo.MINDSPORE, name, batch=2)
    path = tandem.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    zoo.close(msnn.GraphCell(tandem.load(path))(x).numpy(), _eager(net, x).numpy())


def test_suffix_rules(tmp_path):
    net, x = zoo.build(zoo.D2L, "lenet", batch=1)
    assert tandem.export(net, x, file_name=str(tmp_path / "a")) == str(tmp_path / "a.tdm")
    assert tandem.export(net, x, file_name=str(tmp_path / "b.tdm")) == str(tmp_path / "b.tdm")
    # MindSpore's rule with tandem's suffix: a name ending otherwise gets ".tdm" appended.
    assert tandem.export(net, x, file_name=str(tmp_path / "c.mindir")).endswith("c.mindir.tdm")
    with pytest.raises(ValueError, match="AIR is not supported"):
        tandem.export(net, x, file_name=str(tmp_path / "d"), file_format="AIR")


def test_explain_shows_what_was_folded(tmp_path):
    net, x = zoo.build(zoo.D2L, "batchnorm_lenet", batch=2)
    g = tandem.load(tandem.export(net, x, file_name=str(tmp_path / "bn")))
    text = g.explain()
    assert "fold_batch_norm: 4 batch norms folded" in text
    assert "folded into conv2d" in text and "folded into linear" in text
    assert "constant folding: removed 3 nodes (permute x3)" in text
    stored = text.split("stored graph")[1].split("executed at")[0]
    assert "batch_norm" not in stored and "permute" not in stored
    assert "fused_elementwise" in text.split("executed at")[1]  # fusion runs at load
    zoo.close(g(x).numpy(), _eager(net, x).numpy())


def test_dropout_is_removed(tmp_path):
    # Dropout layers are identities in eval mode; a functional dropout with training=True is
    # removed by the export pass (its mask has expectation 1).
    def fn(x):
        return F.dropout(x, 0.25, training=True) * 3 + F.dropout(x, 0.5, training=True)
    x = mint.randn(4, 5)
    g = tandem.load(tandem.export(fn, x, file_name=str(tmp_path / "d")))
    assert "2 dropout masks removed" in g.explain()
    np.testing.assert_allclose(g(x).numpy(), (x * 4).numpy(), rtol=1e-6)


def test_export_restores_training_mode(tmp_path):
    net, x = zoo.build(zoo.D2L, "dropout_mlp", batch=2)
    net.train()
    tandem.export(net, x, file_name=str(tmp_path / "m"))
    assert all(m.training for m in net.modules())


def test_refuses_state_updates_and_random_ops(tmp_path):
    w = tandem.Parameter(mint.ones(3))

    def updates(x):
        w.add_(x)
        return w * 2
    with pytest.raises(ValueError, match="in place"):
        tandem.export(updates, mint.ones(3), file_name=str(tmp_path / "u"))
    with pytest.raises(ValueError, match="random"):
        tandem.export(lambda x: x + mint.randn(3), mint.ones(3), file_name=str(tmp_path / "r"))
    assert not os.path.exists(tmp_path / "u.tdm")


def test_dynamic_batch_and_fixed_batch_errors(tmp_path):
    net, x = zoo.build(zoo.D2L, "lenet", batch=2)
    fixed = tandem.load(tandem.export(net, x, file_name=str(tmp_path / "f")))
    assert fixed.inputs == [("input0", "float32", [2, 1, 28, 28])]
    with pytest.raises(ValueError, match=r"must be float32\[2, 1, 28, 28\]"):
        fixed(mint.randn(3, 1, 28, 28))
    dyn = tandem.load(tandem.export(net, x, file_name=str(tmp_path / "d"), dynamic=True))
    assert dyn.inputs == [("input0", "float32", ["N", 1, 28, 28])] and dyn.dynamic
    for b in (1, 7, 33):
        xb = mint.randn(b, 1, 28, 28)
        zoo.close(dyn(xb).numpy(), _eager(net, xb).numpy())
    with pytest.raises(ValueError, match="must be float32"):
        dyn(mint.randn(3, 1, 27, 28))


def test_batch_dependent_constants_are_refused(tmp_path):
    def mean_by_hand(x):
        return x.sum(0) / x.shape[0]  # the batch size baked in as a number
    with pytest.raises(ValueError, match="depends on the batch size"):
        tandem.export(mean_by_hand, mint.randn(4, 3), file_name=str(tmp_path / "m"), dynamic=True)


def test_jit_and_mint_faces(tmp_path):
    net, x = zoo.build(zoo.D2L, "resnet18", batch=1)

    @jit
    def infer(x):
        return F.softmax(net(x), dim=1)
    path = infer.export(x, file_name=str(tmp_path / "j"))
    zoo.close(tandem.load(path)(x).numpy(), infer(x).detach().numpy())
    g = mint.export(net, (x,), tmp_path / "m.tdm")
    assert type(g).__name__ == "Graph" and os.path.exists(tmp_path / "m.tdm")
    zoo.close(g(x).numpy(), _eager(net, x).numpy())


def test_graph_mode_context_and_multiple_outputs(tmp_path):
    net, x = zoo.build(zoo.MINDSPORE, "ms_lenet5", batch=2)
    tandem.set_context(mode=tandem.GRAPH_MODE)
    try:
        path = tandem.export(lambda x: (net(x), net(x).argmax(1)), x, file_name=str(tmp_path / "g"))
        cell = msnn.GraphCell(tandem.load(path))
        logits, labels = cell(x)
    finally:
        tandem.set_context(mode=tandem.PYNATIVE_MODE)
    zoo.close(logits.numpy(), _eager(net, x).numpy())
    assert labels.dtype == tandem.int64
    with pytest.raises(TypeError, match="Graph from tandem.load"):
        msnn.GraphCell(net)


def test_no_allocation_per_run(tmp_path):
    net, x = zoo.build(zoo.D2L, "resnet18", batch=2)
    g = tandem.load(tandem.export(net, x, file_name=str(tmp_path / "r")), num_threads=1)
    g(x)
    before = tandem.memory_stats()
    for _ in range(3):
        g(x)  # each result is dropped before the next run, which reuses its buffer
    after = tandem.memory_stats()
    assert after["num_allocs"] == before["num_allocs"]


def test_file_is_safetensors_and_loading_validates(tmp_path):
    net, x = zoo.build(zoo.D2L, "lenet", batch=1)
    path = tandem.export(net, x, file_name=str(tmp_path / "m"))
    safetensors = pytest.importorskip("safetensors")
    with safetensors.safe_open(path, "numpy") as f:
        meta = f.metadata()
        assert meta["format"] == "tandem.model" and meta["opset_version"] == "1"
        assert "0.weight" in f.keys()
        np.testing.assert_array_equal(f.get_tensor("0.weight"), net[0].weight.detach().numpy())
    data = open(path, "rb").read()
    for cut in (0, 7, 100, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.tdm").write_bytes(data[:cut])
        with pytest.raises(ValueError):
            tandem.load(tmp_path / "cut.tdm")
    tandem._C.save_safetensors(str(tmp_path / "ckpt.safetensors"), [("w", x)], {})
    with pytest.raises(ValueError, match="not a tandem model file"):
        tandem.load(tmp_path / "ckpt.safetensors")
    with pytest.raises(FileNotFoundError):
        tandem.load(tmp_path / "missing.tdm")


def test_tandem_run_cli(tmp_path):
    build = os.environ.get("TANDEM_BUILD_DIR", "build")
    exe = os.path.join(build, "tandem-run")
    if not os.path.exists(exe):
        pytest.skip("tandem-run is not built")
    net, x = zoo.build(zoo.D2L, "batchnorm_lenet", batch=4)
    path = tandem.export(net, x, file_name=str(tmp_path / "m"), dynamic=True)
    np.save(tmp_path / "x.npy", x.numpy())
    r = subprocess.run([exe, path, "--input", str(tmp_path / "x.npy"), "--output",
                        str(tmp_path / "y.npy"), "--bench", "3", "--threads", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "bench: 3 runs" in r.stdout
    zoo.close(np.load(tmp_path / "y.npy"), _eager(net, x).numpy())
    bad = subprocess.run([exe, str(tmp_path / "x.npy")], capture_output=True, text=True)
    assert bad.returncode == 1 and "load_model" in bad.stderr


def test_value_dependent_python_branches_are_refused_and_cond_exports(tmp_path):
    # Regression: the traced path was written without its guard, so inputs taking the other
    # branch got the first branch's result.
    def branchy(x):
        if x.sum() > 0:
            return x * 2
        return x - 1
    with pytest.raises(ValueError, match="reads tensor values in Python"):
        tandem.export(branchy, mint.ones(3), file_name=str(tmp_path / "b"))

    def selected(x):
        return mint.cond(x.sum() > 0, lambda v: v * 2, lambda v: v - 1, (x,))
    g = tandem.load(tandem.export(selected, mint.ones(3), file_name=str(tmp_path / "c")))
    for v in (1.0, -2.0):
        x = mint.full((3,), v)
        np.testing.assert_array_equal(g(x).numpy(), selected(x).numpy())
