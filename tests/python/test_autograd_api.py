"""The PyTorch-style autograd API: requires_grad, .grad, backward, grad mode, detach, hooks,
in-place rules, memory release and higher-order gradients. numpy is the oracle."""
import numpy as np
import pytest

import tandem
from tandem import autograd, mint


def t(a, dtype=np.float64):
    return tandem.tensor(np.asarray(a, dtype=dtype))


def leaf(a, dtype=np.float64):
    return t(a, dtype).requires_grad_()


def close(x, want, **kw):
    np.testing.assert_allclose(x.detach().numpy(), np.asarray(want), rtol=1e-6, atol=1e-8, **kw)


# --- requires_grad, .grad, is_leaf, grad_fn ---------------------------------------------

def test_requires_grad_flags():
    x = t([1.0, 2.0])
    assert not x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn is not None and y.grad_fn.name() == "mul"
    assert "Mul" in repr(y.grad_fn)
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad_(False)
    # Tensors computed from tensors that don't require grad are leaves without history.
    z = t([1.0]) + t([2.0])
    assert not z.requires_grad and z.is_leaf and z.grad_fn is None


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_requires_grad_rejects_non_float(dtype):
    x = t([1, 0], dtype)
    with pytest.raises(RuntimeError, match="floating point"):
        x.requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        x.requires_grad = True


def test_grad_none_until_backward_then_accumulates():
    x = leaf([1.0, -2.0, 3.0])
    assert x.grad is None
    (x * x).sum().backward()
    close(x.grad, 2 * np.array([1, -2, 3]))
    (x * x).sum().backward()
    close(x.grad, 4 * np.array([1, -2, 3]))
    g = x.grad
    x.grad.zero_()
    close(x.grad, [0, 0, 0])
    close(g, [0, 0, 0])  # the same gradient tensor, zeroed in place
    (3 * x).sum().backward()
    close(x.grad, [3, 3, 3])
    x.grad = None
    assert x.grad is None
    x.grad = t([1.0, 1.0, 1.0])
    (x * 2).sum().backward()
    close(x.grad, [3, 3, 3])
    with pytest.raises(ValueError, match="shape"):
        x.grad = t([1.0])
    with pytest.raises(TypeError, match="dtype"):
        x.grad = t([1.0, 1.0, 1.0], np.float32)


def test_grad_keeps_leaf_dtype_and_shape():
    x = leaf([[1.0, 2.0]], np.float32)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype == tandem.float32 and tuple(x.grad.shape) == (1, 2)
    close(x.grad, [[3, 3]])


# --- backward arguments ---------------------------------------------------------------

def test_backward_gradient_for_non_scalar():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        y.backward()
    v = np.array([1.0, 0.5, -1.0])
    y.backward(t(v))
    close(x.grad, 2 * np.array([1, 2, 3]) * v)
    with pytest.raises(ValueError, match="shape"):
        (x * x).backward(t([1.0, 2.0]))
    # A Python list is accepted as the gradient too.
    x.grad = None
    (x * 2).backward([1.0, 1.0, 1.0])
    close(x.grad, [2, 2, 2])


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        t([1.0]).sum().backward()


def test_retain_graph():
    x = leaf([0.5, -1.0])
    y = x.exp().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()
    x.grad = None
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    e = np.exp([0.5, -1.0])
    close(x.grad, 2 * (e + e * np.array([0.5, -1.0])))


def test_autograd_backward_and_grad_functions():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, -1.0])
    y1, y2 = x * w, x.exp()
    autograd.backward([y1.sum(), y2.sum()])
    close(x.grad, np.array([3, -1]) + np.exp([1, 2]))
    close(w.grad, [1, 2])
    gx, gw = autograd.grad((x * x * w).sum(), [x, w])
    close(gx, 2 * np.array([1, 2]) * np.array([3, -1]))
    close(gw, [1, 4])
    u = leaf([1.0])
    with pytest.raises(RuntimeError, match="allow_unused"):
        autograd.grad((x * 2).sum(), [u])
    gx, gu = autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    close(gx, [2, 2])
    assert gu is None


def test_backward_inside_no_grad():
    """D2L's Trainer calls loss.backward() under no_grad()."""
    w = leaf([1.0, 2.0])
    loss = (w * w).sum()
    with tandem.no_grad():
        loss.backward()
        assert not tandem.is_grad_enabled()
    close(w.grad, [2, 4])
    assert w.grad.grad_fn is None and not w.grad.requires_grad


