"""The PyTorch names the D2L book's code uses, checked against torch 2.13 where torch runs
the same code: devices, keyword sizes, typed constructors, grad-mode decorators, generators,
print options, DLPack and numpy interop, Module internals and setitem broadcasting."""
import numpy as np
import pytest

import tandem
from tandem import mint
from tandem.mint import nn

torch = pytest.importorskip("torch")


# --- devices -----------------------------------------------------------------------------------
def test_cuda_queries_report_no_gpu():
    assert mint.cuda.is_available() is False and mint.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="no CUDA backend"):
        mint.cuda.current_device()
    mint.cuda.manual_seed(0)  # ignored without CUDA, as in PyTorch
    mint.cuda.manual_seed_all(0)


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:1"])
def test_device_parses_like_torch(spec):
    d, t = mint.device(spec), torch.device(spec)
    assert (d.type, d.index, str(d), repr(d)) == (t.type, t.index, str(t), repr(t))
    assert d == mint.device(spec) and hash(d) == hash(mint.device(spec))


def test_device_two_arguments_and_errors():
    assert str(mint.device("cuda", 0)) == str(torch.device("cuda", 0)) == "cuda:0"
    with pytest.raises(RuntimeError, match="device type"):
        mint.device("gpu")
    with pytest.raises(RuntimeError):
        torch.device("gpu")
    assert (mint.device("cpu") == "cpu") == (torch.device("cpu") == "cpu")


def test_tensor_device_to_cpu_and_cuda():
    x = mint.ones(2, 3)
    assert x.device == mint.device("cpu") and str(x.device) == "cpu"
    assert x.to("cpu") is x and x.to(mint.device("cpu")) is x and x.cpu() is x
    y = x.to(mint.device("cpu"), mint.float64)
    assert y.dtype == mint.float64
    for bad in (lambda: x.cuda(), lambda: x.to("cuda"), lambda: x.to(mint.device("cuda:0")),
                lambda: x.to(device="cuda")):
        with pytest.raises(RuntimeError, match="CPU"):
            bad()


@pytest.mark.parametrize("make", [
    lambda m, d: m.zeros(2, 3, device=d), lambda m, d: m.ones((2,), device=d),
    lambda m, d: m.rand(2, device=d), lambda m, d: m.randn(2, device=d),
    lambda m, d: m.arange(5, device=d), lambda m, d: m.tensor([1, 2], device=d),
    lambda m, d: m.normal(0, 1, (2,), device=d), lambda m, d: m.eye(2, device=d),
    lambda m, d: m.full((2,), 3.0, device=d), lambda m, d: m.linspace(0, 1, 3, device=d),
    lambda m, d: m.zeros_like(m.ones(2), device=d), lambda m, d: m.randint(0, 3, (2,), device=d),
])
def test_creation_ops_take_device(make):
    t = make(mint, "cpu")
    assert make(torch, "cpu").shape == tuple(t.shape)
    assert make(mint, mint.device("cpu")).device == mint.device("cpu")
    with pytest.raises(RuntimeError, match="not available"):
        make(mint, "cuda")


def test_module_to_device_and_cuda():
    net = nn.Linear(2, 2)
    assert net.to("cpu") is net and net.to(mint.device("cpu")) is net
    with pytest.raises(RuntimeError, match="CPU"):
        net.to("cuda:0")
    with pytest.raises(RuntimeError, match="no CUDA"):
        net.cuda()


# --- keyword sizes and typed constructors ------------------------------------------------------
@pytest.mark.parametrize("name", ["rand", "randn", "zeros", "ones", "empty"])
def test_size_keyword(name):
    a = getattr(mint, name)(size=(2, 3))
    assert tuple(a.shape) == tuple(getattr(torch, name)(size=(2, 3)).shape) == (2, 3)
    assert tuple(getattr(mint, name)(size=4).shape) == (4,)
    with pytest.raises(TypeError, match="both"):
        getattr(mint, name)(2, size=(3,))
    with pytest.raises(TypeError, match="unexpected keyword"):
        getattr(mint, name)(2, shape=(3,))


def test_normal_size_keyword_matches_torch_shape():
    assert tuple(mint.normal(0, 1, size=(3, 4)).shape) == tuple(torch.normal(0, 1, size=(3, 4)).shape)


@pytest.mark.parametrize("name,dt", [("FloatTensor", "float32"), ("LongTensor", "int64"),
                                     ("DoubleTensor", "float64"), ("IntTensor", "int32"),
                                     ("BoolTensor", "bool"), ("ByteTensor", "uint8")])
