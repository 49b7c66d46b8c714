"""NN compute ops against naive numpy references written here: convolutions (forward,
transposed, and the backward ops checked by central finite differences), pooling (max, avg,
adaptive, and backward ops), softmax / log_softmax (+ backward), dropout, embedding, and the
losses; plus the error messages of bad calls."""
import itertools
import math

import numpy as np
import pytest

import tandem
from tandem import mint
from tandem import _C

F = mint.nn.functional
NAN, INF = math.nan, math.inf


def T(a, dt=None):
    t = tandem.from_numpy(np.array(a, copy=True))
    return t if dt is None else t.to(dt)


def N(t):
    return t.to(tandem.float64).numpy() if t.dtype in (tandem.float16, tandem.bfloat16) \
        else t.numpy()


def check(t, expected, dt=None, rtol=1e-12, atol=None):
    assert isinstance(t, tandem.Tensor)
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    if dt is not None:
        assert t.dtype == dt, (t.dtype, dt)
    got = N(t)
    if got.dtype.kind == "f" or expected.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                                   atol=rtol if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def fd_grad(f, x, eps=1e-6):
    """Central finite differences of the scalar f at float64 array x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


# --- convolution references ----------------------------------------------------------------------

def np_conv2d(x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """Direct convolution; pad = (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pl, pb, pr = pad
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    if b is not None:
        out += b[None, :, None, None]
    return out


def np_conv_transpose2d(x, w, b=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0),
                        groups=1, dilation=(1, 1)):
    """Scatter-add formulation: every input pixel adds w * x to its output window."""
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + output_padding[1] + 1
    full = np.zeros((n, cog * groups, ph + oh + sh * h + dh * kh, pw + ow + sw * wd + dw * kw))
    cig = cin // groups
    for ci in range(cin):
        g = ci // cig
        for i in range(kh):
            for j in range(kw):
                full[:, g * cog:(g + 1) * cog, i * dh:i * dh + sh * (h - 1) + 1:sh,
                     j * dw:j * dw + sw * (wd - 1) + 1:sw] += \
                    x[:, ci, None] * w[ci, :, i, j][None, :, None, None]
    out = full[:, :, ph:ph + oh, pw:pw + ow]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def torch_same_pad(k, d):
    total = d * (k - 1)
    return total // 2, total - total // 2


def conv_pad4(padding, kh, kw, dilation):
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        t, b = torch_same_pad(kh, dilation[0])
        l, r = torch_same_pad(kw, dilation[1])
        return (t, l, b, r)
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    return (ph, pw, ph, pw)


CONV_DT = [(tandem.float32, np.float32, 1e-4), (tandem.float64, np.float64, 1e-11)]


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("padding", [0, 1, "same", "valid", (1, 2)], ids=str)
@pytest.mark.parametrize("dilation", [1, 2])
@pytest.mark.parametrize("groups", [1, 2, "depthwise"], ids=str)
def test_conv2d_grid(stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    c = 4
    g = c if groups == "depthwise" else groups
    o = 8 if groups == "depthwise" else 6  # depthwise with channel multiplier 2
    x = rng.standard_normal((2, c, 9, 8))
    w = rng.standard_normal((o, c // g, 3, 2))
    b = rng.standard_normal(o)
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=g)
    if padding == "same" and stride != 1:
        with pytest.raises(ValueError, match="same"):
            F.conv2d(T(x), T(w), **kw)
        return
    pad = conv_pad4(padding, 3, 2, (dilation, dilation))
    for bias in (None, b):
        exp = np_conv2d(x, w, bias, (stride, stride), pad, (dilation, dilation), g)
        for dt, npdt, tol in CONV_DT:
            xt, wt = T(x.astype(npdt)), T(w.astype(npdt))
            bt = None if bias is None else T(bias.astype(npdt))
            ref = exp if npdt == np.float64 else np_conv2d(
                x.astype(npdt).astype(np.float64), w.astype(npdt).astype(np.float64),
                None if bias is None else bias.astype(npdt).astype(np.float64),
                (stride, stride), pad, (dilation, dilation), g)
            check(F.conv2d(xt, wt, bt, **kw), ref, dt, rtol=tol, atol=tol)


@pytest.mark.parametrize("xs,ws,kw", [
    ((1, 1, 5, 5), (1, 1, 3, 3), {}),                        # batch 1, channels 1
    ((3, 1, 7, 4), (2, 1, 1, 1), {}),                        # 1x1 kernel
    ((1, 3, 7, 5), (5, 3, 3, 3), dict(stride=(2, 3), padding=(1, 0))),
    ((2, 3, 5, 5), (4, 3, 5, 5), {}),                        # kernel == input
    ((2, 2, 11, 13), (2, 1, 3, 5), dict(stride=(3, 2), dilation=(2, 1), groups=2)),
    ((1, 6, 4, 9), (3, 2, 2, 3), dict(groups=3, padding=(1, 2))),
    ((2, 3, 6, 6), (4, 3, 4, 4), dict(padding="same")),     # even kernel: asymmetric 'same'
    ((2, 3, 6, 7), (4, 3, 2, 4), dict(padding="same", dilation=(3, 1))),
], ids=str)
def test_conv2d_odd_shapes(xs, ws, kw):
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    s = kw.get("stride", 1)
    s = (s, s) if isinstance(s, int) else s
    d = kw.get("dilation", 1)
    d = (d, d) if isinstance(d, int) else d
    pad = conv_pad4(kw.get("padding", 0), ws[2], ws[3], d)
    exp = np_conv2d(x, w, b, s, pad, d, kw.get("groups", 1))
    check(F.conv2d(T(x), T(w), T(b), **kw), exp, tandem.float64)
    xf, wf, bf = x.astype(np.float32), w.astype(np.float32), b.astype(np.float32)
    exp32 = np_conv2d(xf.astype(np.float64), wf.astype(np.float64), bf.astype(np.float64), s,
                      pad, d, kw.get("groups", 1))
    check(F.conv2d(T(xf), T(wf), T(bf), **kw), exp32, tandem.float32, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(2, 32, 10, 10, 48), (1, 64, 13, 9, 32), (2, 48, 8, 8, 64),
                                   (16, 32, 6, 6, 32), (16, 32, 7, 6, 48), (16, 64, 6, 6, 64),
                                   (16, 64, 3, 3, 96), (64, 64, 3, 3, 64), (2, 64, 9, 9, 80),
                                   (8, 80, 3, 6, 64), (16, 160, 3, 3, 144)],
                         ids=str)
def test_conv2d_winograd_shapes_forward_and_gradients(shape):
    """3x3 stride-1 float32 convolutions with >= 32 channels and >= 8x8 outputs (or 6x6 and
    7x7 ones in batches of >= 64 tiles) run on oneDNN's Winograd F(4x4, 3x3) (kernels/cpu/
    conv_dnnl.cpp), whose 4x4 tiles overhang a 6x6 map; 3x3, 6x6 and 9x9 maps with >= 64
    channels in batches of >= 16 tiles on F(3x3, 3x3) (conv_winograd3.cpp), with
    overlapping windows on 9x9 maps (on 3x3 maps without AVX-512 the forward and input
    gradient from 64 tiles; 160 and 144 channels take the AVX-512 GEMM's k in two chunks and
    a half-filled last panel): output and both gradients stay within 1e-5 of the magnitude
    of the float64 result, with and without bias and a ReLU folded in."""
    n, c, h, w_, o = shape
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, c, h, w_)).astype(np.float32)
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    gy = rng.standard_normal((n, o, h, w_)).astype(np.float32)

    def run(dtype):
        xt = T(x.astype(dtype)).requires_grad_()
        wt = T(w.astype(dtype)).requires_grad_()
        bt = T(b.astype(dtype)).requires_grad_()
        y = F.conv2d(xt, wt, bt, padding=1)
        y.backward(T(gy.astype(dtype)))
        return [N(t).astype(np.float64) for t in (y.detach(), xt.grad, wt.grad, bt.grad)]
    for got, ref in zip(run(np.float32), run(np.float64)):
        assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max()
    relu = tandem.jit(lambda x, w: F.relu(F.conv2d(x, w, padding=1)))
    exp = np.maximum(np_conv2d(x.astype(np.float64), w.astype(np.float64), pad=(1, 1, 1, 1)), 0)
    assert np.abs(N(relu(T(x), T(w))) - exp).max() <= 1e-5 * np.abs(exp).max()


