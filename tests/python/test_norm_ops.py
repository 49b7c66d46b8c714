"""Normalization ops (batch / layer / group / instance norm) against numpy references: outputs
and saved statistics in float32 / float64 (16-bit floats loosely), running-stat updates, eval
mode, non-contiguous inputs, the backward ops against central finite differences in float64,
and argument errors."""
import numpy as np
import pytest

import tandem
from tandem import _C, mint

F = mint.nn.functional
NP = {tandem.float32: np.float32, tandem.float64: np.float64}
TOL = {tandem.float32: dict(rtol=1e-5, atol=1e-5), tandem.float64: dict(rtol=1e-12, atol=1e-12)}


def T(a):
    return tandem.from_numpy(np.array(a, copy=True))


def close(t, expected, **tol):
    got = t.numpy() if isinstance(t, tandem.Tensor) else np.asarray(t)
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(expected, np.float64), **tol)


def rand(rng, shape, dt=np.float64, loc=0.0):
    return (loc + rng.standard_normal(shape)).astype(dt)


# --- numpy references (computed in float64) ----------------------------------------------------

def bcast_c(v, ndim):
    """(C,) -> shape (1, C, 1, ...) for broadcasting against (N, C, *)."""
    return np.asarray(v, np.float64).reshape((1, -1) + (1,) * (ndim - 2))


def bn_ref(x, rm, rv, w, b, training, momentum, eps):
    """(y, new_running_mean, new_running_var, mean, invstd) as PyTorch computes them."""
    x = x.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        mean, var = x.mean(axes), x.var(axes)
        m = x.size // x.shape[1]
        rm = None if rm is None else (1 - momentum) * rm + momentum * mean
        rv = None if rv is None else (1 - momentum) * rv + momentum * var * m / (m - 1)
    else:
        mean, var = rm.astype(np.float64), rv.astype(np.float64)
    invstd = 1 / np.sqrt(var + eps)
    y = (x - bcast_c(mean, x.ndim)) * bcast_c(invstd, x.ndim)
    if w is not None:
        y = y * bcast_c(w, x.ndim)
    if b is not None:
        y = y + bcast_c(b, x.ndim)
    return y, rm, rv, mean, invstd


def ln_ref(x, ns, w, b, eps):
    x = x.astype(np.float64)
    axes = tuple(range(x.ndim - len(ns), x.ndim))
    mean = x.mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axes, keepdims=True) + eps)
    y = (x - mean) * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y, mean, rstd


