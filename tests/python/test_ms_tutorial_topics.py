"""One test per topic of MindSpore's beginner tutorials, written from MindSpore 2.x's
documented API (not from the tutorials' text): data loading, tensors, datasets, networks,
autograd, training, saving and loading, static graphs."""
import os
import struct

import numpy as np
import pytest
import torch

import tandem
from tandem import nn, ops
from tandem.common.initializer import Normal, One
from tandem.dataset import (GeneratorDataset, MindDataset, MnistDataset, NumpySlicesDataset,
                            transforms, vision)
from tandem.mindrecord import FileWriter

T = tandem


def _write_split(d, prefix, n, seed):
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, n).astype(np.uint8)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{prefix}-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with open(os.path.join(d, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return images, labels


@pytest.fixture()
def mnist_dirs(tmp_path):
    """MNIST as MindSpore's download unpacks it: one split per folder."""
    train = _write_split(str(tmp_path / "MNIST_Data" / "train"), "train", 40, 0)
    test = _write_split(str(tmp_path / "MNIST_Data" / "test"), "t10k", 20, 1)
    return tmp_path / "MNIST_Data", train, test


def _pipe(path, batch):
    ds = MnistDataset(str(path), shuffle=False)
    ds = ds.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                 vision.HWC2CHW()], "image")
    ds = ds.map(transforms.TypeCast(T.int32), "label")
    return ds.batch(batch)


# ---- quick start / data loading --------------------------------------------------------------
def test_mnist_folder_with_one_split(mnist_dirs):
    root, (tr_img, tr_lab), (te_img, _) = mnist_dirs
    train = MnistDataset(str(root / "train"), shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 40
    assert MnistDataset(str(root / "test")).get_dataset_size() == 20
    image, label = next(iter(train.create_tuple_iterator()))
    np.testing.assert_array_equal(image.asnumpy()[..., 0], tr_img[0])
    assert int(label) == tr_lab[0]
    with pytest.raises(ValueError, match="t10k"):
        MnistDataset(str(root / "train"), usage="test").get_dataset_size()
    with pytest.raises(ValueError, match="no MNIST files"):
        MnistDataset(str(root)).get_dataset_size()
    image, label = next(iter(_pipe(root / "test", 8).create_tuple_iterator()))
    assert image.shape == (8, 1, 28, 28) and image.dtype == T.float32
    assert label.shape == (8,) and label.dtype == T.int32
    expect = (te_img[:8].astype(np.float32) / 255.0 - 0.1307) / 0.3081
    np.testing.assert_allclose(image.asnumpy()[:, 0], expect, rtol=1e-5, atol=1e-5)


def test_quick_start_training_and_checkpoint(mnist_dirs, tmp_path):
    root = mnist_dirs[0]
    T.manual_seed(0)
    model = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 32), nn.ReLU(), nn.Dense(32, 10))
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.SGD(model.trainable_params(), 1e-2)

    def forward(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = T.value_and_grad(forward, None, opt.parameters, has_aux=True)
    losses = []
    for _ in range(5):
        for data, label in _pipe(root / "train", 10).create_tuple_iterator():
            (loss, _), grads = grad_fn(data, label)
            opt(grads)
            losses.append(float(loss.asnumpy()))
    assert losses[-1] < losses[0]
    path = str(tmp_path / "model.ckpt")
    T.save_checkpoint(model, path)
    fresh = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 32), nn.ReLU(), nn.Dense(32, 10))
    not_loaded, _ = T.load_param_into_net(fresh, T.load_checkpoint(path))
    assert not_loaded == []
    x = next(iter(_pipe(root / "test", 4)))[0]
    np.testing.assert_array_equal(fresh(x).asnumpy(), model(x).asnumpy())


