"""Indexing against numpy: __getitem__ / __setitem__ with every index kind (and hypothesis
property tests for both), then the indexing ops: gather, scatter*, index_select, index_add,
masked_fill / masked_select, take, nonzero, one_hot and index_put."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tandem
from tandem import mint

ALL = [tandem.bool_, tandem.uint8, tandem.int8, tandem.int16, tandem.int32, tandem.int64,
       tandem.float16, tandem.bfloat16, tandem.float32, tandem.float64]


def T(a, dt=None):
    """A tandem tensor holding a copy of numpy array `a` (0-d arrays stay 0-d)."""
    t = tandem.from_numpy(np.array(a, copy=True))
    return t if dt is None else t.to(dt)


def L(a):
    """An int64 index tensor."""
    return T(np.asarray(a, dtype=np.int64))


def tidx(ti):
    return ti() if callable(ti) else ti


def check(t, expected):
    expected = np.asarray(expected)
    assert isinstance(t, tandem.Tensor)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    np.testing.assert_array_equal(t.numpy(), expected)


A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
M2 = A[:, :, 0] > 20  # a (3, 4) mask

# (id, tandem index, numpy index): the same index for both, tensors where tandem takes them.
# Indices holding tensors are built by a lambda at test time (not kept alive by pytest).
GET_CASES = [
    ("int", 1, 1),
    ("neg_int", -1, -1),
    ("ints", (2, -3, 4), (2, -3, 4)),
    ("slice", slice(1, 3), slice(1, 3)),
    ("slice_step", (slice(None), slice(None, None, 2)), (slice(None), slice(None, None, 2))),
    ("neg_step", (slice(None, None, -1), slice(3, 0, -2)),
     (slice(None, None, -1), slice(3, 0, -2))),
    ("neg_step_bounds", (slice(-1, -4, -1), slice(10, None, -3)),
     (slice(-1, -4, -1), slice(10, None, -3))),
    ("clamped", (slice(10, None), slice(-100, 2)), (slice(10, None), slice(-100, 2))),
    ("none", (None, 1, None, slice(None), None), (None, 1, None, slice(None), None)),
    ("none_alone", None, None),
    ("huge_slice_bounds", (slice(-2**70, 2**70), slice(None, None, 2**70), slice(2**63, None, -2)),
     (slice(-2**70, 2**70), slice(None, None, 2**70), slice(2**63, None, -2))),
    ("ellipsis", (Ellipsis, 2), (Ellipsis, 2)),
    ("ellipsis_mid", (1, Ellipsis, None), (1, Ellipsis, None)),
    ("ellipsis_empty", (1, 2, Ellipsis, 3), (1, 2, Ellipsis, 3)),
    ("empty_tuple", (), ()),
    ("true", True, True),
    ("false", False, False),
    ("np_bool_scalar", np.True_, np.True_),
    ("mask_full", lambda: T(A > 30), A > 30),
    ("mask_partial", lambda: T(np.array([True, False, True])), np.array([True, False, True])),
    ("mask_later_dim", lambda: (slice(None), T(np.array([True, False, True, True]))),
     (slice(None), np.array([True, False, True, True]))),
    ("mask_2d", lambda: T(M2), M2),
    ("mask_numpy", A > 50, A > 50),
    ("mask_list", [True, False, True], np.array([True, False, True])),
    ("mask_int", (1, A[1, :, 0] > 7), (1, A[1, :, 0] > 7)),
    ("mask_0d", lambda: T(np.array(True)), np.array(True)),
    ("list", [0, 2, 2], [0, 2, 2]),
    ("list_neg", [-1, 0, -3], [-1, 0, -3]),
    ("empty_list", [], np.array([], dtype=np.int64)),
    ("range", (slice(None), range(1, 4)), (slice(None), range(1, 4))),
    ("tensor", lambda: L([[0, 1], [2, 0]]), np.array([[0, 1], [2, 0]])),
    ("int32_tensor", lambda: T(np.array([1, 0], np.int32)), np.array([1, 0])),
    ("numpy_array", np.array([2, -1]), np.array([2, -1])),
    ("numpy_int", np.int64(1), np.int64(1)),
    ("numpy_0d", np.array(2), np.array(2)),
    ("tensor_0d", lambda: L(1), 1),
    ("numpy_int_slice", slice(np.int32(1), np.int64(3)), slice(1, 3)),
    ("two_adv_broadcast", ([[0], [2]], [1, 3]), ([[0], [2]], [1, 3])),
    ("three_adv", ([0, 1], [1, 2], [3, 4]), ([0, 1], [1, 2], [3, 4])),
    ("adv_slice", (slice(1, None), [0, 3]), (slice(1, None), [0, 3])),
    ("slice_adv_slice", (slice(None, None, -1), [0, 3], slice(1, None)),
     (slice(None, None, -1), [0, 3], slice(1, None))),
    ("adv_none", (None, [0, 1]), (None, [0, 1])),
    ("separated_adv", ([0, 1], slice(None), [2, 3]), ([0, 1], slice(None), [2, 3])),
    ("separated_adv_2d", ([[0, 1]], slice(None), [[1], [2]]), ([[0, 1]], slice(None), [[1], [2]])),
    ("adv_ellipsis_adv", ([0, 1], Ellipsis, [1, 2]), ([0, 1], Ellipsis, [1, 2])),
    ("mask_and_adv", (np.array([True, False, True]), slice(None), [1, 2]),
     (np.array([True, False, True]), slice(None), [1, 2])),
    ("tensor_and_list", lambda: (L([0, 2]), [3, 3]), ([0, 2], [3, 3])),
]


@pytest.mark.parametrize("case", GET_CASES, ids=lambda c: c[0])
def test_getitem_matches_numpy(case):
    _, ti, ni = case
    ti = tidx(ti)
    check(T(A)[ti], A[ni])


def test_getitem_int_then_advanced_follows_pytorch():
    # numpy treats the int as an advanced index too, so x[0, :, [0, 1]] has shape (2, 4)
    # there. tandem follows PyTorch: the int is basic indexing (a select) applied first, so
    # the result is A[0][:, [0, 1]] with shape (4, 2). Don't compare with numpy's layout.
    r = T(A)[0, :, [0, 1]]
    check(r, A[0][:, [0, 1]])
    assert r.shape == (4, 2) and A[0, :, [0, 1]].shape == (2, 4)


def test_basic_indexing_returns_views():
    x = T(A)
    for idx in [1, (slice(None), 2), (Ellipsis, slice(None, None, -2)), (None, 0), ()]:
        v = x[idx]
        assert v._is_view_of(x)
    assert not x[[0, 1]]._is_view_of(x)  # advanced indexing copies
    assert not x[x > 3]._is_view_of(x)
    v = x[1, ::2]
    v.fill_(-1)
    assert (x.numpy()[1, ::2] == -1).all()


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_getitem_dtypes(dt):
    x = T(A, dt)
    a = x.numpy()
    check(x[1:, [0, 2]], a[1:, [0, 2]])
    if dt == tandem.bool_:
        check(x[x], a[a])
    else:
        check(x[T(a > 0)], a[a > 0])
    check(x[..., -1], a[..., -1])
    assert x[[0]].dtype == dt


def test_getitem_zero_dim_and_empty():
    z = T(np.float32(5))
    z_np = np.float32(5) * np.ones(())
    for idx in [(), None, Ellipsis, True, False, (None, None)]:
        check(z[idx], z_np[idx])
    e = T(np.zeros((0, 3), np.float32))
    check(e[:, 1], np.zeros(0))
    check(e[[]], np.zeros((0, 3)))
    check(e[e > 0], np.zeros(0))
    check(T(A)[:, []], A[:, []])
    check(T(A)[2:1], A[2:1])


def test_getitem_non_contiguous_base():
    x = T(A).permute(2, 0, 1)[::2]
    a = A.transpose(2, 0, 1)[::2]
    check(x[[0, 2], 1], a[[0, 2], 1])
    check(x[:, [2, 0], 1:], a[:, [2, 0], 1:])
    check(x[x > 30], a[a > 30])
    check(x[..., [3, 0]], a[..., [3, 0]])
    check(x[[1, 0], :, [3, 2]], a[[1, 0], :, [3, 2]])


# --- __setitem__ --------------------------------------------------------------------------------

# (id, tandem index, numpy index); each is set with a scalar and with a broadcastable tensor.
SET_CASES = [c for c in GET_CASES if c[0] not in ("empty_tuple", "false", "mask_0d")] + [
    ("dup_list", [0, 0], [0, 0]),
]


@pytest.mark.parametrize("case", SET_CASES, ids=lambda c: c[0])
def test_setitem_scalar(case):
    _, ti, ni = case
    ti = tidx(ti)
    x, a = T(A), A.copy()
    x[ti] = -1.5
    a[ni] = -1.5
    check(x, a)
    x[ti] = 7  # an int into a float tensor
    a[ni] = 7
    check(x, a)


@pytest.mark.parametrize("case", SET_CASES, ids=lambda c: c[0])
def test_setitem_broadcast_tensor(case):
    _, ti, ni = case
    ti = tidx(ti)
    a = A.copy()
    target = a[ni]
    if target.ndim == 0:
        val = np.array(-3.0, np.float32)
    else:  # a row that broadcasts along every leading dim of the target
        val = (np.arange(target.shape[-1], dtype=np.float32) + 100)
    x = T(A)
    x[ti] = T(val)
    a[ni] = val
    check(x, a)
    if target.ndim >= 2:  # a full-shape value, as float64: converted on the way in
        full = np.random.default_rng(0).standard_normal(target.shape)
        x[ti] = T(full)
        a[ni] = full.astype(np.float32)
        check(x, a)


def test_setitem_value_kinds_and_dtypes():
    x = T(np.arange(6).reshape(2, 3))
    x[0] = 2.7  # float into int: truncated, like PyTorch
    x[1, [0, 2]] = T(np.array([True, False]))
    x[:, 1] = [9, 8]
    x[x > 8] = np.int64(-4)
    check(x, np.array([[2, -4, 2], [1, 8, 0]]))
    b = T(np.zeros(4, np.bool_))
    b[[1, 3]] = True
    check(b, np.array([False, True, False, True]))
    h = T(np.zeros((2, 2), np.float16))
    h[0] = T(np.array([1.5, 2.5], np.float32))
    check(h, np.array([[1.5, 2.5], [0, 0]], np.float16))
    bf = T(np.zeros(3, np.float32), tandem.bfloat16)
    bf[1:] = 3.0
    check(bf, np.array([0, 3, 3], np.float32))


def test_setitem_through_views_and_non_contiguous():
    a = A.copy()
    x = T(A)
    xt, at = x.transpose(0, 2), a.swapaxes(0, 2)
    xt[[1, 3], 2] = -1.0
    at[[1, 3], 2] = -1.0
    check(x, a)
    xt[xt > 40] = 0.0
    at[at > 40] = 0.0
    check(x, a)
    xs, as_ = x[:, ::2], a[:, ::2]
    xs[[0, 1], [1, 0]] = 100.0
    as_[[0, 1], [1, 0]] = 100.0
    check(x, a)
    xr, ar = x[::-1, :, ::-1], a[::-1, :, ::-1]
    xr[0, [1, 2]] = T(np.arange(5, dtype=np.float32))
    ar[0, [1, 2]] = np.arange(5, dtype=np.float32)
    check(x, a)


def test_setitem_bad_values():
    x = T(A)
    with pytest.raises(ValueError):
        x[[0, 1]] = T(np.ones(3, np.float32))
    with pytest.raises(ValueError):
        x[0] = T(np.ones(3, np.float32))
    with pytest.raises(IndexError):
        x[3] = 0.0
    with pytest.raises(IndexError):
        x[[0, 5]] = 0.0
    with pytest.raises(TypeError):
        x[0] = None


# --- hypothesis: random basic indices (ints, slices, None, Ellipsis) ----------------------------

@st.composite
def basic_index(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    items, dim = [], 0
    used_ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis"]))
        if kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            items.append(Ellipsis)
            dim = len(shape)  # the remaining items index from the end; keep it simple
            continue
        if kind == "none":
            items.append(None)
            continue
        if dim >= len(shape) or used_ellipsis:
            continue
        n = shape[dim]
        if kind == "int" and n > 0:
            items.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
            items.append(slice(draw(bound), draw(bound), step))
        dim += 1
    idx = tuple(items) if draw(st.booleans()) or len(items) != 1 else items[0]
    return shape, idx


@settings(max_examples=200, deadline=None)
@given(basic_index())
def test_property_getitem_basic(case):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = T(a)
    r = x[idx]
    check(r, a[idx])
    if r.numel():
        assert r._is_view_of(x)


@settings(max_examples=200, deadline=None)
@given(basic_index(), st.booleans())
def test_property_setitem_basic(case, use_tensor):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = T(a)
    target = a[idx]
    if use_tensor and np.ndim(target) >= 1:
        val = -np.arange(target.shape[-1], dtype=np.float32) - 1  # broadcasts along the rest
        x[idx] = T(val)
    else:
        val = np.float32(-7)
        x[idx] = -7.0
    a[idx] = val
    check(x, a)


@st.composite
def advanced_index(draw):
    """Slices and 1-2 integer arrays (adjacent or not); no ints, whose placement rules differ
    between numpy and PyTorch when combined with arrays."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    bshape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    n_adv = draw(st.integers(1, min(2, len(shape))))
    adv_dims = sorted(draw(st.lists(st.integers(0, len(shape) - 1), min_size=n_adv,
                                    max_size=n_adv, unique=True)))
    items = []
    for d in range(len(shape)):
        if d in adv_dims:
            arr = draw(st.lists(st.integers(-shape[d], shape[d] - 1),
                                min_size=int(np.prod(bshape)), max_size=int(np.prod(bshape))))
            items.append(np.array(arr, dtype=np.int64).reshape(bshape))
        else:
            n = shape[d]
            items.append(slice(draw(st.none() | st.integers(-n, n)), None,
                               draw(st.sampled_from([None, 1, 2, -1]))))
    return shape, tuple(items)


