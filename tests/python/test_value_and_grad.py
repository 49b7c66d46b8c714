"""MindSpore's functional differentiation: tandem.grad / value_and_grad / vjp / jvp, with the
return shapes of MindSpore 2.x's documentation, and ops.stop_gradient."""
import numpy as np
import pytest

import tandem
from tandem import ops


def t(a):
    return tandem.tensor(np.asarray(a, dtype=np.float64))


def close(x, want, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(x.numpy(), np.asarray(want), rtol=rtol, atol=atol)


X, Y, Z = np.array([1.0, 2.0]), np.array([-2.0, 3.0]), np.array([0.0, 3.0])


def xyz(x, y, z):
    return x * y * z


def aux_fn(x, y, z):
    return x * y.exp() * z * z, z


# --- grad_position / weights table ------------------------------------------------------

def test_grad_position_int_gives_one_tensor():
    g = tandem.grad(xyz)(t(X), t(Y), t(Z))
    assert isinstance(g, tandem.Tensor)
    close(g, Y * Z)
    g1 = tandem.grad(xyz, grad_position=1)(t(X), t(Y), t(Z))
    close(g1, X * Z)


def test_grad_position_tuple_gives_tuple():
    g = tandem.grad(xyz, grad_position=(1, 2))(t(X), t(Y), t(Z))  # MindSpore's doc example
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], [0, 6])
    close(g[1], [-2, 6])
    (g0,) = tandem.grad(xyz, grad_position=(0,))(t(X), t(Y), t(Z))
    close(g0, Y * Z)


def test_weights_only_and_both():
    w = t([0.5, -1.0]).requires_grad_()
    b = t([2.0]).requires_grad_()

    def net(x):
        return (x * w + b).sum()

    gw = tandem.grad(net, grad_position=None, weights=[w, b])(t(X))
    assert isinstance(gw, tuple) and len(gw) == 2
    close(gw[0], X)
    close(gw[1], [2.0])
    (gw_single,) = tandem.grad(net, None, w)(t(X))  # a single weight still gives a tuple
    close(gw_single, X)
    gx, gws = tandem.grad(net, grad_position=0, weights=[w, b])(t(X))
    close(gx, [0.5, -1.0])
    assert isinstance(gws, tuple) and len(gws) == 2
    (gx0,), gws2 = tandem.grad(net, grad_position=(0,), weights=[w, b])(t(X))
    close(gx0, [0.5, -1.0])
    # Functional grad never touches .grad.
    assert w.grad is None and b.grad is None


def test_value_and_grad_table():
    x, y, z = t(X), t(Y), t(Z)
    out, g = tandem.value_and_grad(xyz, grad_position=1)(x, y, z)  # MindSpore's doc example
    close(out, X * Y * Z)
    close(g, [0, 6])
    w = t([0.5, -1.0]).requires_grad_()
    out, gw = tandem.value_and_grad(lambda a: (a * w).sum(), None, [w])(x)
    close(out, (X * [0.5, -1.0]).sum())
    assert isinstance(gw, tuple)
    close(gw[0], X)
    out, (gx, gw) = tandem.value_and_grad(lambda a: (a * w).sum(), 0, [w])(x)
    close(gx, [0.5, -1.0])
    close(gw[0], X)
    # The value carries no history: it is a result, not part of a graph.
    assert not out.requires_grad


def test_has_aux_return_shapes():
    x, y, z = t([3.0, 3.0]), t([0.0, 0.0]), t([5.0, 5.0])
    # grad: (gradients, aux) with aux a tuple of the other outputs (MindSpore's doc example).
    g, aux = tandem.grad(aux_fn, (1, 2), None, True)(x, y, z)
    assert isinstance(aux, tuple) and len(aux) == 1
    close(g[0], [75, 75])
    close(g[1], [30, 30])
    close(aux[0], [5, 5])
    # value_and_grad: ((out, *aux), gradients); only out is differentiated.
    (out, a), g = tandem.value_and_grad(aux_fn, (1, 2), None, True)(x, y, z)
    close(out, [75, 75])
    close(a, [5, 5])
    close(g[1], [30, 30])  # z's use in the aux output adds nothing
    # Several aux outputs.
    g, aux = tandem.grad(lambda a: ((a * a).sum(), a * 2, a + 1), has_aux=True)(t([1.0, 2.0]))
    close(g, [2, 4])
    assert len(aux) == 2
    close(aux[0], [2, 4])
    close(aux[1], [2, 3])
    assert not aux[0].requires_grad  # aux is stop-gradient'ed
    with pytest.raises(ValueError, match="more than one output"):
        tandem.grad(lambda a: a.sum(), has_aux=True)(t([1.0]))
    with pytest.raises(TypeError, match="has_aux"):
        tandem.grad(lambda a: a.sum(), has_aux=1)(t([1.0]))