# ---- tensor --------------------------------------------------------------------------------
def test_tensor_creation_and_attributes():
    t1 = T.Tensor(shape=(2, 2), dtype=T.float32, init=One())
    assert t1.init_data() is t1 and t1.asnumpy().tolist() == [[1, 1], [1, 1]]
    t2 = T.Tensor(shape=(200, 200), dtype=T.float32, init=Normal())  # sigma 0.01
    assert 0.008 < t2.asnumpy().std() < 0.012
    assert T.Tensor(shape=3, dtype=T.int32, init="zeros").shape == (3,)
    with pytest.raises(ValueError, match="shape"):
        T.Tensor(init=One())
    with pytest.raises(ValueError, match="not both"):
        T.Tensor([1.0], shape=(1,), init=One())
    x = T.Tensor(np.array([[1, 2], [3, 4]]), T.int32)
    assert (x.shape, x.itemsize, x.nbytes, x.ndim, x.size, x.strides) == \
        ((2, 2), 4, 16, 2, 4, (8, 4))
    assert x.size() == (2, 2) and x.size(1) == 2  # PyTorch code may still call it
    assert x.T.strides == (4, 8)
    assert ops.ones_like(x).asnumpy().tolist() == [[1, 1], [1, 1]]
    assert T.Tensor([1, 0]).dtype == T.int64 and T.Tensor(np.array([1.0])).dtype == T.float64


