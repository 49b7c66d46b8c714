"""End-to-end gradients of the NN composites (losses, dropout, embedding, linear,
conv_transpose2d, instance_norm), checked against numpy formulas or finite differences in
float64, plus the autograd hygiene of the norm ops' running statistics."""
import re

import numpy as np
import pytest

import tandem
from gradcheck_util import gradcheck, rand
from tandem.mint.nn import functional as F

# Ops whose rules live with this file's family: a missing rule among them is a failure; a
# missing rule of another family's op (still being written) skips with its name.
NN_OPS = {"conv2d", "conv2d_backward_input", "conv2d_backward_weight", "max_pool2d",
          "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "batch_norm",
          "layer_norm", "group_norm", "softmax", "log_softmax", "upsample_nearest2d",
          "upsample_bilinear2d", "unfold", "fold"}


def run(fn):
    try:
        return fn()
    except NotImplementedError as e:
        m = re.search(r"backward is not implemented for op '(\w+)'", str(e))
        if m and m.group(1) not in NN_OPS:
            pytest.skip(f"needs the vjp of {m.group(1)}")
        raise


def leaf(a):
    return tandem.tensor(np.asarray(a, dtype=np.float64)).requires_grad_()


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


RNG = np.random.default_rng(0)


# --- cross_entropy -------------------------------------------------------------------------

def ce_reference_grad(x, t, weight=None, ignore_index=-100, smoothing=0.0, reduction="mean"):
    """d loss / d logits for (N, C) logits and class targets, as PyTorch defines the loss."""
    n, c = x.shape
    p = np_softmax(x, 1)
    w = np.ones(c) if weight is None else weight
    valid = t != ignore_index
    ts = np.where(valid, t, 0)
    onehot = np.eye(c)[ts]
    wt = w[ts] * valid  # per-sample weight of the nll term
    # nll_i = -wt_i * logp[i, t_i];  smooth_i = -valid_i * sum_c w_c logp[i, c]
    g_nll = wt[:, None] * (p - onehot)
    g_smooth = valid[:, None] * (w.sum() * p - w[None, :])
    if reduction == "mean":
        g_nll /= wt.sum()
        g_smooth /= wt.sum() if weight is not None else valid.sum()
    return (1 - smoothing) * g_nll + smoothing / c * g_smooth


@pytest.mark.parametrize("kw", [
    {},
    {"reduction": "sum"},
    {"weight": True},
    {"ignore_index": 1},
    {"weight": True, "ignore_index": 2, "smoothing": 0.2},
    {"smoothing": 0.1},
    {"smoothing": 0.3, "reduction": "sum", "ignore_index": 0},
])
def test_cross_entropy_matches_numpy(kw):
    x = RNG.standard_normal((6, 4))
    t = np.array([0, 1, 2, 3, 1, 2])
    weight = RNG.uniform(0.5, 2.0, 4) if kw.get("weight") else None
    ii, ls, red = kw.get("ignore_index", -100), kw.get("smoothing", 0.0), kw.get("reduction", "mean")
    xt = leaf(x)
    loss = F.cross_entropy(xt, tandem.tensor(t), weight=None if weight is None else tandem.tensor(weight),
                           ignore_index=ii, reduction=red, label_smoothing=ls)
    run(loss.backward)
    expect = ce_reference_grad(x, t, weight, ii, ls, red)
    np.testing.assert_allclose(xt.grad.numpy(), expect, rtol=1e-10, atol=1e-12)


def test_cross_entropy_spatial_and_probabilities_by_finite_differences():
    t = tandem.tensor(np.array([[0, 2, 1], [1, 1, 0]]))  # (N, d) targets for (N, C, d) logits
    w = tandem.tensor(np.array([0.5, 1.0, 2.0]))
    run(lambda: gradcheck(lambda x: F.cross_entropy(x, t, weight=w, ignore_index=2,
                                                    label_smoothing=0.1), [rand(2, 3, 3)]))
    probs = tandem.tensor(np_softmax(RNG.standard_normal((4, 3)), 1))
    run(lambda: gradcheck(lambda x, p: F.cross_entropy(x, p, label_smoothing=0.2),
                          [rand(4, 3), probs]))


# --- mse / bce_with_logits -----------------------------------------------------------------

def test_mse_loss_gradients():
    x, t = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    xt, tt = leaf(x), leaf(t)
    run(F.mse_loss(xt, tt).backward)
    np.testing.assert_allclose(xt.grad.numpy(), 2 * (x - t) / x.size, rtol=1e-12)
    np.testing.assert_allclose(tt.grad.numpy(), -2 * (x - t) / x.size, rtol=1e-12)
    xt.grad = None
    run(F.mse_loss(xt, tandem.tensor(t), reduction="sum").backward)
    np.testing.assert_allclose(xt.grad.numpy(), 2 * (x - t), rtol=1e-12)


def test_binary_cross_entropy_with_logits_gradients():
    x = RNG.standard_normal((3, 5)) * 3
    t = RNG.uniform(0, 1, (3, 5))
    w = RNG.uniform(0.5, 1.5, (5,))
    xt = leaf(x)
    loss = F.binary_cross_entropy_with_logits(xt, tandem.tensor(t), weight=tandem.tensor(w))
    run(loss.backward)
    sig = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(xt.grad.numpy(), (sig - t) * w / x.size, rtol=1e-10, atol=1e-14)
    pw = tandem.tensor(RNG.uniform(0.5, 3.0, (5,)))
    run(lambda: gradcheck(lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw,
                                                                          reduction="sum"),
                          [rand(3, 5, low=-4, high=4), rand(3, 5, low=0, high=1)]))