@pytest.mark.parametrize("case", [(16, 1, 28, 6, 5, 1, 2), (4, 1, 40, 64, 7, 2, 3),
                                  (8, 3, 20, 16, 3, 1, 1), (8, 4, 17, 8, 3, 2, 0),
                                  (8, 5, 12, 16, 5, 1, 2)], ids=str)
def test_conv2d_few_input_channels_gradients(case):
    """With 1-4 input channels the input gradient runs in plain NCHW (kernels/cpu/
    conv_dnnl.cpp), the other passes in oneDNN's blocked layouts: every gradient stays
    within 1e-5 of the float64 result's magnitude (5 channels: the blocked path)."""
    n, c, h, o, k, s, p = case
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((o, c, k, k)) / np.sqrt(k * k * c)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    oh = (h + 2 * p - k) // s + 1
    gy = rng.standard_normal((n, o, oh, oh)).astype(np.float32)

    def run(dtype):
        xt, wt, bt = (T(a.astype(dtype)).requires_grad_() for a in (x, w, b))
        y = F.conv2d(xt, wt, bt, stride=s, padding=p)
        y.backward(T(gy.astype(dtype)))
        return [N(t).astype(np.float64) for t in (y.detach(), xt.grad, wt.grad, bt.grad)]
    for got, ref in zip(run(np.float32), run(np.float64)):
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max()


def test_conv2d_unbatched_strided_and_half():
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((3, 6, 5)), rng.standard_normal((4, 3, 3, 3)), \
        rng.standard_normal(4)
    exp = np_conv2d(x[None], w, b, pad=(1, 1, 1, 1))[0]
    y = F.conv2d(T(x), T(w), T(b), padding=1)
    check(y, exp, tandem.float64)
    # non-contiguous input and weight
    xt = T(np.ascontiguousarray(x.transpose(0, 2, 1))).transpose(1, 2)
    wt = T(w[:, :, ::-1].copy()).flip([2])
    check(F.conv2d(xt, wt, T(b), padding=1), exp)
    # float16 runs in float32 and converts back
    xh, wh = x.astype(np.float16), w.astype(np.float16)
    yh = F.conv2d(T(xh), T(wh), padding=1)
    assert yh.dtype == tandem.float16
    np.testing.assert_allclose(N(yh), np_conv2d(xh[None].astype(np.float64),
                                                wh.astype(np.float64), pad=(1, 1, 1, 1))[0],
                               rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(padding=2), dict(padding="same"),
                                dict(padding="valid"), dict(dilation=2, padding=1),
                                dict(groups=2), dict(stride=3, dilation=2, groups=2)], ids=str)
def test_conv1d(kw):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 11))
    w, b = rng.standard_normal((6, 4 // kw.get("groups", 1), 3)), rng.standard_normal(6)
    s, d = kw.get("stride", 1), kw.get("dilation", 1)
    p = kw.get("padding", 0)
    if p == "same":
        lo, hi = torch_same_pad(3, d)
    elif p == "valid":
        lo = hi = 0
    else:
        lo = hi = p
    exp = np_conv2d(x[:, :, None], w[:, :, None], b, (1, s), (0, lo, 0, hi), (1, d),
                    kw.get("groups", 1))[:, :, 0]
    check(F.conv1d(T(x), T(w), T(b), **kw), exp, tandem.float64)
    check(F.conv1d(T(x[0]), T(w), T(b), **kw), exp[0], tandem.float64)   # unbatched (C, L)
    y32 = F.conv1d(T(x.astype(np.float32)), T(w.astype(np.float32)), None, **kw)
    np.testing.assert_allclose(y32.numpy(), exp - b[None, :, None], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kw", [
    dict(),
    dict(stride=2),
    dict(stride=2, padding=1),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=(3, 2), padding=(1, 0), output_padding=(2, 1)),
    dict(groups=2),
    dict(groups=2, stride=2, output_padding=1),
    dict(dilation=2, padding=1),
    dict(dilation=2, stride=1, output_padding=1),   # output_padding < dilation (> stride)
    dict(dilation=(2, 3), stride=2, padding=2, output_padding=(1, 2)),
], ids=str)
def test_conv_transpose2d(kw):
    rng = np.random.default_rng(4)
    g = kw.get("groups", 1)
    x = rng.standard_normal((2, 4, 5, 4))
    w = rng.standard_normal((4, 3, 3, 3))
    b = rng.standard_normal(3 * g)
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    exp = np_conv_transpose2d(x, w, b, pair(kw.get("stride", 1)), pair(kw.get("padding", 0)),
                              pair(kw.get("output_padding", 0)), g, pair(kw.get("dilation", 1)))
    check(F.conv_transpose2d(T(x), T(w), T(b), **kw), exp, tandem.float64, rtol=1e-11)
    check(F.conv_transpose2d(T(x[1]), T(w), T(b), **kw), exp[1], tandem.float64, rtol=1e-11)
    xf, wf = x.astype(np.float32), w.astype(np.float32)
    exp32 = np_conv_transpose2d(xf.astype(np.float64), wf.astype(np.float64), None,
                                pair(kw.get("stride", 1)), pair(kw.get("padding", 0)),
                                pair(kw.get("output_padding", 0)), g, pair(kw.get("dilation", 1)))
    check(F.conv_transpose2d(T(xf), T(wf), **kw), exp32, tandem.float32, rtol=1e-4, atol=1e-4)


def test_conv_transpose2d_errors():
    x, w = T(np.ones((1, 4, 3, 3))), T(np.ones((4, 2, 3, 3)))
    with pytest.raises(ValueError, match="output_padding"):
        F.conv_transpose2d(x, w, stride=2, output_padding=2)
    with pytest.raises(ValueError, match="channels"):
        F.conv_transpose2d(T(np.ones((1, 3, 3, 3))), w)
    with pytest.raises(ValueError, match="conv_transpose2d: negative padding"):
        F.conv_transpose2d(x, w, padding=-1)


CONV_BWD_CASES = [
    dict(stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1),
    dict(stride=(2, 1), pad=(1, 0, 1, 0), dil=(1, 1), groups=1),
    dict(stride=(1, 2), pad=(1, 2, 0, 1), dil=(2, 1), groups=1),   # asymmetric padding
    dict(stride=(2, 2), pad=(1, 1, 1, 1), dil=(1, 1), groups=2),
    dict(stride=(1, 1), pad=(2, 2, 2, 2), dil=(2, 2), groups=4),   # depthwise
]


