"""View and shape ops against numpy: shapes, strides and values, and aliasing: a view
shares its base's memory, so writes through either side show in the other."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tandem
from tandem import mint


def T(a, dt=None):
    """A tandem tensor holding a copy of numpy array `a` (0-d arrays stay 0-d)."""
    t = tandem.from_numpy(np.array(a, copy=True))
    return t if dt is None else t.to(dt)


def arange(*shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def check(t, expected):
    expected = np.asarray(expected)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    np.testing.assert_array_equal(t.numpy(), expected)


def np_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def shares(view, base):
    """A write through `view` shows up in `base`, and back again."""
    before = base.numpy().copy()
    if view.numel() == 0:
        return view._is_view_of(base)
    flat_before = view.reshape(-1)[0].item()
    view.fill_(-7)
    changed = not np.array_equal(base.numpy(), before)
    base.copy_(T(before))
    restored = view.reshape(-1)[0].item() == flat_before
    return changed and restored and view._is_view_of(base)


# --- reshape / view ------------------------------------------------------------------------------

def test_reshape_shapes_and_minus_one():
    a = arange(2, 3, 4)
    x = T(a)
    for shape in [(24,), (-1,), (4, -1), (-1, 6), (2, 12), (2, 3, 2, 2), (1, 24, 1), (-1, 1, 4)]:
        check(x.reshape(shape), a.reshape(shape))
        check(x.reshape(*shape), a.reshape(shape))
        check(mint.reshape(x, list(shape)), a.reshape(shape))
    check(T(np.float32(3)).reshape(1, 1), np.full((1, 1), 3, np.float32))
    check(T(np.ones(1, np.float32)).reshape(()), np.float32(1))
    check(T(np.zeros((0, 3), np.float32)).reshape(3, 0, 5), np.zeros((3, 0, 5)))


def test_reshape_contiguous_is_a_view():
    x = T(arange(3, 4))
    y = x.reshape(2, 6)
    assert y._is_view_of(x) and y.data_ptr() == x.data_ptr()
    y[1, 0] = 100  # element 6 of the base
    assert x[1, 2].item() == 100
    x[0, 0] = -1
    assert y[0, 0].item() == -1


def test_reshape_transposed_copies():
    a = arange(3, 4)
    x = T(a)
    y = x.t().reshape(-1)
    check(y, a.T.reshape(-1))
    assert not y._is_view_of(x)
    y[0] = 100
    check(x, a)  # the base is untouched
    # some non-contiguous inputs can still be viewed
    z = x[:, 1:3].reshape(3, 2, 1)
    assert z._is_view_of(x)
    check(z, a[:, 1:3].reshape(3, 2, 1))


def test_view_and_incompatible_strides():
    a = arange(4, 6)
    x = T(a)
    v = x.view(2, 12)
    check(v, a.reshape(2, 12))
    v[0, 7] = -5
    assert x[1, 1].item() == -5
    a.reshape(-1)[7] = -5
    check(x.view(-1), a.reshape(-1))
    check(x.t().view(6, 4, 1), a.T.reshape(6, 4, 1))  # splitting dims is always viewable
    check(x.view_as(T(np.zeros((3, 8)))), x.numpy().reshape(3, 8))
    with pytest.raises(ValueError, match="view"):
        x.t().view(-1)
    with pytest.raises(ValueError, match="view"):
        x[:, :3].view(12)
    check(x[:, ::2].view(12), a[:, ::2].reshape(12))  # evenly strided: one chunk, viewable
    with pytest.raises(ValueError, match="invalid for input of size"):
        x.view(5, 5)


# --- permute / transpose / t / T / movedim -------------------------------------------------------

def test_permute_transpose_t():
    a = arange(2, 3, 4)
    x = T(a)
    for perm in [(2, 0, 1), (0, 2, 1), (-1, -2, -3), [1, 0, 2]]:
        y = x.permute(*perm)
        exp = a.transpose([p % 3 for p in perm])
        check(y, exp)
        assert y.stride() == np_strides(exp)
        assert shares(y, x)
        check(mint.permute(x, perm), exp)
    check(x.transpose(0, 2), a.swapaxes(0, 2))
    check(mint.transpose(x, -1, 0), a.swapaxes(-1, 0))
    check(x.swapaxes(1, 2), a.swapaxes(1, 2))
    check(x.swapdims(0, 1), a.swapaxes(0, 1))
    m = T(arange(3, 5))
    check(m.t(), arange(3, 5).T)
    check(mint.t(m), arange(3, 5).T)
    check(T(arange(4)).t(), arange(4))
    check(T(np.float32(2)).t(), np.float32(2))
    check(x.T, a.T)
    check(m.T, arange(3, 5).T)
    check(x.mT, a.swapaxes(-1, -2))
    assert shares(m.T, m)


@pytest.mark.parametrize("src,dst", [(0, 2), (-1, 0), ([0, 1], [2, 0]), ((0, 2), (1, 0)),
                                     (1, 1), ([0, 1, 2], [2, 1, 0])])
def test_movedim(src, dst):
    a = arange(2, 3, 4)
    check(T(a).movedim(src, dst), np.moveaxis(a, src, dst))
    check(mint.moveaxis(T(a), src, dst), np.moveaxis(a, src, dst))


# --- squeeze / unsqueeze -------------------------------------------------------------------------

def test_squeeze_unsqueeze():
    a = arange(1, 3, 1, 4, 1)
    x = T(a)
    check(x.squeeze(), a.squeeze())
    for d in [0, 2, -1, 1, -3]:
        check(x.squeeze(d), a.squeeze(d) if a.shape[d] == 1 else a)
    check(x.squeeze((0, 2)), a.squeeze((0, 2)))
    check(mint.squeeze(x, [0, -1]), a.squeeze((0, -1)))
    check(x.squeeze([1, 2]), a.squeeze(2))  # size-3 dim 1 stays, like PyTorch
    assert shares(x.squeeze(), x)
    b = arange(3, 4)
    y = T(b)
    for d in [0, 1, 2, -1, -2, -3]:
        check(y.unsqueeze(d), np.expand_dims(b, d))
    u = y.unsqueeze(1)
    assert u.stride()[0] == 4 and shares(u, y)
    check(T(np.float32(5)).unsqueeze(0), np.array([5], np.float32))
    check(T(np.float32(5)).unsqueeze(-1), np.array([5], np.float32))
    check(T(np.float32(5)).squeeze(), np.float32(5))
    check(T(np.float32(5)).squeeze(0), np.float32(5))
    with pytest.raises(IndexError):
        y.unsqueeze(3)
    with pytest.raises(IndexError):
        y.squeeze(2)


# --- expand / broadcast_to -----------------------------------------------------------------------

def test_expand_and_broadcast_to():
    a = arange(3, 1)
    x = T(a)
    check(x.expand(3, 4), np.broadcast_to(a, (3, 4)))
    check(x.expand(2, 3, 4), np.broadcast_to(a, (2, 3, 4)))
    check(x.expand(-1, 5), np.broadcast_to(a, (3, 5)))
    check(x.expand((3, 2)), np.broadcast_to(a, (3, 2)))
    check(mint.broadcast_to(x, (2, 3, 6)), np.broadcast_to(a, (2, 3, 6)))
    check(x.broadcast_to([3, 0]), np.zeros((3, 0)))
    check(x.expand_as(T(np.zeros((4, 3, 2)))), np.broadcast_to(a, (4, 3, 2)))
    e = x.expand(3, 4)
    assert e.stride() == (1, 0)
    assert not e.is_contiguous()
    x[1, 0] = 50  # the expanded view sees base writes
    check(e[1], np.full(4, 50, np.float32))
    check(T(np.float32(2)).expand(2, 2), np.full((2, 2), 2, np.float32))
    with pytest.raises(ValueError, match="expand"):
        x.expand(4, 4)
    with pytest.raises(ValueError):
        x.expand(3)
    with pytest.raises(ValueError):
        mint.broadcast_to(x, (2, 2))


# --- narrow / select / diagonal ------------------------------------------------------------------

def test_narrow_select():
    a = arange(4, 5, 3)
    x = T(a)
    check(x.narrow(0, 1, 2), a[1:3])
    check(x.narrow(1, -2, 2), a[:, 3:5])
    check(mint.narrow(x, -1, 0, 0), a[:, :, 0:0])
    check(x.select(1, 2), a[:, 2])
    check(x.select(-1, -1), a[..., -1])
    check(mint.select(x, 0, 3), a[3])
    n = x.narrow(1, 1, 3)
    assert shares(n, x) and n.storage_offset() == 3
    s = x.select(2, 1)
    s.fill_(0)
    a2 = a.copy()
    a2[:, :, 1] = 0
    check(x, a2)
    with pytest.raises(IndexError):
        x.narrow(0, 3, 2)
    with pytest.raises(IndexError):
        x.select(1, 5)
    with pytest.raises(IndexError):
        x.select(-4, 0)


@pytest.mark.parametrize("offset", [0, 1, -1, 2, -3, 5, -6])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (0, 2), (-1, 1), (2, 0)])
def test_diagonal(offset, dims):
    a = arange(3, 4, 5)
    exp = np.diagonal(a, offset, *dims)
    d = T(a).diagonal(offset, *dims)
    check(d, exp)
    check(mint.diagonal(T(a), offset=offset, dim1=dims[0], dim2=dims[1]), exp)
    if exp.size:
        assert d.stride() == np_strides(exp) or d.shape[-1] == 1


def test_diagonal_write_through():
    x = T(arange(4, 4))
    x.diagonal().fill_(0)
    exp = arange(4, 4)
    np.fill_diagonal(exp, 0)
    check(x, exp)
    x.diagonal(1).add_(100)
    exp[np.arange(3), np.arange(1, 4)] += 100
    check(x, exp)
    with pytest.raises(ValueError, match="diagonal"):
        T(arange(4)).diagonal()
    with pytest.raises(ValueError):
        x.diagonal(0, 1, 1)


# --- flatten / unflatten / ravel -----------------------------------------------------------------

def test_flatten_unflatten_ravel():
    a = arange(2, 3, 4, 5)
    x = T(a)
    check(x.flatten(), a.reshape(-1))
    check(x.flatten(1), a.reshape(2, -1))
    check(x.flatten(1, 2), a.reshape(2, 12, 5))
    check(mint.flatten(x, start_dim=-2), a.reshape(2, 3, 20))
    check(x.flatten(2, 2), a)
    assert shares(x.flatten(), x)
    ft = x.transpose(0, 3).flatten()
    check(ft, a.transpose(3, 1, 2, 0).reshape(-1))
    assert not ft._is_view_of(x)
    check(T(np.float32(7)).flatten(), np.array([7], np.float32))
    check(x.unflatten(1, (3, 1)), a.reshape(2, 3, 1, 4, 5))
    check(x.unflatten(-1, (-1, 5)), a.reshape(2, 3, 4, 1, 5))
    check(mint.unflatten(x.flatten(), 0, (2, 3, 4, 5)), a)
    assert shares(x.unflatten(2, (2, 2)), x)
    check(x.ravel(), a.ravel())
    assert shares(x.ravel(), x)
    r = x.permute(1, 0, 2, 3).ravel()
    check(r, a.transpose(1, 0, 2, 3).ravel())
    assert r.is_contiguous() and not r._is_view_of(x)
    check(mint.ravel(x[:, 1]), a[:, 1].ravel())
    with pytest.raises(ValueError, match="flatten"):
        x.flatten(2, 1)
    with pytest.raises(ValueError):
        x.unflatten(1, (2, 2))


# --- split / chunk / unbind ----------------------------------------------------------------------

def test_split_chunk_unbind_are_views():
    a = arange(7, 4)
    x = T(a)
    parts = x.split(3)
    assert [p.shape for p in parts] == [(3, 4), (3, 4), (1, 4)]
    for p, e in zip(parts, np.split(a, [3, 6])):
        check(p, e)
    for p, e in zip(mint.split(x, [2, 5], dim=0), np.split(a, [2])):
        check(p, e)
    for p, e in zip(x.split(3, dim=1), np.split(a, [3], axis=1)):
        check(p, e)
    chunks = x.chunk(3)
    assert [c.shape[0] for c in chunks] == [3, 3, 1]
    assert [c.shape[1] for c in mint.chunk(x, 4, dim=-1)] == [1, 1, 1, 1]
    assert len(T(arange(5)).chunk(4)) == 3  # PyTorch: ceil(5/4)=2-sized chunks
    rows = x.unbind()
    assert len(rows) == 7
    for r, e in zip(rows, a):
        check(r, e)
    cols = mint.unbind(x, dim=1)
    for c, e in zip(cols, a.T):
        check(c, e)
    parts[1].fill_(0)
    chunks[2].add_(1)
    cols[3].mul_(-1)
    exp = a.copy()
    exp[3:6] = 0
    exp[6] += 1
    exp[:, 3] *= -1
    check(x, exp)
    with pytest.raises(ValueError):
        x.split([3, 3])
    with pytest.raises(ValueError):
        x.chunk(0)


# --- contiguous / is_contiguous ------------------------------------------------------------------

def test_contiguous():
    a = arange(3, 4)
    x = T(a)
    assert x.is_contiguous()
    assert x.contiguous()._is_view_of(x)
    y = x.t()
    assert not y.is_contiguous()
    c = y.contiguous()
    assert c.is_contiguous() and not c._is_view_of(x)
    assert c.stride() == (3, 1)
    check(c, a.T)
    assert not x[:, ::2].is_contiguous()
    assert x[1:].is_contiguous()
    assert T(arange(3, 1)).expand(3, 1).is_contiguous()  # size-1 dims: strides don't matter
    check(x[::-1].contiguous(), a[::-1])


def test_is_contiguous_matches_pytorch_rules():
    x = T(arange(3, 4))
    assert x[:1].t().is_contiguous()     # shape (4, 1): stride of the size-1 dim is ignored
    assert x[:, 1:2].is_contiguous() is False  # shape (3, 1) with row stride 4
    assert x[1].is_contiguous()
    assert not x[:, 1].is_contiguous()
    assert T(np.float32(1)).is_contiguous()


# --- in-place ops through views update the base --------------------------------------------------

def test_inplace_through_views():
    a = arange(3, 4)
    x = T(a)
    x[:, 1] += 5
    a[:, 1] += 5
    check(x, a)
    x.t().mul_(2)
    a *= 2
    check(x, a)
    x.diagonal().fill_(0)
    np.fill_diagonal(a, 0)
    check(x, a)
    x[1:, ::2] -= 1
    a[1:, ::2] -= 1
    check(x, a)
    x[::-1][0] *= 10  # the last row, through a negative-stride view
    a[-1] *= 10
    check(x, a)
    x.view(-1)[::5].zero_()
    a.reshape(-1)[::5] = 0
    check(x, a)
    x.unsqueeze(0).expand(2, 3, 4)[0].neg_()
    a *= -1
    check(x, a)
    v = x.reshape(2, 6)
    v.add_(T(np.ones(6, np.float32)))
    a += 1
    check(x, a)
    x.permute(1, 0)[2].clamp_(min=0)
    a[:, 2] = np.maximum(a[:, 2], 0)
    check(x, a)


def test_base_writes_show_in_views():
    x = T(arange(4, 4))
    views = [x.t(), x[1:3], x.diagonal(), x.view(16), x.narrow(1, 2, 2), x.select(0, 1),
             x.unsqueeze(0), x.flatten(), x.split(2)[1], x.unbind(1)[3]]
    x.fill_(3)
    for v in views:
        assert (v.numpy() == 3).all()


# --- hypothesis: chains of views match numpy and alias the base ----------------------------------

@st.composite
def view_chain(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    steps = draw(st.lists(st.sampled_from(["t", "perm", "slice", "select", "unsqueeze",
                                           "squeeze", "diag", "flip"]), max_size=4))
    return shape, steps, draw(st.randoms(use_true_random=False))


@settings(max_examples=80, deadline=None)
@given(view_chain())
def test_property_view_chains(case):
    shape, steps, rnd = case
    a = arange(*shape)
    x = T(a)
    # numpy twin: the same chain applied to the flat index of every element
    t, n = x, np.arange(a.size).reshape(shape)
    for s in steps:
        if s == "t" and n.ndim >= 2:
            d0, d1 = rnd.randrange(n.ndim), rnd.randrange(n.ndim)
            t, n = t.transpose(d0, d1), n.swapaxes(d0, d1)
        elif s == "perm":
            p = list(range(n.ndim))
            rnd.shuffle(p)
            t, n = t.permute(p), n.transpose(p)
        elif s == "slice" and n.ndim:
            d = rnd.randrange(n.ndim)
            lo, step = rnd.randrange(-n.shape[d] - 1, n.shape[d] + 1), rnd.choice([1, 2, -1, -3])
            sl = [slice(None)] * n.ndim
            sl[d] = slice(lo, None, step)
            t, n = t[tuple(sl)], n[tuple(sl)]
        elif s == "select" and n.ndim and n.shape[0]:
            i = rnd.randrange(-n.shape[0], n.shape[0])
            t, n = t.select(0, i), n[i]
        elif s == "unsqueeze":
            d = rnd.randrange(-n.ndim - 1, n.ndim + 1)
            t, n = t.unsqueeze(d), np.expand_dims(n, d)
        elif s == "squeeze":
            t, n = t.squeeze(), n.squeeze()
        elif s == "diag" and n.ndim >= 2:
            off = rnd.randrange(-2, 3)
            t, n = t.diagonal(off), np.diagonal(n, off)
        elif s == "flip" and n.ndim:
            t, n = t[::-1], n[::-1]
    check(t, n)
    if n.size:
        assert t._is_view_of(x)
        t.fill_(-1)
        exp = a.copy()
        exp.reshape(-1)[n.reshape(-1)] = -1
        check(x, exp)


def test_movedim_errors_and_0d():
    x = T(arange(2, 3))
    with pytest.raises(IndexError, match="movedim"):
        x.movedim(2, 0)
    with pytest.raises(IndexError, match="movedim"):
        x.movedim(0, -3)
    with pytest.raises(ValueError, match="same"):
        x.movedim([0, 1], [1])
    with pytest.raises(ValueError, match="repeated"):
        x.movedim([0, 0], [1, 0])
    z = T(np.float32(4))
    check(z.movedim(0, -1), np.float32(4))