def gn_ref(x, G, w, b, eps):
    x = x.astype(np.float64)
    N, C = x.shape[:2]
    xg = x.reshape(N, G, -1)
    mean, var = xg.mean(-1), xg.var(-1)
    rstd = 1 / np.sqrt(var + eps)
    y = ((xg - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    if w is not None:
        y = y * bcast_c(w, x.ndim)
    if b is not None:
        y = y + bcast_c(b, x.ndim)
    return y, mean, rstd


# --- batch_norm forward ---------------------------------------------------------------------

@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64])
@pytest.mark.parametrize("shape", [(8, 5), (4, 3, 7), (4, 3, 6, 5), (512, 130), (3, 4, 70, 50)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_updates_running_stats(dt, shape, affine):
    rng = np.random.default_rng(0)
    C = shape[1]
    x = rand(rng, shape, NP[dt], loc=1.5)
    rm0, rv0 = rand(rng, C, NP[dt]), (0.5 + rng.random(C)).astype(NP[dt])
    w = rand(rng, C, NP[dt]) if affine else None
    b = rand(rng, C, NP[dt]) if affine else None
    rm, rv = T(rm0), T(rv0)
    y = F.batch_norm(T(x), rm, rv, None if w is None else T(w), None if b is None else T(b),
                     training=True, momentum=0.3, eps=1e-4)
    ey, erm, erv, emean, einvstd = bn_ref(x, rm0, rv0, w, b, True, 0.3, 1e-4)
    assert y.dtype == dt
    close(y, ey, **TOL[dt])
    close(rm, erm, **TOL[dt])
    close(rv, erv, **TOL[dt])  # unbiased variance, as PyTorch
    _, save_mean, save_invstd = _C.batch_norm_forward(T(x), None, None, None, None, True, 1e-4)
    assert save_mean.shape == (C,) and save_mean.dtype == dt
    close(save_mean, emean, **TOL[dt])
    close(save_invstd, einvstd, **TOL[dt])


def test_batch_norm_running_stats_optional_and_momentum_default():
    rng = np.random.default_rng(1)
    x = rand(rng, (6, 4, 3))
    ey, erm, _, _, _ = bn_ref(x, np.zeros(4), np.ones(4), None, None, True, 0.1, 1e-5)
    rm, rv = T(np.zeros(4)), T(np.ones(4))
    close(F.batch_norm(T(x), rm, rv, training=True), ey, rtol=1e-12, atol=1e-12)
    close(rm, erm, rtol=1e-12, atol=1e-14)
    close(F.batch_norm(T(x), None, None, training=True), ey, rtol=1e-12, atol=1e-12)
    # both statistics or neither, as torch requires
    with pytest.raises(ValueError, match="both be None or neither"):
        F.batch_norm(T(x), rm, None, training=True)


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64])
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4, 4)])
def test_batch_norm_eval_uses_running_stats(dt, shape):
    rng = np.random.default_rng(2)
    C = shape[1]
    x = rand(rng, shape, NP[dt])
    rm0, rv0 = rand(rng, C, NP[dt]), (0.5 + rng.random(C)).astype(NP[dt])
    w, b = rand(rng, C, NP[dt]), rand(rng, C, NP[dt])
    rm, rv = T(rm0), T(rv0)
    y = F.batch_norm(T(x), rm, rv, T(w), T(b), training=False)
    close(y, bn_ref(x, rm0, rv0, w, b, False, 0.1, 1e-5)[0], **TOL[dt])
    close(rm, rm0, rtol=0, atol=0)  # eval leaves the running stats alone
    close(rv, rv0, rtol=0, atol=0)
    # In eval the saved statistics are the running ones (what the backward then uses).
    _, sm, si = _C.batch_norm_forward(T(x), T(w), T(b), rm, rv, False, 1e-5)
    close(sm, rm0, **TOL[dt])
    close(si, 1 / np.sqrt(rv0.astype(np.float64) + 1e-5), **TOL[dt])


def test_batch_norm_non_contiguous_input_and_running_stats():
    rng = np.random.default_rng(3)
    base = rand(rng, (4, 6, 5, 3))
    xt = T(base)[:, ::2].permute(0, 1, 3, 2)  # (4, 3, 3, 5), strided and permuted
    xn = base[:, ::2].transpose(0, 1, 3, 2)
    stats = T(np.stack([np.zeros(3), np.ones(3)], axis=1))  # (3, 2): columns are strided
    rm, rv = stats[:, 0], stats[:, 1]
    y = F.batch_norm(xt, rm, rv, training=True, momentum=0.2)
    ey, erm, erv, _, _ = bn_ref(xn, np.zeros(3), np.ones(3), None, None, True, 0.2, 1e-5)
    close(y, ey, rtol=1e-12, atol=1e-12)
    close(stats[:, 0], erm, rtol=1e-12, atol=1e-14)  # written through the views
    close(stats[:, 1], erv, rtol=1e-12, atol=1e-14)


def test_batch_norm_float32_large_mean_keeps_precision():
    rng = np.random.default_rng(4)
    x = rand(rng, (64, 3, 32), np.float32, loc=1000.0)
    y = F.batch_norm(T(x), None, None, training=True)
    # A one-pass float32 variance loses all digits here; double accumulation does not.
    close(y, bn_ref(x, None, None, None, None, True, 0.1, 1e-5)[0], rtol=1e-4, atol=2e-4)


