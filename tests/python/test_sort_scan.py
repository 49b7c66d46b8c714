"""Scans, sorting, selection and counting ops against numpy."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tandem
from tandem import mint

F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_


def T(a):
    return tandem.tensor(np.asarray(a))


def strided(a):
    """A non-contiguous tensor with a's values (a transposed copy, transposed back)."""
    a = np.asarray(a)
    t = tandem.tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1))).transpose(0, a.ndim - 1)
    assert not t.is_contiguous() or a.ndim < 2
    return t


def rand(shape, dtype, lo=-5, hi=5):
    if dtype == BOOL:
        return np.random.rand(*shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return np.random.randint(lo, hi, size=shape).astype(dtype)
    return np.random.uniform(lo, hi, size=shape).astype(dtype)


# --- cumsum / cumprod -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F64, I32, I64, BOOL, np.int8, np.uint8])
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_cumsum_cumprod_dtypes_dims(dtype, dim):
    a = rand((3, 4, 5), dtype, -3, 4)
    out_dt = dtype if np.issubdtype(dtype, np.floating) else np.int64
    for name, ref in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
        r = getattr(mint, name)(T(a), dim)
        e = ref(a.astype(out_dt), axis=dim)
        assert r.numpy().dtype == out_dt
        np.testing.assert_allclose(r.numpy(), e, rtol=1e-5)
        # method form and non-contiguous input
        r2 = getattr(strided(a), name)(dim)
        np.testing.assert_allclose(r2.numpy(), e, rtol=1e-5)


def test_cumsum_dtype_argument_and_axis():
    a = rand((4, 6), I32)
    r = mint.cumsum(T(a), 1, dtype=tandem.float64)
    assert r.dtype == tandem.float64
    np.testing.assert_array_equal(r.numpy(), np.cumsum(a, axis=1, dtype=np.float64))
    r = mint.cumprod(T(a.astype(F32)), axis=0, dtype=tandem.float64)
    np.testing.assert_allclose(r.numpy(), np.cumprod(a.astype(np.float64), axis=0))
    r = tandem.ops.cumsum(T(a), axis=-1)
    np.testing.assert_array_equal(r.numpy(), np.cumsum(a, axis=-1))


def test_cumsum_float16_computes_in_float32():
    a = rand((5, 7), F32).astype(np.float16)
    r = mint.cumsum(T(a), 1)
    assert r.dtype == tandem.float16
    e = np.cumsum(a.astype(F32), axis=1).astype(np.float16)
    np.testing.assert_allclose(r.numpy().astype(F32), e.astype(F32), rtol=1e-3)


def test_cumsum_large_parallel_paths():
    a = rand((64, 2048), F64)
    for d in (0, 1):
        np.testing.assert_allclose(mint.cumsum(T(a), d).numpy(), np.cumsum(a, axis=d), rtol=1e-10)
    a = rand((4096, 3, 3), I64)
    np.testing.assert_array_equal(mint.cumsum(T(a), 0).numpy(), np.cumsum(a, axis=0))


def test_cumsum_0d_and_empty():
    r = mint.cumsum(T(np.float32(2.5)), 0)
    assert r.shape == () and r.item() == 2.5
    assert mint.cumprod(T(np.int32(3)), -1).dtype == tandem.int64
    for shape, d in (((0, 3), 0), ((0, 3), 1), ((2, 0), 1), ((0,), 0)):
        a = np.zeros(shape, F32)
        r = mint.cumsum(T(a), d)
        assert r.shape == shape
        assert mint.cumprod(T(a.astype(I32)), d).dtype == tandem.int64


def test_scan_bad_dim_and_missing_dim():
    with pytest.raises(IndexError, match="cumsum: dimension out of range"):
        mint.cumsum(T(np.ones((2, 3))), 2)
    with pytest.raises(IndexError, match="cummax: dimension out of range"):
        mint.cummax(T(np.ones((2, 3))), -3)
    with pytest.raises(TypeError, match="cumsum: missing the required argument dim"):
        mint.cumsum(T(np.ones(3)))


# --- cummax / cummin --------------------------------------------------------------------------

def _cum_extreme_ref(a, axis, is_max):
    """PyTorch's rule: NaN sticks (each new NaN takes the index); ties take the later index."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty_like(a)
    idx = np.empty(a.shape, np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        row = a[pos]
        best, bi = row[0], 0
        for r, v in enumerate(row):
            nan_v = isinstance(v, np.floating) and np.isnan(v)
            nan_b = isinstance(best, np.floating) and np.isnan(best)
            if nan_v or (not nan_b and (v >= best if is_max else v <= best)):
                best, bi = v, r
            vals[pos + (r,)] = best
            idx[pos + (r,)] = bi
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("dtype", [F32, F64, I32, I64, BOOL])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cummax_cummin(dtype, dim):
    a = rand((4, 9), dtype, -3, 3)  # small range: plenty of ties
    for name, is_max in (("cummax", True), ("cummin", False)):
        v, i = getattr(mint, name)(T(a), dim)
        ev, ei = _cum_extreme_ref(a, dim, is_max)
        assert v.dtype == T(a).dtype and i.dtype == tandem.int64
        np.testing.assert_array_equal(v.numpy(), ev)
        np.testing.assert_array_equal(i.numpy(), ei)
        v2, i2 = getattr(strided(a), name)(dim)
        np.testing.assert_array_equal(i2.numpy(), ei)


def test_cummax_nan_propagates():
    a = np.array([1.0, np.nan, 5.0, np.nan, 0.0], F32)
    v, i = mint.cummax(T(a), 0)
    np.testing.assert_array_equal(v.numpy(), [1, np.nan, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(i.numpy(), [0, 1, 1, 3, 3])
    v, i = mint.cummin(T(a), 0)
    np.testing.assert_array_equal(v.numpy(), np.minimum.accumulate(a))
    np.testing.assert_array_equal(i.numpy(), [0, 1, 1, 3, 3])


# --- logcumsumexp -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F64])
def test_logcumsumexp(dtype):
    a = rand((5, 8), dtype)
    for d in (0, 1, -1):
        r = mint.logcumsumexp(T(a), d)
        np.testing.assert_allclose(r.numpy(), np.logaddexp.accumulate(a, axis=d), rtol=1e-5)
    # stable for large values, and -inf / inf entries
    a = np.array([1000.0, 1000.0, -np.inf, 2000.0, np.inf], dtype)
    np.testing.assert_allclose(mint.logcumsumexp(T(a), 0).numpy(), np.logaddexp.accumulate(a),
                               rtol=1e-6)
    a = np.array([-np.inf, -np.inf, 0.0], dtype)
    np.testing.assert_array_equal(mint.logcumsumexp(T(a), 0).numpy(), [-np.inf, -np.inf, 0.0])


def test_logcumsumexp_int_input_gives_float32():
    a = np.arange(6).reshape(2, 3)
    r = T(a).logcumsumexp(1)
    assert r.dtype == tandem.float32
    np.testing.assert_allclose(r.numpy(), np.logaddexp.accumulate(a.astype(F64), axis=1), rtol=1e-6)


# --- sort / argsort / msort -------------------------------------------------------------------

def _stable_order(a, axis, descending):
    """Stable argsort with PyTorch's NaN placement (last ascending, first descending)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    if a.dtype == BOOL:
        key = -a.astype(np.int64)
    elif np.issubdtype(a.dtype, np.floating):
        nan = np.isnan(a)  # lexsort's last key is the primary one: NaNs first, then -a
        return np.lexsort((np.where(nan, 0, -a.astype(np.float64)), ~nan), axis=axis)
    else:
        key = -a.astype(np.int64)
    return np.argsort(key, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", [F32, F64, I32, I64, BOOL, np.int8, np.uint8, np.int16])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_stable_numpy(dtype, dim, descending):
    a = rand((6, 7), dtype, -3, 3)  # many ties
    v, i = mint.sort(T(a), dim=dim, descending=descending)
    ei = _stable_order(a, dim, descending)
    assert v.dtype == T(a).dtype and i.dtype == tandem.int64
    np.testing.assert_array_equal(i.numpy(), ei)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, ei, dim))
    np.testing.assert_array_equal(mint.argsort(strided(a), dim, descending).numpy(), ei)
    np.testing.assert_array_equal(T(a).sort(dim, descending, stable=True).indices.numpy(), ei)


