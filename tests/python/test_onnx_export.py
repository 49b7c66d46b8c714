"""ONNX export: every D2L zoo model and MindSpore-style Cells export to ONNX files that pass
onnx.checker (full_check) and run in onnxruntime with tandem's eager outputs within 1e-5
of their magnitude."""
import pytest

import tandem
from tandem import mint

import deploy_zoo as zoo

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def _check_and_run(path, inputs):
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 17
    sess = _session(path)
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, {n: x.numpy() for n, x in zip(names, inputs)})


def _export_and_compare(net, x, tmp_path, dynamic=False, other_batch=None):
    path = tandem.export(net, x, file_name=str(tmp_path / "model"), file_format="ONNX",
                         dynamic=dynamic)
    assert path.endswith(".onnx")
    with tandem.no_grad():
        want = net(x).numpy()
    zoo.close(_check_and_run(path, [x])[0], want)
    if other_batch:
        x2 = mint.randn(other_batch, *x.shape[1:])
        with tandem.no_grad():
            want2 = net(x2).numpy()
        zoo.close(_check_and_run(path, [x2])[0], want2)


@pytest.mark.parametrize("name", sorted(zoo.D2L))
def test_d2l_model_exports_to_onnx(name, tmp_path):
    net, x = zoo.build(zoo.D2L, name, batch=1)
    _export_and_compare(net, x, tmp_path)


@pytest.mark.parametrize("name", sorted(zoo.MINDSPORE))
def test_mindspore_cell_exports_to_onnx(name, tmp_path):
    net, x = zoo.build(zoo.MINDSPORE, name, batch=2)
    _export_and_compare(net, x, tmp_path)


@pytest.mark.parametrize("name", ["lenet", "batchnorm_lenet", "resnet18", "dropout_mlp"])
def test_dynamic_batch_onnx(name, tmp_path):
    net, x = zoo.build(zoo.D2L, name, batch=2)
    _export_and_compare(net, x, tmp_path, dynamic=True, other_batch=5)
    model = onnx.load(str(tmp_path / "model.onnx"))
    dim0 = model.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim0.dim_param == "N"


def test_mint_onnx_export_signature(tmp_path):
    net, x = zoo.build(zoo.D2L, "lenet", batch=2)
    f = tmp_path / "lenet.onnx"
    mint.onnx.export(net, (x,), f, input_names=["image"], output_names=["logits"],
                     dynamic_axes={"image": {0: "batch"}})
    sess = _session(f)
    assert [i.name for i in sess.get_inputs()] == ["image"]
    assert [o.name for o in sess.get_outputs()] == ["logits"]
    x3 = mint.randn(3, 1, 28, 28)
    with tandem.no_grad():
        zoo.close(sess.run(None, {"image": x3.numpy()})[0], net(x3).numpy())
    with pytest.raises(NotImplementedError, match="only dim 0"):
        mint.onnx.export(net, (x,), f, dynamic_axes={"image": {2: "h"}})


def test_elementwise_promotion_and_reductions(tmp_path):
    def fn(x, y):
        a = (mint.exp(x) * 2 + y).clamp(-1, 1) / (y.abs() + 1)
        b = mint.cat([x.permute(1, 0), x.t()], 0).reshape(2, -1)[:, 1:]
        c = mint.softmax(x, dim=1).sum(0, keepdim=True)
        return a, b, c, x.amax(1), (x > 0.5).float().mean(), mint.where(x > 0, x, y)
    x, y = mint.randn(3, 3), mint.randn(3)
    path = tandem.export(fn, x, y, file_name=str(tmp_path / "ew"), file_format="ONNX")
    got = _check_and_run(path, [x, y])
    for g, w in zip(got, fn(x, y)):
        zoo.close(g, w.numpy())


@pytest.mark.parametrize("kw", [dict(size=(7, 9), mode="nearest"),
                                dict(scale_factor=2, mode="nearest"),
                                dict(size=(7, 9), mode="bilinear", align_corners=False),
                                dict(scale_factor=1.5, mode="bilinear", align_corners=True)])
def test_interpolate(kw, tmp_path):
    import tandem.mint.nn.functional as F
    x = mint.randn(2, 3, 5, 6)
    path = tandem.export(lambda t: F.interpolate(t, **kw), x, file_name=str(tmp_path / "r"),
                         file_format="ONNX", dynamic=True)
    zoo.close(_check_and_run(path, [x])[0], F.interpolate(x, **kw).numpy())


def test_unsupported_opset_and_op(tmp_path):
    net, x = zoo.build(zoo.D2L, "lenet", batch=1)
    with pytest.raises(ValueError, match="opset_version 12"):
        tandem.export(net, x, file_name=str(tmp_path / "m"), file_format="ONNX", opset_version=12)
    with pytest.raises(NotImplementedError, match="ONNX export: node 1 \\(atan2\\)"):
        tandem.export(lambda a: mint.atan2(a, a + 1), x, file_name=str(tmp_path / "m"),
                      file_format="ONNX")
    assert not (tmp_path / "m.onnx").exists()  # nothing half-written


def test_onnx_convert_existing_model_file(tmp_path):
    net, x = zoo.build(zoo.D2L, "batchnorm_lenet", batch=2)
    tdm = tandem.export(net, x, file_name=str(tmp_path / "m"), dynamic=True)
    tandem.onnx.convert(tdm, tmp_path / "m.onnx")
    with tandem.no_grad():
        zoo.close(_check_and_run(tmp_path / "m.onnx", [x])[0], net(x).numpy())


@pytest.mark.parametrize("kind,kw", [("LSTM", {}), ("GRU", {"bidirectional": True}),
                                     ("RNN", {"nonlinearity": "relu", "bias": False}),
                                     ("LSTM", {"num_layers": 2, "bidirectional": True})])
def test_recurrent_layers_export_to_onnx(kind, kw, tmp_path):
    """The fused rnn_layer maps to ONNX LSTM / GRU / RNN nodes (gate order and GRU's
    linear_before_reset as PyTorch computes them)."""
    class Net(mint.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(mint.nn, kind)(4, 6, batch_first=True, **kw)
            dirs = 2 if kw.get("bidirectional") else 1
            self.head = mint.nn.Linear(6 * dirs, 3)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.head(y)
    net = Net()
    net.eval()
    _export_and_compare(net, mint.randn(2, 5, 4), tmp_path)
