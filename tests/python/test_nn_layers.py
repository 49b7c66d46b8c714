"""Layers of tandem.mint.nn (PyTorch names) and tandem.nn (MindSpore names) against numpy
formulas, plus Module behaviour, lazy modules, containers, RNN gradients and tiny training
runs."""
import math
from collections import OrderedDict

import numpy as np
import pytest

import tandem
from tandem import mint, nn as msnn
from tandem.mint import nn
from tandem.mint.nn import functional as F

from gradcheck_util import gradcheck


def T(a, dtype=None):
    t = tandem.tensor(np.asarray(a))
    return t if dtype is None else t.to(dtype)


def N(t):
    return t.detach().numpy()


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(N(a) if isinstance(a, tandem.Tensor) else a,
                               N(b) if isinstance(b, tandem.Tensor) else b, rtol=tol, atol=tol)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# --- numpy references ----------------------------------------------------------------------------

def np_conv2d(x, w, b, stride=(1, 1), pad=((0, 0), (0, 0)), dil=(1, 1), groups=1):
    x = np.pad(x, ((0, 0), (0, 0)) + tuple(pad))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0],
                           j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("nchw,ochw->no", patch,
                                                              w[g * og:(g + 1) * og])
    return out + (0 if b is None else b[None, :, None, None])


def np_pool(x, k, s, fn, pad_value=None, pad=((0, 0), (0, 0))):
    if pad_value is not None:
        x = np.pad(x, ((0, 0), (0, 0)) + tuple(pad), constant_values=pad_value)
    n, c, h, w = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = fn(x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]], axis=(2, 3))
    return out


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# --- linear, conv, pooling ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_numpy(shape, bias):
    m = nn.Linear(3, 4, bias=bias)
    x = rnd(*shape)
    w = N(m.weight)
    want = x @ w.T + (N(m.bias) if bias else 0)
    y = m(T(x))
    assert y.shape == shape[:-1] + (4,)
    close(y, want)
    assert [n for n, _ in m.named_parameters()] == (["weight", "bias"] if bias else ["weight"])
    assert np.abs(w).max() <= 1 / math.sqrt(3) + 1e-6  # kaiming_uniform(a=sqrt(5))
    assert np.abs(w).max() > 0.2
    if bias:
        assert np.abs(N(m.bias)).max() <= 1 / math.sqrt(3) + 1e-6


def test_dense_mindspore_defaults_and_activation():
    d = msnn.Dense(6, 2, activation="relu")
    x = rnd(4, 6)
    close(d(T(x)), np.maximum(x @ N(d.weight).T + N(d.bias), 0))
    assert np.abs(N(d.weight)).max() <= 1 / math.sqrt(6) + 1e-6
    d2 = msnn.Dense(3, 2, weight_init="ones", bias_init="zeros", has_bias=True)
    close(d2(T(np.ones((1, 3), np.float32))), np.full((1, 2), 3.0))
    d3 = msnn.Dense(3, 2, weight_init=T(np.arange(6, dtype=np.float32).reshape(2, 3)), has_bias=False)
    assert d3.bias is None and len(list(d3.parameters())) == 1
    close(d3(T(np.ones((1, 3), np.float32))), [[3.0, 12.0]])
    assert "input_channels=3, output_channels=2" in repr(d3)


@pytest.mark.parametrize("cfg", [
    dict(stride=1, padding=0, dilation=1, groups=1),
    dict(stride=2, padding=1, dilation=1, groups=1),
    dict(stride=1, padding=2, dilation=2, groups=2),
    dict(stride=(2, 1), padding=(1, 0), dilation=1, groups=1),
])
def test_conv2d_matches_numpy(cfg):
    m = nn.Conv2d(4, 6, 3, **cfg)
    x = rnd(2, 4, 7, 6)
    s, p, d = (tuple(v) if isinstance(v, tuple) else (v, v) for v in (cfg["stride"], cfg["padding"], cfg["dilation"]))
    want = np_conv2d(x, N(m.weight), N(m.bias), s, ((p[0], p[0]), (p[1], p[1])), d, cfg["groups"])
    close(m(T(x)), want, 1e-4)
    assert tuple(m.weight.shape) == (6, 4 // cfg["groups"], 3, 3)


def test_conv2d_same_padding_modes_and_unbatched():
    x = rnd(1, 2, 5, 5)
    for mode, np_mode in [("zeros", "constant"), ("reflect", "reflect"), ("replicate", "edge"),
                          ("circular", "wrap")]:
        m = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=np_mode)
        close(m(T(x)), np_conv2d(xp, N(m.weight), N(m.bias)), 1e-4)
    m = nn.Conv2d(2, 3, (3, 4), padding="same", bias=False)
    y = m(T(x))
    assert y.shape == (1, 3, 5, 5)
    close(y, np_conv2d(x, N(m.weight), None, pad=((1, 1), (1, 2))), 1e-4)
    assert m(T(x[0])).shape == (3, 5, 5)
    assert "bias=False" in repr(m) and "padding='same'" in repr(m)


