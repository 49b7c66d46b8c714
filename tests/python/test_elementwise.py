"""Elementwise ops against numpy: unary math and activations, binary arithmetic, comparisons,
logical and bitwise ops, ternaries. Every op runs over the dtypes it supports and over
contiguous, transposed, stepped, expanded, 0-d and empty inputs; references are numpy
(or plain-Python math for erf / erfinv), never tandem itself."""
import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tandem
from tandem import mint

T = tandem
ALL = [T.bool, T.uint8, T.int8, T.int16, T.int32, T.int64, T.float16, T.bfloat16, T.float32,
       T.float64]
INTS = [T.uint8, T.int8, T.int16, T.int32, T.int64]
FLOATS = [T.float16, T.bfloat16, T.float32, T.float64]
NUMERIC = INTS + FLOATS
NP = {T.bool: np.bool_, T.uint8: np.uint8, T.int8: np.int8, T.int16: np.int16,
      T.int32: np.int32, T.int64: np.int64, T.float16: np.float16, T.bfloat16: np.float32,
      T.float32: np.float32, T.float64: np.float64}
TOL = {T.float16: (2e-3, 2e-3), T.bfloat16: (1.6e-2, 1.6e-2), T.float32: (2e-5, 1e-6),
       T.float64: (1e-11, 1e-12)}
RNG = np.random.default_rng(0)


def isfloat(dt):
    return dt in FLOATS


def isint(dt):
    return dt in INTS


def bf16_round(x):
    """float32 -> nearest bfloat16 (ties to even), as float32; the reference for bfloat16."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, r)


def np_cast(a, dt):
    """numpy array -> the values a tandem tensor of dtype dt holds (bfloat16 as float32)."""
    a = np.asarray(a)
    if dt == T.bfloat16:
        return bf16_round(a.astype(np.float32))
    return a.astype(NP[dt])


def compute_np(dt):
    """The numpy dtype tandem computes dt in (16-bit floats in float32)."""
    return np.float32 if dt in (T.float16, T.bfloat16) else NP[dt]


def tt(a, dt):
    """A tandem tensor of dtype dt holding np_cast(a, dt)."""
    if dt == T.bfloat16:
        return mint.tensor(np.asarray(a, dtype=np.float32)).to(T.bfloat16)
    return mint.tensor(np.asarray(a).astype(NP[dt]))


def sample(shape, dt, lo=-3.0, hi=3.0):
    """Random values valid for dt within [lo, hi] (ints: integers in range; bool: 0/1)."""
    if dt == T.bool:
        return RNG.integers(0, 2, size=shape).astype(bool)
    if isint(dt):
        info = np.iinfo(NP[dt])
        a, b = max(math.ceil(lo), info.min), min(math.floor(hi), info.max)
        return RNG.integers(a, b + 1, size=shape).astype(NP[dt])
    return np_cast(RNG.uniform(lo, hi, size=shape), dt)


def check(out, expected, dt):
    """out (tandem) has dtype dt, expected's shape and values (tolerance by dtype)."""
    assert isinstance(out, tandem.Tensor)
    assert out.dtype == dt, f"dtype {out.dtype} != {dt}"
    got = out.numpy()
    exp = np.asarray(expected)
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    if isfloat(dt):
        rtol, atol = TOL[dt]
        np.testing.assert_allclose(got.astype(np.float64), np_cast(exp, dt).astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, exp.astype(NP[dt]))


# --- layouts: (numpy array, tandem tensor) pairs with the same values ---------------------------

def layouts(dt, lo=-3.0, hi=3.0, shape=(7, 9)):
    """Contiguous, transposed, stepped, expanded, 0-d and empty versions of random data."""
    r, c = shape
    base = sample(shape, dt, lo, hi)
    yield "contiguous", base, tt(base, dt)
    b = sample((c, r), dt, lo, hi)
    yield "transposed", np_cast(b, dt).T, tt(b, dt).T
    b = sample((2 * r, 3 * c), dt, lo, hi)
    yield "stepped", np_cast(b, dt)[::2, 1::3], tt(b, dt)[::2, 1::3]
    b = sample((1, c), dt, lo, hi)
    yield "expanded", np.broadcast_to(np_cast(b, dt), shape), tt(b, dt).expand(r, c)
    b = sample((), dt, lo, hi)
    yield "0-d", np.asarray(np_cast(b, dt)), tt(b, dt)
    b = sample((0, c), dt, lo, hi)
    yield "empty", np_cast(b, dt), tt(b, dt)


# --- reference formulas ---------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_nd = statistics.NormalDist()


def _erfinv(y):
    def one(v):
        if v <= -1 or v >= 1:
            return math.copysign(math.inf, v) if abs(v) == 1 else math.nan
        return _nd.inv_cdf((v + 1) / 2) / math.sqrt(2)
    return np.vectorize(one, otypes=[np.float64])(y)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

# name -> (reference, kind, (lo, hi)).
# kind: keep_all (result dtype = input dtype, bool too), keep_num (bool rejected),
# float (ints and bool -> float32), float_only (ints rejected), pred (bool out),
# int (integer and bool only).
UNARY = {
    "neg": (np.negative, "keep_num", (-3, 3)),
    "abs": (np.abs, "keep_all", (-3, 3)),
    "sign": (np.sign, "keep_all", (-3, 3)),
    "square": (np.square, "keep_all", (-3, 3)),
    "floor": (np.floor, "keep_num", (-3, 3)),
    "ceil": (np.ceil, "keep_num", (-3, 3)),
    "trunc": (np.trunc, "keep_num", (-3, 3)),
    "frac": (lambda x: x - np.trunc(x), "float_only", (-3, 3)),
    "relu": (lambda x: np.maximum(x, 0), "keep_num", (-3, 3)),
    "relu6": (lambda x: np.clip(x, 0, 6), "keep_num", (-3, 9)),
    "sqrt": (np.sqrt, "float", (0.1, 10)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), "float", (0.1, 10)),
    "reciprocal": (lambda x: 1 / x, "float", (0.25, 4)),
    "exp": (np.exp, "float", (-5, 5)),
    "exp2": (np.exp2, "float", (-5, 5)),
    "expm1": (np.expm1, "float", (-5, 5)),
    "log": (np.log, "float", (0.1, 10)),
    "log2": (np.log2, "float", (0.1, 10)),
    "log10": (np.log10, "float", (0.1, 10)),
    "log1p": (np.log1p, "float", (-0.9, 5)),
    "sin": (np.sin, "float", (-3, 3)),
    "cos": (np.cos, "float", (-3, 3)),
    "tan": (np.tan, "float", (-1.4, 1.4)),
    "asin": (np.arcsin, "float", (-0.95, 0.95)),
    "acos": (np.arccos, "float", (-0.95, 0.95)),
    "atan": (np.arctan, "float", (-3, 3)),
    "sinh": (np.sinh, "float", (-3, 3)),
    "cosh": (np.cosh, "float", (-3, 3)),
    "tanh": (np.tanh, "float", (-3, 3)),
    "asinh": (np.arcsinh, "float", (-3, 3)),
    "acosh": (np.arccosh, "float", (1, 5)),
    "atanh": (np.arctanh, "float", (-0.95, 0.95)),
    "erf": (_erf, "float", (-3, 3)),
    "erfc": (_erfc, "float", (-3, 3)),
    "erfinv": (_erfinv, "float", (-0.95, 0.95)),
    "sigmoid": (_sigmoid, "float", (-8, 8)),
    "logsigmoid": (lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), "float_only",
                   (-8, 8)),
    "silu": (lambda x: x * _sigmoid(x), "float_only", (-8, 8)),
    "mish": (lambda x: x * np.tanh(np.log1p(np.exp(x))), "float_only", (-8, 8)),
    "hardsigmoid": (lambda x: np.clip(x / 6 + 0.5, 0, 1), "float_only", (-5, 5)),
    "hardswish": (lambda x: x * np.clip(x + 3, 0, 6) / 6, "float_only", (-5, 5)),
    "selu": (lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), "float_only",
             (-3, 3)),
    "isnan": (np.isnan, "pred", (-3, 3)),
    "isinf": (np.isinf, "pred", (-3, 3)),
    "isfinite": (np.isfinite, "pred", (-3, 3)),
    "isposinf": (np.isposinf, "pred", (-3, 3)),
    "isneginf": (np.isneginf, "pred", (-3, 3)),
    "signbit": (np.signbit, "pred", (-3, 3)),
    "logical_not": (np.logical_not, "pred", (-2, 2)),
    "bitwise_not": (np.invert, "int", (-100, 100)),
}
# Ops whose result jumps (floor, ...) are checked in tandem's compute precision, not float64.
DISCONTINUOUS = {"floor", "ceil", "trunc", "frac", "sign", "floor_divide", "remainder", "fmod",
                 "div_trunc", "div_floor", "round"}