# --- grad mode --------------------------------------------------------------------------

def test_grad_mode_context_managers():
    x = leaf([1.0])
    assert tandem.is_grad_enabled()
    with tandem.no_grad():
        assert not tandem.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.grad_fn is None
        with tandem.enable_grad():
            assert tandem.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not tandem.is_grad_enabled()
    assert tandem.is_grad_enabled()
    with tandem.set_grad_enabled(False):
        assert not tandem.is_grad_enabled()
    assert tandem.is_grad_enabled()
    tandem.set_grad_enabled(False)
    try:
        assert not tandem.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        tandem.set_grad_enabled(True)
    assert tandem.is_grad_enabled()
    # mint mirrors torch's names.
    assert mint.no_grad is tandem.no_grad and mint.is_grad_enabled is tandem.is_grad_enabled


def test_grad_mode_restored_after_exception():
    with pytest.raises(KeyError):
        with tandem.no_grad():
            raise KeyError("boom")
    assert tandem.is_grad_enabled()


def test_grad_mode_decorators():
    x = leaf([1.0])

    @tandem.no_grad()
    def f(a):
        assert not tandem.is_grad_enabled()
        return a * 2

    @tandem.enable_grad()
    def g(a):
        return a * 2

    @tandem.set_grad_enabled(False)
    def h(a):
        return a * 2

    # Decorating does not change the mode; calling does, for the call only.
    assert tandem.is_grad_enabled()
    assert f.__name__ == "f"
    assert not f(x).requires_grad
    assert tandem.is_grad_enabled()
    assert not h(x).requires_grad
    with tandem.no_grad():
        assert g(x).requires_grad
    assert tandem.is_grad_enabled()


# --- detach, .data ----------------------------------------------------------------------

def test_detach_shares_data_without_history():
    x = leaf([1.0, 2.0])
    y = x * 3
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    close(d, [3, 6])
    with tandem.no_grad():
        d.add_(1)
    close(y, [4, 7])  # same storage
    z = y * 1
    z.detach_()
    assert z.is_leaf and not z.requires_grad and z.grad_fn is None


def test_data_writes_do_not_touch_history():
    w = leaf([1.0, 2.0])
    assert not w.data.requires_grad
    with tandem.no_grad():
        w.data.mul_(10)
    close(w, [10, 20])
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    (w * w).sum().backward()
    close(w.grad, [20, 40])
    w.data = t([5.0, 6.0])
    assert w.is_leaf and w.requires_grad
    close(w, [5, 6])
    w.grad = None
    (w * w).sum().backward()
    close(w.grad, [10, 12])


# --- hooks and retain_grad --------------------------------------------------------------

def test_register_hook_observes_and_replaces():
    x = leaf([1.0, 2.0])
    seen = []
    y = x * 3
    y.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * 3 * np.array([1, 2]))
    close(x.grad, 3 * 10 * 2 * 3 * np.array([1, 2]))
    # A hook on a leaf changes what is accumulated.
    w = leaf([1.0, 1.0])
    w.register_hook(lambda g: g * 0.5)
    (w * 4).sum().backward()
    close(w.grad, [2, 2])
    with pytest.raises(RuntimeError, match="doesn't require"):
        t([1.0]).register_hook(lambda g: g)


def test_bad_hooks_raise_cleanly():
    x = leaf([1.0, 2.0])

    def boom(g):
        raise KeyError("from the hook")

    for hook, err, msg in [(boom, KeyError, "from the hook"),
                           (lambda g: tandem.ones(5), ValueError, "shape"),
                           (lambda g: 3, TypeError, "Tensor or None")]:
        y = x * 2
        y.register_hook(hook)
        with pytest.raises(err, match=msg):
            y.sum().backward()
        assert tandem.is_grad_enabled()
    assert x.grad is None


def test_retain_grad_on_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = x * 2
    y.retain_grad()
    assert y.retains_grad and not z.retains_grad
    ((y * y).sum() + z.sum()).backward()
    close(y.grad, 2 * 3 * np.array([1, 2]))
    assert z.grad is None  # not retained
    close(x.grad, 3 * 2 * 3 * np.array([1, 2]) + 2)


