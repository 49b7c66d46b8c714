"""Gradcheck cases for the unary and binary elementwise ops (values kept away from kinks,
jumps and domain edges, where finite differences say nothing useful)."""
import numpy as np

from gradcheck_util import rand
import tandem
from tandem import _C, mint
from tandem.mint.nn import functional as F


def t(*values):
    return tandem.tensor(np.array(values, dtype=np.float64))


def unary(fn, *shape, low=-1.0, high=1.0):
    return lambda: (fn, [rand(*shape, low=low, high=high)])


def on(fn, *values):
    return lambda: (fn, [t(*values)])


def bcast(fn, low_b=-1.0, high_b=1.0):
    return lambda: (fn, [rand(3, 4), rand(4, low=low_b, high=high_b)])


# Off-integer values for the step functions and frac (finite differences see zero slope).
STEPS = (-2.7, -1.2, -0.3, 0.4, 1.6, 2.2)

CASES = {
    "abs": [on(mint.abs, -1.5, -0.2, 0.3, 2.0)],
    "sign": [on(mint.sign, *STEPS)],
    "floor": [on(mint.floor, *STEPS)],
    "ceil": [on(mint.ceil, *STEPS)],
    "trunc": [on(mint.trunc, *STEPS)],
    "round": [on(mint.round, *STEPS),
              on(lambda x: mint.round(x, decimals=1), 0.123, -0.461, 2.318)],
    "frac": [on(mint.frac, *STEPS)],
    "clamp": [on(lambda x: mint.clamp(x, -0.5, 0.5), -0.9, -0.2, 0.1, 0.7),
              on(lambda x: F.hardtanh(x), -1.5, -0.4, 0.6, 1.3)],
    "clamp_min": [on(lambda x: mint.clamp(x, min=-0.2), -0.9, -0.1, 0.5)],
    "clamp_max": [on(lambda x: mint.clamp(x, max=0.3), -0.9, 0.1, 0.5)],
    "sqrt": [unary(mint.sqrt, 2, 3, low=0.2, high=2.0)],
    "rsqrt": [unary(mint.rsqrt, 2, 3, low=0.2, high=2.0)],
    "reciprocal": [on(mint.reciprocal, -2.0, -0.5, 0.3, 1.7)],
    "square": [unary(mint.square, 2, 3)],
    "exp2": [unary(mint.exp2, 5)],
    "expm1": [unary(mint.expm1, 5)],
    "log2": [unary(mint.log2, 5, low=0.2, high=3.0)],
    "log10": [unary(mint.log10, 5, low=0.2, high=3.0)],
    "log1p": [unary(mint.log1p, 5, low=-0.5, high=2.0)],
    "sin": [unary(mint.sin, 2, 3, low=-3.0, high=3.0)],
    "cos": [unary(mint.cos, 2, 3, low=-3.0, high=3.0)],
    "tan": [unary(mint.tan, 5, low=-1.2, high=1.2)],
    "asin": [unary(mint.asin, 5, low=-0.9, high=0.9)],
    "acos": [unary(mint.acos, 5, low=-0.9, high=0.9)],
    "atan": [unary(mint.atan, 5, low=-3.0, high=3.0)],
    "sinh": [unary(mint.sinh, 5, low=-2.0, high=2.0)],
    "cosh": [unary(mint.cosh, 5, low=-2.0, high=2.0)],
    "asinh": [unary(mint.asinh, 5, low=-3.0, high=3.0)],
    "acosh": [unary(mint.acosh, 5, low=1.2, high=3.0)],
    "atanh": [unary(mint.atanh, 5, low=-0.9, high=0.9)],
    "erf": [unary(mint.erf, 5, low=-2.0, high=2.0)],
    "erfc": [unary(mint.erfc, 5, low=-2.0, high=2.0)],
    "erfinv": [unary(mint.erfinv, 5, low=-0.9, high=0.9)],
    "logsigmoid": [unary(F.logsigmoid, 5, low=-4.0, high=4.0)],
    "silu": [unary(F.silu, 5, low=-4.0, high=4.0)],
    "mish": [unary(F.mish, 5, low=-4.0, high=4.0)],
    "gelu": [unary(F.gelu, 6, low=-3.0, high=3.0)],
    "gelu_tanh": [unary(lambda x: F.gelu(x, approximate="tanh"), 6, low=-3.0, high=3.0)],
    "elu": [on(lambda x: F.elu(x, alpha=0.7), -2.0, -0.4, 0.3, 1.5),
            on(F.selu, -1.3, -0.2, 0.6, 2.1),
            on(lambda x: F.celu(x, alpha=1.5), -2.5, -0.7, 0.2, 1.1)],
    "leaky_relu": [on(lambda x: F.leaky_relu(x, 0.2), -1.5, -0.3, 0.4, 2.0)],
    "softplus": [unary(F.softplus, 5, low=-4.0, high=4.0),
                 on(lambda x: F.softplus(x, beta=2.0, threshold=1.5), -1.0, 0.3, 0.6, 0.9, 1.4)],
    "hardsigmoid": [on(F.hardsigmoid, -4.5, -2.5, -0.7, 1.3, 2.8, 3.6)],
    "hardswish": [on(F.hardswish, -4.5, -2.5, -0.7, 1.3, 2.8, 3.6)],
    # finite replacements: float max would swamp the finite differences of the other terms
    "nan_to_num": [on(lambda x: mint.nan_to_num(x, posinf=5.0, neginf=-5.0),
                      -1.5, float("nan"), 0.4, float("inf"), float("-inf"), 2.0)],
    # binary
    "atan2": [bcast(mint.atan2)],
    "copysign": [lambda: (mint.copysign, [t(-1.5, 0.5, 2.0, -0.3), t(0.7, -1.2, -0.4, 2.0)])],
    "div_trunc": [lambda: (lambda a, b: mint.div(a, b, rounding_mode="trunc"),
                           [t(-2.7, 1.3, 5.1), t(1.1, -0.6, 2.0)])],
    "floor_divide": [lambda: (mint.floor_divide, [t(-2.7, 1.3, 5.1), t(1.1, -0.6, 2.0)])],
    "fmod": [lambda: (mint.fmod, [t(-2.7, 1.3, 5.1, 0.4), t(1.1, -0.6, 2.0, 1.5)])],
    "remainder": [lambda: (mint.remainder, [t(-2.7, 1.3, 5.1, 0.4), t(1.1, -0.6, 2.0, -1.5)])],
    "hypot": [bcast(mint.hypot)],
    "logaddexp": [bcast(mint.logaddexp)],
    # the gradient input is linear; the output only selects (kept away from 0)
    "relu_backward": [lambda: (_C.relu_backward, [t(0.3, -1.2, 2.0, 0.7), t(1.5, -0.5, 0.25, -2.0)])],
    # ties (equal values) split the gradient, which is what central differences see
    "maximum": [bcast(mint.maximum),
                lambda: (mint.maximum, [t(0.5, -1.0, 2.0), t(0.5, 0.3, 1.0)])],
    "minimum": [bcast(mint.minimum),
                lambda: (mint.minimum, [t(0.5, -1.0, 2.0), t(0.5, 0.3, 1.0)])],
    # a nan operand is ignored: the other one gets the gradient
    "fmax": [bcast(mint.fmax),
             lambda: (mint.fmax, [t(float("nan"), -1.0, 2.0), t(0.5, float("nan"), 1.0)])],
    "fmin": [bcast(mint.fmin),
             lambda: (mint.fmin, [t(float("nan"), -1.0, 2.0), t(0.5, float("nan"), 1.0)])],
    "pow": [lambda: (mint.pow, [rand(3, 4, low=0.2, high=2.0), rand(4, low=-1.5, high=2.5)]),
            lambda: (lambda a: a ** 3, [rand(5)]),
            lambda: (lambda a: 2.0 ** a, [rand(5)]),
            # base 0: finite with exponent >= 1; exponent 0 gives the base no gradient
            lambda: (mint.pow, [t(0.0, 0.0, 0.7, 1.3), t(2.0, 3.0, 0.0, -0.5)])],
    "where": [lambda: (mint.where,
                       [tandem.tensor([[True, False, True, False]] * 3), rand(3, 4), rand(4)]),
              lambda: (lambda a: mint.where(a > 0, a, a * a), [rand(6)])],
    # tensor bounds (broadcast), values away from the kinks; min > max in the last column
    "clamp_tensor": [lambda: (lambda x, lo, hi: mint.clamp(x, lo, hi),
                              [tandem.tensor([[-0.9, -0.2, 0.1, 0.7, 0.3], [0.4, -0.6, 0.8, -0.1, 0.9]],
                                             dtype=tandem.float64),
                               tandem.tensor([-0.5, -0.4, -0.3, -0.2, 0.6], dtype=tandem.float64),
                               tandem.tensor([[0.5], [0.35]], dtype=tandem.float64)])],
    "lerp": [lambda: (mint.lerp, [rand(3, 4), rand(4), rand(3, 1)]),
             lambda: (lambda a, b: mint.lerp(a, b, 0.3), [rand(5), rand(5)])],
    "addcmul": [lambda: (lambda x, a, b: mint.addcmul(x, a, b, value=0.5),
                         [rand(3, 4), rand(4), rand(3, 1)])],
    "addcdiv": [lambda: (lambda x, a, b: mint.addcdiv(x, a, b, value=-2.0),
                         [rand(3, 4), rand(4), rand(3, 1, low=0.5, high=2.0)])],
}