def test_typed_constructors(name, dt):
    ours, theirs = getattr(mint, name)([1, 0, 2]), getattr(torch, name)([1, 0, 2])
    assert ours.dtype == getattr(tandem, dt if dt != "bool" else "bool_")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert tuple(getattr(mint, name)(2, 3).shape) == tuple(getattr(torch, name)(2, 3).shape)
    assert isinstance(ours, getattr(mint, name))
    assert not isinstance(mint.zeros(1, dtype=mint.float16), getattr(mint, name))


# --- grad modes, seeds, threads ----------------------------------------------------------------
def test_no_grad_bare_decorator_and_inference_mode():
    w = mint.ones(2, requires_grad=True)

    @mint.no_grad
    def f(x):
        return x * 2

    @mint.no_grad()
    def g(x):
        return x * 2

    @mint.inference_mode
    def h(x):
        return x * 2

    assert not f(w).requires_grad and not g(w).requires_grad and not h(w).requires_grad
    with mint.inference_mode():
        assert not (w * 2).requires_grad
    with mint.inference_mode(False):
        assert (w * 2).requires_grad

    @torch.no_grad
    def tf(x):
        return x * 2
    assert not tf(torch.ones(2, requires_grad=True)).requires_grad

    @mint.enable_grad
    def e(x):
        return x * 2
    with mint.no_grad():
        assert e(w).requires_grad


def test_generator_has_its_own_sequence():
    g = mint.Generator().manual_seed(7)
    with g:
        a = mint.rand(4)
    mint.manual_seed(1)
    before = mint.rand(3)
    mint.manual_seed(1)
    with mint.Generator().manual_seed(7):
        b = mint.rand(4)
    after = mint.rand(3)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(before.numpy(), after.numpy())  # global sequence untouched
    state = g.get_state()
    with g:
        c = mint.rand(2)
    g.set_state(state)
    with g:
        d = mint.rand(2)
    np.testing.assert_array_equal(c.numpy(), d.numpy())
    assert g.initial_seed() == 7


def test_seed_and_threads():
    s = mint.seed()
    assert isinstance(s, int) and mint.initial_seed() == s
    n = mint.get_num_threads()
    mint.set_num_threads(1)
    assert mint.get_num_threads() == 1
    mint.set_num_threads(n)


def test_set_printoptions_changes_printing():
    x = mint.tensor([1.0 / 3, 2.0 / 3])
    default = repr(x)
    try:
        mint.set_printoptions(precision=2)
        short = repr(x)
        mint.set_printoptions(precision=6)
        long = repr(x)
        assert len(short) < len(long) and short != default  # default: MindSpore format
        assert "333333" in long and "3333" not in short
        mint.set_printoptions(threshold=5, edgeitems=1)
        assert "..." in repr(mint.arange(100))
        with pytest.raises(ValueError, match="profile"):
            mint.set_printoptions(profile="long")
        mint.set_printoptions(2)  # positional precision, as the book writes it
        assert repr(x) == short
    finally:
        mint.set_printoptions(profile="default")
    assert repr(x) == default and "..." not in repr(mint.arange(100))


# --- interop -----------------------------------------------------------------------------------
def test_np_array_copies_and_asarray_shares():
    t = mint.zeros(3)
    c = np.array(t)
    c[0] = 5
    assert float(t[0]) == 0.0
    s = np.asarray(t)
    s[1] = 7
    assert float(t[1]) == 7.0
    tt = torch.zeros(3)  # the same as torch
    cc = np.array(tt)
    cc[0] = 5
    assert float(tt[0]) == 0.0


def test_dlpack_tandem_to_torch_zero_copy():
    t = mint.arange(6, dtype=mint.float32).reshape(2, 3)
    u = torch.from_dlpack(t)
    assert u.shape == (2, 3) and u.dtype == torch.float32
    u[0, 0] = 42
    assert float(t[0, 0]) == 42.0
    t[1, 2] = -1
    assert float(u[1, 2]) == -1.0
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_torch_to_tandem_zero_copy():
    u = torch.arange(6, dtype=torch.int64).reshape(3, 2)
    t = mint.from_dlpack(u)
    assert tuple(t.shape) == (3, 2) and t.dtype == mint.int64
    t[0, 1] = 99
    assert int(u[0, 1]) == 99
    u[2, 0] = -5
    assert int(t[2, 0]) == -5
    a = np.arange(4.0)
    ta = mint.from_dlpack(a)
    a[0] = 3
    assert float(ta[0]) == 3.0