def test_sort_nan_order():
    a = np.array([[3.0, np.nan, -1.0, np.nan, np.inf, -np.inf]], F32)
    v, i = mint.sort(T(a))
    np.testing.assert_array_equal(v.numpy(), [[-np.inf, -1, 3, np.inf, np.nan, np.nan]])
    np.testing.assert_array_equal(i.numpy(), [[5, 2, 0, 4, 1, 3]])
    v, i = mint.sort(T(a), descending=True)
    np.testing.assert_array_equal(v.numpy(), [[np.nan, np.nan, np.inf, 3, -1, -np.inf]])
    np.testing.assert_array_equal(i.numpy(), [[1, 3, 4, 0, 2, 5]])


@pytest.mark.parametrize("dt", [tandem.float16, tandem.bfloat16])
def test_sort_16bit_floats(dt):
    a = rand((3, 10), F32)
    x = T(a).to(dt)
    ref = x.float().numpy()
    v, i = mint.sort(x, dim=1, descending=True)
    assert v.dtype == dt
    ei = _stable_order(ref, 1, True)
    np.testing.assert_array_equal(i.numpy(), ei)
    np.testing.assert_array_equal(v.float().numpy(), np.take_along_axis(ref, ei, 1))


def test_sort_3d_noncontiguous_and_msort():
    a = rand((4, 5, 6), F64)
    for d in range(-3, 3):
        v, i = mint.sort(strided(a), d)
        np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=d))
        np.testing.assert_array_equal(i.numpy(), np.argsort(a, axis=d, kind="stable"))
    np.testing.assert_array_equal(mint.msort(T(a)).numpy(), np.sort(a, axis=0))
    np.testing.assert_array_equal(T(a).msort().numpy(), np.sort(a, axis=0))