@pytest.mark.parametrize("dt", [tandem.float16, tandem.bfloat16])
def test_norms_16bit_compute_in_float32(dt):
    rng = np.random.default_rng(5)
    x = rand(rng, (4, 6, 5), np.float32)
    xt = T(x).to(dt)
    xr = xt.to(tandem.float32).numpy()  # the rounded inputs the op sees
    tol = dict(rtol=2e-2, atol=2e-2)
    rm = mint.zeros(6)
    y = F.batch_norm(xt, rm, mint.ones(6), training=True)
    assert y.dtype == dt
    ey, erm, _, _, _ = bn_ref(xr, np.zeros(6), np.ones(6), None, None, True, 0.1, 1e-5)
    close(y.to(tandem.float32), ey, **tol)
    close(rm, erm, rtol=1e-5, atol=1e-6)
    y, mean, rstd = _C.layer_norm_forward(xt, [5], None, None, 1e-5)
    assert y.dtype == dt and mean.dtype == tandem.float32
    close(y.to(tandem.float32), ln_ref(xr, [5], None, None, 1e-5)[0], **tol)
    close(F.group_norm(xt, 3).to(tandem.float32), gn_ref(xr, 3, None, None, 1e-5)[0], **tol)


# --- layer_norm / group_norm / instance_norm forward -----------------------------------------

@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64])
@pytest.mark.parametrize("shape,ns", [((4, 7), [7]), ((3, 4, 5), [5]), ((3, 4, 5), [4, 5]),
                                      ((300, 257), [257]), ((6,), [6])])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dt, shape, ns, affine):
    rng = np.random.default_rng(6)
    x = rand(rng, shape, NP[dt], loc=-2.0)
    w = rand(rng, ns, NP[dt]) if affine else None
    b = rand(rng, ns, NP[dt]) if affine else None
    tw, tb = (T(w), T(b)) if affine else (None, None)
    ey, emean, erstd = ln_ref(x, ns, w, b, 1e-5)
    y = F.layer_norm(T(x), ns if len(ns) > 1 else ns[0], tw, tb)
    assert y.dtype == dt
    close(y, ey, **TOL[dt])
    _, mean, rstd = _C.layer_norm_forward(T(x), ns, tw, tb, 1e-5)
    close(mean, emean, **TOL[dt])  # keeps dims: (*, 1, ..., 1)
    close(rstd, erstd, **TOL[dt])


def test_layer_norm_non_contiguous():
    rng = np.random.default_rng(7)
    base = rand(rng, (5, 8, 6))
    xt = T(base).transpose(0, 2)[:, ::2]  # (6, 4, 5)
    xn = base.transpose(2, 1, 0)[:, ::2]
    w = T(rand(rng, (4, 10)))[:, ::2]  # non-contiguous weight (4, 5)
    y = F.layer_norm(xt, (4, 5), w, None, eps=1e-3)
    close(y, ln_ref(xn, [4, 5], w.numpy(), None, 1e-3)[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64])
@pytest.mark.parametrize("shape", [(3, 6), (2, 6, 7), (2, 6, 4, 5), (4, 6, 40, 40)])
@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_group_norm(dt, shape, groups):
    rng = np.random.default_rng(8)
    x = rand(rng, shape, NP[dt], loc=0.7)
    w, b = rand(rng, 6, NP[dt]), rand(rng, 6, NP[dt])
    ey, emean, erstd = gn_ref(x, groups, w, b, 1e-5)
    y, mean, rstd = _C.group_norm_forward(T(x), groups, T(w), T(b), 1e-5)
    assert y.dtype == dt and mean.shape == (shape[0], groups)
    close(y, ey, **TOL[dt])
    close(mean, emean, **TOL[dt])
    close(rstd, erstd, **TOL[dt])
    close(F.group_norm(T(x), groups), gn_ref(x, groups, None, None, 1e-5)[0], **TOL[dt])


def test_group_norm_non_contiguous():
    rng = np.random.default_rng(9)
    base = rand(rng, (3, 4, 8, 5))
    xt = T(base).permute(0, 2, 1, 3)  # (3, 8, 4, 5)
    y = F.group_norm(xt, 4, eps=1e-3)
    close(y, gn_ref(base.transpose(0, 2, 1, 3), 4, None, None, 1e-3)[0], rtol=1e-12, atol=1e-12)