@settings(max_examples=150, deadline=None)
@given(advanced_index(), st.booleans())
def test_property_advanced_get_and_set(case, as_tensors):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    ti = tuple(L(i) if as_tensors and isinstance(i, np.ndarray) else i for i in idx)
    x = T(a)
    check(x[ti], a[idx])
    x[ti] = -1.0
    a[idx] = -1.0
    check(x, a)


# --- gather / scatter ----------------------------------------------------------------------------

def np_gather(a, dim, idx):
    sl = tuple(slice(0, s) if d != dim % a.ndim else slice(None) for d, s in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, dim)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_gather(dt):
    rng = np.random.default_rng(0)
    a = T(A, dt).numpy()
    for dim in [0, 1, 2, -1]:
        shape = list(A.shape)
        shape[dim] = 6
        shape[(dim + 1) % 3] -= 1  # smaller than the input in another dim
        idx = rng.integers(-A.shape[dim], A.shape[dim], shape)
        pos = idx % A.shape[dim]
        check(T(A, dt).gather(dim, L(pos)), np_gather(a, dim, pos))
        check(mint.gather(T(A, dt), dim, L(pos)), np_gather(a, dim, pos))
        # MindSpore's gather_elements counts negative indices from the end; torch's raise.
        check(tandem.ops.gather_elements(T(A, dt), dim, L(idx)), np_gather(a, dim, pos))
        if (idx < 0).any():
            with pytest.raises(IndexError, match="is out of bounds for dimension"):
                mint.gather(T(A, dt), dim, L(idx))