@pytest.mark.parametrize("case", CONV_BWD_CASES, ids=str)
def test_conv2d_backward_ops_vs_finite_differences(case):
    rng = np.random.default_rng(5)
    s, p, d, g = case["stride"], case["pad"], case["dil"], case["groups"]
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((4, 4 // g, 3, 2))
    y = np_conv2d(x, w, None, s, p, d, g)
    gy = rng.standard_normal(y.shape)
    args = (list(s), list(p), list(d), g)

    def conv(xv, wv):
        return _C.conv2d(T(xv), T(wv), None, *args).numpy()

    gx = _C.conv2d_backward_input(T(gy), T(w), list(x.shape), *args)
    check(gx, fd_grad(lambda xv: float((conv(xv, w) * gy).sum()), x), tandem.float64, rtol=1e-7)
    gw, gb = _C.conv2d_backward_weight(T(x), T(gy), list(w.shape), *args)
    check(gw, fd_grad(lambda wv: float((conv(x, wv) * gy).sum()), w), tandem.float64, rtol=1e-7)
    check(gb, gy.sum(axis=(0, 2, 3)), tandem.float64)
    # float32 (oneDNN) agrees with the float64 path
    f = lambda a: T(a.astype(np.float32))  # noqa: E731
    gx32 = _C.conv2d_backward_input(f(gy), f(w), list(x.shape), *args)
    check(gx32, gx.numpy(), tandem.float32, rtol=1e-4, atol=1e-4)
    gw32, gb32 = _C.conv2d_backward_weight(f(x), f(gy), list(w.shape), *args)
    check(gw32, gw.numpy(), tandem.float32, rtol=1e-4, atol=1e-4)
    check(gb32, gb.numpy(), tandem.float32, rtol=1e-4, atol=1e-4)


def test_conv2d_empty_batch():
    for npdt in (np.float32, np.float64):
        w = np.ones((3, 2, 3, 3), npdt)
        y = F.conv2d(T(np.zeros((0, 2, 5, 5), npdt)), T(w), T(np.ones(3, npdt)))
        assert tuple(y.shape) == (0, 3, 3, 3)
        gw, gb = _C.conv2d_backward_weight(T(np.zeros((0, 2, 5, 5), npdt)),
                                           T(np.zeros((0, 3, 3, 3), npdt)), [3, 2, 3, 3], [1, 1],
                                           [0, 0, 0, 0], [1, 1], 1)
        check(gw, np.zeros((3, 2, 3, 3)))
        check(gb, np.zeros(3))


def test_conv2d_errors():
    x, w = T(np.ones((1, 3, 5, 5))), T(np.ones((2, 4, 3, 3)))
    with pytest.raises(ValueError) as e:
        F.conv2d(x, w)
    msg = str(e.value)
    assert "conv2d" in msg and "4 channels" in msg and "3 channels" in msg, msg
    with pytest.raises(ValueError, match="can't be greater"):
        F.conv2d(T(np.ones((1, 1, 3, 3))), T(np.ones((1, 1, 5, 5))), padding=0)
    with pytest.raises(ValueError, match="can't be greater"):
        F.conv2d(T(np.ones((1, 1, 3, 3))), T(np.ones((1, 1, 3, 3))), dilation=2)
    with pytest.raises(ValueError, match="negative padding"):
        F.conv2d(T(np.ones((1, 1, 5, 5))), T(np.ones((1, 1, 3, 3))), padding=-1)
    with pytest.raises(ValueError, match="stride"):
        F.conv2d(T(np.ones((1, 1, 5, 5))), T(np.ones((1, 1, 3, 3))), stride=0)
    with pytest.raises(ValueError, match="divisible"):
        F.conv2d(T(np.ones((1, 4, 5, 5))), T(np.ones((3, 2, 3, 3))), groups=2)
    with pytest.raises(ValueError, match="bias"):
        F.conv2d(T(np.ones((1, 1, 5, 5))), T(np.ones((2, 1, 3, 3))), T(np.ones(3)))
    with pytest.raises(TypeError, match="dtype"):
        F.conv2d(T(np.ones((1, 1, 5, 5))), T(np.ones((1, 1, 3, 3), dtype=np.float32)))
    with pytest.raises(ValueError, match="input"):
        F.conv2d(T(np.ones((5, 5))), T(np.ones((1, 1, 3, 3))))
    with pytest.raises(ValueError, match="padding"):
        F.conv2d(T(np.ones((1, 1, 5, 5))), T(np.ones((1, 1, 3, 3))), padding="full")


# --- pooling references --------------------------------------------------------------------------

def pool_out(L, k, s, p, d, ceil):
    eff = d * (k - 1) + 1
    if ceil:
        o = -(-(L + 2 * p - eff) // s) + 1
        if (o - 1) * s >= L + p:
            o -= 1
        return o
    return (L + 2 * p - eff) // s + 1


def np_max_pool2d(x, k, s, p, d, ceil):
    *lead, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], d[0], ceil), pool_out(w, k[1], s[1], p[1], d[1], ceil)
    y = np.full((*lead, oh, ow), -np.inf)
    idx = np.full((*lead, oh, ow), -1, dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    ih, iw = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= ih < h and 0 <= iw < w:
                        v = x[..., ih, iw]
                        cur = y[..., i, j]  # PyTorch: the first NaN wins and stays
                        better = (v > cur) | (idx[..., i, j] < 0) | (np.isnan(v) & ~np.isnan(cur))
                        y[..., i, j] = np.where(better, v, y[..., i, j])
                        idx[..., i, j] = np.where(better, ih * w + iw, idx[..., i, j])
    return y, idx


def np_avg_pool2d(x, k, s, p, ceil, cip, div_override):
    *lead, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], 1, ceil), pool_out(w, k[1], s[1], p[1], 1, ceil)
    y = np.zeros((*lead, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            pool = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            div = div_override or (pool if cip else (h1 - h0) * (w1 - w0))
            y[..., i, j] = x[..., h0:h1, w0:w1].sum(axis=(-2, -1)) / div
    return y


def adaptive_bounds(o, n_in, n_out):
    return (o * n_in) // n_out, -(-((o + 1) * n_in) // n_out)


def np_adaptive_pool2d(x, out, fn):
    *lead, h, w = x.shape
    y = np.zeros((*lead, *out))
    for i in range(out[0]):
        h0, h1 = adaptive_bounds(i, h, out[0])
        for j in range(out[1]):
            w0, w1 = adaptive_bounds(j, w, out[1])
            y[..., i, j] = fn(x[..., h0:h1, w0:w1], axis=(-2, -1))
    return y


MAXPOOL_CASES = [
    dict(k=(2, 2), s=None, p=(0, 0), d=(1, 1), ceil=False),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), d=(1, 1), ceil=False),
    dict(k=(3, 2), s=(2, 1), p=(1, 0), d=(1, 1), ceil=True),
    dict(k=(2, 3), s=(3, 2), p=(0, 1), d=(2, 1), ceil=False),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), d=(2, 2), ceil=True),
    dict(k=(2, 2), s=(2, 2), p=(1, 1), d=(1, 1), ceil=True),
    dict(k=(1, 1), s=(1, 1), p=(0, 0), d=(1, 1), ceil=False),
]


@pytest.mark.parametrize("c", MAXPOOL_CASES, ids=str)
@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_max_pool2d(c, dt):
    rng = np.random.default_rng(6)
    # distinct values (no ties), exact in float32
    x = rng.permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8).astype(np.float64) / 8
    s = c["s"] or c["k"]
    ey, ei = np_max_pool2d(x, c["k"], s, c["p"], c["d"], c["ceil"])
    y, idx = F.max_pool2d(T(x, dt), c["k"], c["s"], c["p"], c["d"], ceil_mode=c["ceil"],
                          return_indices=True)
    check(y, ey, dt)
    check(idx, ei, tandem.int64)
    check(F.max_pool2d(T(x[0], dt), c["k"], c["s"], c["p"], c["d"], ceil_mode=c["ceil"]), ey[0],
          dt)