# --- in-place rules ---------------------------------------------------------------------

def test_sgd_step_under_no_grad():
    w = leaf([1.0, -2.0])
    (w * w).sum().backward()
    lr = 0.1
    with tandem.no_grad():
        w -= lr * w.grad
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    close(w, np.array([1, -2]) * (1 - 2 * lr))
    w.grad.zero_()
    (w * w).sum().backward()
    close(w.grad, 2 * np.array([1, -2]) * (1 - 2 * lr))


def test_inplace_on_leaf_requiring_grad_raises():
    w = leaf([1.0, 2.0])
    for op in (lambda: w.add_(1), lambda: w.mul_(2), lambda: w.zero_()):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            op()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w -= 1
    close(w, [1, 2])


def test_inplace_on_non_leaf_rebases_history():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    y += 1
    assert not y.is_leaf and y.requires_grad
    close(y, [3, 5, 7])
    (y * y).sum().backward()
    close(x.grad, 2 * (2 * np.array([1, 2, 3]) + 1) * 2)
    # Chains of in-place ops, including ones whose rule reads the old value.
    x.grad = None
    y = x * 1
    y.mul_(x)  # x^2
    y.add_(x)  # x^2 + x
    y.sum().backward()
    close(x.grad, 2 * np.array([1, 2, 3]) + 1)


def test_hooks_and_retain_grad_follow_inplace_rebase():
    x = leaf([1.0, 2.0])
    y = x * 2
    y += 1
    y.retain_grad()
    calls = []
    y.register_hook(lambda g: calls.append(1))
    (y * y).sum().backward()
    assert len(calls) == 1
    close(y.grad, 2 * (2 * np.array([1, 2]) + 1))


def test_inplace_on_saved_tensor_raises_at_backward():
    x = leaf([0.5, 1.0])
    y = x.exp()
    y.mul_(2)  # exp's backward needs its output
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    # Modifying a saved input.
    a = leaf([1.0, 2.0])
    h = a * 1
    z = (h * a).sum()  # mul saves h
    with tandem.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


# --- dtypes, broadcasting, views --------------------------------------------------------

def test_integer_and_bool_inputs_get_no_gradient():
    x = leaf([1.0, 2.0, 3.0])
    i = t([2, 3, 4], np.int64)
    m = t([True, False, True], np.bool_)
    y = (x * i + m).sum()
    y.backward()
    close(x.grad, [2, 3, 4])
    assert i.grad is None and not i.requires_grad and m.grad is None
    # Integer results carry no history.
    k = x.to(tandem.int64)
    assert not k.requires_grad and k.grad_fn is None
    assert not (x > 1).requires_grad
    # A cast round trip differentiates (gradient cast back to the leaf's dtype).
    x.grad = None
    (x.float() * 2).sum().backward()
    assert x.grad.dtype == tandem.float64
    close(x.grad, [2, 2, 2])


def test_broadcasting_is_undone_in_gradients():
    a = leaf(np.arange(3.0).reshape(3, 1))
    b = leaf(np.arange(4.0).reshape(1, 4))
    c = leaf(2.0)
    d = leaf(np.ones(4))
    ((a * b + c) / d - a).sum().backward()
    assert tuple(a.grad.shape) == (3, 1) and tuple(b.grad.shape) == (1, 4)
    assert tuple(c.grad.shape) == () and tuple(d.grad.shape) == (4,)
    close(a.grad, np.full((3, 1), np.arange(4.0).sum() - 4))
    close(b.grad, np.full((1, 4), np.arange(3.0).sum()))
    close(c.grad, 12.0)
    num = np.arange(3.0).reshape(3, 1) * np.arange(4.0).reshape(1, 4) + 2.0
    close(d.grad, -num.sum(axis=0))


def test_gradients_through_views():
    base = np.arange(24.0).reshape(2, 3, 4)
    x = leaf(base)
    w = np.random.default_rng(0).standard_normal((3, 2))
    y = (x.permute(2, 1, 0)[1:3].reshape(2, 6)[:, ::2] * t(w).reshape(1, 6)[:, ::2]).sum()
    sel = x.select(1, 2).sum()
    exp = x[0:1].expand(4, 3, 4).sum()
    (y + sel + exp).backward()
    want = np.zeros_like(base)
    # permute(2,1,0) -> (4,3,2); [1:3] -> k in {1,2}; reshape (2,6) over (j,i); [:, ::2] -> i=0
    w_flat = w.reshape(6)
    for kk, k in enumerate((1, 2)):
        for col in range(0, 6, 2):
            j, i = divmod(col, 2)
            want[i, j, k] += w_flat[col]
    want[:, 2, :] += 1
    want[0] += 4
    close(x.grad, want)


