"""Mixed precision: mint.autocast against torch 2.13's CPU autocast (dtype per op), loss
scaling against hand-computed sequences and torch's GradScaler, MindSpore's amp levels,
gradients, graph mode, and a bf16 LeNet that trains like the float32 one."""
import numpy as np
import pytest

import tandem
from tandem import mint, nn
from tandem.mint.amp import GradScaler

F = mint.nn.functional

# name -> (mint call, torch call) on inputs made by _inputs; the result's dtype is compared.
CASES = {
    "matmul": (lambda m, a: a["x"] @ a["w"], None),
    "mm": (lambda m, a: m.mm(a["x"], a["w"]), None),
    "bmm": (lambda m, a: m.bmm(a["x"][None], a["w"][None]), None),
    "addmm": (lambda m, a: m.addmm(a["x"], a["x"], a["w"]), None),
    "baddbmm": (lambda m, a: m.baddbmm(a["x"][None], a["x"][None], a["w"][None]), None),
    "linear": (lambda m, a: m.nn.functional.linear(a["x"], a["w"], a["b"]), None),
    "conv2d": (lambda m, a: m.nn.functional.conv2d(a["img"], a["k"], a["kb"]), None),
    "conv1d": (lambda m, a: m.nn.functional.conv1d(a["img"][:, :, 0], a["k"][:, :, 0]), None),
    "conv_transpose2d": (lambda m, a: m.nn.functional.conv_transpose2d(
        a["img"], a["k"].transpose(0, 1), stride=2), None),
    "conv2d_strided": (lambda m, a: m.nn.functional.conv2d(a["img"], a["k"], stride=2), None),
    "einsum": (lambda m, a: m.einsum("ij,jk->ik", a["x"], a["w"]), None),
    "dot_not_listed": (lambda m, a: m.dot(a["x"][0], a["x"][0]), None),
    "softmax_f32": (lambda m, a: m.nn.functional.softmax(a["x"], dim=-1), None),
    "softmax_low": (lambda m, a: m.nn.functional.softmax(a["xl"], dim=-1), None),
    "relu_low": (lambda m, a: m.nn.functional.relu(a["xl"]), None),
    "sum_low": (lambda m, a: a["xl"].sum(), None),
    "prod_low": (lambda m, a: a["xl"].prod(), None),
    "mse_low": (lambda m, a: m.nn.functional.mse_loss(a["xl"], a["xl"]), None),
    "l1_low": (lambda m, a: m.nn.functional.l1_loss(a["xl"], a["xl"]), None),
    "ce_low": (lambda m, a: m.nn.functional.cross_entropy(a["xl"], a["t"]), None),
    "nll_low": (lambda m, a: m.nn.functional.nll_loss(a["xl"], a["t"]), None),
    "bce_logits_low": (lambda m, a: m.nn.functional.binary_cross_entropy_with_logits(
        a["xl"], a["xl"].sigmoid()), None),
    "smooth_l1_low": (lambda m, a: m.nn.functional.smooth_l1_loss(a["xl"], a["xl"]), None),
    "add_mixed": (lambda m, a: a["xl"] + a["x"], None),
    "matmul_f64": (lambda m, a: a["x"].double() @ a["w"].double(), None),
    "cdist_low": (lambda m, a: m.cdist(a["xl"], a["xl"]), None),
    "trace_low": (lambda m, a: m.trace(a["wl"]), None),
}


def _inputs(m, low):
    rng = np.random.default_rng(0)
    arr = {"x": rng.standard_normal((4, 8)), "w": rng.standard_normal((8, 8)),
           "b": rng.standard_normal(8), "img": rng.standard_normal((2, 3, 8, 8)),
           "k": rng.standard_normal((4, 3, 3, 3)), "kb": rng.standard_normal(4)}
    a = {k: m.tensor(v.astype(np.float32)) for k, v in arr.items()}
    a["xl"] = a["x"].to(low)
    a["wl"] = a["w"].to(low)
    a["t"] = m.tensor(np.array([1, 0, 3, 2]))
    return a


def _name(dt):
    return str(dt).split(".")[-1].lower()


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
def test_autocast_dtypes_match_torch(low):
    torch = pytest.importorskip("torch")
    ta = _inputs(torch, getattr(torch, low))
    ma = _inputs(mint, getattr(mint, low))
    rows = []
    for name, (fn, _) in CASES.items():
        with torch.autocast("cpu", dtype=getattr(torch, low)):
            want = _name(fn(torch, ta).dtype)
        with mint.autocast("cpu", dtype=getattr(mint, low)):
            got = _name(fn(mint, ma).dtype)
        rows.append((name, got, want))
    assert [r for r in rows if r[1] != r[2]] == []