# --- dropout / embedding / linear ----------------------------------------------------------

def test_dropout_gradient_is_the_scaled_mask():
    x = leaf(RNG.uniform(0.5, 1.5, (50, 40)))
    tandem.manual_seed(123)
    y = F.dropout(x, p=0.3, training=True)
    g = RNG.standard_normal((50, 40))
    run(lambda: y.backward(tandem.tensor(g)))
    kept = y.detach().numpy() != 0
    assert 0.55 < kept.mean() < 0.85
    np.testing.assert_allclose(x.grad.numpy(), g * kept / 0.7, rtol=1e-12)
    # The same seed draws the same mask, so the gradient is reproducible.
    x2 = leaf(x.detach().numpy())
    tandem.manual_seed(123)
    run(F.dropout(x2, p=0.3, training=True).sum().backward)
    np.testing.assert_allclose(x2.grad.numpy(), kept / 0.7, rtol=1e-12)


def test_dropout_eval_passes_gradient_through():
    x = leaf(RNG.standard_normal((4, 3)))
    run(lambda: (F.dropout(x, p=0.5, training=False) * 2).sum().backward())
    np.testing.assert_array_equal(x.grad.numpy(), np.full((4, 3), 2.0))


def test_embedding_gradient_accumulates_per_index():
    w = leaf(RNG.standard_normal((6, 3)))
    idx = np.array([[0, 2, 2], [5, 2, 0]])
    g = RNG.standard_normal((2, 3, 3))
    y = F.embedding(tandem.tensor(idx), w)
    run(lambda: y.backward(tandem.tensor(g)))
    expect = np.zeros((6, 3))
    np.add.at(expect, idx.reshape(-1), g.reshape(-1, 3))
    np.testing.assert_allclose(w.grad.numpy(), expect, rtol=1e-12)


def test_embedding_padding_row_gets_no_gradient():
    w = leaf(RNG.standard_normal((4, 2)))
    y = F.embedding(tandem.tensor(np.array([0, 1, 1, 3])), w, padding_idx=1)
    run(y.sum().backward)
    np.testing.assert_array_equal(w.grad.numpy(), [[1, 1], [0, 0], [0, 0], [1, 1]])


def test_linear_gradients():
    x, w, b = RNG.standard_normal((2, 5, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    g = RNG.standard_normal((2, 5, 3))
    xt, wt, bt = leaf(x), leaf(w), leaf(b)
    run(lambda: F.linear(xt, wt, bt).backward(tandem.tensor(g)))
    np.testing.assert_allclose(xt.grad.numpy(), g @ w, rtol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), np.einsum("bno,bni->oi", g, x), rtol=1e-12)
    np.testing.assert_allclose(bt.grad.numpy(), g.sum((0, 1)), rtol=1e-12)


# --- conv_transpose2d / instance_norm ------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 1), padding=0, output_padding=(1, 0), dilation=(1, 2)),
    dict(stride=1, padding=0, output_padding=(1, 1), dilation=2),  # output_padding > padding
    dict(stride=2, padding=1, groups=2),
])
def test_conv_transpose2d_by_finite_differences(kw):
    g = kw.get("groups", 1)
    run(lambda: gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
                          [rand(2, 4, 3, 3), rand(4, 6 // g, 2, 3), rand(6)]))


def test_instance_norm_by_finite_differences():
    run(lambda: gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                          [rand(2, 3, 2, 3), rand(3), rand(3)]))
    run(lambda: gradcheck(lambda x: F.instance_norm(x), [rand(2, 2, 5)]))


def test_instance_norm_matches_numpy_gradient():
    x = RNG.standard_normal((2, 3, 4))
    g = RNG.standard_normal((2, 3, 4))
    xt = leaf(x)
    run(lambda: F.instance_norm(xt, eps=1e-5).backward(tandem.tensor(g)))
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    expect = (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) \
        / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(xt.grad.numpy(), expect, rtol=1e-9, atol=1e-12)


# --- running statistics and saved statistics carry no history ------------------------------

def test_running_stats_stay_leaves_without_history():
    x = leaf(RNG.standard_normal((4, 3, 2)))
    rm, rv = tandem.zeros(3, dtype=tandem.float64), tandem.ones(3, dtype=tandem.float64)
    y = F.batch_norm(x, rm, rv, training=True)
    assert not rm.requires_grad and not rv.requires_grad and rm.grad_fn is None
    run(y.sum().backward)
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.detach().numpy().mean((0, 2)), rtol=1e-12)
    im, iv = tandem.zeros(3, dtype=tandem.float64), tandem.ones(3, dtype=tandem.float64)
    F.instance_norm(x, im, iv)
    assert not im.requires_grad and not iv.requires_grad


def test_norm_forward_statistics_are_not_differentiable():
    x = leaf(RNG.standard_normal((3, 4)))
    for y, *stats in (tandem._C.batch_norm_forward(x, None, None, None, None, True),
                      tandem._C.layer_norm_forward(x, [4], None, None),
                      tandem._C.group_norm_forward(x, 2, None, None)):
        assert y.requires_grad
        assert not any(s.requires_grad for s in stats)


def test_double_backward_through_norm_runs():
    # Second derivatives through the norm backward ops (finite-difference checked in
    # test_gradcheck.py's *_norm_backward cases).
    x = tandem.tensor(RNG.standard_normal((2, 3, 4))).requires_grad_()
    g, = tandem.autograd.grad(F.layer_norm(x, (4,)).pow(3).sum(), x, create_graph=True)
    g.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


