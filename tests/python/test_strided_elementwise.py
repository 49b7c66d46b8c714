"""Elementwise ops on non-contiguous operands (transposed, sliced, expanded, permuted views):
the driver's tiled and buffered paths against numpy, for every dtype class and for outputs
that are themselves views (in-place ops)."""
import re

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


# Result layout: elementwise results take their operands' memory order (PyTorch's rule), so
# a chain of ops on permuted tensors walks memory in order. Each case: the framework form
# (tandem or torch tensors a [6, 8], b [6, 8], c [8, 6], r [6]) and its numpy value.
_LAYOUT_CASES = [
    ("aT + bT", lambda a, b, c, r: a.T + b.T, lambda a, b, c, r: a.T + b.T),
    ("aT + c", lambda a, b, c, r: a.T + c, lambda a, b, c, r: a.T + c),
    ("c + aT", lambda a, b, c, r: c + a.T, lambda a, b, c, r: c + a.T),
    ("aT + row", lambda a, b, c, r: a.T + r, lambda a, b, c, r: a.T + r),
    ("row + aT", lambda a, b, c, r: r + a.T, lambda a, b, c, r: r + a.T),
    ("exp(aT)", lambda a, b, c, r: a.T.exp(), lambda a, b, c, r: np.exp(a.T)),
    ("aT * 2", lambda a, b, c, r: a.T * 2, lambda a, b, c, r: a.T * 2),
    ("aT > 0", lambda a, b, c, r: a.T > 0, lambda a, b, c, r: a.T > 0),
    ("mask * aT + bT", lambda a, b, c, r: (a.T > 0) * a.T + b.T,
     lambda a, b, c, r: (a.T > 0) * a.T + b.T),
    ("sliced", lambda a, b, c, r: a[:, ::2] + b[:, ::2], lambda a, b, c, r: a[:, ::2] + b[:, ::2]),
    ("expanded", lambda a, b, c, r: a[:1].expand(6, 8) * b[:1].expand(6, 8),
     lambda a, b, c, r: np.broadcast_to(a[:1] * b[:1], (6, 8))),
    ("4-d permute", lambda a, b, c, r: a.reshape(2, 3, 2, 4).permute(0, 2, 3, 1)
     - b.reshape(2, 3, 2, 4).permute(0, 2, 3, 1),
     lambda a, b, c, r: (a - b).reshape(2, 3, 2, 4).transpose(0, 2, 3, 1)),
    ("column + aT", lambda a, b, c, r: c[:, :1] + a.T, lambda a, b, c, r: c[:, :1] + a.T),
]


@pytest.mark.parametrize("name,fn,ref", _LAYOUT_CASES, ids=[c[0] for c in _LAYOUT_CASES])
def test_result_layout_follows_operands(name, fn, ref):
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((6, 8), (6, 8), (8, 6), (6,))]
    got = fn(*(_t(x) for x in args))
    np.testing.assert_allclose(_np(got), ref(*args), rtol=1e-6)
    torch = pytest.importorskip("torch")
    want = fn(*(torch.from_numpy(x) for x in args))
    assert got.stride() == want.stride(), name
    assert got.is_contiguous() == want.is_contiguous()


def test_permuted_results_through_autograd_and_optimizer():
    """A permuted intermediate flows through backward into a contiguous leaf's .grad, and an
    optimizer step updates the right elements."""
    rng = np.random.default_rng(8)
    wn = rng.standard_normal((5, 7)).astype(np.float32)
    xn = rng.standard_normal((7, 5)).astype(np.float32)
    w = mint.tensor(wn, requires_grad=True)
    x = _t(xn)
    y = mint.tanh(w.T * 3 + x) * x  # every intermediate in w.T's layout
    assert not y.is_contiguous() and y.stride() == (1, 7)
    k = np.arange(35, dtype=np.float32).reshape(7, 5)
    (y * _t(k)).sum().backward()
    t = np.tanh(wn.T.astype(np.float64) * 3 + xn)
    g = (k * xn * (1 - t * t) * 3).T
    np.testing.assert_allclose(_np(w.grad), g, rtol=1e-4, atol=1e-4)
    opt = tandem.mint.optim.SGD([w], lr=0.5)
    opt.step()
    np.testing.assert_allclose(_np(w.detach()), wn - 0.5 * _np(w.grad), rtol=1e-6, atol=1e-6)