def test_several_outputs_without_aux_sum_their_gradients():
    def two(a, b):
        return a * b, a.exp()

    a, b = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    g = tandem.grad(two, (0, 1))(t(a), t(b))
    close(g[0], b + np.exp(a))
    close(g[1], a)
    (o1, o2), g = tandem.value_and_grad(two)(t(a), t(b))
    close(o1, a * b)
    close(o2, np.exp(a))
    close(g, b + np.exp(a))


def test_unused_input_gives_zeros_and_int_args_pass_through():
    g = tandem.grad(lambda a, b: (a * 2).sum(), (0, 1))(t([1.0]), t([5.0, 6.0]))
    close(g[0], [2])
    close(g[1], [0, 0])
    idx = tandem.tensor([1, 0])
    g = tandem.grad(lambda a, i: (a * i).sum())(t([3.0, 4.0]), idx)
    close(g, [1, 0])


def test_errors():
    with pytest.raises(ValueError, match="both be None"):
        tandem.grad(xyz, grad_position=None)
    with pytest.raises(ValueError, match="both be None"):
        tandem.value_and_grad(xyz, grad_position=None, weights=None)
    args = (t(X), t(Y), t(Z))
    with pytest.raises(ValueError, match="out of range"):
        tandem.grad(xyz, 3)(*args)
    with pytest.raises(ValueError, match="out of range"):
        tandem.grad(xyz, -1)(*args)  # MindSpore: positions must be >= 0
    with pytest.raises(ValueError, match="duplicate"):
        tandem.grad(xyz, (0, 0))(*args)
    with pytest.raises(TypeError):
        tandem.grad(xyz, 1.0)(*args)
    with pytest.raises(TypeError):
        tandem.grad(xyz, (0, "1"))(*args)
    with pytest.raises(TypeError, match="must be a Tensor"):
        tandem.grad(lambda a, s: a * s, 1)(t(X), 2.0)
    with pytest.raises(ValueError, match="require grad"):
        tandem.grad(lambda a: a, None, [t([1.0])])(t([1.0]))


def test_inputs_are_not_modified():
    x = t(X)
    tandem.grad(lambda a: (a * a).sum())(x)
    assert not x.requires_grad and x.grad is None and x.is_leaf


def test_nested_grad_gives_second_derivative():
    d2 = tandem.grad(tandem.grad(lambda a: (a * a * a).sum()))
    close(d2(t([2.0, -1.0])), [12.0, -6.0])
    d3 = tandem.grad(lambda a: tandem.grad(lambda b: (b * b * b).sum())(a).sum())
    close(d3(t([2.0, -1.0])), [12.0, -6.0])


# --- stop_gradient ----------------------------------------------------------------------

def test_stop_gradient_blocks_gradient():
    def f(a):
        return (a * ops.stop_gradient(a)).sum()

    close(tandem.grad(f)(t([1.0, 3.0])), [1.0, 3.0])  # d/da (a * const) = const
    x = t([2.0]).requires_grad_()
    y = ops.stop_gradient(x * 3)
    assert not y.requires_grad and y.grad_fn is None
    (x * y).sum().backward()
    close(x.grad, [6.0])


# --- vjp / jvp --------------------------------------------------------------------------

