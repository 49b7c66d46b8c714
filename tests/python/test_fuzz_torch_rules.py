"""Regression tests for the last mismatch classes the differential fuzzer found against
PyTorch (argument checks torch makes, corner cases it accepts, gradient conventions at
boundary values, value checks inside @jit); torch is the oracle where it is installed."""
import math

import numpy as np
import pytest

import tandem
from tandem import mint
import tandem.mint.nn.functional as F

torch = pytest.importorskip("torch")


def both(call):
    """call(lib) on torch and on mint: (torch result, mint result) as numpy arrays."""
    t, m = call(torch), call(mint)
    return t.detach().float().numpy(), m.detach().float().numpy()


# --- checks torch makes, now made by tandem too -----------------------------------------

@pytest.mark.parametrize("call", [
    lambda m: m.dropout(m.ones(3), 0.5, True, False),            # torch.dropout has 3 args
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(2, 2, 3), [3]),  # exactly 2 sizes
    lambda m: m.nn.functional.threshold(m.ones(3, dtype=m.float16), -1, 70000.0),
    lambda m: m.nn.functional.hardtanh(m.ones(2, dtype=m.float16), -1, 70000.0),
    lambda m: m.clamp(m.ones((), dtype=m.int16), 2 ** 40, m.ones((), dtype=m.uint8)),
    lambda m: m.scatter_add(m.ones(()), 0, m.tensor(0), m.ones((), dtype=m.int32)),
    lambda m: m.index_select(m.tensor([1.0, 2.0, 3.0]), 0, m.tensor([-1])),
    lambda m: m.index_add(m.tensor([1, 2, 3]), 0, m.tensor([-1]), m.tensor([5])),
    lambda m: m.nn.functional.batch_norm(m.ones(2, 3), m.zeros(3, dtype=m.float64),
                                         m.ones(3, dtype=m.float64)),
    lambda m: m.nn.functional.huber_loss(m.tensor([1, 2], dtype=m.int32),
                                         m.tensor([1.0, 3.0], dtype=m.float16)),
    lambda m: m.nn.functional.binary_cross_entropy_with_logits(
        m.ones(2), m.ones(2, dtype=m.int32)),
    lambda m: m.nn.functional.binary_cross_entropy_with_logits(
        m.ones(1), m.ones(1), pos_weight=m.ones(3)),
    lambda m: m.ones(3, dtype=m.int32).div_(m.ones(3, dtype=m.float16), rounding_mode="trunc"),
    lambda m: m.pow(m.ones(1, dtype=m.float16), 1e30),
    lambda m: m.ones(3, dtype=m.uint8).pow_(2 ** 40),
    lambda m: m.ones((), dtype=m.uint8).pow_(-1),
    lambda m: m.arange(0, 10, float("inf"), dtype=m.int32),
    lambda m: m.arange(0.001, 2.5, 1e30, dtype=m.int16),
    lambda m: m.addmm(m.ones(3, 3), m.ones(1, 3), m.ones(3, 3)),
    lambda m: m.baddbmm(m.ones(1, 4, 3), m.ones(1, 1, 1), m.ones(1, 1, 3)),
    lambda m: m.nn.functional.unfold(m.ones(1, 0, 5, 4), [1, 2]),
    lambda m: m.full_like(m.ones(2, dtype=m.bfloat16), 1e39),
    lambda m: m.nn.functional.linear(m.ones(2, 1), m.ones(1), m.ones(())),
    lambda m: m.arange(0, 2, 0.5, dtype=m.int64),                # step truncates to 0
    lambda m: m.ones(1, dtype=m.int16).masked_fill_(m.tensor([True]),
                                                    m.tensor(1e30, dtype=m.float64)),
    lambda m: m.sub(m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int32), alpha=-2 ** 31),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 3), size=[6],
                                          recompute_scale_factor=True),
    lambda m: m.nn.functional.binary_cross_entropy(m.tensor(0.5), m.tensor(1.0),
                                                   m.ones(1, 3)),   # weight past input
    lambda m: m.nn.functional.batch_norm(m.ones(3, 3), None, m.ones(3), training=True),
    lambda m: m.normal(m.ones(5, dtype=m.float64), -5),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), 4, align_corners=False),
    lambda m: m.arange(0, 1e30, 1e300, dtype=m.bfloat16),      # 16-bit counts in float32
    lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)),                # no dim of size 3
    lambda m: m.cross(m.ones(5, 3, 2), m.ones(1, 1, 2), 1),       # 3 vs 1 along dim
])
def test_torch_raises_so_does_mint(call):
    with pytest.raises((RuntimeError, IndexError, TypeError, ValueError, NotImplementedError)):
        call(torch)
    with pytest.raises((RuntimeError, IndexError, TypeError, ValueError)):
        call(mint)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(1, 4), 0),
    lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(1, 3, 1, 3), 0),
    lambda m: m.index_add(m.tensor(1), -1, m.tensor(0), m.tensor(5)),
    lambda m: m.index_add(m.ones(3, dtype=m.int64), 0, m.tensor([0, 1]),
                          m.tensor([7, -9]), alpha=-3.25),           # alpha truncated to -3
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0, 0, 1]), m.tensor([1.0, 5.0, -2.0]),
                               "max", include_self=False),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0, 0, 1]), m.tensor([1.0, 5.0, -2.0]),
                               "min"),
    lambda m: m.gather(m.tensor([1.0, 2.0, 3.0]), -1, m.tensor(1)),
    lambda m: m.arange(-3.25, 1.0, dtype=m.int8),                # trunc(start) + i, no repeats
    lambda m: m.sub(m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int32), alpha=2 ** 31),
    lambda m: m.pow(m.tensor([True, False]), False),
    lambda m: m.pow(m.tensor([True, False]), True),
    lambda m: m.nn.functional.interpolate(m.arange(4).to(m.uint8).reshape(1, 1, 2, 2), 4),
    lambda m: m.nn.functional.conv2d(m.ones(3, 0, 3, 1, dtype=m.bfloat16),
                                     m.ones(3, 0, 3, 1, dtype=m.bfloat16)).sum(),
    lambda m: m.normal(m.zeros(2, dtype=m.float16), 0) * 0,     # number std: a float
    lambda m: m.arange(2.9, -3.1, -1.2, dtype=m.int32),
    lambda m: m.cross(m.arange(9.0).reshape(3, 3, 1).expand(3, 3, 2),
                      m.ones(3, 3, 2)),                               # first dim of size 3
    lambda m: m.linalg.cross(m.arange(6.0).reshape(2, 3), m.ones(2, 3)),
    lambda m: m.nn.functional.batch_norm(m.ones(2, 3, dtype=m.bfloat16), m.zeros(3),
                                         m.ones(3)),                  # mixed precision is fine
    lambda m: m.nn.functional.hardtanh(m.ones(2, dtype=m.bfloat16), -1, 1e30),
])
def test_torch_accepts_so_does_mint(call):
    t, m = both(call)
    assert t.shape == m.shape
    np.testing.assert_allclose(m.astype(np.float64), t.astype(np.float64), rtol=1e-6)