def test_conv1d_and_transpose():
    m = nn.Conv1d(3, 5, 3, stride=2, padding=1)
    x = rnd(2, 3, 9)
    want = np_conv2d(x[:, :, None], N(m.weight)[:, :, None], N(m.bias), (1, 2), ((0, 0), (1, 1)))[:, :, 0]
    close(m(T(x)), want, 1e-4)
    ct = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    xi = rnd(1, 3, 4, 4)
    y = ct(T(xi))
    assert y.shape == (1, 2, 7, 7) and tuple(ct.weight.shape) == (3, 2, 3, 3)
    close(y, F.conv_transpose2d(T(xi), ct.weight, ct.bias, 2, 1))
    assert ct(T(xi), output_size=(8, 8)).shape == (1, 2, 8, 8)
    # transposed conv is the adjoint of conv: <conv_t(x), y> = <x, conv(y)>
    yy = rnd(1, 2, 7, 7)
    lhs = (N(F.conv_transpose2d(T(xi), ct.weight, None, 2, 1)) * yy).sum()
    rhs = (xi * N(F.conv2d(T(yy), ct.weight, None, 2, 1))).sum()
    assert abs(lhs - rhs) < 1e-3 * max(1.0, abs(lhs))
    with pytest.raises(ValueError):
        nn.Conv2d(3, 4, 3, groups=2)


def test_mindspore_conv2d_pad_modes():
    x = rnd(2, 3, 7, 8)
    c = msnn.Conv2d(3, 4, 3, stride=2)  # pad_mode='same', has_bias=False
    assert c.bias is None
    y = c(T(x))
    assert y.shape == (2, 4, 4, 4)
    # 'same': total pad (out-1)*s + k - in -> H: 3*2+3-7=2 -> (1,1); W: 3*2+3-8=1 -> (0,1)
    close(y, np_conv2d(x, N(c.weight), None, (2, 2), ((1, 1), (0, 1))), 1e-4)
    v = msnn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=True)
    close(v(T(x)), np_conv2d(x, N(v.weight), N(v.bias)), 1e-4)
    p = msnn.Conv2d(3, 4, 3, pad_mode="pad", padding=(1, 0, 2, 1))
    close(p(T(x)), np_conv2d(x, N(p.weight), None, pad=((1, 0), (2, 1))), 1e-4)
    with pytest.raises(ValueError):
        msnn.Conv2d(3, 4, 3, pad_mode="same", padding=1)
    c1 = msnn.Conv1d(3, 2, 3)
    assert c1(T(rnd(1, 3, 10))).shape == (1, 2, 10)


def test_pooling_modules():
    x = rnd(2, 3, 6, 7)
    close(nn.MaxPool2d(2)(T(x)), np_pool(x, (2, 2), (2, 2), np.max))
    close(nn.MaxPool2d(3, stride=2, padding=1)(T(x)),
          np_pool(x, (3, 3), (2, 2), np.max, -np.inf, ((1, 1), (1, 1))))
    close(nn.AvgPool2d(2, stride=1)(T(x)), np_pool(x, (2, 2), (1, 1), np.mean))
    y, idx = nn.MaxPool2d(2, return_indices=True)(T(x))
    assert idx.dtype == tandem.int64 and y.shape == idx.shape
    close(nn.AdaptiveAvgPool2d(1)(T(x)), x.mean(axis=(2, 3), keepdims=True))
    close(nn.AdaptiveAvgPool2d((3, None))(T(x)), x.reshape(2, 3, 3, 2, 7).mean(3))
    close(nn.AdaptiveMaxPool2d((1, 1))(T(x)), x.max(axis=(2, 3), keepdims=True))
    x1 = rnd(2, 3, 8)
    close(nn.MaxPool1d(2)(T(x1)), x1.reshape(2, 3, 4, 2).max(-1))
    close(nn.AvgPool1d(4)(T(x1)), x1.reshape(2, 3, 2, 4).mean(-1))
    close(nn.AdaptiveAvgPool1d(2)(T(x1)), x1.reshape(2, 3, 2, 4).mean(-1))
    assert "kernel_size=2" in repr(nn.MaxPool2d(2))


def test_mindspore_pooling_pad_modes():
    x = rnd(1, 2, 5, 5)
    close(msnn.MaxPool2d(2, 2)(T(x)), np_pool(x, (2, 2), (2, 2), np.max))  # valid
    # same: out = ceil(5/2) = 3, total pad 1 -> (0, 1) on each spatial dim
    same = msnn.MaxPool2d(kernel_size=2, stride=2, pad_mode="same")(T(x))
    close(same, np_pool(x, (2, 2), (2, 2), np.max, -np.inf, ((0, 1), (0, 1))))
    avg = msnn.AvgPool2d(kernel_size=2, stride=2, pad_mode="same")(T(x))
    s = np_pool(x, (2, 2), (2, 2), np.sum, 0.0, ((0, 1), (0, 1)))
    cnt = np_pool(np.ones_like(x), (2, 2), (2, 2), np.sum, 0.0, ((0, 1), (0, 1)))
    close(avg, s / cnt)
    close(msnn.AvgPool2d(3, 1, pad_mode="pad", padding=1)(T(x)),
          np_pool(x, (3, 3), (1, 1), np.sum, 0.0, ((1, 1), (1, 1))) / 9)
    x1 = rnd(1, 2, 7)
    assert msnn.MaxPool1d(2, 2, pad_mode="same")(T(x1)).shape == (1, 2, 4)
    assert msnn.AvgPool1d(3, 1)(T(x1)).shape == (1, 2, 5)


# --- normalization, dropout, activations, embedding ----------------------------------------------