def unary_result(kind, dt):
    """The result dtype, or None when tandem must raise TypeError."""
    if kind == "keep_all":
        return dt
    if kind == "keep_num":
        return None if dt == T.bool else dt
    if kind == "float":
        return dt if isfloat(dt) else T.float32
    if kind == "float_only":
        return dt if isfloat(dt) else None
    if kind == "pred":
        return T.bool
    return None if isfloat(dt) else dt  # int


def unary_ref(name, ref, x, dt, res):
    """Reference values of op `name` on the dtype-dt values x, for result dtype res."""
    if UNARY[name][1] == "pred":
        return ref(x)
    if dt == T.bool and res == T.bool and UNARY[name][1] == "int":
        return ref(x)
    if not isfloat(dt):
        if isfloat(res):  # int -> float ops: the exact answer from the integer values
            with np.errstate(all="ignore"):  # bool inputs can leave the domain (acosh(0))
                return ref(x.astype(np.float64))
        wide = x.astype(np.int64)
        out = ref(wide)
        return (out != 0) if res == T.bool else out.astype(NP[res])
    if name in DISCONTINUOUS:
        return ref(x.astype(compute_np(dt)))
    return ref(x.astype(np.float64))


def with_specials(x, dt):
    """Puts nan, +-inf, -0.0 into a float array (for predicates and nan_to_num)."""
    if not isfloat(dt) or x.size < 4:
        return x
    x = np.array(x, dtype=np.float32 if dt == T.bfloat16 else NP[dt])
    flat = x.reshape(-1)
    flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


@pytest.mark.parametrize("dt", ALL, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, dt):
    ref, kind, (lo, hi) = UNARY[name]
    fn = getattr(mint, name)
    res = unary_result(kind, dt)
    if name == "square" and dt == T.bool:
        res = T.int64  # PyTorch: square(x) is pow(x, 2), and bool ** int is int64
    if res is None:
        with pytest.raises(TypeError):
            fn(tt(sample((3,), dt, lo, hi), dt))
        return
    for layout, a, t in layouts(dt, lo, hi):
        if kind == "pred" and layout == "contiguous":
            a = with_specials(a, dt)
            t = tt(a, dt)
        expected = unary_ref(name, ref, np.asarray(a), dt, res)
        try:
            check(fn(t), expected, res)
            check(getattr(t, name)(), expected, res)  # the method form
        except AssertionError as e:
            raise AssertionError(f"{name} {dt} {layout}: {e}") from None


def test_unary_aliases():
    x = tt(sample((5,), T.float32, -0.9, 0.9), T.float32)
    pairs = {"negative": "neg", "absolute": "abs", "arcsin": "asin", "arccos": "acos",
             "arctan": "atan", "arcsinh": "asinh", "arctanh": "atanh", "fix": "trunc",
             "special_erf": "erf"}
    for alias, name in pairs.items():
        np.testing.assert_array_equal(getattr(mint, alias)(x).numpy(),
                                      getattr(mint, name)(x).numpy())
    y = tt(sample((5,), T.float32, 1.5, 3), T.float32)
    np.testing.assert_array_equal(mint.arccosh(y).numpy(), mint.acosh(y).numpy())


def test_unary_large_threaded():
    """Enough elements for several threads and many SIMD tiles, with a ragged tail."""
    a = RNG.uniform(-4, 4, size=200_003).astype(np.float32)
    t = mint.tensor(a)
    np.testing.assert_allclose(mint.exp(t).numpy(), np.exp(a.astype(np.float64)), rtol=2e-6)
    np.testing.assert_allclose(mint.tanh(t).numpy(), np.tanh(a.astype(np.float64)), rtol=2e-6,
                               atol=1e-7)
    np.testing.assert_array_equal(mint.neg(t.to(T.int32)).numpy(), -a.astype(np.int32))
    h = t.to(T.float16)
    np.testing.assert_allclose(mint.sigmoid(h).numpy().astype(np.float64),
                               _sigmoid(a.astype(np.float16).astype(np.float64)), rtol=2e-3)


def test_binary_large_threaded_mixed_layouts():
    """Several threads over transposed, broadcast and converted operands at once."""
    a = RNG.uniform(-4, 4, size=(400, 300)).astype(np.float16)
    b = RNG.integers(-50, 50, size=(300, 1)).astype(np.int32)
    ta = mint.tensor(np.ascontiguousarray(a.T)).T  # (400, 300), transposed strides
    tb = mint.tensor(b.T)  # (1, 300): broadcast along rows
    check(ta * tb, a.astype(np.float64) * b.T, T.float16)
    check(mint.maximum(ta, tb), np.maximum(a.astype(np.float64), b.T), T.float16)
    c = RNG.random((400, 300)) > 0.5
    check(mint.where(mint.tensor(c), ta, tb), np.where(c, a.astype(np.float64), b.T), T.float16)
    big = mint.tensor(RNG.integers(-1000, 1000, size=(1000, 150)).astype(np.int64))
    np.testing.assert_array_equal((big[:, ::2] // 7).numpy(), big.numpy()[:, ::2] // 7)
    out = mint.zeros(400, 300, dtype=T.float64)
    out += ta  # in-place with conversion and a strided source
    check(out, a.astype(np.float64), T.float64)


def test_unary_special_values():
    x = mint.tensor([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=T.float32)
    with np.errstate(all="ignore"):
        for name, ref in [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt),
                          ("tanh", np.tanh), ("sigmoid", _sigmoid), ("abs", np.abs),
                          ("floor", np.floor)]:
            np.testing.assert_array_equal(getattr(mint, name)(x).numpy(),
                                          ref(x.numpy().astype(np.float64)).astype(np.float32),
                                          err_msg=name)
    # sign(nan) is 0 in PyTorch ((0 < x) - (x < 0)), where numpy gives nan.
    np.testing.assert_array_equal(mint.sign(x).numpy(), [0, 0, 1, -1, 0])
    np.testing.assert_array_equal(mint.erfinv(mint.tensor([-1.0, 1.0, 1.5])).numpy(),
                                  [-np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(mint.logsigmoid(mint.tensor([-200.0, 200.0])).numpy(),
                                  [-200.0, 0.0])


# --- unary ops with parameters ------------------------------------------------------------------

def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


def _celu(x, alpha=1.0):
    return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha))


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


PARAM_UNARY = [
    ("leaky_relu", {}, lambda x: np.where(x > 0, x, 0.01 * x)),
    ("leaky_relu", {"negative_slope": 0.2}, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("elu", {}, _elu),
    ("elu", {"alpha": 0.5}, lambda x: _elu(x, 0.5)),
    ("celu", {}, _celu),
    ("celu", {"alpha": 2.0}, lambda x: _celu(x, 2.0)),
    ("gelu", {}, _gelu),
    ("gelu", {"approximate": "tanh"}, _gelu_tanh),
    ("softplus", {}, _softplus),
    ("softplus", {"beta": 2.0, "threshold": 4.0}, lambda x: _softplus(x, 2.0, 4.0)),
    ("hardtanh", {}, lambda x: np.clip(x, -1, 1)),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}, lambda x: np.clip(x, -0.5, 2.0)),
]


@pytest.mark.parametrize("dt", FLOATS + [T.int32], ids=str)
@pytest.mark.parametrize("case", range(len(PARAM_UNARY)),
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(PARAM_UNARY)])
def test_param_unary(case, dt):
    name, kw, ref = PARAM_UNARY[case]
    if not isfloat(dt) and name != "hardtanh":  # float-only kernels, as in PyTorch
        with pytest.raises(TypeError, match="floating point"):
            getattr(mint, name)(tt(sample((3,), dt, -6, 6), dt), **kw)
        return
    res = dt
    for layout, a, t in layouts(dt, -6, 6):
        expected = ref(a.astype(np.float64))
        try:
            check(getattr(mint, name)(t, **kw), expected, res)
            check(getattr(t, name)(**kw), expected, res)
        except AssertionError as e:
            raise AssertionError(f"{name}{kw} {dt} {layout}: {e}") from None