def test_max_pool2d_nan_propagates_and_ties_pick_first():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 1, 0] = NAN
    y, idx = F.max_pool2d(T(x), 2, return_indices=True)
    assert np.isnan(y.numpy()[0, 0, 0, 0]) and idx.numpy()[0, 0, 0, 0] == 4
    check(y[0, 0, 0, 1:], [7.0])
    check(y[0, 0, 1], [13.0, 15.0])
    ties = np.zeros((1, 1, 2, 2))
    check(F.max_pool2d(T(ties), 2, return_indices=True)[1], np.zeros((1, 1, 1, 1), np.int64))
    neg = np.full((1, 1, 3, 3), -5.0)
    check(F.max_pool2d(T(neg), 3, stride=1, padding=1), np.full((1, 1, 3, 3), -5.0))


@pytest.mark.parametrize("c", MAXPOOL_CASES[:4] + [dict(k=(3, 3), s=(1, 1), p=(1, 1), d=(1, 1),
                                                         ceil=False)], ids=str)
@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_max_pool2d_special_values_match_the_scan_order(c, dt):
    """NaN, -inf (whole windows of it next to padding), +inf and many ties through every
    kernel path (the vectorized stride-phase kernel included): values and indices are the
    row-major scan's (a strictly greater value or the first NaN wins)."""
    rng = np.random.default_rng(9)
    x = rng.integers(-3, 3, size=(3, 4, 13, 17)).astype(np.float64)  # many ties
    x[rng.random(x.shape) < 0.05] = np.nan
    x[rng.random(x.shape) < 0.1] = np.inf
    x[..., :4, :4] = -np.inf  # windows with only -inf and padding
    x[1, 2] = -np.inf
    s = c["s"] or c["k"]
    ey, ei = np_max_pool2d(x, c["k"], s, c["p"], c["d"], c["ceil"])
    y, idx = F.max_pool2d(T(x, dt), c["k"], c["s"], c["p"], c["d"], ceil_mode=c["ceil"],
                          return_indices=True)
    np.testing.assert_array_equal(N(y).astype(np.float64), ey)
    np.testing.assert_array_equal(N(idx), ei)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True),
                                dict(kernel_size=2, dilation=3)], ids=str)
def test_max_pool1d(kw):
    rng = np.random.default_rng(7)
    x = rng.permutation(2 * 3 * 11).reshape(2, 3, 11).astype(np.float64)
    k = kw["kernel_size"]
    s = kw.get("stride", k)
    ey, ei = np_max_pool2d(x[:, :, None], (1, k), (1, s), (0, kw.get("padding", 0)),
                           (1, kw.get("dilation", 1)), kw.get("ceil_mode", False))
    y, idx = F.max_pool1d(T(x), return_indices=True, **kw)
    check(y, ey[:, :, 0])
    check(idx, ei[:, :, 0])
    check(F.max_pool1d(T(x[1]), **kw), ey[1, :, 0])


AVGPOOL_CASES = [
    dict(k=(2, 2), s=None, p=(0, 0), ceil=False, cip=True, div=None),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), ceil=False, cip=True, div=None),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), ceil=False, cip=False, div=None),
    dict(k=(3, 2), s=(2, 2), p=(1, 1), ceil=True, cip=True, div=None),
    dict(k=(3, 2), s=(2, 2), p=(1, 1), ceil=True, cip=False, div=None),
    dict(k=(2, 3), s=(3, 2), p=(0, 1), ceil=True, cip=True, div=None),
    dict(k=(3, 3), s=(1, 1), p=(1, 1), ceil=False, cip=True, div=5),
    dict(k=(2, 2), s=(2, 2), p=(0, 0), ceil=True, cip=False, div=3),
]


@pytest.mark.parametrize("c", AVGPOOL_CASES, ids=str)
@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_avg_pool2d(c, dt):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 7, 8))
    if dt == tandem.float32:
        x = x.astype(np.float32).astype(np.float64)
    s = c["s"] or c["k"]
    exp = np_avg_pool2d(x, c["k"], s, c["p"], c["ceil"], c["cip"], c["div"])
    y = F.avg_pool2d(T(x, dt), c["k"], c["s"], c["p"], c["ceil"], c["cip"], c["div"])
    tol = 1e-6 if dt == tandem.float32 else 1e-12
    check(y, exp, dt, rtol=tol, atol=tol)
    check(F.avg_pool2d(T(x[0], dt), c["k"], c["s"], c["p"], c["ceil"], c["cip"], c["div"]),
          exp[0], dt, rtol=tol, atol=tol)


@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=4, stride=3, ceil_mode=True)], ids=str)
def test_avg_pool1d(kw):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 10))
    k = kw["kernel_size"]
    exp = np_avg_pool2d(x[:, :, None], (1, k), (1, kw.get("stride", k)),
                        (0, kw.get("padding", 0)), kw.get("ceil_mode", False),
                        kw.get("count_include_pad", True), None)[:, :, 0]
    check(F.avg_pool1d(T(x), **kw), exp)
    check(F.avg_pool1d(T(x[0]), **kw), exp[0])


@pytest.mark.parametrize("xs,out", [((7, 9), (3, 4)), ((6, 6), (3, 3)), ((5, 7), (5, 7)),
                                    ((5, 7), (1, 1)), ((4, 5), (7, 3)), ((8, 5), (None, 2)),
                                    ((8, 5), (3, None))], ids=str)
def test_adaptive_pool2d(xs, out):
    rng = np.random.default_rng(10)
    x = rng.permutation(2 * 3 * xs[0] * xs[1]).reshape(2, 3, *xs).astype(np.float64)
    full = tuple(xs[i] if o is None else o for i, o in enumerate(out))
    check(F.adaptive_avg_pool2d(T(x), out), np_adaptive_pool2d(x, full, np.mean))
    check(F.adaptive_avg_pool2d(T(x[0]), out), np_adaptive_pool2d(x[0], full, np.mean))
    y, idx = F.adaptive_max_pool2d(T(x), out, return_indices=True)
    check(y, np_adaptive_pool2d(x, full, np.max))
    # the indices point at the maxima
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), -1).reshape(y.shape), y.numpy())
    f32 = F.adaptive_avg_pool2d(T(x.astype(np.float32)), out)
    check(f32, np_adaptive_pool2d(x, full, np.mean), tandem.float32, rtol=1e-6)
    if out[0] is not None and out[1] is not None and out[0] == out[1]:
        check(F.adaptive_avg_pool2d(T(x), out[0]), np_adaptive_pool2d(x, full, np.mean))


def test_adaptive_max_pool2d_nan():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = NAN
    y = F.adaptive_max_pool2d(T(x), (2, 2)).numpy()
    assert np.isnan(y[0, 0, 0, 0])
    check(T(y[0, 0, 1]), [13.0, 15.0])


@pytest.mark.parametrize("L,out", [(10, 3), (7, 7), (5, 8), (9, 1)])
def test_adaptive_avg_pool1d(L, out):
    x = np.random.default_rng(11).standard_normal((2, 3, L))
    exp = np_adaptive_pool2d(x[:, :, None], (1, out), np.mean)[:, :, 0]
    check(F.adaptive_avg_pool1d(T(x), out), exp)
    check(F.adaptive_avg_pool1d(T(x[0]), out), exp[0])