def test_sort_large_parallel_rows():
    a = rand((300, 400), F32)
    v, i = mint.sort(T(a), 1)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=1))
    np.testing.assert_array_equal(i.numpy(), np.argsort(a, axis=1, kind="stable"))


@pytest.mark.parametrize("dtype", [F32, F64, I64, I32, np.int16, np.int8, np.uint8, BOOL])
@pytest.mark.parametrize("n", [127, 128, 1000])
def test_sort_long_rows_radix_path(dtype, n):
    # rows from 128 elements use a radix sort; both paths must give the stable order
    if np.issubdtype(dtype, np.floating):
        a = np.random.choice(np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-30,
                                       -1e-30, 3e38], dtype), size=(3, n))
        a[0] = rand((n,), dtype, -1e6, 1e6)
    elif dtype == BOOL:
        a = rand((3, n), dtype)
    else:
        info = np.iinfo(dtype)
        a = np.random.randint(info.min, int(info.max) + 1, size=(3, n), dtype=np.int64)
        a[1] = np.random.randint(max(int(info.min), -3), 3, size=n)  # many ties
        a = a.astype(dtype)
    for desc in (False, True):
        v, i = mint.sort(T(a), 1, desc)
        ei = _stable_order(a, 1, desc)
        np.testing.assert_array_equal(i.numpy(), ei)
        np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, ei, 1))
    u, inv, cnt = mint.unique(T(a), return_inverse=True, return_counts=True)
    eu, einv, ecnt = np.unique(a, return_inverse=True, return_counts=True,
                               **({"equal_nan": False} if a.dtype.kind == "f" else {}))
    np.testing.assert_array_equal(u.numpy(), eu)
    np.testing.assert_array_equal(cnt.numpy(), ecnt)
    # numpy orders its NaN groups arbitrarily; ours follow input order, one group per NaN
    nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    np.testing.assert_array_equal(inv.numpy()[~nan], einv.reshape(a.shape)[~nan])
    np.testing.assert_array_equal(u.numpy()[inv.numpy()], a)
    assert np.all(np.diff(inv.numpy()[nan]) > 0)