def test_matmul_and_reductions():
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    a, b = leaf(A), leaf(B)
    (a @ b).mean().backward()
    close(a.grad, np.ones((3, 2)) @ B.T / 6)
    close(b.grad, A.T @ np.ones((3, 2)) / 6)


# --- memory -----------------------------------------------------------------------------

def test_saved_tensors_released_after_backward():
    n = 1 << 18  # 1 MiB of float32 per saved tensor
    x = tandem.ones(n).requires_grad_()

    def in_use():
        return tandem.memory_stats()["bytes_in_use"]

    base = in_use()
    loss = (x * 1.5).exp().tanh().sigmoid().mul(2).sum()
    held = in_use() - base
    assert held >= 4 * n * 4  # the graph keeps the intermediates alive
    loss.backward()
    # Only x.grad (n floats) stays, plus slack for small tensors.
    assert in_use() - base <= n * 4 + 64 * 1024
    close(x.grad[:2], x.grad[:2].detach().numpy())  # readable
    # With retain_graph the saved tensors stay until the graph goes.
    x.grad = None
    base = in_use()
    loss = (x * 1.5).exp().tanh().sigmoid().mul(2).sum()
    loss.backward(retain_graph=True)
    assert in_use() - base >= 4 * n * 4
    del loss
    assert in_use() - base <= n * 4 + 64 * 1024


# --- higher order -----------------------------------------------------------------------

def test_grad_of_grad_cubic():
    xv = np.array([2.0, -1.5, 0.5])
    x = leaf(xv)
    y = (x * x * x).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    close(g, 3 * xv ** 2)
    assert g.requires_grad
    (h,) = autograd.grad(g.sum(), x, create_graph=True)
    close(h, 6 * xv)
    (k,) = autograd.grad(h.sum(), x)
    close(k, np.full(3, 6.0))
    # backward(create_graph=True) leaves a differentiable .grad.
    x2 = leaf(xv)
    (x2 * x2 * x2).sum().backward(create_graph=True)
    assert x2.grad.requires_grad
    (h2,) = autograd.grad(x2.grad.sum(), x2)
    close(h2, 6 * xv)


def test_hessian_vector_product_of_mlp():
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    W1, W2 = rng.standard_normal((3, 4)) * 0.5, rng.standard_normal((4, 2)) * 0.5
    V1, V2 = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))

    def loss_fn(w1, w2):
        r = (t(X) @ w1).tanh() @ w2 - t(Y)
        return (r * r).mean()

    def gradient(w1v, w2v):
        w1, w2 = leaf(w1v), leaf(w2v)
        g1, g2 = autograd.grad(loss_fn(w1, w2), [w1, w2])
        return g1.detach().numpy(), g2.detach().numpy()

    w1, w2 = leaf(W1), leaf(W2)
    g1, g2 = autograd.grad(loss_fn(w1, w2), [w1, w2], create_graph=True)
    dot = (g1 * t(V1)).sum() + (g2 * t(V2)).sum()
    hv1, hv2 = autograd.grad(dot, [w1, w2])
    eps = 1e-5
    p1, p2 = gradient(W1 + eps * V1, W2 + eps * V2)
    m1, m2 = gradient(W1 - eps * V1, W2 - eps * V2)
    np.testing.assert_allclose(hv1.detach().numpy(), (p1 - m1) / (2 * eps), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(hv2.detach().numpy(), (p2 - m2) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_deep_graph_frees_and_backprops_without_recursion():
    """A running total over many steps (a loss summed over an epoch) is a long chain."""
    x = tandem.ones(1).requires_grad_()
    s = x
    for _ in range(100_000):
        s = s + 1.0
    del s  # freeing the chain must not overflow the stack
    s = x * 1
    for _ in range(100_000):
        s = s + x
    s.backward()
    close(x.grad, [100_001.0])
