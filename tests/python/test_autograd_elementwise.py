"""Second-order gradients of elementwise ops: grad of grad (create_graph=True) against the
analytic second derivatives, and against finite differences of the first gradient."""
import numpy as np
import pytest

from gradcheck_util import rand
import tandem
from tandem import mint
from tandem.mint.nn import functional as F


def leaf(a):
    return tandem.tensor(np.asarray(a, dtype=np.float64)).requires_grad_()


def second(f, *xs, wrt=0, then=0):
    """d/d xs[then] of sum(d f / d xs[wrt]) (elementwise ops: the Hessian's diagonal)."""
    g = tandem.autograd.grad(f(*xs).sum(), xs[wrt], create_graph=True)[0]
    return tandem.autograd.grad(g.sum(), xs[then])[0].numpy()


X = np.array([-1.3, -0.4, 0.2, 0.9, 1.7])


@pytest.mark.parametrize("name,f,d2", [
    ("sin", mint.sin, lambda x: -np.sin(x)),
    ("exp", mint.exp, np.exp),
    ("tanh", mint.tanh, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    ("pow", lambda x: x ** 3, lambda x: 6 * x),
    ("mul", lambda x: x * x * x, lambda x: 6 * x),
    ("square", lambda x: x * x, lambda x: np.full_like(x, 2.0)),
])
def test_second_derivative_unary(name, f, d2):
    np.testing.assert_allclose(second(f, leaf(X)), d2(X), rtol=1e-12, atol=1e-12)


def test_pow_second_derivatives():
    a, b = np.array([0.4, 1.3, 2.2]), np.array([-0.7, 1.5, 2.5])
    A, B = leaf(a), leaf(b)
    np.testing.assert_allclose(second(mint.pow, A, B, wrt=0, then=0),
                               b * (b - 1) * a ** (b - 2), rtol=1e-12)
    np.testing.assert_allclose(second(mint.pow, A, B, wrt=1, then=1),
                               a ** b * np.log(a) ** 2, rtol=1e-12)
    # mixed partial: d/db (b a^(b-1)) = a^(b-1) (1 + b log a), the same either way round
    mixed = a ** (b - 1) * (1 + b * np.log(a))
    np.testing.assert_allclose(second(mint.pow, A, B, wrt=0, then=1), mixed, rtol=1e-12)
    np.testing.assert_allclose(second(mint.pow, A, B, wrt=1, then=0), mixed, rtol=1e-12)


def test_mul_mixed_second_derivative():
    a, b = leaf([0.5, -1.2, 2.0]), leaf([1.5, 0.3, -0.7])
    # d/da (a b) = b, whose derivative in b is 1; a b^2 gives d2/db2 = 2a
    np.testing.assert_allclose(second(mint.mul, a, b, wrt=0, then=1), np.ones(3))
    np.testing.assert_allclose(second(lambda u, v: u * v * v, a, b, wrt=1, then=1),
                               2 * a.detach().numpy())


# The first gradient of every op below is itself differentiated: compare with central
# differences of that first gradient.
SMOOTH = {
    "sqrt": (mint.sqrt, 0.3, 2.0), "rsqrt": (mint.rsqrt, 0.3, 2.0),
    "reciprocal": (mint.reciprocal, 0.3, 2.0), "log2": (mint.log2, 0.3, 2.0),
    "log1p": (mint.log1p, -0.5, 2.0), "exp2": (mint.exp2, -1.0, 1.0),
    "expm1": (mint.expm1, -1.0, 1.0), "cos": (mint.cos, -2.0, 2.0), "tan": (mint.tan, -1.0, 1.0),
    "asin": (mint.asin, -0.8, 0.8), "acos": (mint.acos, -0.8, 0.8),
    "atan": (mint.atan, -2.0, 2.0), "sinh": (mint.sinh, -1.5, 1.5),
    "cosh": (mint.cosh, -1.5, 1.5), "asinh": (mint.asinh, -2.0, 2.0),
    "acosh": (mint.acosh, 1.2, 3.0), "atanh": (mint.atanh, -0.8, 0.8),
    "erf": (mint.erf, -1.5, 1.5), "erfc": (mint.erfc, -1.5, 1.5),
    "erfinv": (mint.erfinv, -0.8, 0.8), "sigmoid": (mint.sigmoid, -3.0, 3.0),
    "logsigmoid": (F.logsigmoid, -3.0, 3.0), "silu": (F.silu, -3.0, 3.0),
    "mish": (F.mish, -3.0, 3.0), "gelu": (F.gelu, -3.0, 3.0),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), -3.0, 3.0),
    "softplus": (lambda x: F.softplus(x, beta=1.5), -3.0, 3.0),
    "elu_negative": (lambda x: F.elu(x, alpha=0.7), -2.0, -0.1),
    "hypot": (lambda x: mint.hypot(x, x * 0.5 + 1.0), -2.0, 2.0),
    "atan2": (lambda x: mint.atan2(x, x * x + 1.0), -2.0, 2.0),
    "logaddexp": (lambda x: mint.logaddexp(x, -x * 0.3), -2.0, 2.0),
    "lerp": (lambda x: mint.lerp(x, mint.sin(x), x * x), -1.0, 1.0),
    "addcdiv": (lambda x: mint.addcdiv(x, mint.sin(x), x + 3.0, value=0.5), -1.0, 1.0),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_second_derivative_matches_finite_differences(name):
    f, lo, hi = SMOOTH[name]
    x = rand(6, low=lo, high=hi).numpy()

    def first(v):
        xs = leaf(v)
        return tandem.autograd.grad(f(xs).sum(), xs)[0].numpy()

    eps = 1e-6
    numeric = (first(x + eps) - first(x - eps)) / (2 * eps)
    np.testing.assert_allclose(second(f, leaf(x)), numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,f,d2", [
    # d2/dx2 (f(x) x) = 2 f'(x) where f'' = 0: checks the masks under create_graph
    ("abs", mint.abs, lambda x: 2 * np.sign(x)),
    ("floor", mint.floor, lambda x: np.zeros_like(x)),
    ("clamp", lambda v: mint.clamp(v, -1.0, 1.0), lambda x: 2.0 * (np.abs(x) < 1)),
    ("leaky_relu", lambda v: F.leaky_relu(v, 0.1), lambda x: np.where(x > 0, 2.0, 0.2)),
    ("maximum", lambda v: mint.maximum(v, v * 0.0 + 0.5), lambda x: 2.0 * (x > 0.5)),
])
def test_piecewise_second_derivative(name, f, d2):
    x = np.array([-1.4, -0.3, 0.6, 2.2])
    np.testing.assert_allclose(second(lambda v: f(v) * v, leaf(x)), d2(x), rtol=1e-12)