def test_tensor_numpy_interop_and_ops():
    n = np.ones(5)
    t = T.Tensor.from_numpy(n)
    np.add(n, 1, out=n)
    assert t.asnumpy().tolist() == [2.0] * 5  # shares memory
    x = T.Tensor(np.array([1, 2, 3]), T.float32)
    y = T.Tensor(np.array([4, 5, 6]), T.float32)
    for got, want in [(x + y, [5, 7, 9]), (y % x, [0, 1, 0]), (y // x, [4, 2, 2]),
                      (y / x, [4, 2.5, 2])]:
        np.testing.assert_allclose(got.asnumpy(), want)
    a = T.Tensor(np.array([[0, 1], [2, 3]], np.float32))
    assert ops.concat((a, a), axis=0).shape == (4, 2) and ops.stack([a, a]).shape == (2, 2, 2)
    assert float(a[1, 1]) == 3.0 and a[..., 0].asnumpy().tolist() == [0, 2]


# ---- dataset -------------------------------------------------------------------------------
def test_generator_sources_and_python_map_gets_numpy():
    class Access:
        def __getitem__(self, i):
            return np.ones(2) * i, np.zeros(1)

        def __len__(self):
            return 3

    rows = list(GeneratorDataset(Access(), ["data", "label"], shuffle=False))
    assert [r[0].asnumpy().tolist() for r in rows] == [[0, 0], [1, 1], [2, 2]]
    assert rows[0][0].dtype == T.float64
    gen = GeneratorDataset(lambda: iter(range(3, 6)), column_names=["data"])
    assert [int(r[0]) for r in gen] == [3, 4, 5] and [int(r[0]) for r in gen] == [3, 4, 5]
    seen = []

    def fn(col):
        seen.append(type(col))
        return col.transpose(2, 0, 1).astype(np.float32) / 2

    ds = NumpySlicesDataset(np.ones((4, 5, 6, 3), np.uint8), ["img"], shuffle=False).map(fn, "img")
    out = next(iter(ds.create_tuple_iterator()))[0]
    assert seen and all(s is np.ndarray for s in seen)
    assert out.shape == (3, 5, 6) and out.dtype == T.float32
    b = NumpySlicesDataset(([[1, 2], [3, 4], [5, 6]], [0, 1, 0]), ["d", "l"], shuffle=False)
    shapes = [(d.shape, l.shape) for d, l in b.map(lambda v: v * 2, "d").batch(2)]
    assert shapes == [((2, 2), (2,)), ((1, 2), (1,))]


def test_mindrecord_round_trip(tmp_path):
    path = str(tmp_path / "test.mindrecord")
    w = FileWriter(path, shard_num=1, overwrite=True)
    w.add_schema({"file_name": {"type": "string"}, "label": {"type": "int32"},
                  "data": {"type": "int32", "shape": [-1]}}, "schema")
    for i in range(4):
        w.write_raw_data([{"file_name": f"{i}.jpg", "label": i,
                           "data": np.array([i] * (i + 1), np.int32)}])
    assert not os.path.exists(path)  # nothing visible before commit
    w.commit()
    rows = list(MindDataset(path, shuffle=False))
    assert len(rows) == 4
    data, name, label = rows[2]  # columns in name order, as MindSpore lists them
    assert data.asnumpy().tolist() == [2, 2, 2] and data.dtype == T.int32
    assert str(name) == "2.jpg" and int(label) == 2 and label.dtype == T.int32
    assert sorted(int(r[2]) for r in MindDataset(path)) == [0, 1, 2, 3]
    assert MindDataset(path, num_samples=2, shuffle=False).get_dataset_size() == 2


def test_mindrecord_shards_like_the_other_sources(tmp_path):
    """num_shards / shard_id split the rows as MindSpore does (ceil(rows / shards) each, shard
    k at positions k, k + shards, ..., wrapping), over one shuffled order every shard agrees
    on, which changes between epochs: data-parallel ranks read disjoint parts."""
    from tandem.dataset import config
    path = str(tmp_path / "s.mindrecord")
    w = FileWriter(path)
    w.add_schema({"label": {"type": "int32"}})
    w.write_raw_data([{"label": i} for i in range(5)])
    w.commit()

    def labels(ds):
        return [int(r[0]) for r in ds]
    assert labels(MindDataset(path, shuffle=False, num_shards=2, shard_id=0)) == [0, 2, 4]
    assert labels(MindDataset(path, shuffle=False, num_shards=2, shard_id=1)) == [1, 3, 0]
    assert MindDataset(path, num_shards=2, shard_id=1).get_dataset_size() == 3
    assert MindDataset(path, num_shards=2, shard_id=1, num_samples=2).get_dataset_size() == 2
    shards = [MindDataset(path, num_shards=3, shard_id=k) for k in range(3)]
    for _ in range(2):  # two epochs: each a permutation split three ways (+1 wrapped row)
        epoch = [labels(d) for d in shards]
        assert all(len(e) == 2 for e in epoch)
        flat = [v for e in epoch for v in e]
        assert sorted(set(flat)) == [0, 1, 2, 3, 4] and len(flat) == 6
    # the same order in every process (a fixed seed unless one is set)
    assert labels(MindDataset(path, num_shards=1, shard_id=0)) == \
        labels(MindDataset(path, num_shards=1, shard_id=0))
    from tandem.dataset import _config
    config.set_seed(7)
    try:
        a = labels(MindDataset(path, num_shards=2, shard_id=0))
        assert a == labels(MindDataset(path, num_shards=2, shard_id=0))
    finally:
        _config._seed = None
    with pytest.raises(ValueError, match="together"):
        MindDataset(path, num_shards=2)
    with pytest.raises(ValueError, match="shard_id must be in"):
        MindDataset(path, num_shards=2, shard_id=2)


def test_mindrecord_rejects_bad_input_and_corruption(tmp_path):
    path = str(tmp_path / "r.mindrecord")
    w = FileWriter(path)
    with pytest.raises(RuntimeError, match="add_schema first"):
        w.write_raw_data([{"a": 1}])
    with pytest.raises(ValueError, match="'type' must be one of"):
        w.add_schema({"a": {"type": "complex"}})
    w.add_schema({"a": {"type": "float32", "shape": [2]}})
    with pytest.raises(ValueError, match="shape"):
        w.write_raw_data([{"a": np.zeros(3)}])
    with pytest.raises(ValueError, match="missing"):
        w.write_raw_data([{"b": 1}])
    w.write_raw_data([{"a": np.array([1.5, 2.5])}] * 3)
    w.commit()
    with pytest.raises(RuntimeError, match="exists"):
        FileWriter(path)
    data = bytearray(open(path, "rb").read())
    np.testing.assert_array_equal(next(iter(MindDataset(path)))[0].asnumpy(), [1.5, 2.5])
    flipped = bytearray(data)
    flipped[12] ^= 0xFF  # inside the first row
    bad = str(tmp_path / "flip.mindrecord")
    open(bad, "wb").write(bytes(flipped))
    with pytest.raises(ValueError, match="CRC"):
        list(MindDataset(bad, shuffle=False))
    cut = str(tmp_path / "cut.mindrecord")
    open(cut, "wb").write(bytes(data[:-5]))
    with pytest.raises(ValueError, match="truncated"):
        MindDataset(cut)
    junk = str(tmp_path / "junk.mindrecord")
    open(junk, "wb").write(data[:8] + b"x" * 40 + data[-8:])
    with pytest.raises(ValueError, match="footer"):
        MindDataset(junk)


# ---- network -------------------------------------------------------------------------------
def test_network_building_blocks():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.seq = nn.SequentialCell(nn.Dense(28 * 28, 16, weight_init="normal",
                                                  bias_init="zeros"), nn.ReLU(), nn.Dense(16, 10))

        def construct(self, x):
            return self.seq(self.flatten(x))

    net = Net()
    logits = net(ops.ones((3, 28, 28), T.float32))
    assert logits.shape == (3, 10)
    prob = nn.Softmax(axis=1)(logits)
    np.testing.assert_allclose(prob.asnumpy().sum(1), 1, rtol=1e-6)
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["seq.0.weight", "seq.0.bias", "seq.2.weight", "seq.2.bias"]
    w = dict(net.parameters_and_names())["seq.0.weight"].asnumpy()
    assert 0.005 < w.std() < 0.015 and not dict(net.parameters_and_names())["seq.0.bias"].asnumpy().any()


# ---- autograd (PyTorch as the oracle) ------------------------------------------------------
def test_grad_positions_aux_and_stop_gradient():
    rng = np.random.RandomState(42)
    wn, bn = rng.randn(5, 3).astype(np.float32), rng.randn(3).astype(np.float32)
    x, y = ops.ones(5, T.float32), ops.zeros(3, T.float32)
    w, b = T.Parameter(T.Tensor(wn), name="w"), T.Parameter(T.Tensor(bn), name="b")

    def f(x, y, w, b):
        z = ops.matmul(x, w) + b
        return ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z)), z

    tw, tb = torch.tensor(wn, requires_grad=True), torch.tensor(bn, requires_grad=True)
    tz = torch.ones(5) @ tw + tb
    tl = torch.nn.functional.binary_cross_entropy_with_logits(tz, torch.zeros(3))
    gw, gb = torch.autograd.grad(tl, (tw, tb), retain_graph=True)
    (g_w, g_b), (z,) = T.grad(f, (2, 3), has_aux=True)(x, y, w, b)
    np.testing.assert_allclose(g_w.asnumpy(), gw.numpy(), rtol=1e-5)
    np.testing.assert_allclose(g_b.asnumpy(), gb.numpy(), rtol=1e-5)
    np.testing.assert_allclose(z.asnumpy(), tz.detach().numpy(), rtol=1e-6)
    # both outputs differentiated (their sum) without has_aux; stop_gradient cuts the second
    g_all = T.grad(f, (2, 3))(x, y, w, b)
    g_tot = torch.autograd.grad(tl + tz.sum(), (tw, tb))
    np.testing.assert_allclose(g_all[1].asnumpy(), g_tot[1].numpy(), rtol=1e-5)

    def f_stop(x, y, w, b):
        loss, z = f(x, y, w, b)
        return loss, ops.stop_gradient(z)

    np.testing.assert_allclose(T.grad(f_stop, (2, 3))(x, y, w, b)[1].asnumpy(), gb.numpy(),
                               rtol=1e-5)


