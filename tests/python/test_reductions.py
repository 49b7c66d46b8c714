"""Reductions against numpy: values, result dtypes and shapes, dim spellings, strided and
empty inputs, the parallel / SIMD paths on large inputs, and hypothesis property tests."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tandem
from tandem import mint

INF, NAN = math.inf, math.nan

# tandem dtype -> numpy dtype of the values we feed it (bfloat16 is fed and read as float32).
NP_OF = {
    tandem.bool_: np.bool_, tandem.uint8: np.uint8, tandem.int8: np.int8,
    tandem.int16: np.int16, tandem.int32: np.int32, tandem.int64: np.int64,
    tandem.float16: np.float16, tandem.bfloat16: np.float32, tandem.float32: np.float32,
    tandem.float64: np.float64,
}
ALL = list(NP_OF)
INTS = [tandem.uint8, tandem.int8, tandem.int16, tandem.int32, tandem.int64]
FLOATS = [tandem.float16, tandem.bfloat16, tandem.float32, tandem.float64]
RTOL = {tandem.float16: 2e-3, tandem.bfloat16: 1e-2, tandem.float32: 1e-5, tandem.float64: 1e-12}


def data(shape, dt, rng, *, positive=False):
    """Random values exactly representable in dt (so numpy sees the same inputs)."""
    if dt == tandem.bool_:
        return rng.random(shape) > 0.5
    if dt == tandem.uint8 or positive and dt in INTS:
        return rng.integers(0, 8, shape).astype(NP_OF[dt])
    if dt in INTS:
        return rng.integers(-8, 8, shape).astype(NP_OF[dt])
    lo = 0.25 if positive else -16
    return (rng.integers(int(lo * 4), 64, shape) / 4).astype(NP_OF[dt])


def T(a, dt=None):
    """A tandem tensor holding a copy of numpy array `a` (0-d arrays stay 0-d)."""
    t = tandem.from_numpy(np.array(a, copy=True))
    return t if dt is None else t.to(dt)


def check(t, expected, dt=None, rtol=None, atol=0.0):
    """t matches numpy `expected` in shape, dtype (dt when given) and values."""
    assert isinstance(t, tandem.Tensor)
    expected = np.asarray(expected)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    if dt is not None:
        assert t.dtype == dt, (t.dtype, dt)
    got = t.numpy()
    if rtol is None:
        rtol = RTOL.get(t.dtype, 0)
    if got.dtype.kind in "fc" or expected.dtype.kind in "fc":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def sum_dtype(dt):
    return tandem.int64 if dt == tandem.bool_ or dt in INTS else dt


# --- sum / mean / prod -------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2), [1, 2], (-3, -1), (0, 1, 2)])
def test_sum_every_dtype(dt, dim):
    rng = np.random.default_rng(0)
    a = data((3, 4, 5), dt, rng)
    x = T(a, dt)
    axis = tuple(dim) if isinstance(dim, list) else dim
    exp = a.astype(np.float64 if dt in FLOATS else np.int64).sum(axis=axis)
    check(x.sum(dim), exp, sum_dtype(dt), atol=1e-2 if dt in FLOATS[:2] else 0)
    check(mint.sum(x, dim=dim, keepdim=True), np.expand_dims(exp, axis) if axis is not None
          else exp.reshape(1, 1, 1), sum_dtype(dt), atol=1e-2 if dt in FLOATS[:2] else 0)


def test_sum_bool_and_int_accumulate_in_int64():
    x = T(np.ones(300, dtype=np.uint8) * 200)  # 60000 overflows uint8 / int8 / int16
    check(x.sum(), np.int64(60000), tandem.int64)
    check(T(np.full(70000, True)).sum(), np.int64(70000), tandem.int64)
    check(T(np.full(5, 2**40, dtype=np.int64)).sum(), np.int64(5 * 2**40), tandem.int64)
    check(T(np.array([100, 100], dtype=np.int8)).prod(), np.int64(10000), tandem.int64)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_mean_floats(dt):
    a = data((4, 6), dt, np.random.default_rng(1))
    x = T(a, dt)
    a64 = a.astype(np.float64)
    check(x.mean(), a64.mean(), dt)
    check(x.mean(0), a64.mean(0), dt)
    check(mint.mean(x, dim=-1, keepdim=True), a64.mean(-1, keepdims=True), dt)
    check(mint.mean(x, axis=(0, 1), keepdims=True), a64.mean((0, 1), keepdims=True), dt)


def test_mean_of_integers_needs_dtype():
    x = T(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="mean"):
        x.mean()
    check(x.mean(dtype=tandem.float64), np.float64(4.5), tandem.float64)
    check(mint.mean(x, dtype=tandem.float32), np.float32(4.5), tandem.float32)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_prod_every_dtype(dt):
    rng = np.random.default_rng(2)
    a = data((3, 5), dt, rng, positive=True)
    if dt in FLOATS:
        a = (rng.integers(2, 7, (3, 5)) / 4).astype(NP_OF[dt])  # 0.5..1.5: no overflow
    x = T(a, dt)
    wide = a.astype(np.float64 if dt in FLOATS else np.int64)
    check(x.prod(), wide.prod(), sum_dtype(dt))
    check(x.prod(1), wide.prod(1), sum_dtype(dt))
    check(mint.prod(x, 0, keepdim=True), wide.prod(0, keepdims=True), sum_dtype(dt))


def test_dtype_argument():
    a = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    x = T(a)
    check(x.sum(dtype=tandem.float64), np.float64(78), tandem.float64)
    check(x.sum(1, dtype=tandem.int32), a.sum(1).astype(np.int32), tandem.int32)
    check(mint.prod(x, dim=0, dtype=tandem.float32), a.prod(0).astype(np.float32), tandem.float32)
    h = T(np.full(4096, 1.0, dtype=np.float16))
    check(h.sum(dtype=tandem.float32), np.float32(4096), tandem.float32)
    # float16 itself accumulates in float32, so the exact total survives (2048 + 1 would not)
    check(h.sum(), np.float16(4096), tandem.float16)


# --- amax / amin / max / min / argmax / argmin ------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_amax_amin_every_dtype(dt):
    a = data((4, 3, 5), dt, np.random.default_rng(3))
    x = T(a, dt)
    for dim in [None, 0, -1, (0, 2), [1]]:
        axis = tuple(dim) if isinstance(dim, list) else dim
        check(x.amax(dim), a.max(axis=axis), dt)
        check(mint.amin(x, dim=dim, keepdim=True), a.min(axis=axis, keepdims=True), dt)
    check(mint.amax(x, axis=(1, 2), keepdims=True), a.max((1, 2), keepdims=True), dt)


def test_amax_amin_propagate_nan():
    a = np.array([[1.0, NAN, 3.0], [-INF, 2.0, INF]], dtype=np.float32)
    x = T(a)
    check(x.amax(1), np.array([NAN, INF], np.float32))
    check(x.amin(1), np.array([NAN, -INF], np.float32))
    check(x.amax(0), np.array([1.0, NAN, INF], np.float32))
    check(x.amax(), np.float32(NAN))


def test_max_min_three_forms():
    a = np.array([[3.0, 7.0, 7.0], [9.0, -1.0, 9.0]], dtype=np.float32)
    x = T(a)
    # 1. no dim: the largest element as a 0-d tensor
    check(mint.max(x), np.float32(9.0), tandem.float32)
    check(x.min(), np.float32(-1.0))
    # 2. dim: a (values, indices) namedtuple, first occurrence on ties
    r = mint.max(x, 1)
    assert type(r).__name__ == "values_indices" or hasattr(r, "_fields")
    check(r.values, a.max(1))
    check(r.indices, np.array([1, 0]), tandem.int64)
    values, indices = x.min(dim=0, keepdim=True)
    check(values, a.min(0, keepdims=True))
    check(indices, np.array([[0, 1, 0]]), tandem.int64)
    check(r[0], a.max(1))
    check(mint.max(x, dim=-1).indices, np.array([1, 0]))
    check(mint.max(x, axis=0).values, a.max(0))
    # 3. other tensor: elementwise maximum / minimum (with broadcasting)
    b = np.array([5.0, 5.0, 8.0], dtype=np.float32)
    check(mint.max(x, T(b)), np.maximum(a, b))
    check(x.min(T(b)), np.minimum(a, b))
    check(mint.max(x, other=T(b)), np.maximum(a, b))
    # a 0-d tensor is an `other`, as in PyTorch, not a dim
    check(mint.max(x, T(np.float32(5.0))), np.maximum(a, np.float32(5.0)))
    check(mint.min(x, T(np.float32(5.0))), np.minimum(a, np.float32(5.0)))


def test_max_dim_nan_and_int():
    a = np.array([[1.0, NAN, 5.0, NAN], [2.0, 2.0, 1.0, 0.0]], dtype=np.float64)
    v, i = mint.max(T(a), 1)
    check(v, np.array([NAN, 2.0]))
    check(i, np.array([1, 0]))
    v, i = mint.min(T(a), 1)
    check(v, np.array([NAN, 0.0]))
    check(i, np.array([1, 3]))
    b = np.array([[5, 9, 9], [0, 0, -3]], dtype=np.int16)
    v, i = T(b).max(1)
    check(v, b.max(1), tandem.int16)
    check(i, np.array([1, 0]), tandem.int64)
    bl = T(np.array([[False, True, True]]))
    v, i = bl.max(1)
    check(v, np.array([True]), tandem.bool_)
    check(i, np.array([1]))


@pytest.mark.parametrize("dt", [d for d in ALL if d != tandem.bool_], ids=str)
def test_argmax_argmin_first_occurrence(dt):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (5, 7)).astype(NP_OF[dt])  # many ties
    x = T(a, dt)
    check(x.argmax(), np.int64(a.argmax()), tandem.int64)
    check(mint.argmin(x), np.int64(a.argmin()), tandem.int64)
    for d in (0, 1, -1):
        check(x.argmax(d), a.argmax(d), tandem.int64)
        check(mint.argmin(x, dim=d), a.argmin(d), tandem.int64)
    check(x.argmax(1, keepdim=True), a.argmax(1)[:, None])
    check(mint.argmax(x, axis=0, keepdims=True), a.argmax(0)[None, :])
    check(x.argmax(keepdim=True), np.array([[a.argmax()]]))


def test_argmax_nan_is_the_max():
    a = np.array([[1.0, NAN, 5.0, NAN], [INF, 3.0, NAN, 1.0], [2.0, 2.0, -INF, 0.0]],
                 dtype=np.float32)
    x = T(a)
    check(x.argmax(1), np.array([1, 2, 0]))  # numpy also returns the first NaN
    check(x.argmin(1), np.array([1, 2, 2]))  # PyTorch: NaN wins argmin too
    check(x.argmax(), np.int64(1))
    check(x.argmin(), np.int64(1))
    check(x.argmax(0), np.array([1, 0, 1, 0]))


# --- all / any / count_nonzero -----------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_all_any_every_dtype(dt):
    rng = np.random.default_rng(5)
    a = data((4, 5), dt, rng)
    a[rng.random((4, 5)) < 0.3] = 0
    a[1] = 1  # an all-true row
    x = T(a, dt)
    for dim in [None, 0, 1, -1, (0, 1)]:
        check(x.all(dim), a.all(axis=dim), tandem.bool_)
        check(mint.any(x, dim=dim, keepdim=True), a.any(axis=dim, keepdims=True), tandem.bool_)
    check(mint.all(x, axis=1, keepdims=True), a.all(1, keepdims=True))


def test_all_any_nan_counts_as_true():
    a = np.array([NAN, 1.0], np.float32)
    check(T(a).all(), np.True_)
    check(T(np.array([0.0, NAN], np.float32)).any(), np.True_)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_count_nonzero(dt):
    rng = np.random.default_rng(6)
    a = data((3, 4, 5), dt, rng)
    a[rng.random(a.shape) < 0.4] = 0
    x = T(a, dt)
    check(x.count_nonzero(), np.int64(np.count_nonzero(a)), tandem.int64)
    check(mint.count_nonzero(x, dim=1), np.count_nonzero(a, axis=1), tandem.int64)
    check(mint.count_nonzero(x, dim=(0, -1)), np.count_nonzero(a, axis=(0, 2)))
    check(mint.count_nonzero(x, axis=[2]), np.count_nonzero(a, axis=2))


# --- var / std ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_std_correction(dt, correction):
    a = np.random.default_rng(7).standard_normal((5, 6, 3)).astype(NP_OF[dt])
    x = T(a)
    rtol = 1e-5 if dt == tandem.float32 else 1e-12
    for dim in [None, 0, (0, 2), -1]:
        check(x.var(dim, correction=correction), a.var(axis=dim, ddof=correction), dt, rtol)
        check(mint.std(x, dim=dim, correction=correction, keepdim=True),
              a.std(axis=dim, ddof=correction, keepdims=True), dt, rtol)


def test_var_std_unbiased_and_defaults():
    a = np.random.default_rng(8).standard_normal((4, 7))
    x = T(a)
    check(x.var(), a.var(ddof=1))  # PyTorch's default is the unbiased estimate
    check(x.std(1), a.std(1, ddof=1))
    check(x.var(1, unbiased=False), a.var(1))
    check(x.std(dim=0, unbiased=True), a.std(0, ddof=1))
    check(mint.var(x, 1, True, True), a.var(1, ddof=1, keepdims=True))  # positional unbiased
    check(mint.var(x, axis=0, keepdims=True, correction=0), a.var(0, keepdims=True))
    check(mint.std(x, axis=1, ddof=0), a.std(1))
    check(mint.var(x, dim=[0, 1], ddof=2), a.var(ddof=2))


def test_var_single_element_gives_nan_like_pytorch():
    v = T(np.array([3.0])).var()
    assert math.isnan(v.item())
    check(T(np.array([3.0])).var(correction=0), np.float64(0.0))


def test_var_mean_std_mean():
    a = np.random.default_rng(9).standard_normal((3, 8)).astype(np.float32)
    x = T(a)
    v, m = mint.var_mean(x, 1)
    check(v, a.var(1, ddof=1))
    check(m, a.mean(1))
    v, m = mint.var_mean(x, dim=0, correction=0, keepdim=True)
    check(v, a.var(0, keepdims=True))
    check(m, a.mean(0, keepdims=True))
    s, m = mint.std_mean(x, unbiased=False)
    check(s, a.std())
    check(m, a.mean())
    s, m = mint.std_mean(x, axis=-1, correction=2, keepdims=True)
    check(s, a.std(-1, ddof=2, keepdims=True))
    check(m, a.mean(-1, keepdims=True))


# --- logsumexp / norm ----------------------------------------------------------------------------

def np_logsumexp(a, axis=None, keepdims=False):
    with np.errstate(all="ignore"):
        m = np.max(a, axis=axis, keepdims=True, initial=-np.inf)
        m = np.where(np.isinf(m), 0, m)
        r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_logsumexp(dt):
    a = (np.random.default_rng(10).standard_normal((4, 5)) * 30).astype(NP_OF[dt])
    x = T(a)
    for dim in [0, 1, -1, (0, 1), [0]]:
        axis = tuple(dim) if isinstance(dim, list) else dim
        check(x.logsumexp(dim), np_logsumexp(a.astype(np.float64), axis), dt)
        check(mint.logsumexp(x, dim=dim, keepdim=True),
              np_logsumexp(a.astype(np.float64), axis, keepdims=True), dt)
    # large values: the naive formula overflows
    big = np.array([[1000.0, 1000.0], [-1000.0, -1000.0]], dtype=NP_OF[dt])
    check(mint.logsumexp(T(big), 1), np.array([1000 + math.log(2), -1000 + math.log(2)]), dt)


def test_logsumexp_infinities():
    a = np.array([[-INF, -INF, -INF], [INF, 1.0, 2.0], [-INF, 0.0, 0.0], [INF, INF, 0.0],
                  [NAN, 1.0, 0.0]], dtype=np.float32)
    got = mint.logsumexp(T(a), 1).numpy()
    np.testing.assert_array_equal(got[:2], [-INF, INF])
    np.testing.assert_allclose(got[2], math.log(2), rtol=1e-6)
    assert got[3] == INF
    assert math.isnan(got[4])
    check(mint.logsumexp(T(np.zeros((0, 3), np.float32)), 0), np.full(3, -INF, np.float32))
    # integer input is computed in the default float dtype
    check(mint.logsumexp(T(np.array([0, 0], np.int64)), 0), np.float32(math.log(2)),
          tandem.float32)


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
@pytest.mark.parametrize("p", [1, 2, INF, -INF, 0, 3, "fro", 2.5])
def test_norm(dt, p):
    a = np.random.default_rng(11).standard_normal((4, 6)).astype(NP_OF[dt])
    a[0, 0] = 0
    a64 = np.abs(a.astype(np.float64))

    def ref(axis=None, keepdims=False):
        if p in (2, "fro"):
            return np.sqrt((a64 ** 2).sum(axis=axis, keepdims=keepdims))
        if p == INF:
            return a64.max(axis=axis, keepdims=keepdims)
        if p == -INF:
            return a64.min(axis=axis, keepdims=keepdims)
        if p == 0:
            return (a64 != 0).sum(axis=axis, keepdims=keepdims).astype(np.float64)
        return (a64 ** p).sum(axis=axis, keepdims=keepdims) ** (1.0 / p)

    check(mint.norm(T(a), p), ref(), dt)
    check(T(a).norm(p, dim=1), ref(1), dt)
    check(mint.norm(T(a), p, dim=(0, 1), keepdim=True), ref((0, 1), True), dt)
    check(mint.norm(T(a), p=p, dim=0, dtype=tandem.float64), ref(0), tandem.float64)
    if p == 2:
        assert abs(mint.norm(T(a)).item() - np.linalg.norm(a64)) < 1e-4 * np.linalg.norm(a64)


def test_norm_bad_p():
    with pytest.raises(ValueError, match="norm"):
        mint.norm(T(np.ones(3)), "bad")


# --- dim spellings -------------------------------------------------------------------------------

def test_dim_spellings_agree():
    a = np.random.default_rng(12).standard_normal((2, 3, 4)).astype(np.float32)
    x = T(a)
    exp = a.sum(axis=(0, 2))
    for call in (lambda: x.sum((0, 2)), lambda: x.sum([0, 2]), lambda: x.sum((-3, -1)),
                 lambda: x.sum(dim=[2, 0]), lambda: x.sum(axis=(0, 2)),
                 lambda: mint.sum(x, dim=(0, -1)), lambda: tandem.ops.sum(x, axis=(0, 2))):
        check(call(), exp)
    exp_k = a.sum(axis=1, keepdims=True)
    for call in (lambda: x.sum(1, True), lambda: x.sum(1, keepdim=True),
                 lambda: x.sum(axis=1, keepdims=True), lambda: x.sum(dim=-2, keepdims=True)):
        check(call(), exp_k)
    check(x.sum(None), a.sum())
    with pytest.raises(TypeError):
        x.sum(dim=0, axis=1)


def test_bad_dims():
    x = T(np.ones((2, 3), np.float32))
    with pytest.raises(IndexError, match="out of range"):
        x.sum(2)
    with pytest.raises(IndexError):
        x.amax(-3)
    with pytest.raises(IndexError):
        x.max(5)
    with pytest.raises(ValueError, match="multiple times"):
        x.sum((0, 0))
    with pytest.raises(ValueError, match="multiple times"):
        x.mean((1, -1))


# --- non-contiguous inputs -----------------------------------------------------------------------

def _strided_cases():
    """(name, tandem view, numpy twin); built at test time so pytest holds no tensors."""
    rng = np.random.default_rng(13)
    base2 = rng.standard_normal((6, 10)).astype(np.float32)
    base3 = rng.standard_normal((4, 5, 6)).astype(np.float32)
    row = rng.standard_normal((1, 7)).astype(np.float32)
    return {
        "transposed": lambda: (T(base2).t(), base2.T),
        "stepped": lambda: (T(base2)[::2, 1::3], base2[::2, 1::3]),
        "negative_step": lambda: (T(base2)[::-1, ::-2], base2[::-1, ::-2]),
        "permuted3d": lambda: (T(base3).permute(2, 0, 1), base3.transpose(2, 0, 1)),
        "expanded": lambda: (T(row).expand(5, 7), np.broadcast_to(row, (5, 7))),
        "diagonal": lambda: (T(base3).diagonal(0, 0, 2), np.diagonal(base3, 0, 0, 2)),
    }


STRIDED = _strided_cases()


@pytest.mark.parametrize("case", list(STRIDED))
def test_reductions_non_contiguous(case):
    x, a = STRIDED[case]()
    assert x.shape == a.shape
    a64 = a.astype(np.float64)
    for dim in [None, 0, 1, -1, (0, 1)]:
        check(x.sum(dim), a64.sum(axis=dim))
        check(x.mean(dim, keepdim=True), a64.mean(axis=dim, keepdims=True))
        check(x.amax(dim), a.max(axis=dim))
        check(x.amin(dim), a.min(axis=dim))
        check(x.var(dim, correction=0), a64.var(axis=dim), rtol=1e-4, atol=1e-6)
        check(x.prod(dim), a64.prod(axis=dim), rtol=1e-4, atol=1e-30)
        check(x.all(dim), a.all(axis=dim))
        check((x > 1).any(dim), (a > 1).any(axis=dim))
        check(mint.logsumexp(x, dim if dim is not None else (0, 1)),
              np_logsumexp(a64, dim if dim is not None else (0, 1)))
    for d in (0, 1):
        v, i = x.max(d)
        check(v, a.max(d))
        check(i, a.argmax(d))
        check(x.argmin(d), a.argmin(d))
    check(x.argmax(), np.int64(a.argmax()))
    check(x.norm(3, dim=0), (np.abs(a64) ** 3).sum(0) ** (1 / 3), rtol=1e-5)


# --- 0-d and empty -------------------------------------------------------------------------------

def test_zero_dim_inputs():
    x = T(np.float32(2.5))
    assert x.ndim == 0
    for fn, exp in [(lambda t: t.sum(), 2.5), (lambda t: t.mean(), 2.5), (lambda t: t.prod(), 2.5),
                    (lambda t: t.amax(), 2.5), (lambda t: t.amin(), 2.5),
                    (lambda t: t.sum(0), 2.5), (lambda t: t.sum(-1, keepdim=True), 2.5),
                    (lambda t: t.amax(0), 2.5), (lambda t: mint.logsumexp(t, 0), 2.5),
                    (lambda t: t.norm(), 2.5), (lambda t: t.var(correction=0), 0.0)]:
        check(fn(x), np.float32(exp))
    v, i = x.max(0)
    check(v, np.float32(2.5))
    check(i, np.int64(0))
    check(x.argmax(), np.int64(0))
    check(x.all(), np.True_)
    check(x.count_nonzero(), np.int64(1))
    with pytest.raises(IndexError):
        x.sum(1)


def test_empty_inputs():
    e = T(np.zeros((0,), np.float32))
    check(e.sum(), np.float32(0), tandem.float32)
    check(e.prod(), np.float32(1))
    assert math.isnan(e.mean().item())
    check(e.all(), np.True_)
    check(e.any(), np.False_)
    check(e.count_nonzero(), np.int64(0))
    check(T(np.zeros(0, np.int32)).sum(), np.int64(0), tandem.int64)
    check(T(np.zeros(0, np.int32)).prod(), np.int64(1), tandem.int64)
    check(mint.norm(e), np.float32(0))
    m = T(np.zeros((3, 0, 2), np.float32))
    check(m.sum(1), np.zeros((3, 2)))
    check(m.prod(1, keepdim=True), np.ones((3, 1, 2)))
    check(m.sum(0), np.zeros((0, 2)))
    check(m.amax(0), np.zeros((0, 2)))  # the reduced dim is not empty: fine
    check(m.amax((0, 2)), np.zeros((0,)))
    check(m.max(2).values, np.zeros((3, 0)))
    for fn in (lambda: e.amax(), lambda: e.amin(), lambda: m.amax(1), lambda: e.max(),
               lambda: m.max(1), lambda: e.argmax(), lambda: m.argmin(1), lambda: e.min(0)):
        with pytest.raises(IndexError, match="zero-size|size 0"):
            fn()


# --- large inputs: parallel and SIMD paths --------------------------------------------------------

def test_large_sum_float32_accurate():
    a = np.random.default_rng(14).random(1_000_003).astype(np.float32)
    x = T(a)
    ref = a.astype(np.float64).sum()
    assert abs(x.sum().item() - ref) <= 1e-5 * ref
    assert abs(x.mean().item() - ref / a.size) <= 1e-5 * ref / a.size
    # few long rows (split across threads), many short rows, and a kept inner dim
    b = a[:1_000_000].reshape(2, 500_000)
    check(T(b).sum(1), b.astype(np.float64).sum(1), rtol=1e-5)
    c = a[:1_000_000].reshape(1000, 1000)
    check(T(c).sum(1), c.astype(np.float64).sum(1), rtol=1e-5)
    check(T(c).sum(0), c.astype(np.float64).sum(0), rtol=1e-5)
    check(T(c).t().sum(1), c.astype(np.float64).sum(0), rtol=1e-5)


def test_large_max_min_nan_positions():
    rng = np.random.default_rng(15)
    a = rng.standard_normal(1_000_001).astype(np.float32)
    x = T(a)
    check(x.amax(), a.max())
    check(x.amin(), a.min())
    check(x.argmax(), np.int64(a.argmax()))
    check(x.argmin(), np.int64(a.argmin()))
    for pos in (7, 500_000, 999_999, 1_000_000):  # in SIMD blocks, in the tail, last
        b = a.copy()
        b[pos] = NAN
        y = T(b)
        assert math.isnan(y.amax().item()) and math.isnan(y.amin().item())
        assert y.argmax().item() == pos
        assert y.max(0).indices.item() == pos
    rows = rng.standard_normal((3, 400_000)).astype(np.float64)
    rows[1, 123_457] = NAN
    check(T(rows).amax(1), np.array([rows[0].max(), NAN, rows[2].max()]))
    check(T(rows).amin(1), np.array([rows[0].min(), NAN, rows[2].min()]))


def test_large_int_and_bool_reductions():
    rng = np.random.default_rng(16)
    a = rng.integers(-1000, 1000, 2_000_000).astype(np.int32)
    x = T(a)
    check(x.sum(), np.int64(a.astype(np.int64).sum()), tandem.int64)
    check(x.amax(), a.max())
    check((x > 990).sum(), np.int64((a > 990).sum()))
    check((x > -2000).all(), np.True_)
    check((x > 999).any(), np.False_)
    p = (1 + rng.standard_normal(100_000) * 1e-4).astype(np.float64)
    check(T(p).prod(), np.prod(p), rtol=1e-10)


def test_large_var_and_norm():
    a = (np.random.default_rng(17).standard_normal(600_000) * 3 + 100).astype(np.float32)
    x = T(a)
    assert abs(x.var().item() - a.astype(np.float64).var(ddof=1)) < 1e-3 * 9
    assert abs(x.norm().item() - np.linalg.norm(a.astype(np.float64))) < 1e-5 * np.linalg.norm(a)


# --- hypothesis ----------------------------------------------------------------------------------

@st.composite
def reduce_case(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    dims = draw(st.none() | st.lists(st.integers(0, max(ndim - 1, 0)), min_size=1,
                                     max_size=max(ndim, 1), unique=True))
    if ndim == 0 and dims is not None:
        dims = [0]
    neg = draw(st.booleans())
    if dims is not None and neg and ndim > 0:
        dims = [d - ndim for d in dims]
    op = draw(st.sampled_from(["sum", "mean", "prod", "amax", "amin", "all", "any", "var",
                               "count_nonzero", "logsumexp"]))
    keep = draw(st.booleans())
    transpose = draw(st.booleans())
    return shape, dims, op, keep, transpose


NP_FN = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min,
         "all": np.all, "any": np.any, "var": lambda a, axis, keepdims: np.var(a, axis=axis,
                                                                             keepdims=keepdims),
         "logsumexp": np_logsumexp}


@settings(max_examples=150, deadline=None)
@given(reduce_case(), st.integers(0, 2**32 - 1))
def test_property_reductions_match_numpy(case, seed):
    shape, dims, op, keep, transpose = case
    a = np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float64)
    x = T(a)
    if transpose and a.ndim >= 2:  # a strided view of the same values
        x = T(np.ascontiguousarray(a.swapaxes(0, -1))).transpose(0, -1)
    axis = None if dims is None else tuple(dims)
    if a.ndim == 0 and axis is not None:
        axis = None  # numpy has no axis 0 for 0-d; tandem, like PyTorch, accepts 0 and -1
    red = range(a.ndim) if axis is None else [d % a.ndim for d in axis]
    empty_reduced = any(a.shape[d] == 0 for d in red)
    if op in ("amax", "amin") and empty_reduced:
        with pytest.raises(IndexError):
            getattr(x, op)(dims, keepdim=keep)
        return
    if op == "count_nonzero":
        got = x.count_nonzero(dims)
        exp = np.count_nonzero(a, axis=axis)
        check(got, np.asarray(exp, dtype=np.int64), tandem.int64)
        return
    if op == "var":
        got = x.var(dims, correction=0, keepdim=keep)
    elif op == "logsumexp":
        got = mint.logsumexp(x, dims if dims is not None else list(range(a.ndim)), keepdim=keep)
    else:
        got = getattr(x, op)(dims, keepdim=keep)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean / var of empty slices
        exp = NP_FN[op](a, axis=axis, keepdims=keep)
    if a.ndim == 0:
        exp = np.asarray(exp).reshape(())
    check(got, exp, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.integers(0, 2**32 - 1),
       st.data())
def test_property_max_argmax_dim(shape, seed, d):
    a = np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float32)
    dim = d.draw(st.integers(-len(shape), len(shape) - 1))
    x = T(a)
    v, i = x.max(dim)
    check(v, a.max(dim))
    check(i, a.argmax(dim))
    v, i = x.min(dim, keepdim=True)
    check(v, a.min(dim, keepdims=True))
    check(i, np.expand_dims(a.argmin(dim), dim))


@pytest.mark.parametrize("dt", [tandem.float16, tandem.bfloat16], ids=str)
def test_half_precision_composites(dt):
    """var / std / logsumexp / norm keep a 16-bit dtype and stay within its precision."""
    x = T(np.random.default_rng(18).standard_normal((5, 6)).astype(np.float32), dt)
    a = x.numpy().astype(np.float64)  # the exact (rounded) inputs
    tol = dict(rtol=RTOL[dt] * 2, atol=RTOL[dt] * 2)
    check(x.var(1), a.var(1, ddof=1), dt, **tol)
    check(x.std(0, correction=0), a.std(0), dt, **tol)
    check(mint.logsumexp(x, 1), np_logsumexp(a, 1), dt, **tol)
    check(x.norm(3, dim=1), (np.abs(a) ** 3).sum(1) ** (1 / 3), dt, **tol)
    check(x.norm(), np.sqrt((a ** 2).sum()), dt, **tol)
    v, i = x.max(1)
    check(v, a.max(1), dt)
    check(i, a.argmax(1), tandem.int64)
    check(x.argmin(0), a.argmin(0), tandem.int64)


def test_aminmax_matches_numpy():
    a = np.array([[3.0, -1.0, 7.0], [0.5, 9.0, -4.0]], dtype=np.float32)
    lo, hi = mint.aminmax(T(a))
    check(lo, a.min())
    check(hi, a.max())
    r = mint.aminmax(T(a), dim=1, keepdim=True)
    check(r.min, a.min(1, keepdims=True))
    check(r.max, a.max(1, keepdims=True))


def test_long_row_sums_do_not_depend_on_the_thread_count():
    # The row split and the fused sum's chunks depend on the size only, so a run on one thread
    # (set by the user, or by the load-adaptive policy) gives the same bits as one on two.
    x = tandem.mint.randn(3, 1 << 20)
    f = tandem.jit(lambda v: (v * 2 + 1).sum())
    prev = tandem.get_num_threads()
    try:
        got = {}
        for n in (1, 2, 3):
            tandem.set_num_threads(n)
            got[n] = (x.sum(dim=1).numpy().tobytes(), x[0].sum().item(), f(x).item(),
                      x.float().mean().item())
        assert got[1] == got[2] == got[3]
    finally:
        tandem.set_num_threads(prev)


def test_get_num_threads_reports_the_request_while_backed_off():
    prev = tandem.get_num_threads()
    try:
        tandem.set_num_threads(2)
        for _ in range(3):
            tandem._C.threads_report(2, 4_000_000, 3_000_000)
        # TANDEM_ADAPTIVE_THREADS=0 in this suite (conftest): reports are ignored.
        assert not tandem._C.threads_contended()
        assert tandem.get_num_threads() == 2
    finally:
        tandem._C.threads_reset()
        tandem.set_num_threads(prev)