def test_low_precision_results_are_within_bf16_tolerance_of_float32():
    a = _inputs(mint, mint.bfloat16)
    for name in ("matmul", "linear", "conv2d", "addmm", "bmm", "baddbmm", "conv1d",
                 "conv_transpose2d", "conv2d_strided"):
        fn = CASES[name][0]
        ref = fn(mint, a).detach().numpy()
        with mint.autocast("cpu"):
            low = fn(mint, a)
        assert low.dtype == mint.bfloat16
        err = np.abs(low.detach().float().numpy() - ref).max() / (np.abs(ref).max() + 1e-6)
        assert err < 2e-2, (name, err)


def test_nesting_disabling_decorator_and_state():
    x, w = mint.randn(4, 8), mint.randn(8, 8)
    assert not mint.is_autocast_enabled()
    with mint.autocast("cpu"):
        assert mint.is_autocast_enabled() and mint.get_autocast_dtype("cpu") == mint.bfloat16
        with mint.autocast("cpu", enabled=False):
            assert (x @ w).dtype == mint.float32
            with mint.autocast("cpu", dtype=mint.float16):
                assert (x @ w).dtype == mint.float16
        assert (x @ w).dtype == mint.bfloat16
    assert (x @ w).dtype == mint.float32 and not mint.is_autocast_enabled()

    @mint.autocast("cpu")
    def f(a, b):
        return a @ b
    assert f(x, w).dtype == mint.bfloat16 and (x @ w).dtype == mint.float32
    with pytest.raises(ZeroDivisionError):  # the state is restored when the region raises
        with mint.autocast("cpu"):
            1 / 0
    assert not mint.is_autocast_enabled()


def test_unavailable_device_or_dtype_warns_and_disables_like_torch():
    x, w = mint.randn(4, 8), mint.randn(8, 8)
    with pytest.warns(UserWarning, match="Disabling autocast"):
        with mint.autocast("cuda"):
            assert (x @ w).dtype == mint.float32
    with pytest.warns(UserWarning, match="not supported"):
        with mint.autocast("cpu", dtype=mint.float64):
            assert (x @ w).dtype == mint.float32
    with pytest.raises(TypeError, match="device_type must be a str"):
        mint.autocast(0)


def test_gradients_reach_float32_leaves_in_float32():
    tandem.manual_seed(0)
    lin = mint.nn.Linear(8, 4)
    x = mint.randn(16, 8)
    loss32 = lin(x).float().pow(2).mean()
    loss32.backward()
    g32 = [p.grad.clone() for p in lin.parameters()]
    lin.zero_grad()
    with mint.autocast("cpu"):
        out = lin(x)
        assert out.dtype == mint.bfloat16
        loss = out.float().pow(2).mean()
    loss.backward()
    for p, g in zip(lin.parameters(), g32):
        assert p.grad.dtype == mint.float32
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=5e-2, atol=5e-2)


def test_graph_mode_traces_the_casts_and_keys_the_cache_on_autocast():
    tandem.manual_seed(0)
    lin = mint.nn.Linear(8, 4)
    f = tandem.jit(lambda v: mint.relu(lin(v)).sum(dim=1))
    x = mint.randn(5, 8)
    plain = f(x)
    with mint.autocast("cpu"):
        compiled = f(x)
        eager = mint.relu(lin(x)).sum(dim=1)
    assert plain.dtype == mint.float32 and compiled.dtype == mint.bfloat16
    np.testing.assert_array_equal(compiled.detach().float().numpy(),
                                  eager.detach().float().numpy())
    assert f(x).dtype == mint.float32  # outside again: the float32 graph