def test_pool_backward_ops_vs_finite_differences():
    rng = np.random.default_rng(12)
    x = rng.permutation(2 * 2 * 6 * 7).reshape(2, 2, 6, 7).astype(np.float64) / 10  # no ties
    # max_pool2d (dilated, padded, ceil_mode): locally linear away from ties
    k, s, p, d = [3, 2], [2, 2], [1, 1], [1, 2]
    y, idx = _C.max_pool2d(T(x), k, s, p, d, True)
    gy = rng.standard_normal(tuple(y.shape))
    gx = _C.max_pool2d_backward(T(gy), idx, list(x.shape))
    f = lambda xv: float((_C.max_pool2d(T(xv), k, s, p, d, True)[0].numpy() * gy).sum())  # noqa
    check(gx, fd_grad(f, x, eps=1e-3), tandem.float64, rtol=1e-9)
    # avg_pool2d over a grid of options
    grid = [([3, 2], [2, 1], [1, 1], ceil, cip, div)
            for ceil, cip, div in itertools.product([False, True], [False, True], [0, 4])]
    # windows tiling the input (its fast path), with a leftover column and row
    grid += [([2, 2], [2, 2], [0, 0], False, True, 0), ([3, 2], [3, 2], [0, 0], False, False, 3)]
    for args in grid:
        y = _C.avg_pool2d(T(x), *args)
        gy = rng.standard_normal(tuple(y.shape))
        gx = _C.avg_pool2d_backward(T(gy), list(x.shape), *args)
        f = lambda xv: float((_C.avg_pool2d(T(xv), *args).numpy() * gy).sum())  # noqa: E731
        check(gx, fd_grad(f, x, eps=1e-3), tandem.float64, rtol=1e-9)
    # adaptive average, non-divisible sizes both ways
    for out in ([4, 3], [7, 9]):
        y = _C.adaptive_avg_pool2d(T(x), out)
        gy = rng.standard_normal(tuple(y.shape))
        gx = _C.adaptive_avg_pool2d_backward(T(gy), list(x.shape))
        f = lambda xv: float((_C.adaptive_avg_pool2d(T(xv), out).numpy() * gy).sum())  # noqa
        check(gx, fd_grad(f, x, eps=1e-3), tandem.float64, rtol=1e-9)


def test_pool_and_softmax_threaded_paths():
    # Big enough for the OpenMP loops (and the softmax column kernel's 256-lane blocks).
    rng = np.random.default_rng(30)
    x = rng.permutation(4 * 8 * 24 * 24).reshape(4, 8, 24, 24).astype(np.float32) / 16
    xd = x.astype(np.float64)
    ey, ei = np_max_pool2d(xd, (3, 3), (2, 2), (1, 1), (1, 1), True)
    y, idx = F.max_pool2d(T(x), 3, 2, 1, ceil_mode=True, return_indices=True)
    check(y, ey, tandem.float32)
    check(idx, ei)
    check(F.avg_pool2d(T(x), 3, 2, 1, count_include_pad=False),
          np_avg_pool2d(xd, (3, 3), (2, 2), (1, 1), False, False, None), rtol=1e-6)
    check(F.adaptive_avg_pool2d(T(x), (5, 7)), np_adaptive_pool2d(xd, (5, 7), np.mean),
          rtol=1e-6)
    s = rng.standard_normal((6, 7, 300)) * 5
    for dim in (0, 1, 2):
        check(F.softmax(T(s), dim), np_softmax(s, dim), rtol=1e-13, atol=1e-15)
        check(F.log_softmax(T(s), dim), np_log_softmax(s, dim), rtol=1e-13)


def test_pool_backward_float32():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    y, idx = _C.max_pool2d(T(x), [2, 2], [2, 2], [0, 0], [1, 1], False)
    gy = np.ones(tuple(y.shape), np.float32)
    gx = _C.max_pool2d_backward(T(gy), idx, list(x.shape))
    assert gx.dtype == tandem.float32
    exp = np.zeros((1, 2, 25), np.float32)
    np.put_along_axis(exp, idx.numpy().reshape(1, 2, -1), 1.0, -1)
    check(gx, exp.reshape(x.shape))


@pytest.mark.parametrize("dt", [tandem.float32, tandem.bfloat16], ids=str)
def test_max_pool2d_backward_checks_every_index(dt):
    """The backward's indices are an input: -1 (no window) sends nothing, an index outside
    the plane raises IndexError naming it (checked inside the threaded scatter, which skips
    it), and overlapping windows sum into one cell. Planes enough for several threads."""
    planes, H, W = 6000, 6, 6  # 36,000 outputs: two threads' worth
    idx = np.tile(np.array([0, 7, 7, -1, 35, 14], np.int64), (planes, 1)).reshape(1, planes, 2, 3)
    gy = np.ones(idx.shape, np.float32)
    gx = _C.max_pool2d_backward(T(gy, dt), T(idx), [1, planes, H, W])
    exp = np.zeros((1, planes, H * W), np.float32)
    for k in (0, 7, 7, 35, 14):
        exp[..., k] += 1
    check(gx.float(), exp.reshape(1, planes, H, W))
    for bad in (36, -2, 1 << 40):
        wrong = idx.copy()
        wrong[0, planes - 1, 1, 2] = bad  # the last plane: another thread's share
        with pytest.raises(IndexError, match=f"index {bad} out of range for a 6x6 plane"):
            _C.max_pool2d_backward(T(gy, dt), T(wrong), [1, planes, H, W])


def test_pool_errors():
    x = T(np.ones((1, 1, 6, 6)))
    with pytest.raises(ValueError, match="pad"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError, match="pad"):
        F.avg_pool2d(x, 3, padding=2)
    with pytest.raises(ValueError, match="pad"):
        F.max_pool2d(x, 2, padding=-1)
    with pytest.raises(ValueError, match="positive"):
        F.max_pool2d(x, 0)
    with pytest.raises(ValueError, match="too small"):
        F.max_pool2d(T(np.ones((1, 1, 2, 2))), 3)
    with pytest.raises(ValueError, match="3-D"):
        F.max_pool2d(T(np.ones((6, 6))), 2)
    with pytest.raises(TypeError, match="floating"):
        F.avg_pool2d(T(np.ones((1, 1, 4, 4), np.int64)), 2)
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_avg_pool2d(x, (-1, 2))
    with pytest.raises(ValueError, match="output_size"):  # exactly two sizes, as torch
        F.adaptive_avg_pool2d(x, [3])
    # An output size of 0 is an empty result (torch), and its gradient is zero.
    xg = T(np.ones((1, 2, 3, 4))).requires_grad_(True)
    y = F.adaptive_avg_pool2d(xg, (0, 2))
    assert tuple(y.shape) == (1, 2, 0, 2)
    y.sum().backward()
    assert not xg.grad.numpy().any()
    assert tuple(F.adaptive_max_pool2d(x, 0).shape[-2:]) == (0, 0)


# --- softmax -------------------------------------------------------------------------------------

def np_log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def np_softmax(x, axis):
    return np.exp(np_log_softmax(x, axis))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_softmax_every_dim(dim, dt):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((3, 5, 19)) * 4
    if dt == tandem.float32:
        x = x.astype(np.float32).astype(np.float64)
    tol = 1e-6 if dt == tandem.float32 else 1e-13
    check(F.softmax(T(x, dt), dim), np_softmax(x, dim), dt, rtol=tol, atol=tol)
    check(F.log_softmax(T(x, dt), dim), np_log_softmax(x, dim), dt, rtol=tol, atol=tol)
    check(T(x, dt).softmax(dim), np_softmax(x, dim), dt, rtol=tol, atol=tol)
    check(mint.log_softmax(T(x, dt), dim=dim), np_log_softmax(x, dim), dt, rtol=tol, atol=tol)
    # strided (transposed) input
    xt = T(x, dt).transpose(0, 2)
    check(F.softmax(xt, dim), np_softmax(x.transpose(2, 1, 0), dim), dt, rtol=tol, atol=tol)