def test_sort_0d_and_empty():
    v, i = mint.sort(T(np.float32(3)))
    assert v.shape == () and v.item() == 3 and i.item() == 0
    for shape in ((0,), (2, 0), (0, 3)):
        v, i = mint.sort(T(np.zeros(shape, F32)))
        assert v.shape == shape and i.shape == shape
    assert mint.argsort(T(np.zeros((0, 3), I64)), 0).shape == (0, 3)


def test_sort_bad_dim():
    with pytest.raises(IndexError, match="sort: dimension out of range"):
        mint.sort(T(np.ones((2, 3))), dim=2)
    with pytest.raises(IndexError, match="sort: dimension out of range"):
        mint.argsort(T(np.float32(1)), dim=1)


_float_arrays = hnp.arrays(
    dtype=st.sampled_from([F32, F64]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6),
    elements=st.floats(allow_nan=True, allow_infinity=True, width=32)
    | st.sampled_from([0.0, 1.0, -1.0, np.nan]))


@settings(max_examples=60, deadline=None)
@given(a=_float_arrays, data=st.data())
def test_sort_properties(a, data):
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    desc = data.draw(st.booleans())
    v, i = mint.sort(T(a), dim, desc)
    v, i = v.numpy(), i.numpy()
    # indices are a permutation along dim and gather the values back
    ar = np.arange(a.shape[dim]).reshape([-1 if k == dim % a.ndim else 1 for k in range(a.ndim)])
    np.testing.assert_array_equal(np.sort(i, axis=dim), np.broadcast_to(ar, a.shape))
    np.testing.assert_array_equal(np.take_along_axis(a, i, dim), v)
    # values are a permutation of a, ordered with NaN last (first when descending)
    np.testing.assert_array_equal(np.sort(v, axis=dim), np.sort(a, axis=dim))
    m = np.moveaxis(v, dim, -1)
    lo, hi = (m[..., 1:], m[..., :-1]) if desc else (m[..., :-1], m[..., 1:])
    assert np.all((lo <= hi) | np.isnan(hi))
    assert not np.any(np.isnan(lo) & ~np.isnan(hi))
    ref = _stable_order(a, dim, desc)
    np.testing.assert_array_equal(i, ref)


# --- topk / kthvalue --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F64, I32, I64])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dtype, largest):
    a = rand((5, 12), dtype, -4, 4)
    for dim in (0, 1, -1):
        n = a.shape[dim]
        for k in (0, 1, 3, n):
            v, i = mint.topk(T(a), k, dim=dim, largest=largest)
            ei = np.take(_stable_order(a, dim, largest), np.arange(k), axis=dim)
            np.testing.assert_array_equal(i.numpy(), ei)
            np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, ei, dim))
    v, i = strided(a).topk(3, 0, largest)
    ei = np.take(_stable_order(a, 0, largest), np.arange(3), axis=0)
    np.testing.assert_array_equal(i.numpy(), ei)


def test_topk_nan_is_largest_and_errors():
    a = np.array([1.0, np.nan, 3.0, 2.0], F32)
    v, i = mint.topk(T(a), 2)
    np.testing.assert_array_equal(v.numpy(), [np.nan, 3])
    np.testing.assert_array_equal(i.numpy(), [1, 2])
    v, i = mint.topk(T(a), 2, largest=False)
    np.testing.assert_array_equal(v.numpy(), [1, 2])
    with pytest.raises(IndexError, match="topk: k=5 is out of range"):
        mint.topk(T(a), 5)
    with pytest.raises(IndexError, match="topk: k=-1 is out of range"):
        mint.topk(T(a), -1)
    with pytest.raises(IndexError, match="topk: dimension out of range"):
        mint.topk(T(a), 1, dim=1)
    v, i = mint.topk(T(np.float32(4)), 1)
    assert v.shape == () and v.item() == 4