def test_grad_scaler_matches_torch_sequence():
    torch = pytest.importorskip("torch")
    pattern = [True, True, False, True, True, True, False, True, True, True]  # finite?
    seqs = {}
    for lib in ("tandem", "torch"):
        if lib == "torch":
            p = torch.nn.Parameter(torch.ones(3))
            opt = torch.optim.SGD([p], lr=0.1)
            sc = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
        else:
            p = tandem.nn.Parameter(mint.ones(3))
            opt = mint.optim.SGD([p], lr=0.1)
            sc = GradScaler("cpu", init_scale=8.0, growth_interval=3)
        scales, values = [], []
        for ok in pattern:
            opt.zero_grad()
            loss = (p * (1.0 if ok else float("inf"))).sum()
            sc.scale(loss).backward()
            sc.step(opt)
            sc.update()
            scales.append(sc.get_scale())
            values.append(np.asarray(p.detach().numpy()).copy())
        seqs[lib] = (scales, values)
    assert seqs["tandem"][0] == seqs["torch"][0]
    for a, b in zip(seqs["tandem"][1], seqs["torch"][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_grad_scaler_misuse_and_state():
    p = tandem.nn.Parameter(mint.ones(2))
    opt = mint.optim.SGD([p], lr=0.1)
    sc = GradScaler("cpu", init_scale=4.0)
    (sc.scale(p.sum())).backward()
    np.testing.assert_array_equal(p.grad.numpy(), [4.0, 4.0])
    sc.unscale_(opt)
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="already been called"):
        sc.unscale_(opt)
    sc.step(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        sc.step(opt)
    sc.update()
    sd = sc.state_dict()
    assert sd["scale"] == 4.0 and sd["_growth_tracker"] == 1
    other = GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.get_scale() == 4.0
    with pytest.raises(RuntimeError, match="No inf checks"):
        other.update()
    with pytest.warns(UserWarning, match="Disabling"):
        off = GradScaler()  # PyTorch's default device is cuda
    assert not off.is_enabled() and off.scale(p) is p and off.get_scale() == 1.0


def test_dynamic_loss_scaler_hand_computed():
    s = tandem.amp.DynamicLossScaler(scale_value=16.0, scale_factor=2, scale_window=2)
    seq = []
    for finite in [True, True, True, False, False, True, True]:
        s.adjust(mint.tensor(finite))
        seq.append(float(s.scale_value.item()))
    # grow after 2 finite steps, halve on overflow (never below 1), count restarts
    assert seq == [16.0, 32.0, 32.0, 16.0, 8.0, 8.0, 16.0]
    g = (mint.ones(2) * 16.0, mint.full((3,), 32.0))
    un = s.unscale(s.scale(g))
    np.testing.assert_array_equal(un[0].numpy(), [16.0, 16.0])
    tiny = tandem.amp.DynamicLossScaler(scale_value=1.0, scale_factor=2, scale_window=5)
    tiny.adjust(mint.tensor(False))
    assert tiny.scale_value.item() == 1.0
    st = tandem.amp.StaticLossScaler(1024)
    np.testing.assert_array_equal(st.scale(mint.ones(2)).numpy(), [1024.0, 1024.0])
    assert not bool(st.adjust(mint.tensor(False))) and st.scale_value.item() == 1024.0
    with pytest.raises(ValueError, match="scale_factor must be > 1"):
        tandem.amp.DynamicLossScaler(8.0, 1, 10)


def test_dynamic_loss_scaler_compiles():
    s = tandem.amp.DynamicLossScaler(scale_value=4.0, scale_factor=2, scale_window=1)
    step = tandem.jit(lambda g: s.adjust(tandem.amp.all_finite([g])))
    step(mint.ones(3))
    step(mint.ones(3))
    assert s.scale_value.item() == 16.0
    step(mint.full((3,), float("nan")))
    assert s.scale_value.item() == 8.0


def test_all_finite():
    assert bool(tandem.amp.all_finite([mint.ones(3), mint.zeros(2, 2)]))
    assert not bool(tandem.amp.all_finite([mint.ones(3), mint.tensor([1.0, float("inf")])]))
    assert not bool(tandem.amp.all_finite(mint.tensor([float("nan")])))
    assert bool(tandem.amp.all_finite([]))


def _net():
    tandem.manual_seed(0)
    return nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.BatchNorm1d(16), nn.Dense(16, 3))


def _record_output_dtypes(net):
    seen = {}
    for name, cell in net.cells_and_names():
        if name:
            cell.register_forward_hook(
                lambda c, args, out, name=name: seen.__setitem__(name, out.dtype) or None)
    return seen


def test_amp_levels_as_mindspore_defines_them():
    x = mint.randn(6, 8)
    # output dtype of: 0 Dense, 2 BatchNorm1d, 3 Dense
    for level, want in {"O0": {"0": "float32", "2": "float32", "3": "float32"},
                        "O1": {"0": "float32", "2": "float32", "3": "float32"},
                        "O2": {"0": "bfloat16", "2": "float32", "3": "bfloat16"},
                        "O3": {"0": "bfloat16", "2": "bfloat16", "3": "bfloat16"}}.items():
        net = _net()
        seen = _record_output_dtypes(net)
        out = tandem.amp.auto_mixed_precision(net, level, tandem.bfloat16)(x)
        assert out.dtype == mint.float32, level
        got = {k: _name(v) for k, v in seen.items() if k in want}
        assert got == want, (level, seen)
    # O1: the dense layer computes in bf16 (its output is cast back to float32)
    net = _net()
    ref = net[0](x.to(tandem.bfloat16).float()).detach().numpy()
    tandem.amp.auto_mixed_precision(net, "O1", tandem.bfloat16)
    assert net[0](x).dtype == mint.float32
    assert np.abs(net[0](x).detach().numpy() - ref).max() < 0.1
    with pytest.raises(ValueError, match="amp_level"):
        tandem.amp.auto_mixed_precision(_net(), "O4")
    with pytest.raises(ValueError, match="dst_type"):
        _net().to_float(tandem.int32)


def test_o2_trains_with_float32_master_weights_and_matches_graph_mode():
    x, y = mint.randn(32, 8), mint.randint(0, 3, (32,))
    results = {}
    for mode in (tandem.PYNATIVE_MODE, tandem.GRAPH_MODE):
        tandem.set_context(mode=mode)
        try:
            net = tandem.amp.auto_mixed_precision(_net(), "O2", tandem.bfloat16)
            opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
            loss_fn = nn.CrossEntropyLoss()
            vg = tandem.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
            losses = []
            for _ in range(5):
                loss, grads = vg(x, y)
                assert all(g.dtype == mint.float32 for g in grads)
                opt(grads)
                losses.append(loss.item())
            results[mode] = losses
        finally:
            tandem.set_context(mode=tandem.PYNATIVE_MODE)
    assert results[tandem.PYNATIVE_MODE][-1] < results[tandem.PYNATIVE_MODE][0]
    np.testing.assert_allclose(results[tandem.GRAPH_MODE], results[tandem.PYNATIVE_MODE],
                               rtol=1e-5)


def test_bf16_lenet_trains_like_float32():
    import os
    from tandem._data.common import load_mnist
    root = "/usr/share/datasets/fashion-mnist"
    if not os.path.isdir(root):  # the Debian dataset package is installed by tools/setup.sh
        pytest.skip(f"Fashion-MNIST is not installed at {root}")
    images, labels = load_mnist(root, "train")
    n = 2048
    X = images[:n].float().reshape(n, 1, 28, 28) / 255.0
    Y = labels[:n]
    acc = {}
    for low in (False, True):
        tandem.manual_seed(0)
        net = mint.nn.Sequential(
            mint.nn.Conv2d(1, 6, 5, padding=2), mint.nn.ReLU(), mint.nn.MaxPool2d(2),
            mint.nn.Conv2d(6, 16, 5), mint.nn.ReLU(), mint.nn.MaxPool2d(2), mint.nn.Flatten(),
            mint.nn.Linear(400, 120), mint.nn.ReLU(), mint.nn.Linear(120, 10))
        opt = mint.optim.Adam(net.parameters(), lr=2e-3)
        for _ in range(3):
            for i in range(0, n, 128):
                with mint.autocast("cpu", enabled=low):
                    loss = F.cross_entropy(net(X[i:i + 128]), Y[i:i + 128])
                opt.zero_grad()
                loss.backward()
                opt.step()
        with mint.no_grad():
            pred = net(X).argmax(dim=1)
        acc[low] = float((pred == Y).float().mean().item())
    assert acc[False] > 0.6
    assert abs(acc[True] - acc[False]) < 0.03, acc


@pytest.mark.parametrize("sa,sb,ta,tb", [((64, 48), (48, 80), False, False),
                                         ((48, 64), (48, 80), True, False),
                                         ((64, 48), (80, 48), False, True),
                                         ((3, 17, 9), (9, 5), False, False),
                                         ((2, 1, 7, 9), (3, 9, 4), False, False),
                                         ((9,), (9, 6), False, False),
                                         ((0, 9), (9, 6), False, False),
                                         ((5, 0), (0, 6), False, False)])
def test_bf16_matmul_kernel(sa, sb, ta, tb):
    rng = np.random.default_rng(0)
    a = mint.tensor(rng.standard_normal(sa).astype(np.float32)).bfloat16()
    b = mint.tensor(rng.standard_normal(sb).astype(np.float32)).bfloat16()
    a = a.transpose(-1, -2) if ta else a
    b = b.transpose(-1, -2) if tb else b
    got = a @ b
    assert got.dtype == mint.bfloat16
    # float32 accumulation of the bf16 inputs, rounded once to bf16
    want = (a.float() @ b.float()).bfloat16().float().numpy()
    np.testing.assert_allclose(got.float().numpy(), want, rtol=1e-2, atol=1e-2)


def test_build_train_network_and_loss_scale_managers():
    x, y = mint.randn(32, 8), mint.randint(0, 3, (32,))
    net = _net()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    manager = tandem.amp.DynamicLossScaleManager(init_loss_scale=2.0 ** 10, scale_window=2)
    step = tandem.amp.build_train_network(net, opt, nn.CrossEntropyLoss(), level="O2",
                                          loss_scale_manager=manager, dtype=tandem.bfloat16)
    losses = []
    for _ in range(4):
        loss, overflow, scale = step(x, y)
        assert not bool(overflow)
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert manager.get_loss_scale() == 2.0 ** 12  # grew twice: after steps 2 and 4
    assert all(p.dtype == mint.float32 for p in net.trainable_params())
    # an overflowing step is skipped and the scale backs off
    before = [p.detach().clone() for p in net.trainable_params()]
    _, overflow, _ = step(mint.full((32, 8), float("inf")), y)
    assert bool(overflow) and manager.get_loss_scale() == 2.0 ** 11
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b.numpy())
    fixed = tandem.amp.FixedLossScaleManager(64.0, drop_overflow_update=False)
    assert fixed.get_update_cell() is None and fixed.get_loss_scale() == 64.0
    assert tandem.amp.FixedLossScaleManager().get_update_cell() is not None
    with pytest.raises(ValueError, match="loss_scale must be >= 1"):
        tandem.amp.FixedLossScaleManager(0.5)