def test_vjp():
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    out, vjp_fn = tandem.vjp(lambda a: a * a * a, t(xv))
    close(out, xv ** 3)
    g = vjp_fn(t(np.ones((2, 2))))
    assert isinstance(g, tuple) and len(g) == 1  # a tuple even for one input (MindSpore)
    close(g[0], 3 * xv ** 2)
    v = np.array([[1.0, -1.0], [0.5, 2.0]])
    close(vjp_fn(t(v))[0], 3 * xv ** 2 * v)  # callable repeatedly
    # Several inputs and outputs; the vectors as separate arguments or one tuple.
    out, vjp_fn = tandem.vjp(lambda a, b: (2 * a, b * b * b), t(xv), t(xv))
    assert isinstance(out, tuple) and len(out) == 2
    ones = t(np.ones((2, 2)))
    for g in (vjp_fn(ones, ones), vjp_fn((ones, ones))):
        close(g[0], np.full((2, 2), 2.0))
        close(g[1], 3 * xv ** 2)
    with pytest.raises(ValueError, match="vectors"):
        vjp_fn(ones)
    with pytest.raises(ValueError, match="shape"):
        vjp_fn(ones, t([1.0]))
    # has_aux: (out, vjp_fn, aux); aux is the single other output itself.
    out, vjp_fn, aux = tandem.vjp(lambda a, b: (2 * a + b, b * b * b), t(xv), t(xv),
                                  has_aux=True)
    close(out, 3 * xv)
    close(aux, xv ** 3)
    g = vjp_fn(ones)
    close(g[0], np.full((2, 2), 2.0))
    close(g[1], np.ones((2, 2)))


def test_vjp_with_weights():
    w = t([2.0, 3.0]).requires_grad_()
    out, vjp_fn = tandem.vjp(lambda a: a * w, t([1.0, 5.0]), weights=[w])
    gx, gw = vjp_fn(t([1.0, 1.0]))
    close(gx[0], [2.0, 3.0])
    close(gw[0], [1.0, 5.0])


def _fd_jacobian(fn, xs, eps=1e-6):
    """Jacobian blocks d out / d x_k by central differences, as (out_size, x_size) arrays."""
    base = [np.asarray(x, dtype=np.float64) for x in xs]
    blocks = []
    for k, xk in enumerate(base):
        cols = []
        for i in range(xk.size):
            d = np.zeros_like(xk).reshape(-1)
            d[i] = eps
            d = d.reshape(xk.shape)
            plus = [t(b + d) if j == k else t(b) for j, b in enumerate(base)]
            minus = [t(b - d) if j == k else t(b) for j, b in enumerate(base)]
            cols.append(((fn(*plus).numpy() - fn(*minus).numpy()) / (2 * eps)).reshape(-1))
        blocks.append(np.stack(cols, axis=1))
    return blocks


def test_jvp_matches_finite_differences():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((3, 2))
    W = rng.standard_normal((2, 4))
    V1, V2 = rng.standard_normal((3, 2)), rng.standard_normal((2, 4))

    def f(a, w):
        return (a @ w).tanh() * a.sum() + (a.exp() @ w).sigmoid()

    out, jv = tandem.jvp(f, (t(A), t(W)), (t(V1), t(V2)))
    close(out, f(t(A), t(W)).numpy())
    J1, J2 = _fd_jacobian(f, [A, W])
    want = (J1 @ V1.reshape(-1) + J2 @ V2.reshape(-1)).reshape(3, 4)
    np.testing.assert_allclose(jv.numpy(), want, rtol=1e-5, atol=1e-7)


def test_jvp_forms():
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    v = np.ones((2, 2))
    # MindSpore's doc example: x**3 + y with v = ones for both.
    out, jv = tandem.jvp(lambda a, b: a * a * a + b, (t(xv), t(xv)), (t(v), t(v)))
    close(out, xv ** 3 + xv)
    close(jv, 3 * xv ** 2 + 1)
    # A single tensor input.
    out, jv = tandem.jvp(lambda a: a.exp(), t(xv), t(v))
    close(jv, np.exp(xv))
    # has_aux: (out, jvp, aux).
    out, jv, aux = tandem.jvp(lambda a, b: (a * a * a + b, b), (t(xv), t(xv)), (t(v), t(v)),
                              has_aux=True)
    close(jv, 3 * xv ** 2 + 1)
    close(aux, xv)
    # Several outputs give a tuple of tangents; a constant output gets zeros.
    out, jv = tandem.jvp(lambda a: (a * 2, t(np.ones(3))), t(xv), t(v))
    close(jv[0], 2 * v)
    close(jv[1], np.zeros(3))
    with pytest.raises(ValueError, match="shape"):
        tandem.jvp(lambda a: a, t(xv), t([1.0]))