def test_param_unary_errors():
    x = mint.randn(3)
    with pytest.raises(ValueError):
        mint.gelu(x, approximate="fast")
    with pytest.raises(ValueError):
        mint.hardtanh(x, 1.0, -1.0)
    with pytest.raises(ValueError):
        mint.celu(x, 0.0)
    with pytest.raises(ValueError):
        mint.softplus(x, beta=0.0)


@pytest.mark.parametrize("dt", NUMERIC, ids=str)
@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round(dt, decimals):
    for layout, a, t in layouts(dt, -60, 60):
        if isfloat(dt):
            exp = np.round(a.astype(compute_np(dt)), decimals)
        else:
            exp = a  # rounding an integer tensor leaves it unchanged (PyTorch)
        check(mint.round(t, decimals=decimals), exp, dt)
    # Halves go to the even neighbour.
    if isfloat(dt) and decimals == 0:
        h = tt([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], dt)
        check(mint.round(h), [0.0, 2.0, 2.0, -0.0, -2.0, -2.0], dt)


# --- clamp and nan_to_num -----------------------------------------------------------------------

@pytest.mark.parametrize("dt", NUMERIC, ids=str)
def test_clamp_scalar_bounds(dt):
    for layout, a, t in layouts(dt, -10, 10):
        x = a.astype(np.float64)
        check(mint.clamp(t, -2, 3), np.clip(x, -2, 3), dt)
        check(mint.clamp(t, min=1), np.maximum(x, 1), dt)
        check(mint.clamp(t, max=1), np.minimum(x, 1), dt)
        check(t.clamp(0, 5), np.clip(x, 0, 5), dt)
        check(mint.clip(t, 0, 5), np.clip(x, 0, 5), dt)
        # min > max: every element becomes max (PyTorch and numpy: min(max(x, lo), hi)).
        check(mint.clamp(t, 4, 2), np.minimum(np.maximum(x, 4), 2), dt)
    if isint(dt):
        # A float bound on an integer tensor promotes, as in PyTorch.
        a = sample((6,), dt, 0, 9)
        check(mint.clamp(tt(a, dt), 0.5, 3.5), np.clip(a.astype(np.float64), 0.5, 3.5),
              T.float32)


@pytest.mark.parametrize("dt", [T.int64, T.float16, T.float32, T.float64], ids=str)
def test_clamp_tensor_bounds(dt):
    a = sample((4, 5), dt, -10, 10)
    lo = sample((5,), dt, -6, 0)
    hi = sample((4, 1), dt, 0, 6)
    x = tt(a, dt)
    f = lambda v: np.asarray(v, dtype=np.float64)  # noqa: E731
    check(mint.clamp(x, tt(lo, dt), tt(hi, dt)), np.minimum(np.maximum(f(a), f(lo)), f(hi)), dt)
    check(mint.clamp(x, min=tt(lo, dt)), np.maximum(f(a), f(lo)), dt)
    check(mint.clamp(x, max=tt(hi, dt)), np.minimum(f(a), f(hi)), dt)
    check(mint.clamp(x.T, max=tt(hi, dt).T), np.minimum(f(a).T, f(hi).T), dt)
    # min > max elementwise: the result is max.
    check(mint.clamp(x, tt(np.full(5, 3), dt), tt(np.full(5, 1), dt)), np.full((4, 5), 1), dt)


def test_clamp_in_place_and_errors():
    x = mint.tensor([-3.0, 0.5, 7.0])
    y = x.clamp_(0, 1)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), [0, 0.5, 1])
    with pytest.raises(ValueError):
        mint.clamp(x)
    nan = mint.clamp(mint.tensor([np.nan, 2.0]), 0, 1)
    assert np.isnan(nan.numpy()[0]) and nan.numpy()[1] == 1


DT_MAX = {T.float16: 65504.0, T.bfloat16: 3.3895313892515355e38,
          T.float32: float(np.finfo(np.float32).max), T.float64: float(np.finfo(np.float64).max)}


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_nan_to_num(dt):
    a = with_specials(sample((3, 5), dt, -3, 3), dt)
    t = tt(a, dt)
    if isfloat(dt):
        x = np.asarray(a, dtype=np.float64)
        big = DT_MAX[dt]
        exp = np.where(np.isnan(x), 0.0,
                       np.where(x == np.inf, big, np.where(x == -np.inf, -big, x)))
        check(mint.nan_to_num(t), exp, dt)
        exp2 = np.nan_to_num(x, nan=1.5, posinf=100.0, neginf=-7.0)
        check(mint.nan_to_num(t, nan=1.5, posinf=100.0, neginf=-7.0), exp2, dt)
        check(t.T.nan_to_num(nan=2.0), np.nan_to_num(x.T, nan=2.0, posinf=big, neginf=-big), dt)
    else:
        check(mint.nan_to_num(t), a, dt)


# --- binary ops ---------------------------------------------------------------------------------

def promote(a, b):
    """PyTorch's promote_types (see test_promotion.py for the full table)."""
    if a == b:
        return a
    if a == T.bool:
        return b
    if b == T.bool:
        return a
    if isfloat(a) != isfloat(b):
        return a if isfloat(a) else b
    if isfloat(a):
        if {a, b} == {T.float16, T.bfloat16}:
            return T.float32
        return max(a, b, key=FLOATS.index)
    if T.uint8 in (a, b):
        other = b if a == T.uint8 else a
        return T.int16 if other == T.int8 else other
    return max(a, b, key=INTS.index)


def category(dt):
    return 0 if dt == T.bool else (2 if isfloat(dt) else 1)


def combine(higher, lower):
    """PyTorch's combine_categories: a lower-priority class only counts when it is of a
    higher category (bool < integer < floating)."""
    if higher is None:
        return lower
    if lower is None or category(higher) >= category(lower):
        return higher
    return promote(higher, lower)


def result_type(dims=(), zero_d=(), numbers=()):
    """Result dtype of tensors with dims, 0-d tensors and Python numbers (PyTorch's rules)."""
    def fold(dts):
        out = None
        for d in dts:
            out = d if out is None else promote(out, d)
        return out
    nums = [T.bool if isinstance(n, bool) else T.int64 if isinstance(n, int) else T.float32
            for n in numbers]
    return combine(fold(dims), combine(fold(zero_d), fold(nums)))