def test_integer_isclose_does_not_wrap():
    # torch subtracts in int32 (which wraps); tandem's answer is the exact one.
    a = mint.tensor([[-1, -4], [2, -5]], dtype=mint.int32)
    b = mint.tensor([[-2 ** 31, 2 ** 31 - 1], [-2 ** 31, 2]], dtype=mint.int32)
    an, bn = a.numpy().astype(np.float64), b.numpy().astype(np.float64)
    want = np.abs(an - bn) <= 1e-8 + 1.0 * np.abs(bn)
    np.testing.assert_array_equal(mint.isclose(a, b, 1.0).numpy(), want)


# --- gradients at boundary values -----------------------------------------------------------

_SPECIAL = [-3.0, 3.0, float("nan"), float("inf"), -float("inf"), 0.0, 6.0, -1.0, 7.0]


@pytest.mark.parametrize("fn", [
    lambda m, x: m.nn.functional.hardswish(x),        # slope 1 at +inf and NaN (was NaN)
    lambda m, x: m.nn.functional.selu(x),             # NaN takes the linear side (was NaN)
    lambda m, x: m.nn.functional.elu(x, 0.5),
    lambda m, x: m.nn.functional.leaky_relu(x, float("inf")),  # was NaN for x > 0
    lambda m, x: m.atan2(x, m.zeros_like(x)),                 # 0 at the origin (was 0 / 0)
])
def test_activation_gradients_at_boundaries_match_torch(fn):
    grads = []
    for m in (torch, mint):
        x = m.tensor(_SPECIAL, requires_grad=True)
        fn(m, x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


def test_std_and_negative_norm_gradients_at_zero_are_zero():
    rows = [[2.0, 2.0], [1.0, 3.0]]
    for fn in (lambda m, x: m.std(x, dim=1).sum(),
               lambda m, x: sum(m.std_mean(x, dim=1, correction=0)).sum(),
               lambda m, x: m.linalg.vector_norm(x, -1, dim=1).sum()):
        g = []
        for m in (torch, mint):
            x = m.tensor(rows if "norm" not in str(fn) else [[0.0, 2.0], [1.0, 3.0]],
                         dtype=m.float64, requires_grad=True)
            fn(m, x).backward()
            g.append(x.grad.numpy())
        assert np.isfinite(g[1]).all()
        np.testing.assert_allclose(g[1], g[0], rtol=1e-9, atol=1e-12)


# --- value checks run when a compiled graph runs ----------------------------------------------

def test_binary_cross_entropy_range_is_checked_under_jit():
    f = tandem.jit(lambda x, t: F.binary_cross_entropy(x, t))
    ok = f(mint.tensor([0.2, 0.5]), mint.tensor([0.0, 1.0]))
    assert math.isclose(ok.item(), F.binary_cross_entropy(mint.tensor([0.2, 0.5]),
                                                           mint.tensor([0.0, 1.0])).item(),
                        rel_tol=1e-6)
    with pytest.raises(ValueError, match="input should be between 0 and 1"):
        f(mint.tensor([-0.2, 0.5]), mint.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="target should be between 0 and 1"):
        f(mint.tensor([0.2, 0.5]), mint.tensor([0.0, 5.0]))
    with pytest.raises(ValueError, match="input should be between 0 and 1"):
        f(mint.tensor([float("nan"), 0.5]), mint.tensor([0.0, 1.0]))


def test_searchsorted_sorter_is_checked_under_jit():
    f = tandem.jit(lambda s, v, srt: mint.searchsorted(s, v, sorter=srt))
    seq, v = mint.tensor([3.0, 1.0, 2.0]), mint.tensor([2.5])
    assert f(seq, v, mint.tensor([1, 2, 0])).tolist() == [2]
    for bad in ([1, 2, -1], [1, 2, 3]):
        with pytest.raises(RuntimeError, match="sorter index out of range"):
            f(seq, v, mint.tensor(bad))


# --- where torch itself crashes (the fuzzer's known-difference rules name these) ------------

def test_integer_minimum_divided_by_minus_one_wraps():
    # torch dies with SIGFPE here; tandem wraps as two's complement, in every division op.
    a = mint.tensor([-2 ** 31], dtype=mint.int32)
    b = mint.tensor([-1], dtype=mint.int8)
    for r in (mint.div(a, b, rounding_mode="trunc"), mint.div(a, b, rounding_mode="floor"),
              a // b):
        assert r.tolist() == [-2 ** 31]
    assert (a % b).tolist() == [0] and mint.fmod(a, b).tolist() == [0]


def test_repeat_interleave_negative_repeat_with_output_size_raises():
    # torch segfaults here (it skips the check when output_size is given).
    with pytest.raises(ValueError, match="non-negative"):
        mint.repeat_interleave(mint.tensor([1, 2, 3], dtype=mint.int8),
                               mint.tensor([0, 1, -1]), None, output_size=0)


def test_cross_entropy_probability_targets_take_a_negative_ignore_index():
    x, t = mint.tensor([[0.2, 0.5, 0.3]]), mint.tensor([[0.1, 0.6, 0.3]])
    want = torch.nn.functional.cross_entropy(torch.tensor(x.numpy()), torch.tensor(t.numpy()),
                                             ignore_index=-1)
    assert math.isclose(F.cross_entropy(x, t, ignore_index=-1).item(), want.item(),
                        rel_tol=1e-6)
    with pytest.raises(ValueError, match="ignore_index"):
        F.cross_entropy(x, t, ignore_index=0)


def test_normal_keeps_mean_dtype():
    assert mint.normal(mint.ones(2), mint.ones(2, dtype=mint.float64)).dtype == mint.float32
    assert mint.normal(mint.ones(2, dtype=mint.float64), mint.ones(2)).dtype == mint.float64


def test_masked_fill_tensor_value_is_checked_under_jit():
    f = tandem.jit(lambda x, mk, v: mint.masked_fill(x, mk, v))
    x, mk = mint.ones(3, dtype=mint.int8), mint.tensor([True, False, True])
    assert f(x, mk, mint.tensor(5.0)).tolist() == [5, 1, 5]
    for call in (lambda v: f(x, mk, v), lambda v: mint.masked_fill(x, mk, v)):
        with pytest.raises(ValueError, match="cannot be converted to type int8"):
            call(mint.tensor(1e30))
    # a float destination takes inf (it fits), as in torch
    half = mint.masked_fill(mint.ones(2, dtype=mint.float16), mint.tensor([True, False]),
                            mint.tensor(float("inf")))
    assert half.tolist()[0] == float("inf")


def test_convolution_without_input_channels_is_its_bias():
    # (torch's empty-input shortcut returns 0 output channels here; each output is the bias)
    x = mint.zeros(2, 0, 4, 3, requires_grad=True)
    w = mint.ones(5, 0, 2, 2, requires_grad=True)
    b = mint.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    y = F.conv2d(x, w, b)
    assert tuple(y.shape) == (2, 5, 3, 2)
    np.testing.assert_array_equal(y.detach().numpy(),
                                  np.broadcast_to(b.detach().numpy()[None, :, None, None],
                                                  (2, 5, 3, 2)))
    y.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), np.full(5, 2 * 3 * 2.0))
    assert tuple(w.grad.shape) == (5, 0, 2, 2) and tuple(x.grad.shape) == (2, 0, 4, 3)


def test_fractional_p_norm_gradient_at_zero_entries_matches_torch():
    g = []
    for m in (torch, mint):
        x = m.tensor([[0.0, 2.0, 1.0], [0.0, 0.0, 0.0]], requires_grad=True)
        m.linalg.vector_norm(x, 0.5, dim=1).sum().backward()
        g.append(x.grad.numpy())
    assert np.isfinite(g[1]).all()
    np.testing.assert_allclose(g[1], g[0], rtol=1e-5)


def test_scatter_add_gradient_with_a_0d_index_and_a_longer_src():
    # was SIGSEGV in the src gradient (torch returns a wrongly shaped gradient and raises)
    x = mint.tensor(0.5, requires_grad=True)
    src = mint.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = mint.scatter_add(x, -1, mint.tensor(0), src)
    assert y.item() == 1.5
    y.sum().backward()
    assert x.grad.item() == 1.0 and src.grad.tolist() == [1.0, 0.0, 0.0]