def test_return_ids_pairs_gradients_with_positions_and_parameter_names():
    x = tandem.Tensor(np.array([1.0, 2.0], np.float32))
    y = tandem.Tensor(np.array([-2.0, 3.0], np.float32))
    z = tandem.Tensor(np.array([0.0, 3.0], np.float32))
    f = lambda x, y, z: x * y * z
    out = tandem.grad(f, grad_position=(1, 2), return_ids=True)(x, y, z)
    assert [i for i, _ in out] == [1, 2]
    np.testing.assert_allclose(tandem.get_grad(out, 1).numpy(), [0.0, 6.0])
    np.testing.assert_allclose(tandem.get_grad(out, 2).numpy(), [-2.0, 6.0])
    single = tandem.grad(f, grad_position=0, return_ids=True)(x, y, z)
    assert single[0] == 0
    np.testing.assert_allclose(tandem.get_grad(single, 0).numpy(), [0.0, 9.0])
    with pytest.raises(RuntimeError, match="no gradient for identifier 0"):
        tandem.get_grad(out, 0)
    with pytest.raises(TypeError, match="identifier must be"):
        tandem.get_grad(out, "y")


def test_return_ids_with_weights_uses_parameter_names():
    net = tandem.nn.Dense(3, 2)
    x = tandem.mint.ones(4, 3)
    fn = lambda x: net(x).sum()
    params = net.trainable_params()
    (ig, wg) = tandem.grad(fn, grad_position=0, weights=params, return_ids=True)(x)
    assert ig[0] == 0 and [n for n, _ in wg] == [p.name for p in params]
    plain = tandem.grad(fn, grad_position=0, weights=params)(x)
    for p, g in zip(params, plain[1]):
        np.testing.assert_array_equal(tandem.get_grad((ig, wg), p).numpy(), g.numpy())
    value, gs = tandem.value_and_grad(fn, None, params, return_ids=True)(x)
    assert [n for n, _ in gs] == [p.name for p in params]


def test_integer_inputs_get_gradients_of_their_dtype():
    """MindSpore differentiates integer tensors (its static-graph tutorial prints
    Tensor(shape=[1], dtype=Int64, value= [1]) for d(x + y + z)/dx): the gradient is
    computed in float32 and converted to the argument's dtype; a Python number among
    the positions is a constant and gets no gradient."""
    g = tandem.grad(lambda a: a * 2)(tandem.tensor([1, 2]))
    assert g.dtype == tandem.int64 and g.tolist() == [2, 2]
    xyz_ = (lambda x, y, z: x + y + z)
    gs = tandem.grad(xyz_, grad_position=(0, 1, 2))(tandem.tensor([1]), 2, tandem.tensor([3]))
    assert len(gs) == 2 and all(g.dtype == tandem.int64 and g.tolist() == [1] for g in gs)
    g = tandem.grad(lambda a: a * 2.5)(tandem.tensor([1, 2], dtype=tandem.int32))
    assert g.dtype == tandem.int32 and g.tolist() == [2, 2]  # 2.5 converted as a cast does
    v, g = tandem.value_and_grad(lambda a: (a * a).sum())(tandem.tensor([3, 4]))
    assert float(v) == 25 and g.tolist() == [6, 8]


def test_nested_outputs_are_summed_and_arguments_may_be_updated_in_place():
    """Every tensor of a nested output is differentiated (numbers in it are constants), and
    the function may update its argument in place, as MindSpore allows; the caller's tensor
    is untouched."""
    def f(a):
        return a, ({"a": a, "b": 2}, (1, 2))
    assert tandem.grad(f)(tandem.tensor([1.0])).tolist() == [2.0]

    def g(x, y):
        x.add_(y)
        return x * 3
    x = t([2.0])
    gx, gy = tandem.grad(g, (0, 1))(x, t([3.0]))
    close(gx, [3])
    close(gy, [3])
    close(x, [2])