# ---- training with Model and callbacks -----------------------------------------------------
def _model_run(mode, capsys, tmp_path):
    from tandem.train import CheckpointConfig, LossMonitor, Model, ModelCheckpoint
    T.set_context(mode=mode)
    try:
        T.manual_seed(0)
        rng = np.random.RandomState(0)
        X = rng.randn(96, 4).astype(np.float32)
        y = (X[:, 0] + X[:, 1] > 0).astype(np.int32)
        ds = NumpySlicesDataset((X, y), ["x", "y"], shuffle=False).batch(16)
        net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
        m = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.5),
                  metrics={"accuracy", "loss"})
        ck = ModelCheckpoint("n", str(tmp_path / str(mode)),
                             CheckpointConfig(save_checkpoint_steps=6, keep_checkpoint_max=2))
        m.train(4, ds, callbacks=[LossMonitor(5), ck])
        out = capsys.readouterr().out.splitlines()
        return out, m.eval(ds), sorted(os.listdir(tmp_path / str(mode))), m.predict(T.Tensor(X[:3]))
    finally:
        T.set_context(mode=T.PYNATIVE_MODE)


def test_model_train_eval_predict_in_both_modes(capsys, tmp_path):
    eager = _model_run(T.PYNATIVE_MODE, capsys, tmp_path)
    graph = _model_run(T.GRAPH_MODE, capsys, tmp_path)
    lines, metrics, files, pred = eager
    # printed every 5 steps counted over the run, labelled with the step within the epoch
    assert [ln.split(",")[0] for ln in lines] == [
        "epoch: 1 step: 5", "epoch: 2 step: 4", "epoch: 3 step: 3", "epoch: 4 step: 2"]
    assert metrics["accuracy"] > 0.8 and metrics["loss"] < 0.5
    assert files == ["n-3_6.ckpt", "n-4_6.ckpt"]
    assert pred.shape == (3, 2)
    assert lines == graph[0]  # the compiled step computes the same losses
    assert metrics == pytest.approx(graph[1], rel=1e-6)