def test_softmax_stability_and_inf():
    big = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0]])
    for dt in (tandem.float32, tandem.float64):
        check(F.softmax(T(big, dt), 1), np_softmax(big, 1), dt, rtol=1e-6, atol=1e-7)
        check(F.log_softmax(T(big, dt), 1), np_log_softmax(big, 1), dt, rtol=1e-6, atol=1e-5)
        check(F.softmax(T(big, dt), 0), np_softmax(big, 0), dt, rtol=1e-6, atol=1e-7)
    # -inf entries get probability 0, log-probability -inf; an all -inf row is nan
    x = np.array([[0.0, -INF, 1.0, -INF], [-INF, -INF, -INF, -INF]])
    sm = F.softmax(T(x), 1).numpy()
    np.testing.assert_allclose(sm[0], np_softmax(x[:1], 1)[0], rtol=1e-14)
    assert np.isnan(sm[1]).all()
    ls = F.log_softmax(T(x), 1).numpy()
    assert ls[0, 1] == -INF and ls[0, 3] == -INF
    np.testing.assert_allclose(ls[0, [0, 2]], np_log_softmax(x[:1, [0, 2]], 1)[0], rtol=1e-14)
    # along a non-last dim (column kernel) too
    check(F.softmax(T(x.T.copy()), 0)[:, 0], sm[0])
    # wide rows take the SIMD path
    w = np.random.default_rng(15).standard_normal((2, 1000)) * 30
    check(F.softmax(T(w.astype(np.float32)), -1),
          np_softmax(w.astype(np.float32).astype(np.float64), -1), tandem.float32, rtol=1e-5,
          atol=1e-7)
    check(F.log_softmax(T(w), -1), np_log_softmax(w, -1), tandem.float64, rtol=1e-13)


def test_softmax_dtype_arg_and_half():
    x = np.random.default_rng(16).standard_normal((4, 6))
    y = F.softmax(T(x.astype(np.float32)), 1, dtype=tandem.float64)
    check(y, np_softmax(x.astype(np.float32).astype(np.float64), 1), tandem.float64, rtol=1e-12)
    yh = F.softmax(T(x.astype(np.float16)), 1)
    check(yh, np_softmax(x.astype(np.float16).astype(np.float64), 1), tandem.float16, rtol=2e-3,
          atol=1e-3)
    check(F.softmax(T(x[0]), 0), np_softmax(x[0], 0))
    check(F.softmax(T(np.float64(3.0)), 0), np.float64(1.0))        # 0-d
    check(F.log_softmax(T(np.float64(3.0)), -1), np.float64(0.0))
    assert tuple(F.softmax(T(np.zeros((0, 5))), 1).shape) == (0, 5)
    with pytest.raises(IndexError):
        F.softmax(T(x), 2)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_backward_ops_vs_finite_differences(dim):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((3, 4, 5))
    g = rng.standard_normal(x.shape)
    y = _C.softmax(T(x), dim)
    gx = _C.softmax_backward(y, T(g), dim)
    f = lambda xv: float((_C.softmax(T(xv), dim).numpy() * g).sum())  # noqa: E731
    check(gx, fd_grad(f, x), tandem.float64, rtol=1e-7, atol=1e-8)
    ly = _C.log_softmax(T(x), dim)
    lgx = _C.log_softmax_backward(ly, T(g), dim)
    f = lambda xv: float((_C.log_softmax(T(xv), dim).numpy() * g).sum())  # noqa: E731
    check(lgx, fd_grad(f, x), tandem.float64, rtol=1e-7, atol=1e-8)


# --- dropout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_rate_and_scaling(p):
    x = np.ones((200, 100))
    y = F.dropout(T(x), p).numpy()
    zero = y == 0
    # 20000 Bernoulli draws: the kept fraction is within 5 sigma of 1 - p
    assert abs(zero.mean() - p) < 5 * math.sqrt(p * (1 - p) / x.size)
    np.testing.assert_allclose(y[~zero], 1 / (1 - p), rtol=1e-14)
    yf = F.dropout(T(x.astype(np.float32)), p)
    assert yf.dtype == tandem.float32
    np.testing.assert_allclose(yf.numpy()[yf.numpy() != 0], 1 / (1 - p), rtol=1e-6)


def test_dropout_eval_edges_and_determinism():
    x = np.random.default_rng(18).standard_normal((4, 5))
    check(F.dropout(T(x), 0.5, training=False), x)
    check(F.dropout(T(x), 0.0), x)
    check(F.dropout(T(x), 1.0), np.zeros_like(x))
    check(mint.nn.functional.dropout(T(x), 0.0), x)
    tandem.manual_seed(7)
    a = F.dropout(T(x), 0.5).numpy()
    tandem.manual_seed(7)
    b = F.dropout(T(x), 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    nz = a != 0
    np.testing.assert_allclose(a[nz], 2 * x[nz], rtol=1e-14)
    c = F.dropout(T(x), 0.5).numpy()
    assert not np.array_equal(a, c)  # the generator advanced
    xt = T(x)
    r = F.dropout(xt, 0.5, inplace=True)
    np.testing.assert_array_equal(xt.numpy(), r.numpy())
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="probability"):
            F.dropout(T(x), bad)


def test_dropout2d_whole_channels():
    x = np.random.default_rng(19).standard_normal((8, 16, 3, 4)) + 10  # no zeros
    y = F.dropout2d(T(x), 0.5).numpy()
    per_ch = (y == 0).reshape(8, 16, -1)
    assert (per_ch.all(-1) | ~per_ch.any(-1)).all()  # a channel is all dropped or all kept
    kept = ~per_ch.all(-1)
    assert 0.25 < kept.mean() < 0.75
    np.testing.assert_allclose(y[kept], 2 * x[kept], rtol=1e-14)
    check(F.dropout2d(T(x), 0.5, training=False), x)
    check(F.dropout2d(T(x), 1.0), np.zeros_like(x))
    y3 = F.dropout2d(T(x[0]), 0.5).numpy()  # (C, H, W): channels are dim 0
    z3 = (y3 == 0).reshape(16, -1)
    assert (z3.all(-1) | ~z3.any(-1)).all()
    with pytest.raises(ValueError, match="dropout2d"):
        F.dropout2d(T(np.ones((3, 4))), 0.5)


# --- embedding ----------------------------------------------------------------------------------

def test_embedding():
    rng = np.random.default_rng(20)
    w = rng.standard_normal((10, 4))
    idx = np.array([[1, 2, 4, 5], [4, 3, 2, 9]])
    check(F.embedding(T(idx), T(w)), w[idx], tandem.float64)
    check(F.embedding(T(idx[0]), T(w)), w[idx[0]])
    check(F.embedding(T(np.int64(3)), T(w)), w[3])
    check(F.embedding(T(idx.astype(np.int32)), T(w.astype(np.float32))),
          w.astype(np.float32)[idx], tandem.float32)
    # padding_idx does not change the forward values
    check(F.embedding(T(idx), T(w), padding_idx=2), w[idx])
    check(F.embedding(T(idx), T(w), padding_idx=-1), w[idx])
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(T(np.array([10])), T(w))
    with pytest.raises(IndexError, match="out of range"):  # no numpy-style wrap-around
        F.embedding(T(np.array([[0, -1]])), T(w))
    check(F.embedding(T(np.zeros((0, 2), np.int64)), T(w)), np.zeros((0, 2, 4)))
    with pytest.raises(TypeError, match="integer"):
        F.embedding(T(np.array([1.0])), T(w))


