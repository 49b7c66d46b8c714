"""Native bfloat16 kernels (bf16 tensors in and out, float32 inside): each result is checked
against the float32 computation on the same bf16-rounded inputs, rounded once to bf16, and
against torch 2.13's bf16 kernels where torch is installed."""
import numpy as np
import pytest

from tandem import jit, mint

F = mint.nn.functional


def _bf16(rng, shape, scale=1.0):
    """A bf16 tensor and its exact float32 values."""
    t = mint.tensor((rng.standard_normal(shape) * scale).astype(np.float32)).bfloat16()
    return t, t.float()


def _close_bf16(got, want, ulps=2.0):
    """got (bf16) within `ulps` bf16 ulps of want's magnitude scale (float32 reference)."""
    assert got.dtype == mint.bfloat16
    g, w = got.float().numpy(), want.numpy()
    if g.size == 0:
        assert g.shape == w.shape
        return
    scale = np.maximum(np.abs(w), np.abs(w).max() * 1e-2 + 1e-30)
    err = np.abs(g - w) / scale
    assert err.max() <= ulps * 2.0 ** -8, (float(err.max()), g.ravel()[:4], w.ravel()[:4])


CONV_CASES = [
    # N, C, H, W, O, k, stride, padding, dilation, groups, bias
    (4, 16, 12, 12, 32, 3, 1, 1, 1, 1, True),
    (2, 3, 9, 11, 8, 5, 2, 2, 1, 1, True),
    (2, 8, 7, 7, 8, 3, 1, 1, 1, 2, False),
    (1, 1, 28, 28, 6, 5, 1, 2, 1, 1, True),
    (3, 32, 6, 6, 64, 1, 2, 0, 1, 1, False),
    (2, 16, 10, 10, 16, 3, 1, 2, 2, 1, True),
    (32, 64, 3, 3, 64, 3, 1, 1, 1, 1, False),
    (2, 32, 5, 7, 16, 3, 2, 1, 2, 1, True),   # weight gradient as one GEMM: strided, dilated
    (2, 32, 9, 9, 16, 3, 3, 0, 1, 1, False),  # ... unpadded, stride 3
    (1, 3, 28, 28, 6, 5, 1, 2, 1, 1, True),   # few channels: float32 weight gradient
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_forward_and_both_backward_passes_in_bf16(case):
    N, C, H, W, O, k, s, p, d, g, has_bias = case
    rng = np.random.default_rng(len(CONV_CASES) + N * C + O)
    x, x32 = _bf16(rng, (N, C, H, W))
    w, w32 = _bf16(rng, (O, C // g, k, k), 0.3)
    b, b32 = _bf16(rng, (O,)) if has_bias else (None, None)
    x.requires_grad_(True)
    w.requires_grad_(True)
    if has_bias:
        b.requires_grad_(True)
    y = F.conv2d(x, w, b, s, p, d, g)
    assert y.dtype == mint.bfloat16
    gy, gy32 = _bf16(rng, tuple(y.shape))
    y.backward(gy)

    x32.requires_grad_(True)
    w32.requires_grad_(True)
    if has_bias:
        b32.requires_grad_(True)
    y32 = F.conv2d(x32, w32, b32, s, p, d, g)
    y32.backward(gy32)
    _close_bf16(y.detach(), y32.detach())
    _close_bf16(x.grad, x32.grad)
    _close_bf16(w.grad, w32.grad)
    if has_bias:
        _close_bf16(b.grad, b32.grad)


@pytest.mark.parametrize("case", CONV_CASES[:4])
def test_conv2d_bf16_matches_torch(case):
    torch = pytest.importorskip("torch")
    N, C, H, W, O, k, s, p, d, g, has_bias = case
    rng = np.random.default_rng(7)
    arrs = [rng.standard_normal(sh).astype(np.float32)
            for sh in ((N, C, H, W), (O, C // g, k, k), (O,))]
    mt = [mint.tensor(a).bfloat16().requires_grad_(True) for a in arrs]
    tt = [torch.tensor(a).bfloat16().requires_grad_(True) for a in arrs]
    ym = F.conv2d(mt[0], mt[1], mt[2] if has_bias else None, s, p, d, g)
    yt = torch.nn.functional.conv2d(tt[0], tt[1], tt[2] if has_bias else None, s, p, d, g)
    gy = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    ym.backward(mint.tensor(gy).bfloat16())
    yt.backward(torch.tensor(gy).bfloat16())
    pairs = [(ym.detach(), yt.detach())] + [(a.grad, c.grad) for a, c in zip(mt, tt)][:2 + has_bias]
    # Both accumulate in float32; the summation order may differ, so one bf16 rounding step
    # apart at most. Where tandem's kernels are held to AVX2 (TANDEM_ISA=avx2, or a CPU
    # without AVX512_BF16) it computes from float32 copies and rounds once, while torch
    # still runs its bf16 dot products: half a step more.
    ulps = 1.0 if mint.backends.cpu.get_cpu_capability() == "AVX512" else 1.5
    for got, want in pairs:
        _close_bf16(got, mint.tensor(want.float().numpy()), ulps=ulps)


def test_conv2d_bf16_relu_folded_in_graph_mode_matches_eager():
    rng = np.random.default_rng(3)
    x, _ = _bf16(rng, (2, 8, 10, 10))
    w, _ = _bf16(rng, (16, 8, 3, 3), 0.3)

    def f(x, w):
        return F.relu(F.conv2d(x, w, padding=1))
    compiled = jit(f)
    assert "activation=relu" in compiled.explain(x, w)
    np.testing.assert_array_equal(compiled(x, w).float().numpy(), f(x, w).float().numpy())


def test_conv2d_bf16_empty_batch():
    w = mint.randn(4, 3, 3, 3).bfloat16().requires_grad_(True)
    x = mint.zeros(0, 3, 5, 5).bfloat16().requires_grad_(True)
    y = F.conv2d(x, w, padding=1)
    assert tuple(y.shape) == (0, 4, 5, 5) and y.dtype == mint.bfloat16
    y.sum().backward()
    assert float(w.grad.float().abs().sum()) == 0.0


@pytest.mark.parametrize("shape", [(8, 16, 7, 5), (64, 32), (3, 4, 0, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_reads_and_writes_bf16_with_float32_statistics(shape, training):
    rng = np.random.default_rng(11)
    x, x32 = _bf16(rng, shape, 3.0)
    x = x + 5.0  # a mean far from 0
    x32 = x.float()
    C = shape[1]
    w = mint.tensor(rng.standard_normal(C).astype(np.float32)).requires_grad_(True)
    b = mint.tensor(rng.standard_normal(C).astype(np.float32)).requires_grad_(True)
    w32 = mint.tensor(w.detach().numpy()).requires_grad_(True)
    b32 = mint.tensor(b.detach().numpy()).requires_grad_(True)
    rm, rv = mint.zeros(C), mint.ones(C)
    rm32, rv32 = mint.zeros(C), mint.ones(C)
    x.requires_grad_(True)
    x32.requires_grad_(True)
    if 0 in shape and training:
        return  # covered by the empty-batch rule in test_norm_ops
    y = F.batch_norm(x, rm, rv, w, b, training=training)
    y32 = F.batch_norm(x32, rm32, rv32, w32, b32, training=training)
    assert y.dtype == mint.bfloat16
    gy, gy32 = _bf16(rng, shape)
    y.backward(gy)
    y32.backward(gy32)
    _close_bf16(y.detach(), y32.detach())
    _close_bf16(x.grad, x32.grad)
    for a, c in [(rm, rm32), (rv, rv32), (w.grad, w32.grad), (b.grad, b32.grad)]:
        assert a.dtype == mint.float32
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("args", [(3, 2, 1, 1), (2, 2, 0, 1), (3, 1, 1, 2), (3, 3, 0, 1)])
def test_max_pool_reads_and_writes_bf16(args):
    k, s, p, d = args
    rng = np.random.default_rng(5)
    x, x32 = _bf16(rng, (2, 3, 11, 9))
    x.requires_grad_(True)
    x32.requires_grad_(True)
    y, i = F.max_pool2d(x, k, s, p, d, return_indices=True)
    y32, i32 = F.max_pool2d(x32, k, s, p, d, return_indices=True)
    assert y.dtype == mint.bfloat16
    np.testing.assert_array_equal(y.detach().float().numpy(), y32.detach().numpy())
    np.testing.assert_array_equal(i.numpy(), i32.numpy())
    gy, gy32 = _bf16(rng, tuple(y.shape))
    y.backward(gy)
    y32.backward(gy32)
    _close_bf16(x.grad, x32.grad, ulps=1.0)  # float32 sums rounded once