def test_gather_non_contiguous_and_empty():
    a = A.transpose(2, 0, 1)[:, ::-1]
    idx = np.random.default_rng(1).integers(0, 3, (5, 2, 4))
    check(T(A).permute(2, 0, 1)[:, ::-1].gather(1, L(idx)), np_gather(a, 1, idx))
    idx_nc = L(idx.transpose(2, 1, 0)).permute(2, 1, 0)  # a strided index tensor
    check(T(a).gather(1, idx_nc), np_gather(a, 1, idx))
    check(T(A).gather(0, L(np.zeros((0, 4, 5)))), np.zeros((0, 4, 5)))


def np_scatter(a, dim, idx, src, op):
    out = a.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        s = src[pos] if np.ndim(src) else src
        if op == "set":
            out[tuple(tgt)] = s
        elif op == "add":
            out[tuple(tgt)] += s
        elif op == "mul":
            out[tuple(tgt)] *= s
        elif op == "max":
            out[tuple(tgt)] = max(out[tuple(tgt)], s)
        elif op == "min":
            out[tuple(tgt)] = min(out[tuple(tgt)], s)
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_replace(dim):
    rng = np.random.default_rng(2)
    base = rng.standard_normal((4, 5)).astype(np.float32)
    d = dim % 2
    # unique targets per line, so "replace" has one answer
    idx = np.stack([rng.permutation(base.shape[d])[:3] for _ in range(base.shape[1 - d])],
                   axis=1 - d)
    src = rng.standard_normal((6, 6)).astype(np.float32)  # larger than index: ok
    sl = tuple(slice(0, s) for s in idx.shape)
    check(T(base).scatter(dim, L(idx), T(src)), np_scatter(base, d, idx, src[sl], "set"))
    check(mint.scatter(T(base), dim, L(idx), 2.5), np_scatter(base, d, idx, 2.5, "set"))
    check(T(base).scatter(dim, L(idx), value=-1.0), np_scatter(base, d, idx, -1.0, "set"))


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64, tandem.int32, tandem.int64,
                                tandem.float16, tandem.uint8], ids=str)
