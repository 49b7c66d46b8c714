"""Elementwise ops on non-contiguous operands (transposed, sliced, expanded, permuted views):
the driver's tiled and buffered paths against numpy, for every dtype class and for outputs
that are themselves views (in-place ops)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tandem
from tandem import mint

DTYPES = {"float32": mint.float32, "float64": mint.float64, "int32": mint.int32,
          "int64": mint.int64, "int8": mint.int8, "float16": mint.float16, "bool": mint.bool}


def _t(a):
    return mint.tensor(a)


def _np(t):
    return np.asarray(t.numpy())


@pytest.mark.parametrize("shape", [(1024, 256), (37, 53), (16, 16), (17, 300), (300, 17),
                                   (3, 40, 65)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "float16"])
def test_binary_on_transposed_views(shape, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape[::-1]) * 10).astype(dtype)
    b = (rng.standard_normal(shape[::-1]) * 10).astype(dtype)
    ta, tb = _t(a), _t(b)
    perm = tuple(range(len(shape)))[::-1]
    at, bt = ta.permute(*perm), tb.permute(*perm)
    want = a.transpose(perm) + b.transpose(perm)
    np.testing.assert_array_equal(_np(at + bt), want)
    # one transposed, one contiguous; result dtype and layout as numpy
    bc = _t(np.ascontiguousarray(b.transpose(perm)))
    np.testing.assert_array_equal(_np(at + bc), want)
    np.testing.assert_array_equal(_np(bc + at), want)
    np.testing.assert_array_equal(_np(at.contiguous()), a.transpose(perm))


@pytest.mark.parametrize("shape", [(64, 48), (33, 70), (1024, 256)])
def test_inplace_into_a_transposed_view(shape):
    rng = np.random.default_rng(1)
    base = rng.standard_normal(shape[::-1]).astype(np.float32)
    other = rng.standard_normal(shape).astype(np.float32)
    t = _t(base.copy())
    view = t.t()
    view.add_(_t(other))
    np.testing.assert_array_equal(_np(t), base + other.T)
    # the view written with itself: same view in and out
    view.mul_(view)
    np.testing.assert_array_equal(_np(t), (base + other.T) ** 2)


def test_mixed_dtype_promotion_through_tiles():
    rng = np.random.default_rng(2)
    a = rng.integers(-50, 50, (40, 70)).astype(np.int32)
    b = rng.standard_normal((70, 40)).astype(np.float32)
    got = _t(a) + _t(b).t()
    assert got.dtype == mint.float32
    np.testing.assert_allclose(_np(got), a + b.T, rtol=1e-6)
    m = _t(a.T.copy()).t() > _t(b).t()
    np.testing.assert_array_equal(_np(m), a > b.T)


def test_expanded_and_strided_operands():
    rng = np.random.default_rng(3)
    col = rng.standard_normal((1024, 1)).astype(np.float32)
    row = rng.standard_normal((1, 256)).astype(np.float32)
    full = rng.standard_normal((1024, 512)).astype(np.float32)
    c = rng.standard_normal((1024, 256)).astype(np.float32)
    np.testing.assert_array_equal(_np(_t(col).expand(1024, 256) + _t(c)), col + c)
    np.testing.assert_array_equal(_np(_t(row).expand(1024, 256) + _t(c)), row + c)
    np.testing.assert_array_equal(_np(_t(full)[:, ::2] + _t(c)), full[:, ::2] + c)
    np.testing.assert_array_equal(_np(_t(full)[:, ::2].t() * _t(c).t()), full[:, ::2].T * c.T)


def test_unary_and_fused_graph_on_transposed_views():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((96, 80)).astype(np.float32)
    x = _t(a).t()
    np.testing.assert_allclose(_np(mint.exp(x)), np.exp(a.T), rtol=1e-6)
    f = tandem.jit(lambda u, v: mint.tanh(u * 2 + v) - u)
    y = _t(a.T.copy())
    eager = mint.tanh(x * 2 + y) - x
    np.testing.assert_array_equal(_np(f(x, y)), _np(eager))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=2, max_size=4), st.data(),
       st.sampled_from(sorted(DTYPES)))
def test_random_permutations_match_numpy(shape, data, dtype):
    perm_a = data.draw(st.permutations(range(len(shape))))
    perm_b = data.draw(st.permutations(range(len(shape))))
    rng = np.random.default_rng(len(shape))
    np_dt = np.bool_ if dtype == "bool" else np.dtype(dtype)
    a = (rng.standard_normal(shape) * 5).astype(np_dt)
    b = (rng.standard_normal(shape) * 5).astype(np_dt)
    # storage laid out in another order, viewed back to `shape`
    inv_a, inv_b = np.argsort(perm_a), np.argsort(perm_b)
    ta = _t(np.ascontiguousarray(a.transpose(perm_a))).permute(*[int(i) for i in inv_a])
    tb = _t(np.ascontiguousarray(b.transpose(perm_b))).permute(*[int(i) for i in inv_b])
    if dtype == "bool":
        np.testing.assert_array_equal(_np(mint.logical_xor(ta, tb)), np.logical_xor(a, b))
    else:
        np.testing.assert_array_equal(_np(mint.maximum(ta, tb)), np.maximum(a, b))
    out = mint.zeros(*shape[::-1], dtype=DTYPES[dtype]).permute(*range(len(shape))[::-1])
    out.copy_(ta)
    np.testing.assert_array_equal(_np(out), a)