@pytest.mark.parametrize("dtype", [F32, F64, I32, I64])
def test_kthvalue(dtype):
    a = rand((6, 9), dtype, -4, 4)
    for dim in (0, 1, -2):
        n = a.shape[dim]
        for k in (1, n // 2, n):
            v, i = mint.kthvalue(T(a), k, dim)
            ev = np.take(np.sort(a, axis=dim), k - 1, axis=dim)
            np.testing.assert_array_equal(v.numpy(), ev)
            np.testing.assert_array_equal(np.partition(a, k - 1, axis=dim).take(k - 1, axis=dim), ev)
            got = np.take_along_axis(a, np.expand_dims(i.numpy(), dim), dim).squeeze(dim)
            np.testing.assert_array_equal(got, ev)
    v, i = strided(a).kthvalue(2, 0, keepdim=True)
    assert v.shape == (1, 9) and i.shape == (1, 9)
    np.testing.assert_array_equal(v.numpy()[0], np.sort(a, axis=0)[1])


def test_kthvalue_errors():
    x = T(np.ones((2, 3), F32))
    with pytest.raises(IndexError, match="kthvalue: k=0 is out of range for dimension 1 of size 3"):
        mint.kthvalue(x, 0)
    with pytest.raises(IndexError, match="kthvalue: k=4 is out of range"):
        mint.kthvalue(x, 4)
    with pytest.raises(IndexError, match="kthvalue: k=1 is out of range"):
        mint.kthvalue(T(np.ones((2, 0), F32)), 1)
    with pytest.raises(IndexError, match="kthvalue: dimension out of range"):
        mint.kthvalue(x, 1, dim=3)


# --- median / nanmedian / mode ------------------------------------------------------------------

def _lower_median(a, axis):
    n = a.shape[axis]
    return np.take(np.sort(a, axis=axis), (n - 1) // 2, axis=axis)


@pytest.mark.parametrize("dtype", [F32, F64, I32, I64])
def test_median(dtype):
    for shape in ((7,), (8,), (4, 6), (3, 5, 2)):
        a = rand(shape, dtype, -5, 5)
        r = mint.median(T(a))
        assert r.shape == () and r.dtype == T(a).dtype
        assert r.item() == np.sort(a.ravel())[(a.size - 1) // 2]
        for dim in range(-a.ndim, a.ndim):
            v, i = mint.median(T(a), dim)
            ev = _lower_median(a, dim)
            np.testing.assert_array_equal(v.numpy(), ev)
            got = np.take_along_axis(a, np.expand_dims(i.numpy(), dim), dim).squeeze(dim)
            np.testing.assert_array_equal(got, ev)
            vk, ik = strided(a).median(dim, keepdim=True) if a.ndim > 1 else T(a).median(dim, True)
            np.testing.assert_array_equal(vk.numpy(), np.expand_dims(ev, dim))


def test_median_nan_and_nanmedian():
    a = np.array([[1.0, np.nan, 3.0, 2.0, np.nan], [4.0, 0.0, 1.0, 2.0, 3.0],
                  [np.nan] * 5], F32)
    assert np.isnan(mint.median(T(a)).item())
    v, i = mint.median(T(a), 1)
    np.testing.assert_array_equal(v.numpy(), [np.nan, 2.0, np.nan])
    np.testing.assert_array_equal(i.numpy()[:2], [1, 3])
    assert i.numpy()[2] == 0
    v, i = mint.nanmedian(T(a), 1)
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0, np.nan])
    np.testing.assert_array_equal(i.numpy(), [3, 3, 0])
    finite = a[np.isfinite(a)]
    assert mint.nanmedian(T(a)).item() == np.sort(finite)[(finite.size - 1) // 2]
    assert T(a).nanmedian(dim=0).values.shape == (5,)


def test_median_empty_and_errors():
    assert np.isnan(mint.median(T(np.zeros((0,), F32))).item())
    assert np.isnan(mint.nanmedian(T(np.zeros((2, 0), F64))).item())
    with pytest.raises(ValueError, match="median: the median of an empty tensor is NaN"):
        mint.median(T(np.zeros((0,), I64)))
    with pytest.raises(IndexError, match="median: cannot reduce over dimension 1 of size 0"):
        mint.median(T(np.zeros((2, 0), F32)), 1)
    with pytest.raises(IndexError, match="median: dimension out of range"):
        mint.median(T(np.zeros((2, 3), F32)), 2)
    r = mint.median(T(np.float32(5)), 0)
    assert r.values.shape == () and r.values.item() == 5 and r.indices.item() == 0


def _mode_ref(a, axis):
    a2 = np.moveaxis(a, axis, -1)
    vals = np.empty(a2.shape[:-1], a.dtype)
    idx = np.empty(a2.shape[:-1], np.int64)
    for pos in np.ndindex(a2.shape[:-1]):
        row = a2[pos]
        u, c = np.unique(row, return_counts=True)
        v = u[np.argmax(c)]  # first max count = smallest value among the most frequent
        vals[pos], idx[pos] = v, np.nonzero(row == v)[0][-1]
    return vals, idx


@pytest.mark.parametrize("dtype", [F32, I32, I64, BOOL])
def test_mode(dtype):
    a = rand((5, 11), dtype, 0, 4)
    for dim in (0, 1, -1):
        v, i = mint.mode(T(a), dim)
        ev, ei = _mode_ref(a, dim)
        np.testing.assert_array_equal(v.numpy(), ev)
        np.testing.assert_array_equal(i.numpy(), ei)
    v, i = strided(a).mode(0, keepdim=True)
    assert v.shape == (1, 11)
    np.testing.assert_array_equal(v.numpy()[0], _mode_ref(a, 0)[0])
    with pytest.raises(IndexError, match="mode: cannot reduce over dimension 0 of size 0"):
        mint.mode(T(np.zeros((0, 2), F32)), 0)


# --- unique / unique_consecutive -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F64, I32, I64, BOOL])
def test_unique_flat(dtype):
    a = rand((4, 7), dtype, -3, 3)
    u, inv, cnt = mint.unique(T(a), return_inverse=True, return_counts=True)
    eu, einv, ecnt = np.unique(a, return_inverse=True, return_counts=True)
    assert u.dtype == T(a).dtype and inv.shape == a.shape
    np.testing.assert_array_equal(u.numpy(), eu)
    np.testing.assert_array_equal(inv.numpy(), einv.reshape(a.shape))
    np.testing.assert_array_equal(cnt.numpy(), ecnt)
    np.testing.assert_array_equal(u.numpy()[inv.numpy()], a)
    np.testing.assert_array_equal(mint.unique(strided(a)).numpy(), eu)
    np.testing.assert_array_equal(T(a).unique(sorted=False).numpy(), eu)
    u, c = mint.unique(T(a), return_counts=True)
    np.testing.assert_array_equal(c.numpy(), ecnt)


def test_unique_nan_each_distinct_and_edge_shapes():
    a = np.array([2.0, np.nan, 1.0, np.nan, 2.0], F32)
    u, inv, cnt = mint.unique(T(a), return_inverse=True, return_counts=True)
    eu, ecnt = np.unique(a, return_counts=True, equal_nan=False)
    np.testing.assert_array_equal(u.numpy(), eu)
    np.testing.assert_array_equal(cnt.numpy(), ecnt)
    np.testing.assert_array_equal(inv.numpy(), [1, 2, 0, 3, 1])
    u, inv = mint.unique(T(np.int64(5)), return_inverse=True)
    assert u.tolist() == [5] and inv.shape == () and inv.item() == 0
    u, inv, cnt = mint.unique(T(np.zeros((0, 3), F32)), return_inverse=True, return_counts=True)
    assert u.shape == (0,) and inv.shape == (0, 3) and cnt.shape == (0,)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim(dim):
    a = np.random.randint(0, 2, size=(6, 5, 3)).astype(I64)
    a = np.concatenate([a, np.take(a, [0, 2], axis=dim)], axis=dim)  # guaranteed duplicates
    u, inv, cnt = mint.unique(T(a), return_inverse=True, return_counts=True, dim=dim)
    eu, einv, ecnt = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    np.testing.assert_array_equal(u.numpy(), eu)
    np.testing.assert_array_equal(inv.numpy(), einv.ravel())
    np.testing.assert_array_equal(cnt.numpy(), ecnt)
    np.testing.assert_array_equal(mint.unique(strided(a), dim=dim).numpy(), eu)
    u = mint.unique(T(np.zeros((0, 3), F32)), dim=0)
    assert u.shape == (0, 3)
    with pytest.raises(IndexError, match="unique: dimension out of range"):
        mint.unique(T(a), dim=3)


def _consecutive_ref(seq):
    vals, counts, inv = [], [], []
    for k, g in itertools.groupby(seq):
        n = len(list(g))
        inv += [len(vals)] * n
        vals.append(k)
        counts.append(n)
    return vals, inv, counts


@pytest.mark.parametrize("dtype", [F32, I32, I64, BOOL])
def test_unique_consecutive(dtype):
    a = rand((3, 8), dtype, 0, 3)
    u, inv, cnt = mint.unique_consecutive(T(a), return_inverse=True, return_counts=True)
    ev, einv, ecnt = _consecutive_ref(a.ravel().tolist())
    np.testing.assert_array_equal(u.numpy(), np.array(ev, dtype))
    np.testing.assert_array_equal(inv.numpy(), np.reshape(einv, a.shape))
    np.testing.assert_array_equal(cnt.numpy(), ecnt)
    rows = [tuple(r) for r in a]
    rows = rows[:1] + rows  # a repeated first row collapses
    b = np.array(rows, dtype)
    u, inv, cnt = T(b).unique_consecutive(return_inverse=True, return_counts=True, dim=0)
    ev, einv, ecnt = _consecutive_ref(rows)
    np.testing.assert_array_equal(u.numpy(), np.array(ev, dtype))
    np.testing.assert_array_equal(inv.numpy(), einv)
    np.testing.assert_array_equal(cnt.numpy(), ecnt)


# --- bincount / histc / searchsorted ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [I32, I64, np.uint8])
def test_bincount(dtype):
    a = np.random.randint(0, 9, size=50).astype(dtype)
    r = mint.bincount(T(a))
    assert r.dtype == tandem.int64
    np.testing.assert_array_equal(r.numpy(), np.bincount(a))
    np.testing.assert_array_equal(T(a).bincount(minlength=20).numpy(), np.bincount(a, minlength=20))
    w = np.random.rand(50).astype(F32)
    r = mint.bincount(T(a), T(w))
    assert r.dtype == tandem.float32
    np.testing.assert_allclose(r.numpy(), np.bincount(a, w), rtol=1e-5)
    r = mint.bincount(T(a), T(w.astype(F64)))
    assert r.dtype == tandem.float64
    r = mint.bincount(T(a), T(np.arange(50, dtype=I64)))
    assert r.dtype == tandem.float64
    np.testing.assert_array_equal(r.numpy(), np.bincount(a, np.arange(50)))
    assert mint.bincount(T(np.zeros(0, I64)), minlength=3).tolist() == [0, 0, 0]
    assert mint.bincount(T(np.zeros(0, I64))).shape == (0,)


def test_bincount_errors():
    with pytest.raises(ValueError, match="bincount: input must be non-negative, found -2"):
        mint.bincount(T(np.array([1, -2, 3])))
    with pytest.raises(ValueError, match="bincount: input must be 1-D"):
        mint.bincount(T(np.ones((2, 2), I64)))
    with pytest.raises(TypeError, match="bincount: input must hold integers"):
        mint.bincount(T(np.ones(3, F32)))
    with pytest.raises(ValueError, match="bincount: weights must be 1-D with the input's length 3"):
        mint.bincount(T(np.ones(3, I64)), T(np.ones(2, F32)))
    with pytest.raises(ValueError, match="bincount: minlength must be >= 0"):
        mint.bincount(T(np.ones(3, I64)), minlength=-1)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_histc(dtype):
    a = rand((200,), dtype, -3, 3)
    r = mint.histc(T(a), bins=10, min=-2, max=2)
    assert r.dtype == T(a).dtype
    np.testing.assert_array_equal(r.numpy(), np.histogram(a, 10, range=(-2, 2))[0])
    r = T(a).histc(bins=7)  # min == max: the data's range
    np.testing.assert_array_equal(r.numpy(), np.histogram(a, 7, range=(a.min(), a.max()))[0])
    # values on the edges: the max lands in the last bin
    b = np.array([0, 1, 2, 3, 4, 4, np.nan, 5], dtype)
    np.testing.assert_array_equal(mint.histc(T(b), 4, 0, 4).numpy(), [1, 1, 1, 3])
    np.testing.assert_array_equal(mint.histc(T(np.full(3, 2.0, dtype)), 2).numpy(), [0, 3])
    assert mint.histc(T(np.zeros(0, dtype)), 3).tolist() == [0, 0, 0]
    h = mint.histc(T(a).to(tandem.float16), 5, -3, 3)
    assert h.dtype == tandem.float16


def test_histc_errors():
    with pytest.raises(TypeError, match="histc: expected a floating point tensor"):
        mint.histc(T(np.arange(3)))
    with pytest.raises(ValueError, match="histc: bins must be > 0"):
        mint.histc(T(np.ones(3, F32)), bins=0)
    with pytest.raises(ValueError, match=r"histc: max \(1\) must be >= min \(2\)"):
        mint.histc(T(np.ones(3, F32)), 4, 2, 1)
    with pytest.raises(ValueError, match="histc: the data range"):
        mint.histc(T(np.array([1.0, np.inf], F32)))


@pytest.mark.parametrize("dtype", [F32, F64, I64, I32])
def test_searchsorted(dtype):
    seq = np.sort(rand((12,), dtype, -10, 10))
    vals = rand((3, 5), dtype, -12, 12)
    for side in ("left", "right"):
        r = mint.searchsorted(T(seq), T(vals), side=side)
        assert r.dtype == tandem.int64
        np.testing.assert_array_equal(r.numpy(), np.searchsorted(seq, vals, side=side))
    r = mint.searchsorted(T(seq), T(vals), right=True, out_int32=True)
    assert r.dtype == tandem.int32
    np.testing.assert_array_equal(r.numpy(), np.searchsorted(seq, vals, side="right"))
    # batched: one sorted row per leading index
    seqs = np.sort(rand((3, 6), dtype, -10, 10), axis=1)
    r = mint.searchsorted(T(seqs), strided(vals))
    e = np.stack([np.searchsorted(seqs[k], vals[k]) for k in range(3)])
    np.testing.assert_array_equal(r.numpy(), e)
    # unsorted sequence + sorter
    perm = np.random.permutation(12)
    shuffled = seq[perm]
    sorter = np.argsort(shuffled, kind="stable")
    r = mint.searchsorted(T(shuffled), T(vals), sorter=T(sorter))
    np.testing.assert_array_equal(r.numpy(), np.searchsorted(shuffled, vals, sorter=sorter))


def test_searchsorted_scalar_nan_and_errors():
    seq = T(np.array([1.0, 2.0, 3.0], F32))
    r = mint.searchsorted(seq, 2.0)
    assert r.shape == () and r.item() == 1
    assert mint.searchsorted(seq, 2, right=True).item() == 2
    assert mint.searchsorted(seq, float("nan")).item() == 3
    with pytest.raises(ValueError, match="searchsorted: side='left' contradicts right=True"):
        mint.searchsorted(seq, 2.0, right=True, side="left")
    with pytest.raises(ValueError, match="searchsorted: side must be 'left' or 'right'"):
        mint.searchsorted(seq, 2.0, side="middle")
    with pytest.raises(ValueError, match="searchsorted: sorted_sequence of shape \\[2, 3\\]"):
        mint.searchsorted(T(np.ones((2, 3))), T(np.ones((3, 3))))
    with pytest.raises(ValueError, match="searchsorted: sorted_sequence must have at least 1"):
        mint.searchsorted(T(np.float32(1)), T(np.ones(3)))
    # A sorter index outside [0, n) is refused (torch raises too), not wrapped to another
    # element; the check reads every index, in any position.
    for bad in ([2, -1, 0], [0, 3, 1]):
        with pytest.raises(RuntimeError, match="searchsorted: sorter index out of range"):
            mint.searchsorted(seq, 2.0, sorter=T(np.array(bad, np.int64)))
    shuffled = T(np.array([3.0, 1.0, 2.0], F32))
    assert mint.searchsorted(shuffled, 2.5, sorter=T(np.array([1, 2, 0], np.int64))).item() == 2