def test_scatter_reduce_modes(dt):
    rng = np.random.default_rng(3)
    npdt = T(np.zeros(1), dt).numpy().dtype
    base = rng.integers(1, 4, (3, 6)).astype(npdt)
    idx = rng.integers(0, 6, (3, 8))  # duplicates accumulate
    src = rng.integers(1, 3, (3, 8)).astype(npdt)
    x, i, s = T(base, dt), L(idx), T(src, dt)
    check(x.scatter(1, i, s, reduce="add"), np_scatter(base, 1, idx, src, "add"))
    check(x.scatter(1, i, s, reduce="multiply"), np_scatter(base, 1, idx, src, "mul"))
    check(x.scatter_add(1, i, s), np_scatter(base, 1, idx, src, "add"))
    check(mint.scatter_add(x, -1, i, s), np_scatter(base, 1, idx, src, "add"))
    check(x.scatter_reduce(1, i, s, "sum"), np_scatter(base, 1, idx, src, "add"))
    check(x.scatter_reduce(1, i, s, "prod"), np_scatter(base, 1, idx, src, "mul"))
    check(x.scatter_reduce(1, i, s, "amax"), np_scatter(base, 1, idx, src, "max"))
    check(x.scatter_reduce(1, i, s, "amin"), np_scatter(base, 1, idx, src, "min"))