@pytest.mark.parametrize("padding_idx", [-1, 2])
def test_embedding_backward(padding_idx):
    rng = np.random.default_rng(21)
    idx = np.array([[1, 2, 2, 5], [2, 0, 1, 1]])
    g = rng.standard_normal((2, 4, 3))
    exp = np.zeros((6, 3))
    np.add.at(exp, idx.reshape(-1), g.reshape(-1, 3))
    if padding_idx >= 0:
        exp[padding_idx] = 0
    check(_C.embedding_backward(T(g), T(idx), 6, padding_idx), exp, tandem.float64, rtol=1e-14)
    g32 = _C.embedding_backward(T(g.astype(np.float32)), T(idx), 6, padding_idx)
    check(g32, exp, tandem.float32, rtol=1e-6)
    with pytest.raises(IndexError, match="out of range"):
        _C.embedding_backward(T(g), T(idx), 5, padding_idx)


# --- losses -------------------------------------------------------------------------------------

def reduce_np(l, reduction):
    return {"none": l, "sum": l.sum(), "mean": l.mean()}[reduction]


def np_nll(logp, t, weight=None, ignore_index=-100, reduction="mean"):
    unb = logp.ndim == 1
    if unb:
        logp, t = logp[None], np.asarray(t)[None]
    c = logp.shape[1]
    w = np.ones(c) if weight is None else weight
    valid = t != ignore_index
    ts = np.where(valid, t, 0)
    picked = np.take_along_axis(logp, ts[:, None], 1)[:, 0]
    wt = w[ts] * valid
    loss = np.where(valid, -picked * wt, 0.0)
    if reduction == "none":
        return loss[0] if unb else loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def np_cross_entropy(x, t, weight=None, ignore_index=-100, reduction="mean", ls=0.0):
    unb = x.ndim == 1
    if unb:
        x, t = x[None], np.asarray(t)[None]
    c = x.shape[1]
    logp = np_log_softmax(x, 1)
    w = np.ones(c) if weight is None else weight
    wb = w.reshape((1, c) + (1,) * (x.ndim - 2))
    if t.dtype.kind == "f":
        tp = t * (1 - ls) + ls / c
        loss = -(logp * tp * wb).sum(1)
        if reduction == "mean":
            return loss.sum() / (x.size / c)
        return (loss[0] if unb else loss) if reduction == "none" else loss.sum()
    valid = t != ignore_index
    ts = np.where(valid, t, 0)
    nll = -np.take_along_axis(logp, ts[:, None], 1)[:, 0] * w[ts] * valid
    smooth = -(logp * wb).sum(1) * valid
    if reduction == "none":
        loss = (1 - ls) * nll + ls / c * smooth
        return loss[0] if unb else loss
    if reduction == "sum":
        return (1 - ls) * nll.sum() + ls / c * smooth.sum()
    den = (w[ts] * valid).sum()
    return (1 - ls) * nll.sum() / den + ls / c * smooth.sum() / den


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ls", [0.0, 0.1])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,)], ids=str)
def test_cross_entropy_class_indices(reduction, weighted, ls, shape):
    rng = np.random.default_rng(22)
    x = rng.standard_normal(shape) * 3
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    t = rng.integers(0, c, tshape)
    if len(shape) > 1:
        t.reshape(-1)[1] = -100     # one ignored target
    w = rng.uniform(0.5, 2.0, c) if weighted else None
    exp = np_cross_entropy(x, t, w, -100, reduction, ls)
    got = F.cross_entropy(T(x), T(t), None if w is None else T(w), reduction=reduction,
                          label_smoothing=ls)
    check(got, exp, tandem.float64, rtol=1e-12)
    xf = x.astype(np.float32)
    got32 = F.cross_entropy(T(xf), T(t), None if w is None else T(w.astype(np.float32)),
                            reduction=reduction, label_smoothing=ls)
    check(got32, exp, tandem.float32, rtol=2e-5, atol=2e-5)


def test_cross_entropy_ignore_index_custom_and_all_ignored():
    rng = np.random.default_rng(23)
    x = rng.standard_normal((4, 3))
    t = np.array([0, 2, 1, 2])
    check(F.cross_entropy(T(x), T(t), ignore_index=2), np_cross_entropy(x, t, None, 2))
    check(F.cross_entropy(T(x), T(t), ignore_index=2, reduction="none"),
          np_cross_entropy(x, t, None, 2, "none"))
    assert np.isnan(F.cross_entropy(T(x), T(np.full(4, -100))).item())
    # an ignored target next to a -inf logit at class 0 still gives a finite loss
    xi = x.copy()
    xi[1, 0] = -INF
    check(F.cross_entropy(T(xi), T(np.array([1, -100, 0, 2])), reduction="none"),
          np_cross_entropy(np.where(np.isinf(xi), -1e300, xi), np.array([1, -100, 0, 2]), None,
                           -100, "none"))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4), (5,)], ids=str)
