"""End-to-end gradients of reductions, scans, sorting and indexing against numpy: ties,
zeros and large values (where finite differences can't be used), plus second order."""
import itertools

import numpy as np
import pytest

from gradcheck_util import gradcheck, rand
import tandem
from tandem import mint


def leaf(a):
    return tandem.tensor(np.asarray(a, dtype=np.float64)).requires_grad_()


def grad_of(f, x):
    return tandem.autograd.grad(f(x), x)[0].numpy()


def test_max_splits_ties_evenly():
    x = leaf([[1.0, 3.0, 3.0, 2.0], [0.5, 0.5, 0.5, -1.0]])
    np.testing.assert_array_equal(grad_of(lambda a: mint.max(a), x),
                                  [[0, 0.5, 0.5, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(grad_of(lambda a: mint.amin(a, 1).sum(), x),
                               [[1, 0, 0, 0], [0, 0, 0, 1]])
    np.testing.assert_allclose(grad_of(lambda a: mint.amax(a, 1).sum(), x),
                               [[0, 0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


def test_max_dim_sends_gradient_to_the_returned_index():
    v = np.array([[1.0, 3.0, 3.0, 2.0], [0.5, 4.0, 0.5, 4.0]])
    x = leaf(v)
    vals, idx = mint.max(x, 1)
    g = tandem.autograd.grad((vals * tandem.tensor([2.0, -1.0])).sum(), x)[0].numpy()
    want = np.zeros_like(v)
    want[np.arange(2), idx.numpy()] = [2.0, -1.0]
    np.testing.assert_array_equal(g, want)
    assert idx.requires_grad is False


def test_sorted_cumsum():
    v = np.array([0.3, -1.2, 2.5, 0.7, -0.1])
    g = grad_of(lambda a: a.sort()[0].cumsum(0).sum(), leaf(v))
    # sum of the cumsum weighs the k-th smallest by n - k
    want = np.empty_like(v)
    want[np.argsort(v)] = len(v) - np.arange(len(v))
    np.testing.assert_allclose(g, want)


def test_logsumexp_gradient_is_softmax_even_for_large_values():
    v = np.array([[1000.0, 999.0, -5.0], [0.1, 0.2, 0.3]])
    g = grad_of(lambda a: mint.logsumexp(a, 1).sum(), leaf(v))
    e = np.exp(v - v.max(1, keepdims=True))
    np.testing.assert_allclose(g, e / e.sum(1, keepdims=True), rtol=1e-12)


def test_var():
    v = np.array([[0.3, -1.2, 2.5, 0.7], [1.0, 2.0, 4.0, 8.0]])
    g = grad_of(lambda a: mint.var(a, 1).sum(), leaf(v))
    np.testing.assert_allclose(g, 2 * (v - v.mean(1, keepdims=True)) / 3, rtol=1e-12)


def brute_prod_grad(v):
    return np.array([np.prod(np.delete(v, i)) for i in range(len(v))])


@pytest.mark.parametrize("v", [[2.0, 0.0, 3.0, -1.5], [0.0, 4.0, 0.0, 1.0], [0.5, 2.0, -3.0, 1.5]])
def test_prod_with_zeros(v):
    v = np.array(v)
    np.testing.assert_allclose(grad_of(lambda a: mint.prod(a), leaf(v)), brute_prod_grad(v))


def test_cumprod_with_zeros():
    v = np.array([1.5, -2.0, 0.0, 3.0, 0.0, 0.5])
    w = np.array([0.3, -0.7, 1.1, 0.4, -0.2, 0.9])
    x = leaf(v)
    g = tandem.autograd.grad((mint.cumprod(x, 0) * tandem.tensor(w)).sum(), x)[0].numpy()
    # d y_j / d x_i = prod_{k <= j, k != i} x_k
    want = [sum(w[j] * np.prod(np.delete(v[:j + 1], i)) for j in range(i, len(v)))
            for i in range(len(v))]
    np.testing.assert_allclose(g, want, atol=1e-15)


def test_logcumsumexp_large_values():
    v = np.array([800.0, -800.0, 805.0, 0.0])
    w = np.array([1.0, -2.0, 0.5, 3.0])
    x = leaf(v)
    g = tandem.autograd.grad((mint.logcumsumexp(x, 0) * tandem.tensor(w)).sum(), x)[0].numpy()
    y = np.logaddexp.accumulate(v)
    want = [sum(w[j] * np.exp(v[i] - y[j]) for j in range(i, len(v))) for i in range(len(v))]
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_second_order_prod():
    v = np.array([1.5, 0.0, -2.0, 0.5])
    x = leaf(v)
    g = tandem.autograd.grad(mint.prod(x), x, create_graph=True)[0]
    h = tandem.autograd.grad(g.sum(), x)[0].numpy()
    # d/dx_j sum_i prod_{k != i} x_k = sum_{i != j} prod_{k != i, j} x_k
    n = len(v)
    want = [sum(np.prod([v[k] for k in range(n) if k not in (i, j)]) for i in range(n) if i != j)
            for j in range(n)]
    np.testing.assert_allclose(h, want, atol=1e-15)


def test_second_order_through_gather_and_sort():
    v = np.array([0.3, -1.2, 2.5, 0.7])
    x = leaf(v)
    y = (mint.sort(x)[0] ** 2).sum() + (mint.gather(x, 0, tandem.tensor([1, 1, 3])) ** 3).sum()
    g = tandem.autograd.grad(y, x, create_graph=True)[0]
    h = tandem.autograd.grad(g.sum(), x)[0].numpy()
    counts = np.array([0, 2, 0, 1])
    np.testing.assert_allclose(h, 2 + 6 * counts * v, rtol=1e-12)


def test_index_put_base_loses_overwritten_positions():
    x = leaf(np.arange(6.0).reshape(2, 3))
    v = leaf([10.0, 20.0])
    out = x.index_put((tandem.tensor([1, 0]), tandem.tensor([2, 0])), v)
    gx, gv = tandem.autograd.grad((out * tandem.tensor(np.arange(1.0, 7.0).reshape(2, 3))).sum(),
                                  [x, v])
    np.testing.assert_array_equal(gx.numpy(), [[0, 2, 3], [4, 5, 0]])
    np.testing.assert_array_equal(gv.numpy(), [6, 1])


@pytest.mark.parametrize("reduce", ["multiply", "amax", "amin"])
def test_scatter_reduce_modes_without_rule_raise(reduce):
    x = leaf([1.0, 2.0, 3.0])
    idx, src = tandem.tensor([0, 2]), tandem.tensor([2.0, 5.0]).to(x.dtype)
    # scatter takes 'add' / 'multiply'; scatter_reduce the other names (the same kernel)
    out = (mint.scatter(x, 0, idx, src, reduce=reduce) if reduce == "multiply"
           else mint.scatter_reduce(x, 0, idx, src, reduce))
    with pytest.raises(NotImplementedError, match=f"reduce='{reduce}'"):
        out.sum().backward()


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_adjoint(mode):
    # <pad(x), w> == <x, pad^T(w)> over a basis of x: each input's gradient counts its copies.
    v = np.arange(12.0).reshape(3, 4)
    x = leaf(v)
    pads = (2, 1, 1, 2) if mode != "circular" else (3, 1, 2, 0)
    out = mint.pad(x.unsqueeze(0), pads, mode=mode)[0]
    w = np.random.default_rng(0).standard_normal(tuple(out.shape))
    g = tandem.autograd.grad((out * tandem.tensor(w)).sum(), x)[0].numpy()
    want = np.zeros_like(v)
    o = out.detach().numpy()
    for i, j in itertools.product(range(3), range(4)):  # values are distinct: match them
        want[i, j] = w[o == v[i, j]].sum()
    np.testing.assert_allclose(g, want, rtol=1e-12)


def first_grad(f):
    """x -> d sum(f(x) * w * f(x)) / dx with create_graph, to check second order."""
    def fn(a):
        a = a if a.requires_grad else a.detach().requires_grad_()
        y = f(a)
        w = tandem.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        return tandem.autograd.grad((y * w * y).sum(), a, create_graph=True)[0]
    return fn


ZERO_COL = tandem.tensor([1.0, 0.0, 1.0, 1.0], dtype=tandem.float64)


@pytest.mark.parametrize("name,f", [
    ("amax", lambda a: mint.amax(a, 1)),
    ("prod", lambda a: mint.prod(a * ZERO_COL, 1)),
    ("cumprod", lambda a: mint.cumprod(a * ZERO_COL, 1)),
    ("logcumsumexp", lambda a: mint.logcumsumexp(a, 1)),
    ("cummax", lambda a: mint.cummax(a, 1)[0]),
    ("topk", lambda a: mint.topk(a, 2, 1)[0]),
    ("index_put", lambda a: a.index_put((tandem.tensor([1]),), a[0] * 2)),
    ("scatter", lambda a: mint.scatter(a, 1, tandem.tensor([[0, 2], [1, 3], [2, 0]]), a[:, :2] * 3)),
    ("pad", lambda a: mint.pad(a[None], (2, 1), mode="reflect")[0]),
    ("repeat_interleave", lambda a: a.repeat_interleave(2, dim=0)),
])
def test_second_order(name, f):
    gradcheck(first_grad(f), [rand(3, 4, low=0.3, high=1.5)])