def test_wrappers_and_metrics():
    from tandem.train import Accuracy, Loss
    net = nn.Dense(3, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    x, t = T.Tensor(np.ones((4, 3), np.float32)), T.Tensor(np.zeros((4, 2), np.float32))
    first = float(step(x, t))
    assert float(step(x, t)) < first
    acc = nn.Accuracy()
    acc.update(T.Tensor([[0.1, 0.9], [0.8, 0.2]]), T.Tensor([1, 1]))
    assert acc.eval() == 0.5
    acc.clear()
    with pytest.raises(RuntimeError, match="update"):
        acc.eval()
    loss = Loss()
    loss.update(T.Tensor(2.0))
    loss.update(T.Tensor([1.0, 3.0]))
    assert loss.eval() == 2.0 and isinstance(acc, Accuracy)
    from tandem.train import Model
    with pytest.raises(NotImplementedError, match="boost_level"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), boost_level="O1")


# ---- save / load and static graphs ---------------------------------------------------------
def test_export_load_graphcell_and_strict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    T.set_context(mode=T.GRAPH_MODE, jit_syntax_level=T.STRICT)
    try:
        net = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 10))
        x = T.Tensor(np.ones([1, 1, 28, 28], np.float32))
        T.export(net, x, file_name="model", file_format="MINDIR")
        out = nn.GraphCell(T.load("model.mindir"))(x)  # the name MindSpore code loads
        T.set_context(mode=T.PYNATIVE_MODE)
        np.testing.assert_allclose(out.asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    finally:
        T.set_context(mode=T.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="jit_syntax_level"):
        T.set_context(jit_syntax_level=7)


def test_static_graph_forms_agree_with_pynative():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(6, 3)

        def construct(self, x):
            return self.dense(x)

    class JitNet(Net):
        @T.jit
        def construct(self, x):
            return self.dense(x)

    x = T.Tensor(np.random.rand(4, 6).astype(np.float32))
    net = Net()
    eager = net(x).asnumpy()
    np.testing.assert_allclose(T.jit(lambda v: net(v))(x).asnumpy(), eager, rtol=1e-6)
    jn = JitNet()
    T.load_param_into_net(jn, {k: v for k, v in net.parameters_dict().items()})
    np.testing.assert_allclose(jn(x).asnumpy(), eager, rtol=1e-6)
    T.set_context(mode=T.GRAPH_MODE)
    try:
        np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-6)
    finally:
        T.set_context(mode=T.PYNATIVE_MODE)