def test_dlpack_errors():
    with pytest.raises(RuntimeError, match="requires grad"):
        mint.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError, match="__dlpack__"):
        mint.from_dlpack([1, 2])


# --- Module internals and setitem --------------------------------------------------------------
def test_module_internals_are_ordered_dicts_like_torch():
    class MySequential(nn.Module):
        def __init__(self, *args):
            super().__init__()
            for i, m in enumerate(args):
                self._modules[str(i)] = m

        def forward(self, x):
            for m in self._modules.values():
                x = m(x)
            return x
    net = MySequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    assert list(net._modules) == ["0", "1", "2"]
    assert len(list(net.parameters())) == 4
    assert tuple(net(mint.ones(5, 4)).shape) == (5, 2)
    lin, tlin = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    assert list(lin._parameters) == list(tlin._parameters) == ["weight", "bias"]
    assert list(nn.BatchNorm1d(3)._buffers) == list(torch.nn.BatchNorm1d(3)._buffers)
    gru, tgru = nn.GRU(4, 5), torch.nn.GRU(4, 5)
    assert list(gru._parameters) == list(tgru._parameters)


def test_setitem_drops_leading_unit_dims_like_torch():
    for lib in (mint, torch):
        x = lib.zeros(3)
        x[1] = lib.ones(1, 1) * 2
        assert float(x[1]) == 2.0
        y = lib.zeros(2, 3)
        y[0] = lib.ones(1, 3)
        assert float(y.sum()) == 3.0
    with pytest.raises((ValueError, RuntimeError)):
        z = mint.zeros(3)
        z[0] = mint.ones(2)


# --- PyTorch .pt files -------------------------------------------------------------------------
def test_load_torch_state_dict_without_torch_code(tmp_path):
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    sd = net.state_dict()
    sd["extra.strided"] = torch.arange(12.0).reshape(3, 4).t()  # a non-contiguous view
    sd["extra.half"] = torch.tensor([1.5, -2.0], dtype=torch.float16)
    sd["extra.bf16"] = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    path = tmp_path / "w.pt"
    torch.save(sd, path)
    ours = mint.load(str(path))
    assert list(ours) == list(sd)
    for k, v in sd.items():
        got = ours[k]
        assert tuple(got.shape) == tuple(v.shape), k
        np.testing.assert_array_equal(got.float().numpy(), v.float().numpy(), err_msg=k)
    assert ours["1.num_batches_tracked"].dtype == mint.int64
    assert ours["extra.bf16"].dtype == mint.bfloat16
    tnet = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    tnet.load_state_dict({k: v for k, v in ours.items() if not k.startswith("extra")})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    net.eval(), tnet.eval()
    np.testing.assert_allclose(tnet(mint.tensor(x)).detach().numpy(),
                               net(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    with open(path, "rb") as f:  # a file object works too
        assert list(mint.load(f)) == list(sd)


def test_load_torch_file_refuses_code(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "x": Evil()}, path)
    with pytest.raises(Exception, match="not allowed"):
        mint.load(str(path))


def test_graph_mode_module_call_stays_differentiable():
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    X = mint.randn(5, 3)
    net(X).sum().backward()
    eager = [p.grad.numpy().copy() for p in net.parameters()]
    net.zero_grad()
    tandem.set_context(mode=tandem.GRAPH_MODE)
    try:
        net(X).sum().backward()  # the book's loop: loss.backward() after net(X)
        np.testing.assert_allclose([p.grad.numpy() for p in net.parameters()][0], eager[0],
                                   rtol=1e-6)
        with mint.no_grad():
            y = net(X)  # evaluation compiles
        assert "_graph_fn" in net.__dict__ and not y.requires_grad
    finally:
        tandem.set_context(mode=tandem.PYNATIVE_MODE)


def test_graph_mode_untraceable_forward_runs_eagerly():
    class Masked(nn.Module):
        def forward(self, X, n):
            X = X.clone()
            X[mint.arange(X.shape[1])[None, :] >= n[:, None]] = -1.0  # reads values
            return X
    m = Masked()
    X, n = mint.ones(2, 3), mint.tensor([1, 2])
    want = m(X, n).numpy()
    tandem.set_context(mode=tandem.GRAPH_MODE)
    try:
        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            got = m(X, n)
        np.testing.assert_array_equal(got.numpy(), want)
        np.testing.assert_array_equal(m(X, n).numpy(), want)  # stays eager, no new warning
    finally:
        tandem.set_context(mode=tandem.PYNATIVE_MODE)