# name -> (reference, kind, domain of a, domain of b)
# kind: promote, float (ints -> float32), float_only, cmp, logical, int
BINARY = {
    "add": (np.add, "promote", (-50, 50), (-50, 50)),
    "sub": (np.subtract, "promote", (-50, 50), (-50, 50)),
    "mul": (np.multiply, "promote", (-10, 10), (-10, 10)),
    "div": (np.true_divide, "float", (-50, 50), (1, 9)),
    "floor_divide": (np.floor_divide, "promote", (-50, 50), (1, 9)),
    "remainder": (np.remainder, "promote", (-50, 50), (1, 9)),
    "fmod": (np.fmod, "promote", (-50, 50), (1, 9)),
    "pow": (np.power, "promote", (0.2, 3), (-2, 3)),
    "atan2": (np.arctan2, "float", (-5, 5), (-5, 5)),
    "maximum": (np.maximum, "promote", (-50, 50), (-50, 50)),
    "minimum": (np.minimum, "promote", (-50, 50), (-50, 50)),
    "fmax": (np.fmax, "promote", (-50, 50), (-50, 50)),
    "fmin": (np.fmin, "promote", (-50, 50), (-50, 50)),
    "hypot": (np.hypot, "float_only", (-5, 5), (-5, 5)),
    "copysign": (np.copysign, "float", (-5, 5), (-5, 5)),
    "logaddexp": (np.logaddexp, "float", (-20, 20), (-20, 20)),
    "eq": (np.equal, "cmp", (-3, 3), (-3, 3)),
    "ne": (np.not_equal, "cmp", (-3, 3), (-3, 3)),
    "lt": (np.less, "cmp", (-3, 3), (-3, 3)),
    "le": (np.less_equal, "cmp", (-3, 3), (-3, 3)),
    "gt": (np.greater, "cmp", (-3, 3), (-3, 3)),
    "ge": (np.greater_equal, "cmp", (-3, 3), (-3, 3)),
    "logical_and": (np.logical_and, "logical", (-2, 2), (-2, 2)),
    "logical_or": (np.logical_or, "logical", (-2, 2), (-2, 2)),
    "logical_xor": (np.logical_xor, "logical", (-2, 2), (-2, 2)),
    "bitwise_and": (np.bitwise_and, "int", (-100, 100), (-100, 100)),
    "bitwise_or": (np.bitwise_or, "int", (-100, 100), (-100, 100)),
    "bitwise_xor": (np.bitwise_xor, "int", (-100, 100), (-100, 100)),
    "bitwise_left_shift": (np.left_shift, "int", (-100, 100), (0, 7)),
    "bitwise_right_shift": (np.right_shift, "int", (-100, 100), (0, 7)),
}
# bool operands that PyTorch rejects: sub (use logical_xor), and the division family / shifts,
# which have no bool kernels.
NO_BOOL = {"sub", "floor_divide", "remainder", "fmod", "bitwise_left_shift",
           "bitwise_right_shift", "pow"}


def binary_result(kind, r):
    """Result dtype of a binary op whose promoted dtype is r; None = TypeError."""
    if kind == "promote":
        return r
    if kind == "float":
        return r if isfloat(r) else T.float32
    if kind == "float_only":
        return r if isfloat(r) else None
    if kind in ("cmp", "logical"):
        return T.bool
    return None if isfloat(r) else r


def binary_ref(name, ref, kind, a, b, r, res):
    """numpy reference for op(a, b) given promoted dtype r and result dtype res."""
    if kind == "logical":
        return ref(a != 0, b != 0)
    if kind == "cmp":
        return ref(a.astype(compute_np(r)), b.astype(compute_np(r)))
    if r == T.bool and kind in ("promote", "int"):
        if kind == "int":
            return ref(a, b)
        return ref(a.astype(np.int64), b.astype(np.int64)) != 0
    if isfloat(res):
        cdt = compute_np(res) if name in DISCONTINUOUS else np.float64
        with np.errstate(all="ignore"):
            return ref(a.astype(cdt), b.astype(cdt))
    return ref(a.astype(NP[r]), b.astype(NP[r]))


def domain(name, which, dt):
    _, _, da, db = BINARY[name]
    lo, hi = da if which == 0 else db
    if name == "pow" and not isfloat(dt):
        lo, hi = ((-3, 3) if which == 0 else (0, 3))
    if name in ("bitwise_left_shift", "bitwise_right_shift") and which == 1:
        hi = min(hi, 8 * np.dtype(NP[dt]).itemsize - 1)
    if name in ("div", "floor_divide", "remainder", "fmod") and which == 1 and dt != T.uint8:
        lo = -hi  # negative divisors too; zero is replaced below
    return lo, hi


def nonzero(x, name, dt):
    if name in ("div", "floor_divide", "remainder", "fmod") and dt != T.bool:
        x = np.where(x == 0, np.asarray(1).astype(x.dtype), x)
    return x


BIN_DTYPE_PAIRS = [(d, d) for d in ALL] + [
    (T.int32, T.int64), (T.uint8, T.int8), (T.int16, T.float16), (T.bool, T.int32),
    (T.float16, T.bfloat16), (T.float32, T.float64), (T.int64, T.float32), (T.bool, T.float64),
    (T.uint8, T.bfloat16)]


def _binary_operands(name, da, db):
    """(layout, a, ta, b, tb): both operands in each layout, then broadcast shapes."""
    bl = list(layouts(db, *domain(name, 1, db)))
    for (layout, a, ta), (_, b, tb) in zip(layouts(da, *domain(name, 0, da)), bl):
        b = nonzero(np.asarray(b), name, db)
        tb = tt(b, db) if layout not in ("transposed", "stepped", "expanded") else \
            _same_layout(layout, b, db)
        yield layout, np.asarray(a), ta, b, tb
    # Broadcasting (7, 1) with (1, 9) and with a 0-d tensor.
    a = sample((7, 1), da, *domain(name, 0, da))
    b = nonzero(sample((1, 9), db, *domain(name, 1, db)), name, db)
    yield "broadcast", np_cast(a, da), tt(a, da), np_cast(b, db), tt(b, db)
    b0 = nonzero(sample((), db, *domain(name, 1, db)), name, db)
    yield "with-0d", np_cast(a, da), tt(a, da), np.asarray(np_cast(b0, db)), tt(b0, db)


def _same_layout(layout, b, db):
    """b (numpy values) as a non-contiguous tandem tensor of the given layout kind."""
    if layout == "transposed":
        return tt(np.ascontiguousarray(b.T), db).T
    if layout == "stepped":
        big = np.zeros((2 * b.shape[0], 3 * b.shape[1]), dtype=b.dtype)
        big[::2, 1::3] = b
        return tt(big, db)[::2, 1::3]
    row = b[:1]
    return tt(row, db).expand(*b.shape)