def test_instance_norm_matches_reference_and_updates_running_stats():
    rng = np.random.default_rng(10)
    x = rand(rng, (3, 4, 5, 6), loc=2.0)
    w, b = rand(rng, 4), rand(rng, 4)
    rm0, rv0 = rand(rng, 4), 0.5 + rng.random(4)
    axes = (2, 3)
    mean, var = x.mean(axes), x.var(axes)
    ey = (x - mean[..., None, None]) / np.sqrt(var[..., None, None] + 1e-5)
    ey = ey * bcast_c(w, 4) + bcast_c(b, 4)
    rm, rv = T(rm0), T(rv0)
    y = F.instance_norm(T(x), rm, rv, T(w), T(b), use_input_stats=True, momentum=0.2)
    close(y, ey, rtol=1e-12, atol=1e-12)
    m = 30
    close(rm, 0.8 * rm0 + 0.2 * mean.mean(0), rtol=1e-12, atol=1e-14)
    close(rv, 0.8 * rv0 + 0.2 * (var * m / (m - 1)).mean(0), rtol=1e-12, atol=1e-14)
    # Without running stats, and the group_norm equivalence (groups = C).
    close(F.instance_norm(T(x)), F.group_norm(T(x), 4).numpy(), rtol=1e-12, atol=1e-12)
    # Eval mode: normalise with the running stats.
    y = F.instance_norm(T(x), T(rm0), T(rv0), use_input_stats=False)
    close(y, bn_ref(x, rm0, rv0, None, None, False, 0.1, 1e-5)[0], rtol=1e-12, atol=1e-12)


# --- backward ops against central finite differences (float64) --------------------------------