def test_batchnorm_training_eval_and_running_stats():
    m = nn.BatchNorm2d(3, momentum=0.2)
    assert [n for n, _ in m.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    x = rnd(4, 3, 2, 2) * 2 + 1
    with tandem.no_grad():
        m.weight.copy_(T([1.0, 2.0, 0.5]))
        m.bias.copy_(T([0.0, 1.0, -1.0]))
    y = m(T(x))
    mu, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    want = (x - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    want = want * np.array([1, 2, 0.5])[None, :, None, None] + np.array([0, 1, -1])[None, :, None, None]
    close(y, want, 1e-4)
    n = x.size / 3
    close(m.running_mean, 0.2 * mu, 1e-5)
    close(m.running_var, 0.8 + 0.2 * var * n / (n - 1), 1e-5)
    assert int(m.num_batches_tracked.item()) == 1
    m.eval()
    y2 = m(T(x))
    rm, rv = N(m.running_mean), N(m.running_var)
    close(y2, (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5)
          * np.array([1, 2, 0.5])[None, :, None, None] + np.array([0, 1, -1])[None, :, None, None], 1e-4)
    assert int(m.num_batches_tracked.item()) == 1
    with pytest.raises(ValueError):
        m(T(rnd(4, 3)))


def test_batchnorm_cumulative_average_and_no_tracking():
    m = nn.BatchNorm1d(2, momentum=None, affine=False)
    xs = [rnd(5, 2, seed=s) for s in range(3)]
    for x in xs:
        m(T(x))
    close(m.running_mean, np.mean([x.mean(0) for x in xs], 0), 1e-5)
    assert list(m.parameters()) == []
    m2 = nn.BatchNorm1d(2, track_running_stats=False)
    m2.eval()
    x = rnd(6, 2, 3)
    close(m2(T(x)), (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5), 1e-4)
    assert m2.running_mean is None and "running_mean" not in m2.state_dict()


def test_mindspore_batchnorm():
    bn = msnn.BatchNorm2d(2)
    names = [n for n, _ in bn.parameters_and_names()]
    assert names == ["moving_mean", "moving_variance", "gamma", "beta"]
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    x = rnd(3, 2, 2, 2)
    bn.set_train(True)
    bn(T(x))
    close(bn.moving_mean, 0.1 * x.mean((0, 2, 3)), 1e-5)  # momentum 0.9 keeps 90% of the old
    bn.set_train(False)
    mm, mv = N(bn.moving_mean), N(bn.moving_variance)
    close(bn(T(x)), (x - mm[None, :, None, None]) / np.sqrt(mv[None, :, None, None] + 1e-5), 1e-4)
    assert msnn.BatchNorm1d(4)(T(rnd(3, 4))).shape == (3, 4)


def test_layernorm_groupnorm_instancenorm():
    x = rnd(2, 4, 3, 5)
    ln = nn.LayerNorm([3, 5])
    assert tuple(ln.weight.shape) == (3, 5)
    mu, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    close(ln(T(x)), (x - mu) / np.sqrt(var + 1e-5), 1e-4)
    ln2 = nn.LayerNorm(5, elementwise_affine=False, eps=1e-3)
    assert list(ln2.parameters()) == []
    close(ln2(T(x)), (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3), 1e-4)
    gn = nn.GroupNorm(2, 4)
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    close(gn(T(x)), want, 1e-4)
    inorm = nn.InstanceNorm2d(4)
    close(inorm(T(x)), (x - x.mean((2, 3), keepdims=True)) / np.sqrt(x.var((2, 3), keepdims=True) + 1e-5), 1e-4)
    with pytest.raises(ValueError):
        nn.GroupNorm(3, 4)
    msln = msnn.LayerNorm((5,), epsilon=1e-7)
    with tandem.no_grad():
        msln.gamma.fill_(2.0)
    close(msln(T(x)), 2 * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7), 1e-4)
    msgn = msnn.GroupNorm(2, 4)
    assert [n for n, _ in msgn.parameters_and_names()] == ["gamma", "beta"]
    close(msgn(T(x)), want, 1e-4)


def test_dropout_modules():
    x = mint.ones(200, 50)
    d = nn.Dropout(0.3)
    y = N(d(x))
    frac = (y == 0).mean()
    assert 0.25 < frac < 0.35 and np.allclose(y[y != 0], 1 / 0.7)
    d.eval()
    close(d(x), N(x))
    d2 = nn.Dropout2d(0.5)
    y2 = N(d2(mint.ones(8, 16, 3, 3)))
    per_ch = y2.reshape(8, 16, 9)
    assert np.all((per_ch == 0).all(-1) | (per_ch == 2).all(-1))
    ms = msnn.Dropout(keep_prob=0.8)
    assert abs(ms.p - 0.2) < 1e-9
    ys = N(ms(x))
    assert 0.15 < (ys == 0).mean() < 0.25
    assert abs(msnn.Dropout(p=0.1).p - 0.1) < 1e-9
    ms.set_train(False)
    close(ms(x), N(x))
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


ACTS = [
    (lambda: nn.ReLU(), lambda x: np.maximum(x, 0)),
    (lambda: nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (lambda: nn.LeakyReLU(0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (lambda: nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (lambda: nn.SELU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (lambda: nn.CELU(2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1))),
    (lambda: nn.GELU(), lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    (lambda: nn.GELU(approximate="tanh"),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (lambda: nn.SiLU(), lambda x: x * sigmoid(x)),
    (lambda: nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (lambda: nn.Softplus(beta=2.0), lambda x: np.log1p(np.exp(2 * x)) / 2),
    (lambda: nn.Hardtanh(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    (lambda: nn.Hardsigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (lambda: nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (lambda: nn.Sigmoid(), sigmoid),
    (lambda: nn.Tanh(), np.tanh),
    (lambda: nn.LogSigmoid(), lambda x: np.log(sigmoid(x))),
    (lambda: nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (lambda: nn.LogSoftmax(dim=-1), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
    (lambda: nn.Softmin(dim=1), lambda x: np.exp(-x) / np.exp(-x).sum(1, keepdims=True)),
    (lambda: nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (lambda: nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (lambda: nn.Threshold(0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0)),
    (lambda: nn.PReLU(), lambda x: np.where(x > 0, x, 0.25 * x)),
    (lambda: nn.GLU(dim=1), lambda x: x[:, :2] * sigmoid(x[:, 2:])),
    (lambda: msnn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (lambda: msnn.LeakyReLU(), lambda x: np.where(x > 0, x, 0.2 * x)),
    (lambda: msnn.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (lambda: msnn.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
]


@pytest.mark.parametrize("k", range(len(ACTS)))
def test_activation_modules(k):
    make, ref = ACTS[k]
    x = rnd(3, 4, 2) * 3
    close(make()(T(x)), ref(x.astype(np.float64)), 1e-4)


def test_activation_inplace_and_prelu_channels():
    x = T(rnd(4, 3))
    ref = np.maximum(N(x), 0)
    y = nn.ReLU(inplace=True)(x)
    close(x, ref)
    close(y, ref)
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    p = nn.PReLU(3, init=0.5)
    xx = rnd(2, 3, 4)
    close(p(T(xx)), np.where(xx > 0, xx, 0.5 * xx))
    assert tuple(p.weight.shape) == (3,)
    assert isinstance(msnn.get_activation("relu"), nn.ReLU)


def test_embedding_modules():
    e = nn.Embedding(10, 4, padding_idx=2)
    w = N(e.weight)
    assert np.all(w[2] == 0) and 0.5 < w.std() < 1.6  # N(0, 1) init
    idx = T(np.array([[1, 2], [9, 2]]))
    y = e(idx)
    close(y, w[[[1, 2], [9, 2]]])
    y.sum().backward()
    g = N(e.weight.grad)
    assert np.all(g[2] == 0) and np.all(g[1] == 1) and np.all(g[9] == 1) and np.all(g[0] == 0)
    pre = nn.Embedding.from_pretrained(T(np.eye(3, dtype=np.float32)))
    assert not pre.weight.requires_grad
    close(pre(T(np.array([2, 0]))), np.eye(3)[[2, 0]])
    assert repr(e) == "Embedding(10, 4, padding_idx=2)"
    ms = msnn.Embedding(6, 3, padding_idx=0)
    assert [n for n, _ in ms.parameters_and_names()] == ["embedding_table"]
    t = N(ms.embedding_table)
    assert np.all(t[0] == 0) and t[1:].std() < 0.05  # Normal(0.01)
    ids = T(np.array([1, 5], dtype=np.int32))
    close(ms(ids), t[[1, 5]])
    close(msnn.Embedding(6, 3, use_one_hot=True, embedding_table="ones")(ids), np.ones((2, 3)))


# --- recurrent layers and attention -----------------------------------------------------------------

def np_rnn(m, x, h0=None, c0=None):
    """Reference forward of an RNN/LSTM/GRU module m on time-major x (L, N, I)."""
    p = {k: N(v).astype(np.float64) for k, v in m.named_parameters()}
    dirs = 2 if m.bidirectional else 1
    H, L, Nb = m.hidden_size, x.shape[0], x.shape[1]
    h0 = np.zeros((m.num_layers * dirs, Nb, H)) if h0 is None else h0
    c0 = np.zeros_like(h0) if c0 is None else c0
    inp, hn, cn = x.astype(np.float64), [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            wi, wh = p["weight_ih" + sfx], p["weight_hh" + sfx]
            bi, bh = p.get("bias_ih" + sfx, 0), p.get("bias_hh" + sfx, 0)
            h, c = h0[layer * dirs + d], c0[layer * dirs + d]
            seq = [None] * L
            for t in (range(L - 1, -1, -1) if d else range(L)):
                gi, gh = inp[t] @ wi.T + bi, h @ wh.T + bh
                if isinstance(m, nn.LSTM):
                    i, f, g, o = np.split(gi + gh, 4, -1)
                    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
                    h = sigmoid(o) * np.tanh(c)
                elif isinstance(m, nn.GRU):
                    r = sigmoid(gi[:, :H] + gh[:, :H])
                    z = sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
                    n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
                    h = (1 - z) * n + z * h
                else:
                    h = np.tanh(gi + gh) if m.nonlinearity == "tanh" else np.maximum(gi + gh, 0)
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), np.stack(cn)


RNN_CFGS = [dict(), dict(num_layers=2, bidirectional=True), dict(batch_first=True, bias=False)]


@pytest.mark.parametrize("cls,cfg", [(c, k) for c in ("RNN", "LSTM", "GRU") for k in RNN_CFGS]
                         + [("RNN", dict(nonlinearity="relu", num_layers=2))])
def test_recurrent_matches_numpy(cls, cfg):
    m = getattr(nn, cls)(3, 4, **cfg)
    x = rnd(5, 2, 3)
    xin = np.swapaxes(x, 0, 1) if cfg.get("batch_first") else x
    out, h = m(T(xin))
    want_out, want_h, want_c = np_rnn(m, x)
    if cfg.get("batch_first"):
        want_out = np.swapaxes(want_out, 0, 1)
    if cls == "LSTM":
        h, c = h
        close(c, want_c, 1e-4)
    dirs = 2 if cfg.get("bidirectional") else 1
    assert out.shape == want_out.shape == ((2, 5) if cfg.get("batch_first") else (5, 2)) + (4 * dirs,)
    close(out, want_out, 1e-4)
    close(h, want_h, 1e-4)
    k = 1 / math.sqrt(4)
    assert all(np.abs(N(p)).max() <= k + 1e-6 for p in m.parameters())


def test_recurrent_initial_state_unbatched_and_names():
    m = nn.LSTM(2, 3, num_layers=2)
    assert [n for n, _ in m.named_parameters()][:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert tuple(m.weight_ih_l1.shape) == (12, 3)
    x, h0, c0 = rnd(4, 1, 2), rnd(2, 1, 3, seed=1), rnd(2, 1, 3, seed=2)
    out, (h, c) = m(T(x), (T(h0), T(c0)))
    wo, wh, wc = np_rnn(m, x, h0, c0)
    close(out, wo, 1e-4)
    close(c, wc, 1e-4)
    o2, (h2, c2) = m(T(x[:, 0]), (T(h0[:, 0]), T(c0[:, 0])))
    assert o2.shape == (4, 3) and h2.shape == (2, 3)
    close(o2, wo[:, 0], 1e-4)
    g = nn.GRU(2, 3)
    with pytest.raises(ValueError):
        g(T(rnd(4, 1, 2)), T(rnd(2, 1, 3)))
    assert repr(nn.GRU(2, 3, num_layers=2, bidirectional=True)) == "GRU(2, 3, num_layers=2, bidirectional=True)"
    ms = msnn.LSTM(2, 3, has_bias=False, batch_first=True)
    assert ms.bias is False and ms(T(rnd(1, 4, 2)))[0].shape == (1, 4, 3)


def test_rnn_cells():
    x, h = rnd(3, 2), rnd(3, 4, seed=1)
    for cls in ("RNNCell", "GRUCell", "LSTMCell"):
        cell = getattr(nn, cls)(2, 4)
        full = getattr(nn, cls.replace("Cell", ""))(2, 4)
        for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(full, n + "_l0").set_data(getattr(cell, n).detach())
        if cls == "LSTMCell":
            c = rnd(3, 4, seed=2)
            hn, cn = cell(T(x), (T(h), T(c)))
            _, (fh, fc) = full(T(x[None]), (T(h[None]), T(c[None])))
            close(cn, fc[0], 1e-5)
        else:
            hn = cell(T(x), T(h))
            _, fh = full(T(x[None]), T(h[None]))
        close(hn, fh[0], 1e-5)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_recurrent_gradients_finite_differences(cls):
    tandem.manual_seed(0)
    m = getattr(nn, cls)(2, 2, bidirectional=(cls == "GRU")).double()
    names = [n for n, _ in m.named_parameters()]
    x = T(np.random.default_rng(3).uniform(-1, 1, (3, 1, 2)))
    dirs = 2 if m.bidirectional else 1
    h0 = T(np.random.default_rng(4).uniform(-1, 1, (dirs, 1, 2)))

    def fn(x, h0, *ws):
        for n, w in zip(names, ws):
            m._params[n] = w
        if cls == "LSTM":
            out, (h, c) = m(x, (h0, h0 * 0.5))
            return out, h, c
        return m(x, h0)

    params = [p.detach().clone() for p in m.parameters()]
    gradcheck(fn, [x, h0] + params, atol=1e-6, rtol=1e-4)


def np_mha(m, q, k, v, amask=None):
    E, H = m.embed_dim, m.num_heads
    hd = E // H
    W, B = N(m.in_proj_weight), N(m.in_proj_bias)
    Q, K, V = q @ W[:E].T + B[:E], k @ W[E:2 * E].T + B[E:2 * E], v @ W[2 * E:].T + B[2 * E:]
    L, Nb, S = q.shape[0], q.shape[1], k.shape[0]
    Q = Q.reshape(L, Nb, H, hd).transpose(1, 2, 0, 3)
    K = K.reshape(S, Nb, H, hd).transpose(1, 2, 0, 3)
    V = V.reshape(S, Nb, H, hd).transpose(1, 2, 0, 3)
    s = Q @ K.transpose(0, 1, 3, 2) / math.sqrt(hd)
    if amask is not None:
        s = s + amask
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    o = (a @ V).transpose(2, 0, 1, 3).reshape(L, Nb, E)
    return o @ N(m.out_proj.weight).T + N(m.out_proj.bias), a


def test_multihead_attention():
    m = nn.MultiheadAttention(8, 2)
    assert tuple(m.in_proj_weight.shape) == (24, 8) and np.all(N(m.in_proj_bias) == 0)
    q, k, v = rnd(3, 2, 8), rnd(5, 2, 8, seed=1), rnd(5, 2, 8, seed=2)
    out, w = m(T(q), T(k), T(v))
    want, a = np_mha(m, q, k, v)
    close(out, want, 1e-4)
    close(w, a.mean(1), 1e-4)
    _, w2 = m(T(q), T(k), T(v), average_attn_weights=False)
    assert w2.shape == (2, 2, 3, 5)
    assert m(T(q), T(k), T(v), need_weights=False)[1] is None
    mask = np.triu(np.ones((3, 5), bool), 1)
    out_m, _ = m(T(q), T(k), T(v), attn_mask=T(mask))
    close(out_m, np_mha(m, q, k, v, np.where(mask, -np.inf, 0.0))[0], 1e-4)
    kpm = np.array([[False] * 4 + [True], [False] * 5])
    out_k, wk = m(T(q), T(k), T(v), key_padding_mask=T(kpm))
    assert np.all(N(wk)[0, :, 4] == 0)
    close(out_k, np_mha(m, q, k, v, np.where(kpm, -np.inf, 0.0)[:, None, None, :])[0], 1e-4)
    mb = nn.MultiheadAttention(8, 4, batch_first=True)
    assert mb(T(rnd(2, 3, 8)), T(rnd(2, 5, 8)), T(rnd(2, 5, 8)))[0].shape == (2, 3, 8)
    assert m(T(q[:, 0]), T(k[:, 0]), T(v[:, 0]))[0].shape == (3, 8)
    mk = nn.MultiheadAttention(8, 2, kdim=3, vdim=5)
    assert mk.in_proj_weight is None and tuple(mk.k_proj_weight.shape) == (8, 3)
    assert mk(T(q), T(rnd(5, 2, 3)), T(rnd(5, 2, 5)))[0].shape == (3, 2, 8)
    out.sum().backward()
    assert m.in_proj_weight.grad is not None and m.out_proj.weight.grad is not None


# --- losses -------------------------------------------------------------------------------------------

def test_loss_modules():
    x, t = rnd(4, 3), rnd(4, 3, seed=1)
    close(nn.MSELoss()(T(x), T(t)), ((x - t) ** 2).mean())
    close(nn.MSELoss(reduction="sum")(T(x), T(t)), ((x - t) ** 2).sum(), 1e-4)
    close(nn.L1Loss(reduction="none")(T(x), T(t)), np.abs(x - t))
    d = np.abs(x - t)
    close(nn.SmoothL1Loss(beta=0.5)(T(x), T(t)), np.where(d < 0.5, 0.5 * d ** 2 / 0.5, d - 0.25).mean())
    close(nn.HuberLoss(delta=0.5)(T(x), T(t)), np.where(d < 0.5, 0.5 * d ** 2, 0.5 * (d - 0.25)).mean())
    labels = np.array([0, 2, 1, 2])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    close(nn.CrossEntropyLoss()(T(x), T(labels)), -logp[np.arange(4), labels].mean())
    wts = np.array([1.0, 2.0, 0.5], np.float32)
    ce_w = nn.CrossEntropyLoss(weight=T(wts))
    assert "weight" in dict(ce_w.named_buffers())
    close(ce_w(T(x), T(labels)), -(wts[labels] * logp[np.arange(4), labels]).sum() / wts[labels].sum())
    close(nn.NLLLoss(reduction="sum")(T(logp), T(labels)), -logp[np.arange(4), labels].sum(), 1e-4)
    p = sigmoid(x)
    y01 = (t > 0).astype(np.float32)
    bce = -(y01 * np.log(p) + (1 - y01) * np.log(1 - p))
    close(nn.BCELoss()(T(p), T(y01)), bce.mean())
    close(nn.BCEWithLogitsLoss()(T(x), T(y01)), bce.mean())
    pw = np.array([2.0, 1.0, 0.5], np.float32)
    close(nn.BCEWithLogitsLoss(pos_weight=T(pw))(T(x), T(y01)),
          (-(pw * y01 * np.log(p) + (1 - y01) * np.log(1 - p))).mean())
    q = np.exp(logp[::-1].copy())
    close(nn.KLDivLoss(reduction="batchmean")(T(logp), T(q)), (q * (np.log(q) - logp)).sum() / 4)
    with pytest.raises(ValueError):
        nn.MSELoss(reduction="avg")


def test_mindspore_losses():
    logits, labels = rnd(5, 4), np.array([3, 0, 1, 1, 2], np.int32)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per = -logp[np.arange(5), labels]
    sparse = msnn.SoftmaxCrossEntropyWithLogits(sparse=True)
    close(sparse(T(logits), T(labels)), per)
    onehot = np.eye(4, dtype=np.float32)[labels]
    close(msnn.SoftmaxCrossEntropyWithLogits()(T(logits), T(onehot)), per)
    close(msnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(T(logits), T(labels)), per.mean())
    with pytest.raises(ValueError):
        msnn.SoftmaxCrossEntropyWithLogits()(T(logits), T(labels))
    x, t = rnd(3, 2), rnd(3, 2, seed=5)
    close(msnn.MSELoss("sum")(T(x), T(t)), ((x - t) ** 2).sum(), 1e-4)
    assert msnn.SmoothL1Loss()(T(x), T(t)).shape == (3, 2)  # reduction='none' by default
    close(msnn.CrossEntropyLoss()(T(logits), T(labels.astype(np.int64))), per.mean())


# --- module behaviour ---------------------------------------------------------------------------------

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.fc2 = nn.Linear(8, 2)
        self.scale = mint.ones(2)  # a plain tensor: not a parameter
        self.register_buffer("offset", mint.zeros(2))

    def forward(self, x):
        return self.fc2(self.block(self.act(self.fc1(x)))) * self.scale + self.offset


def test_parameter_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias", "fc2.weight", "fc2.bias"]
    assert "scale" not in names and len(list(net.parameters())) == 6
    assert [n for n, _ in net.named_buffers()] == ["offset"]
    assert [type(c).__name__ for c in net.children()] == ["Linear", "ReLU", "Sequential", "Linear"]
    assert len(list(net.modules())) == 7
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen.count("Linear") == 3
    shared = nn.Linear(3, 3)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(seq.parameters())) == 2
    assert sum(p.numel() for p in seq.parameters()) == 12
    y = seq(mint.randn(2, 3))
    y.sum().backward()
    assert shared.weight.grad is not None


def test_train_eval_zero_grad_and_to():
    net = Net()
    net.eval()
    assert all(not m.training for m in net.modules())
    net.train()
    assert net.block[1].training
    net(mint.randn(3, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(mint.randn(3, 4)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    w = net.fc1.weight
    net.to(tandem.float64)
    assert net.fc1.weight is w and w.dtype == tandem.float64 and net.offset.dtype == tandem.float64
    assert net(mint.randn(2, 4).double()).dtype == tandem.float64


def test_state_dict_roundtrip_and_strict():
    a, b = Net(), Net()
    sd = a.state_dict()
    # like PyTorch: a module's own parameters and buffers, then its children's
    assert list(sd) == ["offset", "fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias",
                        "fc2.weight", "fc2.bias"]
    b.load_state_dict(sd)
    x = mint.randn(5, 4)
    close(a(x), b(x))
    missing = OrderedDict((k, v) for k, v in sd.items() if k != "fc2.bias")
    with pytest.raises(RuntimeError, match="Missing key"):
        b.load_state_dict(missing)
    extra = OrderedDict(sd, extra=mint.zeros(1))
    with pytest.raises(RuntimeError, match="Unexpected key"):
        b.load_state_dict(extra)
    res = b.load_state_dict(OrderedDict(missing, extra=mint.zeros(1)), strict=False)
    assert res.missing_keys == ["fc2.bias"] and res.unexpected_keys == ["extra"]
    bn = nn.BatchNorm1d(3)
    assert set(bn.state_dict()) == {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}


def test_hooks_and_repr():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 1)
    y = m(mint.randn(3, 2))
    close(y, np.broadcast_to(N(m.bias) + 1, (3, 2)))
    assert calls == [(3, 2)]
    h1.remove()
    h2.remove()
    x = mint.randn(3, 2)
    close(m(x), N(x) @ N(m.weight).T + N(m.bias))
    r = repr(Net())
    assert r.startswith("Net(\n  (fc1): Linear(in_features=4, out_features=8, bias=True)")
    assert "(block): Sequential(\n    (0): Linear(in_features=8, out_features=8, bias=True)\n    (1): Tanh()\n  )" in r
    assert repr(nn.Conv2d(1, 2, 3, stride=2)) == "Conv2d(1, 2, kernel_size=(3, 3), stride=(2, 2))"
    assert repr(nn.BatchNorm2d(4)) == "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"


def test_mindspore_cell_names():
    class MSNet(msnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = msnn.Conv2d(1, 4, 3)
            self.bn = msnn.BatchNorm2d(4)
            self.flatten = msnn.Flatten()
            self.fc = msnn.Dense(4 * 4 * 4, 3)

        def construct(self, x):
            return self.fc(self.flatten(msnn.ReLU()(self.bn(self.conv(x)))))

    net = MSNet()
    assert [p.name for p in net.trainable_params()] == ["conv.weight", "bn.gamma", "bn.beta", "fc.weight", "fc.bias"]
    assert [n for n, _ in net.parameters_and_names()][:3] == ["conv.weight", "bn.moving_mean", "bn.moving_variance"]
    assert [n for n, _ in net.cells_and_names()] == ["", "conv", "bn", "flatten", "fc"]
    net.set_train()
    assert net.bn.training
    out = net(mint.randn(2, 1, 4, 4))
    assert out.shape == (2, 3)
    net.set_train(False)
    assert not net.fc.training
    seq = msnn.SequentialCell([msnn.Dense(2, 3), msnn.ReLU()])
    assert len(seq) == 2 and seq(mint.randn(1, 2)).shape == (1, 3)
    cl = msnn.CellList([msnn.Dense(2, 2), msnn.Dense(2, 2)])
    assert len(list(cl.trainable_params())) == 4


# --- containers and lazy modules ----------------------------------------------------------------------

def test_sequential_indexing_and_editing():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4), nn.Sigmoid()]
    s = nn.Sequential(*layers)
    assert len(s) == 4 and s[0] is layers[0] and s[-1] is layers[3]
    assert list(s) == layers
    sub = s[1:3]
    assert type(sub) is nn.Sequential and list(sub) == layers[1:3]
    assert [n for n, _ in sub.named_children()] == ["1", "2"]
    x = mint.randn(5, 2)
    close(s(x), N(s[3](s[2](s[1](s[0](x))))))
    s.append(nn.Tanh())
    assert len(s) == 5 and isinstance(s[4], nn.Tanh)
    s.add_module("extra", nn.Identity())
    assert s.extra is s[5]
    del s[0]
    assert s[0] is layers[1] and [n for n, _ in s.named_children()][:2] == ["0", "1"]
    s[0] = nn.ELU()
    assert isinstance(s[0], nn.ELU)
    with pytest.raises(IndexError):
        s[10]
    od = nn.Sequential(OrderedDict([("a", nn.Linear(2, 2)), ("b", nn.ReLU())]))
    assert [n for n, _ in od.named_parameters()] == ["a.weight", "a.bias"]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    ml.append(nn.ReLU())
    ml.insert(0, nn.Tanh())
    assert isinstance(ml[0], nn.Tanh) and isinstance(ml[-1], nn.ReLU)
    assert type(ml[1:3]) is nn.ModuleList and len(ml[1:3]) == 2
    del ml[0]
    assert [n for n, _ in ml.named_children()] == ["0", "1", "2", "3"]
    md = nn.ModuleDict({"enc": nn.Linear(2, 3), "act": nn.ReLU()})
    assert list(md.keys()) == ["enc", "act"] and "enc" in md and len(md) == 2
    md["dec"] = nn.Linear(3, 2)
    assert [n for n, _ in md.named_parameters()] == ["enc.weight", "enc.bias", "dec.weight", "dec.bias"]
    assert isinstance(md.pop("act"), nn.ReLU) and len(md) == 2


def test_lazy_modules_become_eager():
    lin = nn.LazyLinear(5)
    w = lin.weight
    assert type(lin) is nn.LazyLinear
    x = mint.randn(3, 7)
    y = lin(x)
    assert type(lin) is nn.Linear and lin.in_features == 7 and tuple(lin.weight.shape) == (5, 7)
    assert lin.weight is w  # initialised in place
    close(y, N(x) @ N(lin.weight).T + N(lin.bias))
    assert np.abs(N(lin.weight)).max() <= 1 / math.sqrt(7) + 1e-6 and np.abs(N(lin.weight)).max() > 0.1
    assert repr(lin) == "Linear(in_features=7, out_features=5, bias=True)"
    conv = nn.LazyConv2d(4, 3, padding=1)
    y = conv(mint.randn(2, 6, 5, 5))
    assert type(conv) is nn.Conv2d and conv.in_channels == 6 and tuple(conv.weight.shape) == (4, 6, 3, 3)
    assert y.shape == (2, 4, 5, 5)
    bn = nn.LazyBatchNorm2d()
    bn(mint.randn(4, 3, 2, 2))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 3 and tuple(bn.running_mean.shape) == (3,)
    assert abs(float(bn.running_mean.abs().sum())) > 0  # updated by the first forward
    bn1 = nn.LazyBatchNorm1d(affine=False)
    assert bn1(mint.randn(5, 2)).shape == (5, 2) and type(bn1) is nn.BatchNorm1d
    net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
    net(mint.randn(1, 9))
    assert [tuple(p.shape) for p in net.parameters()] == [(4, 9), (4,), (2, 4), (2,)]


# --- training ----------------------------------------------------------------------------------------

def _sgd_train(model, loss_fn, x, y, lr, steps):
    losses = []
    for _ in range(steps):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        with tandem.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        losses.append(float(loss))
    return losses


def test_mlp_trains_with_hand_written_sgd():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 4)).astype(np.float32)
    ys = (xs[:, :1] * 2 - xs[:, 1:2] + 0.5 * xs[:, 2:3] ** 2).astype(np.float32)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    losses = _sgd_train(model, nn.MSELoss(), T(xs), T(ys), 0.05, 60)
    assert losses[-1] < 0.3 * losses[0]


def test_small_cnn_trains_with_hand_written_sgd():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((16, 1, 6, 6)).astype(np.float32)
    ys = (xs[:, 0, :3].mean((1, 2)) > xs[:, 0, 3:].mean((1, 2))).astype(np.int64)
    xs[ys == 1, 0, :3] += 1.0
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 2))
    losses = _sgd_train(model, nn.CrossEntropyLoss(), T(xs), T(ys), 0.1, 25)
    assert losses[-1] < 0.5 * losses[0]
    model.eval()
    acc = (N(model(T(xs))).argmax(1) == ys).mean()
    assert acc > 0.8


def test_mindspore_cell_trains():
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((32, 3)).astype(np.float32)
    labels = (xs.sum(1) > 0).astype(np.int32)
    net = msnn.SequentialCell(msnn.Dense(3, 8, activation="relu"), msnn.Dense(8, 2))
    loss_fn = msnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    losses = []
    for _ in range(40):
        net.zero_grad()
        loss = loss_fn(net(T(xs)), T(labels))
        loss.backward()
        with tandem.no_grad():
            for p in net.trainable_params():
                p -= 0.2 * p.grad
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


def test_shape_padding_and_misc_layers():
    x = rnd(2, 3, 4, 5)
    close(nn.Flatten()(T(x)), x.reshape(2, -1))
    close(nn.Flatten(0, 1)(T(x)), x.reshape(6, 4, 5))
    close(nn.Unflatten(1, (3, 20))(T(x.reshape(2, 60))), x.reshape(2, 3, 20))
    assert nn.Identity(5, k=1)(T(x)).shape == x.shape
    close(nn.ZeroPad2d((1, 0, 2, 0))(T(x)), np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 0))))
    close(nn.ConstantPad1d(2, 3.5)(T(x)), np.pad(x, ((0, 0),) * 3 + ((2, 2),), constant_values=3.5))
    close(nn.ReflectionPad2d(1)(T(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect"))
    close(nn.ReplicationPad1d((0, 2))(T(x[0])), np.pad(x[0], ((0, 0), (0, 0), (0, 2)), mode="edge"))
    b = nn.Bilinear(2, 3, 4)
    x1, x2 = rnd(5, 2), rnd(5, 3, seed=1)
    close(b(T(x1), T(x2)), np.einsum("bi,oij,bj->bo", x1, N(b.weight), x2) + N(b.bias), 1e-4)
    d1 = nn.Dropout1d(0.5)(mint.ones(4, 8, 6))
    per = N(d1)
    assert np.all((per == 0).all(-1) | (per == 2).all(-1))
    pl = nn.ParameterList([mint.ones(2), mint.zeros(3)])
    assert len(pl) == 2 and len(list(pl.parameters())) == 2 and isinstance(pl[1], nn.Parameter)
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    out, _ = lstm(T(rnd(5, 2, 3)))
    lstm.eval()
    out_e, _ = lstm(T(rnd(5, 2, 3)))
    close(out_e, np_rnn(lstm, rnd(5, 2, 3))[0], 1e-4)  # no dropout in eval
    a = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True)
    q = T(rnd(3, 2, 8))
    o, w = a(q, q, q, is_causal=True)
    assert o.shape == (3, 2, 8) and w.shape == (2, 3, 5)  # 3 keys + bias_kv + zero_attn
    assert float(w[0, 0, 1]) == 0 and float(w[0, 0, 2]) == 0
    assert nn.LazyConv1d(3, 2)(T(rnd(1, 4, 5))).shape == (1, 3, 4)