@pytest.mark.parametrize("pair", BIN_DTYPE_PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, pair):
    da, db = pair
    ref, kind, _, _ = BINARY[name]
    r = promote(da, db)
    res = binary_result(kind, r)
    fn = getattr(mint, name)
    if res is None or (r == T.bool and name in NO_BOOL) or \
            (name == "sub" and da == db == T.bool):
        with pytest.raises(TypeError):
            fn(tt(sample((3,), da), da), tt(np.ones(3), db))
        return
    if name in NO_BOOL and T.bool in (da, db):
        return  # mixed bool / number: covered by the same-dtype cases
    if name == "pow" and isfloat(r) and not isfloat(da):
        return  # an integer base with a float exponent: checked in test_pow_scalar_base
    for layout, a, ta, b, tb in _binary_operands(name, da, db):
        if layout in ("0-d", "with-0d"):
            r = result_type(dims=[da] if a.ndim else [], zero_d=[db] if b.ndim == 0 else [])
            r = r if a.ndim else promote(da, db)
            res = binary_result(kind, r)
        if res is None or (name in NO_BOOL and r == T.bool):
            continue  # the 0-d operand does not promote: covered by the rejection cases
        if name == "pow" and isfloat(r):
            a = np.abs(a.astype(np.float64)) + 0.25  # positive bases: no nan from x ** 0.5
            ta = tt(a, da)
            a = np_cast(a, da)
        expected = binary_ref(name, ref, kind, a, b, r, res)
        try:
            check(fn(ta, tb), expected, res)
            check(getattr(ta, name)(tb), expected, res)
        except AssertionError as e:
            raise AssertionError(f"{name}({da}, {db}) {layout}: {e}") from None


# Python operators and the function they map to.
OPERATORS = [("__add__", "add"), ("__sub__", "sub"), ("__mul__", "mul"),
             ("__truediv__", "div"), ("__floordiv__", "floor_divide"),
             ("__mod__", "remainder"), ("__pow__", "pow"), ("__and__", "bitwise_and"),
             ("__or__", "bitwise_or"), ("__xor__", "bitwise_xor"),
             ("__lshift__", "bitwise_left_shift"), ("__rshift__", "bitwise_right_shift"),
             ("__eq__", "eq"), ("__ne__", "ne"), ("__lt__", "lt"), ("__le__", "le"),
             ("__gt__", "gt"), ("__ge__", "ge")]


@pytest.mark.parametrize("dt", [T.int32, T.int64, T.uint8, T.float32, T.float64, T.float16],
                         ids=str)
@pytest.mark.parametrize("op,name", OPERATORS, ids=[o for o, _ in OPERATORS])
def test_python_scalars_both_sides(op, name, dt):
    """tensor OP number and number OP tensor (reflected), ints and floats."""
    ref, kind, _, _ = BINARY[name]
    lo, hi = (1, 6)
    a = sample((4, 3), dt, lo, hi)
    t = tt(a, dt)
    scalars = [2, 3.5] if kind not in ("int",) else [2]
    for s in scalars:
        if kind == "int" and isfloat(dt):
            with pytest.raises(TypeError):
                getattr(t, op)(s)
            continue
        # A Python number does not promote a tensor of the same category.
        r = dt if (isinstance(s, int) or isfloat(dt)) else T.float32
        res = binary_result(kind, r)
        sa = np.full((), s)
        exp = binary_ref(name, ref, kind, a, sa, r, res)
        check(getattr(t, op)(s), np.broadcast_to(exp, a.shape), res)
        check(getattr(mint, name)(t, s), np.broadcast_to(exp, a.shape), res)
        rop = "__r" + op[2:]
        if op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            continue  # reflected comparisons go through the swapped operator
        exp_r = binary_ref(name, ref, kind, sa, a, r, res)
        check(getattr(t, rop)(s), np.broadcast_to(exp_r, a.shape), res)
        check(getattr(mint, name)(s, t), np.broadcast_to(exp_r, a.shape), res)


@pytest.mark.parametrize("dt", [T.int32, T.uint8, T.float32, T.float16, T.bool], ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_function_forms_with_python_scalars(name, dt):
    """mint.op(tensor, number) and mint.op(number, tensor) for every binary op."""
    ref, kind, _, _ = BINARY[name]
    a = sample((3, 4), dt, 1, 6)
    t = tt(a, dt)
    fn = getattr(mint, name)
    for s in ([2, 3.5] if dt != T.bool else [True, 2, 0.5]):
        r = result_type(dims=[dt], numbers=[s])
        res = binary_result(kind, r)
        if name == "pow" and r == T.bool:
            # torch's exponent-0 / exponent-1 shortcuts: bool ** True is the tensor itself,
            # but a bool base tensor under a number base has no kernel
            check(fn(t, s), a.astype(bool), T.bool)
            with pytest.raises(TypeError):
                fn(s, t)
            continue
        if res is None or (name in NO_BOOL and r == T.bool) or \
                (name == "sub" and r == T.bool):
            with pytest.raises(TypeError):
                fn(t, s)
            continue
        if name in NO_BOOL and dt == T.bool:
            continue
        sa = np.full((), s)
        for args, (x, y) in [((t, s), (a, sa)), ((s, t), (sa, a))]:
            exp = np.broadcast_to(binary_ref(name, ref, kind, x, y, r, res), a.shape)
            try:
                check(fn(*args), exp, res)
            except AssertionError as e:
                raise AssertionError(f"{name}{tuple(type(v).__name__ for v in args)}: {e}") from e


def test_reflected_operators_syntax():
    x = mint.tensor([1.0, 2.0, 4.0])
    np.testing.assert_allclose((1 - x).numpy(), [0, -1, -3])
    np.testing.assert_allclose((1 / x).numpy(), [1, 0.5, 0.25])
    np.testing.assert_allclose((7 // x).numpy(), [7, 3, 1])
    np.testing.assert_allclose((7 % x).numpy(), [0, 1, 3])
    np.testing.assert_allclose((2 ** x).numpy(), [2, 4, 16])
    np.testing.assert_array_equal((2 < x).numpy(), [False, False, True])
    np.testing.assert_array_equal((2 == x).numpy(), [False, True, False])
    i = mint.tensor([1, 2, 3])
    np.testing.assert_array_equal((6 & i).numpy(), [0, 2, 2])
    np.testing.assert_array_equal((1 << i).numpy(), [2, 4, 8])
    np.testing.assert_array_equal((16 >> i).numpy(), [8, 4, 2])
    np.testing.assert_array_equal((5 ^ i).numpy(), [4, 7, 6])
    np.testing.assert_array_equal((8 | i).numpy(), [9, 10, 11])


def test_add_sub_alpha():
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(4,))
    ta, tb = mint.tensor(a), mint.tensor(b)
    np.testing.assert_allclose(mint.add(ta, tb, alpha=2.5).numpy(), a + 2.5 * b, rtol=1e-6)
    np.testing.assert_allclose(mint.sub(ta, tb, alpha=-2).numpy(), a + 2 * b, rtol=1e-6)
    np.testing.assert_allclose(ta.add(tb, alpha=3).numpy(), a + 3 * b, rtol=1e-6)
    ia, ib = mint.tensor([1, 2, 3]), mint.tensor([10, 20, 30])
    np.testing.assert_array_equal(mint.add(ia, ib, alpha=3).numpy(), [31, 62, 93])
    np.testing.assert_array_equal(mint.sub(ia, ib, alpha=2).numpy(), [-19, -38, -57])
    # PyTorch: "For integral input tensors, argument alpha must not be a floating point number."
    with pytest.raises(TypeError):
        mint.add(ia, ib, alpha=0.5)
    with pytest.raises(TypeError):
        mint.sub(ia, ib, alpha=1.5)


# --- division family: rounding modes and signs ---------------------------------------------------

SIGNS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 5), (1, 7), (-1, 7)]


@pytest.mark.parametrize("dt", [T.int8, T.int16, T.int32, T.int64, T.float32, T.float64],
                         ids=str)
