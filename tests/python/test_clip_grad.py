"""Gradient clipping (tandem.nn.utils) against numpy: total norms of several p, in-place
scaling (never up), value clipping, non-finite handling and parameter filtering."""
import math

import numpy as np
import pytest

import tandem
from tandem import Parameter
from tandem.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm


def params_with_grads(shapes, scale=1.0, dtype=np.float32):
    ps, gs = [], []
    for shape in shapes:
        p = Parameter(np.zeros(shape, dtype))
        g = (np.random.randn(*shape) * scale).astype(dtype)
        (p * tandem.Tensor(g)).sum().backward()  # p.grad = g
        ps.append(p)
        gs.append(g.astype(np.float64))
    return ps, gs


def np_total_norm(gs, p):
    flat = np.concatenate([g.ravel() for g in gs])
    if p == math.inf:
        return np.abs(flat).max()
    return (np.abs(flat) ** p).sum() ** (1 / p)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm(p, max_norm):
    ps, gs = params_with_grads([(4, 5), (7,), (2, 3, 2)])
    total = clip_grad_norm_(ps, max_norm, norm_type=p)
    want = np_total_norm(gs, p)
    assert isinstance(total, tandem.Tensor) and total.shape == ()
    assert float(total) == pytest.approx(want, rel=1e-5)
    coef = min(1.0, max_norm / (want + 1e-6))
    for par, g in zip(ps, gs):
        np.testing.assert_allclose(par.grad.numpy(), g * coef, rtol=1e-5, atol=1e-7)
    if max_norm < want:
        assert np_total_norm([q.grad.numpy().astype(np.float64) for q in ps], p) == \
            pytest.approx(max_norm, rel=1e-4)


def test_clip_grad_norm_generator_single_tensor_and_missing_grads():
    ps, gs = params_with_grads([(3, 3), (5,)])
    no_grad = Parameter(np.ones(4, np.float32))
    total = clip_grad_norm_((q for q in ps + [no_grad]), 0.1)
    assert float(total) == pytest.approx(np_total_norm(gs, 2), rel=1e-5)
    assert no_grad.grad is None
    np.testing.assert_allclose(ps[1].grad.numpy(), gs[1] * 0.1 / (float(total) + 1e-6),
                               rtol=1e-5)
    (p,), (g,) = params_with_grads([(6,)])
    total = clip_grad_norm_(p, 1e-3)
    assert float(total) == pytest.approx(np.linalg.norm(g), rel=1e-5)
    assert np.linalg.norm(p.grad.numpy()) == pytest.approx(1e-3, rel=1e-3)
    assert float(clip_grad_norm_([no_grad], 1.0)) == 0.0


def test_clip_grad_norm_float64_and_mixed_dtypes():
    ps, gs = params_with_grads([(10,)], dtype=np.float64)
    q, h = params_with_grads([(5,)])
    total = clip_grad_norm_(ps + q, 0.5)
    assert total.dtype == tandem.float64
    assert float(total) == pytest.approx(np_total_norm(gs + h, 2), rel=1e-6)


def test_clip_grad_norm_non_finite():
    ps, _ = params_with_grads([(3,)])
    q = Parameter(np.zeros(2, np.float32))
    (q * tandem.Tensor(np.array([np.inf, 1.0], np.float32))).sum().backward()
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(ps + [q], 1.0, error_if_nonfinite=True)
    total = clip_grad_norm_(ps + [q], 1.0)
    assert math.isinf(float(total))


def test_get_total_norm():
    a, b = np.random.randn(4), np.random.randn(2, 2)
    total = get_total_norm([tandem.Tensor(a), tandem.Tensor(b)], 3.0)
    assert float(total) == pytest.approx(np_total_norm([a, b], 3.0))
    assert float(get_total_norm([])) == 0.0


def test_clip_grad_value():
    ps, gs = params_with_grads([(10, 10), (20,)], scale=2.0)
    assert clip_grad_value_(ps, 0.75) is None
    for p, g in zip(ps, gs):
        np.testing.assert_allclose(p.grad.numpy(), np.clip(g, -0.75, 0.75), rtol=1e-6)
    (p,), (g,) = params_with_grads([(8,)])
    clip_grad_value_(p, 0.1)
    np.testing.assert_allclose(p.grad.numpy(), np.clip(g, -0.1, 0.1), rtol=1e-6)


def test_clipping_records_no_history():
    ps, _ = params_with_grads([(3,)])
    clip_grad_norm_(ps, 0.1)
    clip_grad_value_(ps, 0.01)
    assert ps[0].grad.grad_fn is None and not ps[0].grad.requires_grad