def test_mint_optimizers_also_take_gradients():
    """MindSpore's mint.optim optimizers are called with the gradients; step() still works."""
    from tandem import mint
    w = T.Parameter(T.Tensor([1.0, 2.0]))
    w2 = T.Parameter(T.Tensor([1.0, 2.0]))
    o, o2 = mint.optim.Adam([w], lr=0.1), mint.optim.Adam([w2], lr=0.1)
    g = T.Tensor([0.5, -1.0])
    for _ in range(3):
        assert o([g]) is True
        w2.grad = g
        o2.step()
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())
    assert w.grad is None  # left as it was
    with pytest.raises(ValueError, match="2 gradients for 1 parameters"):
        o([g, g])
    # value_and_grad + optimizer(grads) compiled as one step gives the eager updates
    results = []
    for compiled in (False, True):
        v = T.Parameter(T.Tensor([1.0, 2.0]))
        opt = mint.optim.Adam([v], lr=0.1)
        grad_fn = T.value_and_grad(lambda x: (v * x * x).sum(), None, [v])

        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss

        fn = T.jit(step) if compiled else step
        for k in range(3):
            fn(T.Tensor([1.0, -2.0 + k]))
        results.append(v.asnumpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert not np.allclose(results[0], [1.0, 2.0])


def test_train_one_step_with_loss_scale():
    net = nn.Dense(3, 1)
    opt = nn.SGD(net.trainable_params(), 0.1)
    ref = nn.Dense(3, 1)
    T.load_param_into_net(ref, net.parameters_dict())
    ref_step = nn.TrainOneStepCell(nn.WithLossCell(ref, nn.MSELoss()),
                                   nn.SGD(ref.trainable_params(), 0.1))
    manager = nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2, 2)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, manager)
    x, y = T.Tensor(np.ones((4, 3), np.float32)), T.Tensor(np.zeros((4, 1), np.float32))
    for _ in range(3):
        loss, overflow, scale = step(x, y)
        ref_loss = ref_step(x, y)
        assert not bool(overflow)
        np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=1e-5)
    assert manager.get_loss_scale() == 2.0 ** 11  # grew after 2 good steps
    bad = T.Tensor(np.full((4, 3), np.inf, np.float32))
    before = net.weight.asnumpy().copy()
    _, overflow, _ = step(bad, y)
    assert bool(overflow) and manager.get_loss_scale() == 2.0 ** 10
    np.testing.assert_array_equal(net.weight.asnumpy(), before)  # update skipped
    fixed = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt,
                                             nn.FixedLossScaleUpdateCell(128.0))
    assert float(fixed(x, y)[2]) == 128.0


def test_graph_mode_cells_inside_value_and_grad_match_pynative():
    """GRAPH_MODE with an eager training loop (the quick start's): the loss Cell gets the
    network's output, which requires grad, so its result must carry gradients."""
    results = []
    for mode in (T.PYNATIVE_MODE, T.GRAPH_MODE):
        T.set_context(mode=mode)
        try:
            T.manual_seed(0)
            net = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
            loss_fn = nn.CrossEntropyLoss()
            opt = nn.SGD(net.trainable_params(), 0.1)
            grad_fn = T.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
            x = T.Tensor(np.random.RandomState(1).randn(8, 3).astype(np.float32))
            y = T.Tensor(np.arange(8) % 2)
            losses = []
            for _ in range(4):
                loss, grads = grad_fn(x, y)
                assert any(float(abs(g).sum()) > 0 for g in grads)
                opt(grads)
                losses.append(float(loss))
            results.append(losses)
        finally:
            T.set_context(mode=T.PYNATIVE_MODE)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert results[0][-1] < results[0][0]


def test_bytes_become_uint8_and_strings_pass_through(tmp_path):
    gen = GeneratorDataset(lambda: iter([(b"\x01\x02", "a")]), ["raw", "name"])
    raw, name = next(iter(gen))
    assert raw.dtype == T.uint8 and raw.asnumpy().tolist() == [1, 2] and str(name) == "a"
    path = str(tmp_path / "b.mindrecord")
    w = FileWriter(path)
    w.add_schema({"img": {"type": "bytes"}})
    w.write_raw_data([{"img": b"\x00\xff"}])
    w.commit()
    (img,) = next(iter(MindDataset(path)))
    assert img.dtype == T.uint8 and img.asnumpy().tolist() == [0, 255]