def test_division_sign_semantics(dt):
    """floor_divide / remainder follow Python's //, %; fmod and trunc follow C."""
    a = np.array([p for p, _ in SIGNS])
    b = np.array([q for _, q in SIGNS])
    ta, tb = tt(a, dt), tt(b, dt)
    fl = [p // q for p, q in SIGNS]
    rem = [p % q for p, q in SIGNS]
    trunc = [int(p / q) for p, q in SIGNS]
    fm = [math.fmod(p, q) for p, q in SIGNS]
    check(mint.floor_divide(ta, tb), fl, dt)
    check(ta // tb, fl, dt)
    check(mint.div(ta, tb, rounding_mode="floor"), fl, dt)
    check(mint.div(ta, tb, rounding_mode="trunc"), trunc, dt)
    check(mint.remainder(ta, tb), rem, dt)
    check(ta % tb, rem, dt)
    check(mint.fmod(ta, tb), fm, dt)
    true = mint.div(ta, tb)
    check(true, a / b, dt if isfloat(dt) else T.float32)
    check(ta / tb, a / b, dt if isfloat(dt) else T.float32)
    if isfloat(dt):  # numpy agrees on fractional operands too
        x = RNG.uniform(-10, 10, 50).astype(NP[dt])
        y = RNG.choice([-1, 1], 50) * RNG.uniform(0.3, 4, 50).astype(NP[dt])
        y = y.astype(NP[dt])
        tx, ty = tt(x, dt), tt(y, dt)
        check(mint.floor_divide(tx, ty), np.floor_divide(x, y), dt)
        check(mint.remainder(tx, ty), np.remainder(x, y), dt)
        check(mint.fmod(tx, ty), np.fmod(x, y), dt)
        check(mint.div(tx, ty, rounding_mode="trunc"), np.trunc(x / y), dt)
        check(mint.div(tx, ty, rounding_mode="floor"), np.floor_divide(x, y), dt)


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_rounding_modes_all_int_dtypes(dt):
    a = sample((6, 5), dt, -100, 100)
    b = nonzero(sample((6, 5), dt, -9, 9), "div", dt)
    ta, tb = tt(a, dt), tt(b, dt)
    wa, wb = a.astype(np.int64), b.astype(np.int64)
    check(mint.div(ta, tb, rounding_mode="floor"), np.floor_divide(wa, wb), dt)
    check(mint.div(ta, tb, rounding_mode="trunc"), np.trunc(wa / wb).astype(np.int64), dt)
    check(mint.div(ta, tb), wa / wb, T.float32)
    check(ta.div(tb, rounding_mode="floor"), np.floor_divide(wa, wb), dt)


def test_integer_min_divided_by_minus_one():
    for dt in [T.int8, T.int16, T.int32, T.int64]:
        lo = np.iinfo(NP[dt]).min
        t, m = tt([lo], dt), tt([-1], dt)
        check(mint.floor_divide(t, m), np.array([lo], dtype=NP[dt]), dt)  # wraps, no trap
        check(mint.remainder(t, m), [0], dt)
        check(mint.fmod(t, m), [0], dt)


def test_division_errors_and_float_zero():
    i = mint.tensor([1, 2, 3])
    z = mint.tensor([1, 0, 1])
    for f in (mint.floor_divide, mint.remainder, mint.fmod,
              lambda a, b: mint.div(a, b, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):  # as PyTorch
            f(i, z)
    with pytest.raises(ValueError):
        mint.div(i, i, rounding_mode="round")
    f = mint.tensor([1.0, -1.0, 0.0])
    np.testing.assert_array_equal(mint.div(f, 0.0).numpy()[:2], [np.inf, -np.inf])
    assert np.isnan(mint.div(f, 0.0).numpy()[2])
    np.testing.assert_array_equal(mint.div(i, 0).numpy(), [np.inf] * 3)  # true division: float
    np.testing.assert_array_equal(mint.floor_divide(f, 0.0).numpy()[:2], [np.inf, -np.inf])


# --- pow ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [T.uint8, T.int8, T.int32, T.int64, T.float16, T.bfloat16,
                                T.float32, T.float64], ids=str)
def test_pow_scalar_base_and_exponent(dt):
    a = sample((3, 4), dt, 0, 4)
    t = tt(a, dt)
    x = a.astype(np.float64)
    # Scalar exponent keeps the tensor's dtype (int exponent) or promotes ints (float exponent).
    check(t ** 2, x ** 2, dt)
    check(mint.pow(t, 3), x ** 3, dt)
    check(t ** 0.5, np.sqrt(x), dt if isfloat(dt) else T.float32)
    # Scalar base: the tensor is the exponent.
    check(2 ** t, 2.0 ** x, dt)
    check(mint.pow(2, t), 2.0 ** x, dt)
    check(1.5 ** t, 1.5 ** x, dt if isfloat(dt) else T.float32)
    check(mint.pow(1.5, t), 1.5 ** x, dt if isfloat(dt) else T.float32)


def test_pow_integer_edge_cases():
    base = mint.tensor([2, -2, 1, -1, 0, 3])
    check(base ** mint.tensor([1, 3, 5, 3, 0, 0]), [2, -8, 1, -1, 1, 1], T.int64)
    # PyTorch: "Integers to negative integer powers are not allowed."
    with pytest.raises(RuntimeError, match="negative integer powers"):
        base ** mint.tensor([-1, -1, -5, -3, 0, 0])
    x = mint.tensor([2, 3])
    with pytest.raises(RuntimeError, match="negative integer powers"):
        x **= -1
    check(mint.tensor([3], dtype=T.int8) ** 5, np.array([3], dtype=np.int8) ** 5, T.int8)  # wraps
    with pytest.raises(TypeError):  # no bool pow kernel, as in PyTorch
        mint.tensor([True, False]) ** mint.tensor([False, True])
    check(mint.pow(mint.tensor([2.0, 4.0]), mint.tensor([0.5, -1.0])), [math.sqrt(2), 0.25],
          T.float32)
    check(mint.float_power(mint.tensor([2, 3]), 2), [4, 9], T.float64)


# --- shifts and bitwise edge cases ---------------------------------------------------------------

def test_shift_past_width():
    x = mint.tensor([1, -8, 5], dtype=T.int8)
    check(x << 8, [0, 0, 0], T.int8)
    check(x >> 9, [0, -1, 0], T.int8)
    check(x >> 1, [0, -4, 2], T.int8)
    u = mint.tensor([255, 1], dtype=T.uint8)
    check(u << 1, [254, 2], T.uint8)
    check(u >> 7, [1, 0], T.uint8)


def test_bitwise_bool():
    a, b = mint.tensor([True, True, False]), mint.tensor([True, False, False])
    check(a & b, [True, False, False], T.bool)
    check(a | b, [True, True, False], T.bool)
    check(a ^ b, [False, True, False], T.bool)
    check(~a, [False, False, True], T.bool)
    with pytest.raises(TypeError):
        mint.tensor([1.0]) & mint.tensor([1.0])
    with pytest.raises(TypeError):
        ~mint.tensor([1.0])


def test_nan_propagation_maximum_fmax():
    a = mint.tensor([np.nan, 1.0, np.nan, 3.0])
    b = mint.tensor([2.0, np.nan, np.nan, 1.0])
    np.testing.assert_array_equal(mint.maximum(a, b).numpy(), np.maximum(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(mint.minimum(a, b).numpy(), np.minimum(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(mint.fmax(a, b).numpy(), np.fmax(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(mint.fmin(a, b).numpy(), np.fmin(a.numpy(), b.numpy()))
    inf = mint.tensor([np.inf, -np.inf, np.inf])
    np.testing.assert_array_equal(mint.logaddexp(inf, inf).numpy(), [np.inf, -np.inf, np.inf])
    np.testing.assert_array_equal(
        mint.logaddexp(mint.tensor([1000.0]), mint.tensor([1000.0])).numpy(),
        [np.logaddexp(np.float32(1000), np.float32(1000))])


def test_comparisons_nan_and_mixed_signedness():
    a = mint.tensor([np.nan, 1.0, 2.0])
    check(a == a, [False, True, True], T.bool)
    check(a != a, [True, False, False], T.bool)
    check(a < 1.5, [False, True, False], T.bool)
    u = mint.tensor([200, 0], dtype=T.uint8)
    s = mint.tensor([-1, 0], dtype=T.int8)
    check(u > s, [True, False], T.bool)  # compared as int16, not as wrapped bytes
    check(mint.tensor([1, 2, 3]) < 2.5, [True, True, False], T.bool)
    check(mint.greater(a, 1.0), [False, False, True], T.bool)
    check(mint.less_equal(a, 1.0), [False, True, False], T.bool)
    check(mint.not_equal(a, 1.0), [True, False, True], T.bool)


def test_binary_shape_mismatch():
    with pytest.raises(ValueError):
        mint.add(mint.ones(2, 3), mint.ones(4))
    with pytest.raises(ValueError):
        mint.ones(2, 3) * mint.ones(3, 2)


def test_binary_aliases():
    a, b = mint.randn(4), mint.rand(4) + 0.5
    for alias, name in [("multiply", "mul"), ("subtract", "sub"), ("true_divide", "div"),
                        ("arctan2", "atan2"), ("greater", "gt"), ("greater_equal", "ge"),
                        ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne")]:
        np.testing.assert_array_equal(getattr(mint, alias)(a, b).numpy(),
                                      getattr(mint, name)(a, b).numpy())


# --- in-place method forms ----------------------------------------------------------------------

INPLACE_UNARY = """neg abs sign square floor ceil trunc frac relu sqrt rsqrt reciprocal exp
exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh sigmoid erf erfc
erfinv silu""".split()


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary(name):
    ref, _, (lo, hi) = UNARY[name]
    for dt in (T.float32, T.float16):
        base = sample((5, 6), dt, lo, hi)
        t = tt(base, dt)
        view = t[:, ::2]  # writes go through a strided view into the parent
        exp_view = unary_ref(name, ref, np.asarray(base)[:, ::2], dt, dt)
        out = getattr(view, name + "_")()
        assert out is view
        expected = np.array(base, dtype=np.float64)
        expected[:, ::2] = np_cast(exp_view, dt)
        check(t, expected, dt)


INPLACE_BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow",
                  "atan2", "maximum", "minimum", "copysign", "hypot"]


@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_inplace_binary(name):
    ref = BINARY[name][0]
    a = sample((4, 5), T.float64, 0.5, 5)
    b = sample((5,), T.float64, 0.5, 3)
    t = tt(a, T.float64)
    out = getattr(t, name + "_")(tt(b, T.float64))
    assert out is t
    check(t, ref(a, b), T.float64)


def test_inplace_integer_and_bool_outputs():
    i = mint.tensor([5, 6, 7])
    assert i.bitwise_and_(mint.tensor([1, 2, 3])) is i
    check(i, [1, 2, 3], T.int64)
    i.bitwise_left_shift_(2)
    check(i, [4, 8, 12], T.int64)
    f = mint.tensor([1.0, 2.0, 3.0])
    f.lt_(2.5)  # a comparison written back in the tensor's own dtype
    check(f, [1.0, 1.0, 0.0], T.float32)
    f.add_(mint.tensor([1.0, 1.0, 1.0]), alpha=2)
    check(f, [3.0, 3.0, 2.0], T.float32)
    f.div_(2, rounding_mode="floor")
    check(f, [1.0, 1.0, 1.0], T.float32)
    b = mint.tensor([True, False])
    b.logical_xor_(mint.tensor([True, True]))
    check(b, [False, True], T.bool)
    with pytest.raises(TypeError):
        i.div_(2)  # float result can't be written into an int tensor
    with pytest.raises(ValueError):
        mint.ones(3).add_(mint.ones(2, 3))  # self can't grow to the broadcast shape


def test_inplace_overlapping_views():
    a = np.arange(10, dtype=np.float32)
    t = mint.tensor(a)
    t[1:] += t[:-1]
    a[1:] += a[:-1].copy()
    check(t, a, T.float32)


# --- ternaries ----------------------------------------------------------------------------------

WHERE_PAIRS = [(T.float32, T.float32), (T.int64, T.int64), (T.bool, T.bool),
               (T.float16, T.float16), (T.bfloat16, T.bfloat16), (T.uint8, T.int8),
               (T.int32, T.float64), (T.float16, T.float32)]


@pytest.mark.parametrize("pair", WHERE_PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_where(pair):
    da, db = pair
    r = promote(da, db)
    for (layout, a, ta), (_, c, tc) in zip(layouts(da), layouts(T.bool)):
        b = sample(np.shape(a), db)
        exp = np.where(c, a.astype(np.float64), np_cast(b, db).astype(np.float64))
        check(mint.where(tc, ta, tt(b, db)), exp, r)
    c = sample((4, 1, 3), T.bool)
    a = sample((5, 1), da)
    b = sample((3,), db)
    exp = np.where(c, np_cast(a, da).astype(np.float64), np_cast(b, db).astype(np.float64))
    check(mint.where(tt(c, T.bool), tt(a, da), tt(b, db)), exp, r)
    check(tt(a, da).where(tt(c, T.bool), tt(b, db)), exp, r)


def test_where_scalars_and_one_arg():
    c = mint.tensor([True, False, True])
    x = mint.tensor([1, 2, 3])
    check(mint.where(c, x, 0), [1, 0, 3], T.int64)
    check(mint.where(c, x, 0.5), [1, 0.5, 3], T.float32)
    check(mint.where(c, 2.0, x.to(T.float64)), [2.0, 2.0, 2.0], T.float64)
    check(mint.where(c, 1, 0), [1, 0, 1], T.int64)
    (idx,) = mint.where(mint.tensor([0, 3, 0, 5]))
    check(idx, [1, 3], T.int64)
    # A non-bool condition reads as "non-zero".
    check(mint.where(mint.tensor([0, 2, 0]).bool(), x, -x), [-1, 2, -3], T.int64)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_lerp(dt):
    for (layout, a, ta), (_, b, tb) in zip(layouts(dt), layouts(dt)):
        w = sample(np.shape(a), dt, 0, 1)
        a64, b64, w64 = (np.asarray(v, dtype=np.float64) for v in (a, b, np_cast(w, dt)))
        check(mint.lerp(ta, tb, tt(w, dt)), a64 + w64 * (b64 - a64), dt)
        check(mint.lerp(ta, tb, 0.25), a64 + 0.25 * (b64 - a64), dt)
        check(ta.lerp(tb, 0.75), a64 + 0.75 * (b64 - a64), dt)
    # Broadcast weight; exact at the ends.
    a, b = sample((3, 4), dt), sample((3, 4), dt)
    check(mint.lerp(tt(a, dt), tt(b, dt), tt(np.array([0.0, 1.0, 0.0, 1.0]), dt)),
          np.where([True, False, True, False], np_cast(a, dt), np_cast(b, dt)), dt)
    with pytest.raises(TypeError):
        mint.lerp(mint.tensor([1, 2]), mint.tensor([3, 4]), 0.5)


@pytest.mark.parametrize("dt", NUMERIC, ids=str)
def test_addcmul_addcdiv(dt):
    for (layout, x, tx), (_, a, ta) in zip(layouts(dt, -5, 5), layouts(dt, -5, 5)):
        b = nonzero(sample(np.shape(a), dt, -5, 5), "div", dt)
        tb = tt(b, dt)
        x64, a64, b64 = (np.asarray(v, dtype=np.float64) for v in (x, a, np_cast(b, dt)))
        check(mint.addcmul(tx, ta, tb), x64 + a64 * b64, dt)
        check(mint.addcmul(tx, ta, tb, value=2), x64 + 2 * a64 * b64, dt)
        div_res = dt if isfloat(dt) else T.float32
        check(mint.addcdiv(tx, ta, tb, value=0.5), x64 + 0.5 * a64 / b64, div_res)
        check(tx.addcdiv(ta, tb), x64 + a64 / b64, div_res)
    # Broadcast across all three.
    x, a, b = sample((4, 1), dt, 1, 5), sample((1, 3), dt, 1, 5), sample((3,), dt, 1, 5)
    f = lambda v: np_cast(v, dt).astype(np.float64)  # noqa: E731
    check(mint.addcmul(tt(x, dt), tt(a, dt), tt(b, dt), value=3), f(x) + 3 * f(a) * f(b), dt)


@pytest.mark.parametrize("dt", [T.int32, T.float16, T.bfloat16, T.float32, T.float64], ids=str)
def test_isclose_allclose_equal(dt):
    a = sample((5, 6), dt, -3, 3)
    noise = RNG.normal(scale=1e-3, size=a.shape)
    b = np_cast(a.astype(np.float64) + (noise if isfloat(dt) else 0) + (RNG.random(a.shape) < 0.3),
                dt)
    ta, tb = tt(a, dt), tt(b, dt)
    for rtol, atol in [(1e-5, 1e-8), (1e-2, 1e-3), (0.0, 0.5)]:
        exp = np.isclose(np_cast(a, dt).astype(np.float64), np.asarray(b, np.float64), rtol=rtol,
                         atol=atol)
        check(mint.isclose(ta, tb, rtol=rtol, atol=atol), exp, T.bool)
        check(ta.T.isclose(tb.T, rtol=rtol, atol=atol), exp.T, T.bool)
        assert mint.allclose(ta, tb, rtol=rtol, atol=atol) == bool(exp.all())
    assert mint.allclose(ta, ta) and mint.equal(ta, ta)
    assert mint.equal(ta, tb) == bool((np_cast(a, dt) == b).all())
    assert not mint.equal(ta, ta[:2])  # different shapes
    assert ta.equal(tt(np.asarray(np_cast(a, dt)), dt))


def test_isclose_special_values():
    a = mint.tensor([np.nan, np.inf, -np.inf, np.inf, 1.0, np.nan])
    b = mint.tensor([np.nan, np.inf, -np.inf, -np.inf, np.nan, 1.0])
    for en in (False, True):
        check(mint.isclose(a, b, equal_nan=en),
              np.isclose(a.numpy(), b.numpy(), equal_nan=en), T.bool)
    assert mint.allclose(a[:3], b[:3], equal_nan=True)
    assert not mint.allclose(a[:3], b[:3])
    check(mint.isclose(mint.tensor([1, 2]), 1.5, atol=0.6), [True, True], T.bool)
    with pytest.raises(ValueError):
        mint.isclose(a, b, rtol=-1.0)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)], ids=["0-d", "empty", "empty-3d"])
@pytest.mark.parametrize("dt", [T.float32, T.float16, T.int64], ids=str)
def test_ternaries_and_friends_on_0d_and_empty(shape, dt):
    a, b = sample(shape, dt, 1, 4), sample(shape, dt, 1, 4)
    c = sample(shape, T.bool)
    ta, tb, tc = tt(a, dt), tt(b, dt), tt(c, T.bool)
    fa, fb = (np.asarray(np_cast(v, dt), np.float64) for v in (a, b))
    fres = dt if isfloat(dt) else T.float32
    check(mint.where(tc, ta, tb), np.where(c, fa, fb), dt)
    check(mint.addcmul(ta, ta, tb), fa + fa * fb, dt)
    check(mint.addcdiv(ta, ta, tb), fa + fa / fb, fres)
    check(mint.clamp(ta, 2, 3), np.clip(fa, 2, 3), dt)
    check(mint.clamp(ta, tb, None), np.maximum(fa, fb), dt)
    check(mint.isclose(ta, tb), np.isclose(fa, fb), T.bool)
    check(mint.nan_to_num(ta), fa, dt)
    if isfloat(dt):
        check(mint.lerp(ta, tb, 0.5), fa + 0.5 * (fb - fa), dt)
    assert mint.equal(ta, ta) and mint.allclose(ta, ta)
    # A 0-d or empty operand broadcasts against a full one.
    full = tt(sample((2, 1, 1), dt, 1, 4), dt)
    assert mint.where(tc, full, tb).shape == np.broadcast_shapes(shape, (2, 1, 1))
    assert (full * tb).shape == np.broadcast_shapes(shape, (2, 1, 1))


def test_square_and_float_power_functions():
    x = mint.tensor([1.5, -2.0])
    assert mint.square_(x) is x and x.tolist() == [2.25, 4.0]
    check(mint.square(mint.tensor([True, False])), [1, 0], T.int64)
    check(mint.float_power(mint.tensor([2.0], dtype=T.float16), 0.5), [2 ** 0.5], T.float64)
    check(mint.float_power(mint.tensor([4]), mint.tensor([-1])), [0.25], T.float64)
    x = mint.tensor([-2.0, 5.0])
    assert x.clip_(0, 1) is x and x.tolist() == [0.0, 1.0]


# --- broadcasting property tests ---------------------------------------------------------------

@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, min_side=0,
                                         max_side=4),
       st.sampled_from([T.float32, T.int64, T.float16]),
       st.sampled_from([T.float32, T.int32, T.bool]))
def test_broadcasting_property(shapes, da, db):
    sa, sb, sc = shapes.input_shapes
    a, b = sample(sa, da, -5, 5), sample(sb, db, -5, 5)
    c = sample(sc, T.bool)
    ta, tb, tc = tt(a, da), tt(b, db), tt(c, T.bool)
    # A 0-d operand ranks below one with dims (test_promotion.py has the full rules).
    r = result_type(dims=[d for d, s in ((da, sa), (db, sb)) if len(s)],
                    zero_d=[d for d, s in ((da, sa), (db, sb)) if not len(s)])
    fa, fb = np.asarray(np_cast(a, da), np.float64), np.asarray(np_cast(b, db), np.float64)
    add = mint.add(ta, tb)
    assert add.shape == np.broadcast_shapes(sa, sb)
    check(add, fa + fb if r != T.bool else (fa + fb) != 0, r)
    check(ta * tb, fa * fb if r != T.bool else (fa * fb) != 0, r)
    check(mint.where(tc, ta, tb), np.where(c, fa, fb), r)
    assert mint.where(tc, ta, tb).shape == shapes.result_shape


def test_tanh_float32_accuracy_and_special_values():
    """tanh's float32 SIMD path (a rational function, the one TensorFlow's Eigen uses) stays
    within 5 ulp (3e-7 relative) of the float64 result everywhere, and keeps tanh's signed
    zeros, limits and NaN."""
    import tandem
    from tandem import mint
    x = np.concatenate([np.linspace(-12, 12, 400001),
                        np.random.default_rng(0).standard_normal(100000) * 0.3,
                        [0.5499999, 0.55, 0.5500001, 1e-30, 88.0, 1e-45]]).astype(np.float32)
    got = mint.tanh(tandem.tensor(x)).numpy()
    ref = np.tanh(x.astype(np.float64))
    nz = ref != 0
    ulp = np.abs(got[nz] - ref[nz]) / np.spacing(np.abs(ref[nz]).astype(np.float32))
    assert ulp.max() <= 5.0
    assert np.abs(got[nz] - ref[nz]).max() <= 3e-7 * 1.0001
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=np.float32)
    out = mint.tanh(tandem.tensor(special)).numpy()
    assert out[0] == 0 and not np.signbit(out[0]) and out[1] == 0 and np.signbit(out[1])
    assert out[2] == 1 and out[3] == -1 and np.isnan(out[4])