def test_model_with_amp_level_trains():
    from tandem.train import Model
    net = _net()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    model = Model(net, nn.CrossEntropyLoss(), opt, metrics={"accuracy"}, amp_level="O2",
                  loss_scale_manager=tandem.amp.FixedLossScaleManager(128.0))
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    x, y = mint.randn(32, 8), mint.randint(0, 3, (32,))
    first = model.train_network(x, y)[0].item()
    for _ in range(5):
        last = model.train_network(x, y)[0].item()
    assert last < first
    assert model.predict_network(x).dtype == mint.float32
    with pytest.raises(ValueError, match="need loss_fn and optimizer"):
        Model(_net(), amp_level="O2")


def test_bf16_resnet18_trains_like_float32():
    """D2L's ResNet-18 (section 8.6, the benchmarks' model) on Fashion-MNIST under bf16
    autocast, compiled, learns as the float32 run does (bounded: 2,048 images, 3 epochs;
    full-data runs: examples/python/d2l/resnet.py --amp bf16)."""
    import os
    import sys
    from pathlib import Path
    from tandem._data.common import load_mnist
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from workloads_torchlike import resnet18
    root = "/usr/share/datasets/fashion-mnist"
    if not os.path.isdir(root):
        pytest.skip(f"Fashion-MNIST is not installed at {root}")
    images, labels = load_mnist(root, "train")
    n, b = 2048, 64
    X = images[:n].float().reshape(n, 1, 28, 28) / 255.0
    Y = labels[:n]
    acc, dtypes = {}, {}
    for low in (False, True):
        tandem.manual_seed(0)
        net = resnet18(mint.nn)
        opt = mint.optim.Adam(net.parameters(), lr=1e-3)

        @tandem.jit
        def step(X, y):
            with mint.autocast("cpu", enabled=low):
                out = net(X)
                loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss, out
        for _ in range(3):  # accuracy of the last epoch's batches, as the book's loop shows
            correct = 0.0
            for i in range(0, n, b):
                _, out = step(X[i:i + b], Y[i:i + b])
                correct += float((out.argmax(dim=1) == Y[i:i + b]).float().sum().item())
        dtypes[low] = out.dtype
        acc[low] = correct / n
    # Held-out accuracy in eval mode after 96 steps moves by 4-8 points between seeds (the
    # running statistics are young); the last epoch's training accuracy stayed within 1.2
    # points of float32 for seeds 0-2.
    assert dtypes == {False: mint.float32, True: mint.bfloat16}
    assert acc[False] > 0.75, acc
    assert abs(acc[True] - acc[False]) < 0.02, acc