def test_cross_entropy_probabilities(reduction, ls, shape):
    rng = np.random.default_rng(24)
    x = rng.standard_normal(shape)
    cdim = 1 if len(shape) > 1 else 0
    p = np_softmax(rng.standard_normal(shape), cdim)
    w = rng.uniform(0.5, 2.0, shape[cdim])
    for weight in (None, w):
        exp = np_cross_entropy(x, p, weight, reduction=reduction, ls=ls)
        check(F.cross_entropy(T(x), T(p), None if weight is None else T(weight),
                              reduction=reduction, label_smoothing=ls), exp, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss(reduction):
    rng = np.random.default_rng(25)
    logp = np_log_softmax(rng.standard_normal((5, 4, 3)), 1)
    t = rng.integers(0, 4, (5, 3))
    t[0, 0] = 7  # ignore_index below
    w = rng.uniform(0.5, 2, 4)
    check(F.nll_loss(T(logp), T(t), T(w), ignore_index=7, reduction=reduction),
          np_nll(logp.transpose(0, 2, 1).reshape(-1, 4), t.reshape(-1), w, 7,
                 reduction).reshape(() if reduction != "none" else (5, 3)), rtol=1e-12)
    l2 = logp[:, :, 0]
    check(F.nll_loss(T(l2), T(t[:, 1]), reduction=reduction),
          np_nll(l2, t[:, 1], reduction=reduction), rtol=1e-12)
    check(F.nll_loss(T(l2[0]), T(np.int64(2)), reduction=reduction), -l2[0, 2], rtol=1e-12)
    # legacy flags
    check(F.nll_loss(T(l2), T(t[:, 1]), size_average=False), np_nll(l2, t[:, 1], reduction="sum"))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_regression_losses(reduction):
    rng = np.random.default_rng(26)
    a, b = rng.standard_normal((4, 5)) * 2, rng.standard_normal((4, 5)) * 2
    d = a - b
    check(F.mse_loss(T(a), T(b), reduction=reduction), reduce_np(d * d, reduction))
    check(F.l1_loss(T(a), T(b), reduction=reduction), reduce_np(np.abs(d), reduction))
    ad = np.abs(d)
    for beta in (1.0, 0.5, 2.0, 0.0):
        exp = ad if beta == 0 else np.where(ad < beta, 0.5 * ad ** 2 / max(beta, 1e-300),
                                            ad - 0.5 * beta)
        check(F.smooth_l1_loss(T(a), T(b), reduction=reduction, beta=beta),
              reduce_np(exp, reduction), rtol=1e-13)
    for delta in (1.0, 0.5, 3.0):
        exp = np.where(ad < delta, 0.5 * ad ** 2, delta * (ad - 0.5 * delta))
        check(F.huber_loss(T(a), T(b), reduction=reduction, delta=delta),
              reduce_np(exp, reduction), rtol=1e-13)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    check(F.mse_loss(T(af), T(bf), reduction=reduction),
          reduce_np((af.astype(np.float64) - bf) ** 2, reduction), tandem.float32, rtol=1e-5)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_binary_cross_entropy(reduction):
    rng = np.random.default_rng(27)
    p = rng.uniform(0.01, 0.99, (4, 5))
    p[0, :2] = [0.0, 1.0]  # log clamps at -100
    t = rng.uniform(0, 1, (4, 5))
    t[0, :2] = [0.5, 0.25]
    w = rng.uniform(0.5, 2, (5,))
    with np.errstate(divide="ignore"):
        lx, l1x = np.maximum(np.log(p), -100), np.maximum(np.log(1 - p), -100)
    base = -(t * lx + (1 - t) * l1x)
    check(F.binary_cross_entropy(T(p), T(t), reduction=reduction), reduce_np(base, reduction),
          rtol=1e-12)
    check(F.binary_cross_entropy(T(p), T(t), T(w), reduction=reduction),
          reduce_np(base * w, reduction), rtol=1e-12)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.binary_cross_entropy(T(p + 1), T(t))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_binary_cross_entropy_with_logits(reduction):
    rng = np.random.default_rng(28)
    x = rng.standard_normal((4, 5)) * 3
    x[0, :4] = [200.0, -200.0, 800.0, -800.0]  # stable for large logits
    t = rng.uniform(0, 1, (4, 5))
    t[0, :4] = [0.0, 1.0, 1.0, 0.0]
    pw = rng.uniform(0.5, 3, (5,))
    w = rng.uniform(0.5, 2, (4, 1))
    sp = np.logaddexp(0, -x)  # log(1 + exp(-x))
    base = (1 - t) * x + sp
    check(F.binary_cross_entropy_with_logits(T(x), T(t), reduction=reduction),
          reduce_np(base, reduction), rtol=1e-12)
    lw = 1 + (pw - 1) * t
    check(F.binary_cross_entropy_with_logits(T(x), T(t), T(w), reduction=reduction,
                                             pos_weight=T(pw)),
          reduce_np(((1 - t) * x + lw * sp) * w, reduction), rtol=1e-12)
    r32 = F.binary_cross_entropy_with_logits(T(x.astype(np.float32)), T(t.astype(np.float32)),
                                             reduction="none").numpy()
    assert np.isfinite(r32).all()
    np.testing.assert_allclose(r32, base, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    rng = np.random.default_rng(29)
    inp = np_log_softmax(rng.standard_normal((4, 5)), 1)
    tp = np_softmax(rng.standard_normal((4, 5)), 1)
    if log_target:
        # PyTorch's formula exp(t) * (t - input): a -inf log-target would give nan there too.
        tgt = np.log(tp)
        pw = np.exp(tgt) * (tgt - inp)
    else:
        tp[0, 0] = 0.0  # 0 * log 0 counts as 0
        tgt = tp
        with np.errstate(divide="ignore", invalid="ignore"):
            pw = np.where(tp > 0, tp * (np.log(tp) - inp), 0.0)
    exp = pw.sum() / 4 if reduction == "batchmean" else reduce_np(pw, reduction)
    check(F.kl_div(T(inp), T(tgt), reduction=reduction, log_target=log_target), exp,
          rtol=1e-12)


def test_loss_errors():
    x = T(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, T(np.array([0, 4, 1])))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, T(np.array([0, -2, 1])))
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(x, T(np.array([0, 1, 9])))
    for fn, args in [(F.cross_entropy, (x, T(np.array([0, 1, 2])))),
                     (F.nll_loss, (x, T(np.array([0, 1, 2])))),
                     (F.mse_loss, (x, x)), (F.l1_loss, (x, x)), (F.smooth_l1_loss, (x, x)),
                     (F.huber_loss, (x, x)), (F.binary_cross_entropy, (x, x)),
                     (F.binary_cross_entropy_with_logits, (x, x)), (F.kl_div, (x, x))]:
        with pytest.raises(ValueError, match="reduction"):
            fn(*args, reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(x, x, reduction="batchmean")
    with pytest.raises(ValueError, match="target"):
        F.cross_entropy(x, T(np.array([0, 1])))
    with pytest.raises(ValueError, match="size"):
        F.cross_entropy(x, T(np.zeros((3, 5))))
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, T(np.array([0, 1, 2])), label_smoothing=1.5)
    with pytest.raises(ValueError, match="weight"):
        F.cross_entropy(x, T(np.array([0, 1, 2])), T(np.ones(3)))
    with pytest.raises(ValueError, match="cross_entropy"):
        F.cross_entropy(T(np.float64(1.0)), T(np.int64(0)))
    with pytest.raises(TypeError):
        F.nll_loss(x, T(np.zeros(3)))
    with pytest.raises(ValueError, match="same as input size"):
        F.binary_cross_entropy_with_logits(x, T(np.zeros((3, 5))))


@pytest.mark.parametrize("shape,k,s,p", [((2, 3, 1, 1), (3, 3), (2, 2), (1, 1)),
                                         ((1, 2, 5, 7), (3, 3), (2, 2), (1, 1)),
                                         ((1, 1, 6, 4), (2, 3), (1, 2), (0, 1)),
                                         ((2, 2, 9, 9), (3, 3), (3, 3), (1, 1))])
def test_max_pool2d_values_indices_ties_and_nan(shape, k, s, p):
    """The undilated kernel's row-at-a-time loop against numpy: small images where windows
    hang over every edge, repeated values (the first maximum's index wins) and NaN (wins,
    first one)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=shape).astype(np.float64)  # many ties
    x.flat[rng.integers(0, x.size, size=max(1, x.size // 9))] = np.nan
    ey, ei = np_max_pool2d(x, k, s, p, (1, 1), False)
    y, idx = F.max_pool2d(T(x), k, s, p, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ey)
    np.testing.assert_array_equal(idx.numpy(), ei)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_short_rows_match_torch_rules(log):
    """Rows shorter than a vector and row tails (1..40 elements: attention over a few keys)
    run as partial vectors; values, -inf columns, all -inf rows and NaN as numpy says, and
    the backward against the closed form. Enough rows to take the threaded path."""
    rng = np.random.default_rng(12)
    for R in list(range(1, 20)) + [31, 33, 40]:
        x = (rng.standard_normal((300, R)) * 4).astype(np.float32)
        x[1, 0] = -np.inf
        x[2, :] = -np.inf
        x[3, R // 2] = np.nan
        xd = x.astype(np.float64)
        m = np.max(np.where(np.isnan(xd), -np.inf, xd), axis=1, keepdims=True)
        m = np.where(np.isinf(m), 0, m)
        e = np.exp(xd - m)
        with np.errstate(divide="ignore", invalid="ignore"):
            want = (xd - m) - np.log(e.sum(1, keepdims=True)) if log else \
                e / e.sum(1, keepdims=True)
        t = mint.tensor(x, requires_grad=True)
        y = (F.log_softmax if log else F.softmax)(t, dim=-1)
        np.testing.assert_allclose(y.detach().numpy(), want, rtol=2e-6, atol=1e-6)
        g = rng.standard_normal((300, R)).astype(np.float32)
        y.backward(mint.tensor(g))
        ok = np.isfinite(want).all(1)
        yv = want[ok]
        gw = (g[ok] - np.exp(yv) * g[ok].sum(1, keepdims=True)) if log else \
            yv * (g[ok] - (g[ok] * yv).sum(1, keepdims=True))
        np.testing.assert_allclose(t.grad.numpy()[ok], gw, rtol=1e-5, atol=1e-6)