def test_scatter_reduce_mean_and_include_self():
    base = np.array([10.0, 20.0, 30.0, 40.0], np.float32)
    idx = np.array([0, 1, 0, 0, 3])
    src = np.array([1.0, 2.0, 3.0, 5.0, -4.0], np.float32)
    x, i, s = T(base), L(idx), T(src)
    check(x.scatter_reduce(0, i, s, "mean"), [(10 + 9) / 4, 11, 30, 18])
    check(x.scatter_reduce(0, i, s, "mean", include_self=False), [3, 2, 30, -4])
    check(x.scatter_reduce(0, i, s, "sum", include_self=False), [9, 2, 30, -4])
    check(x.scatter_reduce(0, i, s, "prod", include_self=False), [15, 2, 30, -4])
    check(x.scatter_reduce(0, i, s, "amax", include_self=False), [5, 2, 30, -4])
    check(x.scatter_reduce(0, i, s, "amin", include_self=False), [1, 2, 30, -4])
    xi = T(np.array([10, 20, 30], np.int64))
    si = T(np.array([1, 2, 4], np.int64))
    check(xi.scatter_reduce(0, L([0, 0, 2]), si, "mean"), [13 // 3, 20, 17])  # floor, like PyTorch
    check(xi.scatter_reduce(0, L([0, 0, 2]), si, "amax", include_self=False), [2, 20, 4])
    check(xi.scatter_reduce(0, L([0, 0, 2]), si, "amin", include_self=False), [1, 20, 4])
    with pytest.raises(ValueError, match="reduce"):
        x.scatter_reduce(0, i, s, "median")


def test_scatter_errors():
    x = T(A)
    with pytest.raises(IndexError, match="out of bounds"):
        x.scatter(0, L(np.full((1, 1, 1), 3)), 1.0)
    with pytest.raises(ValueError, match="dimensions"):
        x.scatter(0, L([0]), 1.0)
    with pytest.raises(ValueError, match="reduce"):
        x.scatter(0, L(np.zeros((1, 1, 1))), 1.0, reduce="bogus")
    with pytest.raises(TypeError, match="int64"):
        x.gather(0, T(np.zeros((1, 1, 1), np.float32)))
    with pytest.raises(IndexError, match="out of bounds"):
        x.gather(2, L(np.full((1, 1, 1), -6)))


# --- index_select / index_add / take --------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_index_select(dt):
    x = T(A, dt)
    a = x.numpy()
    for dim in [0, 1, 2, -2]:
        idx = np.array([0, 2, 1, 1])
        check(x.index_select(dim, L(idx)), np.take(a, idx, axis=dim))
        # Indices are in [0, size), as in torch: a negative one is an error, not wrapped.
        with pytest.raises(IndexError, match="index_select: index -1 is out of range"):
            x.index_select(dim, L([0, -1]))
        check(mint.index_select(x, dim, L(idx[:0])), np.take(a, idx[:0], axis=dim))
    check(x.transpose(0, 2).index_select(0, L([4, 0])), np.take(a.swapaxes(0, 2), [4, 0], axis=0))
    check(x.index_select(1, L(2)), np.take(a, [2], axis=1))


def test_index_add():
    rng = np.random.default_rng(4)
    base = rng.standard_normal((5, 3)).astype(np.float32)
    idx = np.array([0, 4, 0, 2])
    src = rng.standard_normal((4, 3)).astype(np.float32)
    exp = base.copy()
    np.add.at(exp, idx, src)
    check_close = lambda t, e: np.testing.assert_allclose(t.numpy(), e, rtol=1e-6)  # noqa: E731
    check_close(T(base).index_add(0, L(idx), T(src)), exp)
    exp2 = base.copy()
    np.add.at(exp2, idx, 2 * src)
    check_close(mint.index_add(T(base), 0, L(idx), T(src), alpha=2), exp2)
    exp3 = base.T.copy()
    np.add.at(exp3.T, idx, src)
    check_close(T(base.T).index_add(1, L(idx), T(src.T)), exp3)
    xi = T(np.zeros(3, np.int64))
    check(xi.index_add(0, L([0, 0, 2]), T(np.array([1, 2, 3])), alpha=3), [9, 0, 9])
    with pytest.raises(IndexError, match="out of range"):
        T(base).index_add(0, L([5]), T(src[:1]))


def test_take():
    idx = np.array([[0, 59], [-1, 17]])
    check(T(A).take(L(idx)), np.take(A, idx))
    check(mint.take(T(A).permute(2, 1, 0), L(idx)), np.take(A.transpose(2, 1, 0), idx))
    check(T(A).take(L(np.zeros(0))), np.zeros(0))
    check(T(np.float32(3)).take(L([0, 0])), [3, 3])
    with pytest.raises(IndexError, match="out of bounds"):
        T(A).take(L([60]))


# --- masks ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_masked_fill(dt):
    x = T(A, dt)
    a = x.numpy()
    mask = (A % 3 == 0)
    fill = True if dt == tandem.bool_ else 2
    exp = a.copy()
    exp[mask] = fill
    check(x.masked_fill(T(mask), fill), exp)
    check(mint.masked_fill(x, T(mask), T(np.array(fill))), exp)
    row = np.array([True, False, False, True, False])  # broadcasts over (3, 4, 5)
    exp = a.copy()
    exp[:, :, row] = fill
    check(x.masked_fill(T(row), fill), exp)
    y = x.clone()
    r = y.masked_fill_(T(mask), fill)
    exp = a.copy()
    exp[mask] = fill
    check(y, exp)
    assert r is y


def test_masked_fill_through_view_and_errors():
    x = T(A)
    a = A.copy()
    x[:, 1].masked_fill_(T(np.array([True, False, True, False, True])), -1.0)
    a[:, 1, [0, 2, 4]] = -1.0
    check(x, a)
    with pytest.raises(TypeError, match="bool"):
        x.masked_fill(T(np.ones(5, np.int64)), 0.0)
    with pytest.raises(ValueError, match="0-dimensional"):
        x.masked_fill(T(A > 1), T(np.ones(2, np.float32)))
    with pytest.raises(ValueError):
        x.masked_fill_(T(np.ones((2, 3, 4, 5), np.bool_)), 0.0)  # would grow x


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_masked_select(dt):
    x = T(A, dt)
    a = x.numpy()
    mask = A % 4 == 1
    check(x.masked_select(T(mask)), a[mask])
    row = np.array([[True], [False], [True], [True]])  # (4, 1) broadcasts against (3, 4, 5)
    check(mint.masked_select(x, T(row)), a[np.broadcast_to(row, a.shape)])
    check(x[0, 0].masked_select(T(np.ones((2, 5), np.bool_))), np.tile(a[0, 0], 2))
    check(x.masked_select(T(np.zeros_like(mask))), a[:0, 0, 0])


# --- nonzero / one_hot / index_put ----------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_nonzero(dt):
    rng = np.random.default_rng(5)
    a = T((rng.integers(0, 3, (4, 3, 5)) * (rng.random((4, 3, 5)) > 0.5)), dt).numpy()
    x = T(a, dt)
    check(x.nonzero(), np.argwhere(a))
    assert x.nonzero().dtype == tandem.int64
    parts = mint.nonzero(x, as_tuple=True)
    assert isinstance(parts, tuple) and len(parts) == 3
    for p, e in zip(parts, np.nonzero(a)):
        check(p, e)
    check(mint.argwhere(x.permute(2, 0, 1)), np.argwhere(a.transpose(2, 0, 1)))


def test_nonzero_edge_cases():
    check(T(np.array([0.0, np.nan, -0.0, np.inf])).nonzero(), [[1], [3]])
    check(T(np.float32(3)).nonzero(), np.zeros((1, 0), np.int64))
    check(T(np.float32(0)).nonzero(), np.zeros((0, 0), np.int64))
    (p,) = T(np.float32(3)).nonzero(as_tuple=True)
    check(p, [0])
    (p,) = T(np.float32(0)).nonzero(as_tuple=True)
    check(p, np.zeros(0))
    check(T(np.zeros((0, 3))).nonzero(), np.zeros((0, 2)))
    assert len(T(np.zeros((0, 3))).nonzero(as_tuple=True)) == 2


def test_one_hot():
    labels = np.array([[0, 2], [1, 3]])
    check(mint.one_hot(L(labels), 5), np.eye(5, dtype=np.int64)[labels])
    oh = mint.one_hot(L(labels))
    assert oh.dtype == tandem.int64
    check(oh, np.eye(4, dtype=np.int64)[labels])
    check(mint.one_hot(T(np.array([2, 0], np.int32)), 3), np.eye(3, dtype=np.int64)[[2, 0]])
    check(mint.one_hot(L(np.zeros(0)), 3), np.zeros((0, 3)))
    check(mint.one_hot(L(1), 3), [0, 1, 0])
    with pytest.raises(ValueError, match="one_hot"):
        mint.one_hot(L([0, 3]), 3)
    with pytest.raises(ValueError, match="one_hot"):
        mint.one_hot(L([-1]), 3)
    with pytest.raises(TypeError, match="one_hot"):
        mint.one_hot(T(np.array([0.0])), 3)


def test_index_put():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = T(a)
    r = mint.index_put(x, (L([0, 2]), L([1, 3])), T(np.array([-1.0, -2.0], np.float32)))
    e = a.copy()
    e[[0, 2], [1, 3]] = [-1, -2]
    check(r, e)
    check(x, a)  # functional: x unchanged
    e = a.copy()
    np.add.at(e, ([0, 0, 2],), 1.0)
    check(x.index_put((L([0, 0, 2]),), T(np.ones(4, np.float32)), accumulate=True), e)
    e = a.copy()
    np.add.at(e, ([1, 1], [2, 2]), np.array([5.0, 7.0], np.float32))
    check(mint.index_put(x, (L([1, 1]), L([2, 2])), T(np.array([5.0, 7.0], np.float32)), True), e)
    e = a.copy()
    e[a > 5] = 0
    check(mint.index_put(x, (T(a > 5),), T(np.float32(0))), e)  # a bool mask
    y = x.clone()
    assert y.index_put_((L([1]),), T(np.float32(9))) is not None
    e = a.copy()
    e[1] = 9
    check(y, e)
    with pytest.raises(IndexError, match="out of bounds"):
        mint.index_put(x, (L([3]),), T(np.float32(0)))
    with pytest.raises(ValueError):
        mint.index_put(x, (L([0, 1]),), T(np.ones(3, np.float32)))


def test_index_ops_large_parallel_path():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((400, 300)).astype(np.float32)
    rows = rng.integers(-400, 400, 2000)
    check(T(a)[L(rows)], a[rows])
    check(T(a)[:, L(rows[:500] % 300)], a[:, rows[:500] % 300])
    mask = a > 0.5
    check(T(a)[T(mask)], a[mask])
    idx = rng.integers(0, 300, (400, 300))
    check(T(a).gather(1, L(idx)), np.take_along_axis(a, idx, 1))
    x = T(a)
    x[T(mask)] = 0.0
    a2 = a.copy()
    a2[mask] = 0.0
    check(x, a2)
