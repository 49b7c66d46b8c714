"""The fused recurrent layers (rnn_layer op) against PyTorch's nn.RNN / LSTM / GRU and their
cells, with copied weights: outputs, final states and every gradient (input, initial state,
parameters), across layers, directions, batch_first, bias, unbatched input, both faces, jit,
autocast, and the errors of bad calls. Finite-difference checks of the op itself are in
gradcases_nn.py (run by test_gradcheck.py and test_jit_parity.py)."""
import numpy as np
import pytest

import tandem
from tandem import _C, mint
from tandem import nn as msnn

torch = pytest.importorskip("torch")

nn = mint.nn

CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False),
    dict(num_layers=3, bias=False, bidirectional=True),
]
KINDS = ["RNN", "RNN_relu", "LSTM", "GRU"]


def _make(kind, lib, I, H, cfg):
    if kind == "RNN_relu":
        return lib.nn.RNN(I, H, nonlinearity="relu", **cfg)
    return getattr(lib.nn, kind)(I, H, **cfg)


def _copy_weights(src, dst):
    """torch module -> tandem module, parameter by parameter (same names)."""
    tp = dict(src.named_parameters())
    names = [n for n, _ in dst.named_parameters()]
    assert sorted(names) == sorted(tp), (names, list(tp))
    for n, p in dst.named_parameters():
        with tandem.no_grad():
            p.copy_(mint.tensor(tp[n].detach().numpy()))


def _t(x):
    return mint.tensor(x.detach().numpy()).requires_grad_(x.requires_grad)


def _close(a, b, tol):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ci", range(len(CONFIGS)))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_layer_matches_torch(kind, ci, dtype):
    cfg = CONFIGS[ci]
    torch.manual_seed(ci)
    L, N, I, H = 5, 3, 4, 6
    tm = _make(kind, torch, I, H, cfg).to(getattr(torch, dtype))
    m = _make(kind, mint, I, H, cfg).to(getattr(mint, dtype))
    _copy_weights(tm, m)
    lstm = kind == "LSTM"
    dirs = 2 if cfg.get("bidirectional") else 1
    layers = cfg.get("num_layers", 1)
    shape = (N, L, I) if cfg.get("batch_first") else (L, N, I)
    tx = torch.randn(*shape, dtype=getattr(torch, dtype), requires_grad=True)
    th0 = torch.randn(layers * dirs, N, H, dtype=tx.dtype, requires_grad=True)
    tc0 = torch.randn(layers * dirs, N, H, dtype=tx.dtype, requires_grad=True)
    thx = (th0, tc0) if lstm else th0
    x, h0, c0 = _t(tx), _t(th0), _t(tc0)
    hx = (h0, c0) if lstm else h0
    tout, tstate = tm(tx, thx)
    out, state = m(x, hx)
    tol = 1e-10 if dtype == "float64" else 2e-5
    _close(out, tout, tol)
    ts = tstate if lstm else (tstate,)
    ss = state if lstm else (state,)
    for a, b in zip(ss, ts):
        _close(a, b, tol)
    # A loss that reaches every output: the sequence, h_n and (LSTM) c_n.
    weights = [torch.randn_like(t) for t in (tout,) + tuple(ts)]
    sum(((t * w).sum() for t, w in zip((tout,) + tuple(ts), weights))).backward()
    sum(((t * _t(w)).sum() for t, w in zip((out,) + tuple(ss), weights))).backward()
    gtol = 1e-9 if dtype == "float64" else 1e-4
    for a, b in [(x, tx), (h0, th0)] + ([(c0, tc0)] if lstm else []):
        _close(a.grad, b.grad, gtol)
    tgrads = {n: p.grad for n, p in tm.named_parameters()}
    for n, p in m.named_parameters():
        _close(p.grad, tgrads[n], gtol)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_default_state_and_unbatched(kind):
    torch.manual_seed(1)
    tm = getattr(torch.nn, kind)(3, 4, num_layers=2).double()
    m = getattr(nn, kind)(3, 4, num_layers=2).double()
    _copy_weights(tm, m)
    tx = torch.randn(6, 3, dtype=torch.float64)  # unbatched (L, H_in)
    tout, tstate = tm(tx)
    out, state = m(_t(tx))
    _close(out, tout, 1e-10)
    assert tuple(out.shape) == (6, 4)
    ts = tstate if kind == "LSTM" else (tstate,)
    ss = state if kind == "LSTM" else (state,)
    for a, b in zip(ss, ts):
        assert tuple(a.shape) == (2, 4)
        _close(a, b, 1e-10)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(kind, bias):
    torch.manual_seed(2)
    tc = getattr(torch.nn, kind)(3, 5, bias=bias).double()
    c = getattr(nn, kind)(3, 5, bias=bias).double()
    _copy_weights(tc, c)
    tx = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    th = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    tcc = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    x, h, cc = _t(tx), _t(th), _t(tcc)
    lstm = kind == "LSTMCell"
    # Two steps, so the second differentiates through the first's state.
    ts, s = ((th, tcc), (h, cc)) if lstm else (th, h)
    for _ in range(2):
        ts, s = tc(tx, ts), c(x, s)
    touts = ts if lstm else (ts,)
    outs = s if lstm else (s,)
    for a, b in zip(outs, touts):
        _close(a, b, 1e-10)
    sum(t.sum() * (k + 1) for k, t in enumerate(touts)).backward()
    sum(t.sum() * (k + 1) for k, t in enumerate(outs)).backward()
    for a, b in [(x, tx), (h, th)] + ([(cc, tcc)] if lstm else []):
        _close(a.grad, b.grad, 1e-9)
    tg = {n: p.grad for n, p in tc.named_parameters()}
    for n, p in c.named_parameters():
        _close(p.grad, tg[n], 1e-9)
    # Unbatched and default state.
    _close(c(_t(tx[0]))[0] if lstm else c(_t(tx[0])), tc(tx[0])[0] if lstm else tc(tx[0]), 1e-10)