def fd_check(f, args, names, analytic, h=1e-6):
    """f(*args) -> numpy output; compares d sum(f * G) / d args[name] with analytic[name]."""
    G = np.random.default_rng(11).standard_normal(f(*args).shape)
    for name in names:
        i = names.index(name)
        a = args[i]
        grad = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + h
            lp = (f(*args) * G).sum()
            a[idx] = old - h
            lm = (f(*args) * G).sum()
            a[idx] = old
            grad[idx] = (lp - lm) / (2 * h)
        np.testing.assert_allclose(analytic(G)[i], grad, rtol=1e-6, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("shape", [(5, 3), (3, 2, 4), (2, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward_finite_differences(shape, training):
    rng = np.random.default_rng(12)
    C = shape[1]
    x, w, b = rand(rng, shape), rand(rng, C), rand(rng, C)
    rm, rv = rand(rng, C), 0.5 + rng.random(C)

    def fwd(x, w, b):
        return _C.batch_norm_forward(T(x), T(w), T(b), T(rm), T(rv), training, 1e-5)

    def analytic(G):
        _, sm, si = fwd(x, w, b)
        gx, gw, gb = _C.batch_norm_backward(T(G), T(x), T(w), sm, si, training)
        return gx.numpy(), gw.numpy(), gb.numpy()

    fd_check(lambda x, w, b: fwd(x, w, b)[0].numpy(), [x, w, b], ["x", "w", "b"], analytic)


@pytest.mark.parametrize("shape,ns", [((4, 5), [5]), ((2, 3, 4), [4]), ((2, 3, 4), [3, 4])])
def test_layer_norm_backward_finite_differences(shape, ns):
    rng = np.random.default_rng(13)
    x, w, b = rand(rng, shape), rand(rng, ns), rand(rng, ns)

    def fwd(x, w, b):
        return _C.layer_norm_forward(T(x), ns, T(w), T(b), 1e-5)

    def analytic(G):
        _, mean, rstd = fwd(x, w, b)
        return [t.numpy() for t in _C.layer_norm_backward(T(G), T(x), ns, mean, rstd, T(w))]

    fd_check(lambda x, w, b: fwd(x, w, b)[0].numpy(), [x, w, b], ["x", "w", "b"], analytic)


@pytest.mark.parametrize("shape", [(2, 6), (2, 4, 3), (2, 6, 2, 2)])
@pytest.mark.parametrize("groups", [1, 2])
def test_group_norm_backward_finite_differences(shape, groups):
    rng = np.random.default_rng(14)
    C = shape[1]
    x, w, b = rand(rng, shape), rand(rng, C), rand(rng, C)

    def fwd(x, w, b):
        return _C.group_norm_forward(T(x), groups, T(w), T(b), 1e-5)

    def analytic(G):
        _, mean, rstd = fwd(x, w, b)
        return [t.numpy() for t in _C.group_norm_backward(T(G), T(x), groups, mean, rstd, T(w))]

    fd_check(lambda x, w, b: fwd(x, w, b)[0].numpy(), [x, w, b], ["x", "w", "b"], analytic)


def test_backward_without_weight_equals_weight_of_ones():
    rng = np.random.default_rng(15)
    x, gy = rand(rng, (3, 4, 5)), rand(rng, (3, 4, 5))
    _, sm, si = _C.batch_norm_forward(T(x), None, None, None, None, True, 1e-5)
    for a, b in zip(_C.batch_norm_backward(T(gy), T(x), None, sm, si, True),
                    _C.batch_norm_backward(T(gy), T(x), mint.ones(4, dtype=tandem.float64),
                                           sm, si, True)):
        close(a, b.numpy(), rtol=1e-14, atol=1e-14)
    _, mean, rstd = _C.layer_norm_forward(T(x), [5], None, None, 1e-5)
    r0 = _C.layer_norm_backward(T(gy), T(x), [5], mean, rstd, None)
    r1 = _C.layer_norm_backward(T(gy), T(x), [5], mean, rstd, mint.ones(5, dtype=tandem.float64))
    for a, b in zip(r0, r1):
        close(a, b.numpy(), rtol=1e-14, atol=1e-14)
    _, mean, rstd = _C.group_norm_forward(T(x), 2, None, None, 1e-5)
    r0 = _C.group_norm_backward(T(gy), T(x), 2, mean, rstd, None)
    r1 = _C.group_norm_backward(T(gy), T(x), 2, mean, rstd, mint.ones(4, dtype=tandem.float64))
    for a, b in zip(r0, r1):
        close(a, b.numpy(), rtol=1e-14, atol=1e-14)


def test_backward_float32_and_large_batch_norm_backward():
    """The parallel / channel-block paths agree with the float64 reference."""
    rng = np.random.default_rng(16)
    for shape in [(512, 130), (3, 4, 70, 50)]:
        x, gy = rand(rng, shape), rand(rng, shape)
        C = shape[1]
        w = rand(rng, C)
        _, sm, si = _C.batch_norm_forward(T(x), T(w), None, None, None, True, 1e-5)
        gx64, gw64, gb64 = [t.numpy() for t in
                            _C.batch_norm_backward(T(gy), T(x), T(w), sm, si, True)]
        axes = (0,) + tuple(range(2, x.ndim))
        xhat = (x - bcast_c(sm.numpy(), x.ndim)) * bcast_c(si.numpy(), x.ndim)
        m = x.size // C
        egb = gy.sum(axes)
        egw = (gy * xhat).sum(axes)
        egx = bcast_c(w * si.numpy(), x.ndim) * (gy - bcast_c(egb / m, x.ndim)
                                                 - xhat * bcast_c(egw / m, x.ndim))
        close(gx64, egx, rtol=1e-9, atol=1e-9)
        close(gw64, egw, rtol=1e-9, atol=1e-9)
        close(gb64, egb, rtol=1e-9, atol=1e-9)
        f32 = lambda a: T(a.astype(np.float32))
        _, sm32, si32 = _C.batch_norm_forward(f32(x), f32(w), None, None, None, True, 1e-5)
        gx32, gw32, gb32 = _C.batch_norm_backward(f32(gy), f32(x), f32(w), sm32, si32, True)
        assert gx32.dtype == tandem.float32
        close(gx32, egx, rtol=1e-4, atol=1e-4)
        close(gw32, egw, rtol=1e-4, atol=1e-3)


# --- errors ---------------------------------------------------------------------------------

def test_errors():
    x = mint.randn(2, 3, 4)
    with pytest.raises(ValueError, match=r"running_mean should contain 3 elements .* got 4"):
        F.batch_norm(x, mint.zeros(4), mint.ones(3), training=True)
    with pytest.raises(ValueError, match=r"weight should contain 3 elements .* got 2"):
        F.batch_norm(x, mint.zeros(3), mint.ones(3), weight=mint.ones(2))
    with pytest.raises(ValueError, match=r"running_var should contain 3 elements"):
        F.batch_norm(x, mint.zeros(3), mint.ones(5))
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when "
                                         r"training, got input size \[1, 3\]"):
        F.batch_norm(mint.randn(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="must be defined in evaluation mode"):
        F.batch_norm(x, None, None, training=False)
    with pytest.raises(ValueError, match="at least 2 dims"):
        F.batch_norm(mint.randn(5), None, None, training=True)
    with pytest.raises(TypeError, match="floating-point input"):
        F.batch_norm(mint.ones(2, 3, dtype=tandem.int64), None, None, training=True)
    with pytest.raises(ValueError, match=r"normalized_shape=\[3\], expected input with shape "
                                         r"\[\*, 3\]"):
        F.layer_norm(x, [3])
    with pytest.raises(ValueError, match=r"weight of shape \[3\] and normalized_shape = \[4\]"):
        F.layer_norm(x, [4], mint.ones(3))
    with pytest.raises(ValueError, match="at least 1-dimensional"):
        F.layer_norm(x, [])
    with pytest.raises(ValueError, match=r"divisible by num_groups.*\(3 channels\) and "
                                         r"num_groups=2"):
        F.group_norm(x, 2)
    with pytest.raises(ValueError, match="num_groups must be positive"):
        F.group_norm(x, 0)
    with pytest.raises(ValueError, match=r"bias should contain 3 elements .* got 6"):
        F.group_norm(x, 3, None, mint.zeros(6))
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(mint.randn(2, 3, 1))
    with pytest.raises(ValueError, match="use_input_stats=False"):
        F.instance_norm(x, use_input_stats=False)
    with pytest.raises(ValueError, match=r"weight should contain 3 elements"):
        F.instance_norm(x, weight=mint.ones(4))
    _, sm, si = _C.batch_norm_forward(x, None, None, None, None, True, 1e-5)
    with pytest.raises(ValueError, match=r"grad_output has shape \[2, 3\]"):
        _C.batch_norm_backward(mint.randn(2, 3), x, None, sm, si, True)
    with pytest.raises(ValueError, match="save_mean should contain 3 elements"):
        _C.batch_norm_backward(x, x, None, mint.zeros(2), si, True)
    _, mean, rstd = _C.layer_norm_forward(x, [4], None, None, 1e-5)
    with pytest.raises(ValueError, match="rstd should contain 6 elements"):
        _C.layer_norm_backward(x, x, [4], mean, mint.zeros(5), None)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        _C.group_norm_backward(x, x, 2, mint.zeros(4), mint.zeros(4), None)


@pytest.mark.parametrize("dt", ["float32", "bfloat16", "float64"])
def test_relu_backward_folds_into_batch_norm_backward(dt):
    """relu(batch_norm(x)) differentiated under @jit: the relu's backward joins the norm's
    (one kernel) and the gradients equal eager mode's bit for bit, a NaN output included."""
    rng = np.random.default_rng(4)
    x = T(rng.standard_normal((4, 3, 5, 5)).astype(np.float32)).to(getattr(tandem, dt))
    x[0, 0, 0, 0] = float("nan")
    pdt = np.float64 if dt == "float64" else np.float32  # float32 params with bf16 input
    w = T(rng.standard_normal(3).astype(pdt)).requires_grad_(True)
    b = T(rng.standard_normal(3).astype(pdt)).requires_grad_(True)
    gy = T(rng.standard_normal((4, 3, 5, 5)).astype(np.float32)).to(x.dtype)

    def f(x, gy):
        x = x.detach().requires_grad_(True)
        y = F.relu(F.batch_norm(x, None, None, w, b, training=True))
        y.backward(gy)
        gx = x.grad
        gw, gb = w.grad, b.grad
        w.grad = b.grad = None
        return gx, gw, gb
    eager = f(x, gy)
    step = tandem.jit(f)
    text = step.explain(x, gy)
    assert "relu_mask=True" in text and "relu_backward" not in text.split("optimized")[1]
    for e, g in zip(eager, step(x, gy)):
        np.testing.assert_array_equal(g.float().numpy(), e.float().numpy())