def test_permuted_results_eager_matches_graph():
    """The compiled function returns the same values whatever layout eager gave them, and a
    permuted result reshapes (a copy) but does not view, as in torch."""
    rng = np.random.default_rng(9)
    an = rng.standard_normal((32, 48)).astype(np.float32)
    bn = rng.standard_normal((32, 48)).astype(np.float32)
    a, b = _t(an), _t(bn)

    def f(u, v):
        s = u.T + v.T
        return mint.sigmoid(s) * s - 1, s.reshape(-1), s.sum(0)
    eager = f(a, b)
    graph = tandem.jit(f)(a, b)
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(_np(e), _np(g), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(_np(eager[1]), (an.T + bn.T).reshape(-1))
    with pytest.raises(ValueError, match="view"):
        (a.T + b.T).view(-1)


def _optimized(f, *args):
    text = f.explain(*args)
    return text[text.index("optimized graph"):text.index("eager:")]


def test_graph_sinks_permutes_through_elementwise_chains():
    """a.T + b.T compiles to add(a, b) and one permute view: the kernel walks memory in
    order, and the result has eager's strides."""
    rng = np.random.default_rng(10)
    an = rng.standard_normal((64, 96)).astype(np.float32)
    bn = rng.standard_normal((64, 96)).astype(np.float32)
    a, b = _t(an), _t(bn)

    def f(u, v):
        return (u.T + v.T) * 2 + u.T, mint.exp(u.T) - 1

    g = tandem.jit(f)
    outs, eager = g(a, b), f(a, b)
    for o, e in zip(outs, eager):
        np.testing.assert_allclose(_np(o), _np(e), rtol=1e-6)
        assert o.stride() == e.stride() == (1, 96)
    text = _optimized(g, a, b)
    assert "fused_elementwise(%0, %1)" in text and "Float32[64, 96]" in text
    # A second call leaves the first call's results alone (they are views of fresh buffers).
    first = _np(outs[0]).copy()
    g(b, a)
    np.testing.assert_array_equal(_np(outs[0]), first)


def test_graph_keeps_permutes_where_a_reader_cannot_take_them():
    """Permutes sink only into elementwise readers or returned results: a matmul, a reduction
    or a broadcast operand keeps the dense form, and every value stays right."""
    rng = np.random.default_rng(11)
    an = rng.standard_normal((16, 24)).astype(np.float32)
    bn = rng.standard_normal((16, 24)).astype(np.float32)
    cn = rng.standard_normal((16, 16)).astype(np.float32)
    rn = rng.standard_normal(16).astype(np.float32)
    a, b, c, r = _t(an), _t(bn), _t(cn), _t(rn)

    def f(u, v, w, row):
        s = u.T * v.T
        return mint.matmul(s, w), s.sum(0), u.T + row, (u.T - v.T).reshape(-1)

    g = tandem.jit(f)
    for o, e in zip(g(a, b, c, r), f(a, b, c, r)):
        np.testing.assert_allclose(_np(o), _np(e), rtol=1e-5, atol=1e-5)
    text = _optimized(g, a, b, c, r)
    body = text.split("\n", 2)[2]  # the nodes, below the signature
    assert "Float32[16, 24]" not in body  # nothing ran unpermuted
    assert re.search(r"= mul\(%\d+, %\d+\) : Float32\[24, 16\]", body)


def test_graph_training_step_with_transposed_weights_matches_eager():
    """A step whose update reads transposed gradients: .grad stays dense and equal to eager."""
    def run(compiled):
        tandem.manual_seed(0)
        w = mint.nn.Parameter(mint.randn(8, 5))
        opt = mint.optim.SGD([w], lr=0.1)
        x = mint.randn(4, 8)

        def step(x):
            opt.zero_grad()
            loss = ((x @ w).T * (x @ w).T + w.T.sum()).sum()
            loss.backward()
            opt.step()
            return loss
        s = tandem.jit(step) if compiled else step
        for _ in range(3):
            s(x)
        return _np(w.detach()), w.grad
    we, ge = run(False)
    wg, gg = run(True)
    np.testing.assert_allclose(wg, we, rtol=1e-5, atol=1e-6)
    assert gg.is_contiguous() and ge.is_contiguous()


@pytest.mark.parametrize("inner", [1, 3, 5, 8, 17])
def test_dense_short_rows_split_between_threads(inner):
    """Copies and ops whose operands are dense only along a short innermost dim (heads split
    from features, [B, heads, L, d] read as [B, L, heads, d]) walk rows directly; with ~200 K
    elements the threads' ranges start and end inside rows."""
    rng = np.random.default_rng(inner)
    a = rng.standard_normal((37, 7, 101, inner)).astype(np.float32)
    b = rng.standard_normal((37, 7, 101, inner)).astype(np.float32)
    ta, tb = _t(a).permute(0, 2, 1, 3), _t(b).permute(0, 2, 1, 3)
    want = a.transpose(0, 2, 1, 3)
    np.testing.assert_array_equal(_np(ta.contiguous()), want)
    np.testing.assert_array_equal(_np(ta.reshape(37, 101, -1)), want.reshape(37, 101, -1))
    np.testing.assert_array_equal(_np(ta * tb), want * b.transpose(0, 2, 1, 3))
    out = mint.zeros(37, 101, 7, inner)
    out.copy_(ta)
    np.testing.assert_array_equal(_np(out), want)