def test_mindspore_face_uses_the_fused_layer():
    torch.manual_seed(3)
    tm = torch.nn.LSTM(3, 4, batch_first=True, bias=False).double()
    m = msnn.LSTM(3, 4, has_bias=False, batch_first=True).to(mint.float64)
    _copy_weights(tm, m)
    tx = torch.randn(2, 5, 3, dtype=torch.float64)
    tout, (th, tc) = tm(tx)
    out, (h, c) = m(_t(tx))
    _close(out, tout, 1e-10)
    _close(h, th, 1e-10)
    _close(c, tc, 1e-10)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_jit_train_step_matches_eager(kind):
    """A whole train step (forward, backward, SGD) compiled by jit gives the parameters eager
    mode gives."""
    def build():
        tandem.manual_seed(7)
        m = getattr(nn, kind)(3, 8, num_layers=2, bidirectional=True)
        head = nn.Linear(16, 3)
        opt = mint.optim.SGD(list(m.parameters()) + list(head.parameters()), lr=0.5)
        return m, head, opt
    x = mint.randn(6, 4, 3)
    y = mint.randint(0, 3, (24,))

    def make_step(m, head, opt):
        def step(x, y):
            out, _ = m(x)
            loss = nn.functional.cross_entropy(head(out.reshape(-1, 16)), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss
        return step
    eager = build()
    graph = build()
    step_e = make_step(*eager)
    step_g = tandem.jit(make_step(*graph))
    for _ in range(3):
        le, lg = step_e(x, y), step_g(x, y)
        np.testing.assert_allclose(float(le), float(lg), rtol=1e-5)
    for (n, a), (_, b) in zip(eager[0].named_parameters(), graph[0].named_parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=n)


def test_double_backward_raises():
    m = nn.LSTM(2, 3)
    x = mint.randn(4, 1, 2, requires_grad=True)
    out, _ = m(x)
    (g,) = tandem.autograd.grad(out.sum(), [x], create_graph=True)
    with pytest.raises(NotImplementedError, match="rnn_layer_backward: double backward"):
        g.sum().backward()


def test_autocast_dtypes_follow_torch():
    """PyTorch's CPU autocast runs LSTM and RNN layers and RNNCell in bfloat16, GRU layers,
    GRUCell and LSTMCell in float32; the bf16 LSTM stays within bf16 rounding of float32."""
    x = mint.randn(5, 2, 4)
    for kind in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"):
        m, tm = getattr(nn, kind)(4, 6), getattr(torch.nn, kind)(4, 6)
        _copy_weights(tm, m)
        inp = x if "Cell" not in kind else x[0]
        with mint.autocast("cpu", dtype=mint.bfloat16):
            r = m(inp)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            tr = tm(torch.tensor(inp.numpy()))
        first = r[0] if isinstance(r, tuple) else r
        tfirst = tr[0] if isinstance(tr, tuple) else tr
        assert str(first.dtype).split(".")[-1].lower() == str(tfirst.dtype).split(".")[-1], kind
        if kind == "LSTM":
            ref = m(inp)[0]
            np.testing.assert_allclose(first.float().detach().numpy(), ref.detach().numpy(),
                                       atol=3e-2)


def test_bad_calls_raise():
    xw = mint.randn(3, 2, 8)
    h0 = mint.zeros(2, 2)
    w = mint.randn(8, 2)
    with pytest.raises(ValueError, match="rnn_layer: mode must be"):
        _C.rnn_layer("LSTMX", xw, h0, h0, w, None, False)
    with pytest.raises(ValueError, match="c0 is required for LSTM"):
        _C.rnn_layer("LSTM", xw, h0, None, w, None, False)
    with pytest.raises(ValueError, match="expected weight_hh of shape"):
        _C.rnn_layer("LSTM", xw, h0, h0, mint.randn(8, 3), None, False)
    with pytest.raises(ValueError, match="expected h0"):
        _C.rnn_layer("GRU", mint.randn(3, 2, 6), mint.zeros(2), None, mint.randn(6, 2), None,
                     False)
    with pytest.raises(ValueError, match="sequence length > 0"):
        _C.rnn_layer("RNN_TANH", mint.randn(0, 2, 2), h0, None, mint.randn(2, 2), None, False)
    with pytest.raises(TypeError, match="cast them to one dtype"):
        _C.rnn_layer("RNN_TANH", mint.randn(3, 2, 2), h0.double(), None, mint.randn(2, 2), None,
                     False)
    with pytest.raises(TypeError, match="floating-point"):
        _C.rnn_layer("RNN_TANH", mint.ones(3, 2, 2, dtype=mint.int64), h0, None,
                     mint.randn(2, 2), None, False)
    m = nn.LSTM(4, 3)
    with pytest.raises(ValueError, match="expected input_size=4"):
        m(mint.randn(5, 2, 3))
    with pytest.raises(ValueError, match="expected hidden state of shape"):
        m(mint.randn(5, 2, 4), (mint.zeros(1, 3, 3), mint.zeros(1, 3, 3)))


def test_large_batch_and_hidden_use_the_threaded_gates():
    """Sizes past the parallel grain (and hidden sizes not a multiple of the vector width)
    give the same answer as the reference."""
    torch.manual_seed(4)
    for H in (37, 130):
        tm, m = torch.nn.LSTM(5, H), nn.LSTM(5, H)
        _copy_weights(tm, m)
        tx = torch.randn(4, 70, 5, requires_grad=True)
        x = _t(tx)
        tout, _ = tm(tx)
        out, _ = m(x)
        _close(out, tout, 2e-5)
        tout.sum().backward()
        out.sum().backward()
        _close(x.grad, tx.grad, 1e-4)
        _close(m.weight_hh_l0.grad, tm.weight_hh_l0.grad, 5e-4)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_exported_model_runs_in_the_runtime(kind, tmp_path):
    """The fused layer is in the model op-set: a recurrent model exports, and the C++ runtime
    (no Python in the loop) computes what eager mode does. (Fixed batch: the zero initial
    state is a constant of the batch size.)"""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(nn, kind)(4, 5, num_layers=2, bidirectional=True,
                                         batch_first=True)
            self.head = nn.Linear(10, 3)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.head(y)
    net = Net()
    net.eval()
    x = mint.randn(2, 6, 4)
    path = tandem.export(net, x, file_name=str(tmp_path / kind))
    cell = msnn.GraphCell(tandem.load(path))
    xb = mint.randn(2, 6, 4)
    with tandem.no_grad():
        want = net(xb)
    np.testing.assert_allclose(cell(xb).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
