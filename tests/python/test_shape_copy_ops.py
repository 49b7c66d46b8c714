"""Copying shape ops (cat, stack, flip, roll, repeat, tile, repeat_interleave, tril / triu,
diag, pad) against numpy: dtypes, non-contiguous inputs, 0-d and empty tensors, negative
dims, type promotion and the error messages."""
import numpy as np
import pytest

import tandem
from tandem import mint

DTYPES = [np.float32, np.float64, np.int64, np.bool_, np.float16]


def rnd(shape, dtype=np.float32):
    a = np.asarray(np.random.randn(*shape) * 10)
    if dtype == np.bool_:
        return a > 0
    return a.astype(dtype)


def T(a):
    # A dense copy, so later writes to numpy views of `a` can't show through.
    return tandem.from_numpy(np.array(a, order="C"))


def check(t, expected):
    got = t.numpy()
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


def layouts(shape, dtype):
    """(tensor, ndarray) pairs holding equal values: contiguous, transposed, strided, expanded."""
    a = rnd(shape, dtype)
    yield T(a), a
    nd = len(shape)
    if nd >= 2:
        perm = list(range(nd))[::-1]
        yield T(np.ascontiguousarray(a.transpose(perm))).permute(perm), a
    if nd >= 1:
        wide = rnd(shape[:-1] + (2 * shape[-1],), dtype)
        yield T(wide)[..., ::2], wide[..., ::2]
        one = rnd((1,) + shape[1:], dtype)
        yield T(one).expand(*shape), np.broadcast_to(one, shape)


def assert_fresh(out, x):
    """out must be a new tensor: writing it leaves x unchanged."""
    before = x.numpy().copy()
    if out.numel():
        out.view(-1)[0] = 1 - out.view(-1)[0] if out.dtype != tandem.bool else True
    np.testing.assert_array_equal(x.numpy(), before)


# ---- cat / concat / stack ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_matches_numpy(dtype):
    for dim in range(-3, 3):
        parts, arrays = [], []
        for k, n in enumerate([1, 3, 2]):
            shape = [2, 3, 4]
            shape[dim] = n
            t, a = list(layouts(tuple(shape), dtype))[k % 4]
            parts.append(t)
            arrays.append(a)
        check(mint.cat(parts, dim), np.concatenate(arrays, axis=dim))
        check(mint.cat(tuple(parts), dim=dim), np.concatenate(arrays, axis=dim))


def test_cat_noncontiguous_layouts_and_large():
    for t, a in layouts((64, 48), np.float32):
        check(mint.cat([t, t], 1), np.concatenate([a, a], 1))
        check(mint.cat([t, t[:5]], 0), np.concatenate([a, a[:5]], 0))
    big = rnd((300, 257))
    t = T(big)
    check(mint.cat([t.T, t.T[:, ::3]], dim=-1), np.concatenate([big.T, big.T[:, ::3]], -1))
    many = [rnd((3, i % 4)) for i in range(40)]
    check(mint.cat([T(m) for m in many], -1), np.concatenate(many, -1))


def test_cat_aliases_and_axis():
    a, b = rnd((2, 3)), rnd((2, 5))
    check(mint.concat([T(a), T(b)], dim=1), np.concatenate([a, b], 1))
    check(mint.concatenate([T(a), T(b)], axis=-1), np.concatenate([a, b], -1))
    check(tandem.cat([T(a), T(b)], axis=1), np.concatenate([a, b], 1))
    check(tandem.ops.concat([T(a), T(a)]), np.concatenate([a, a], 0))


# PyTorch's promotion table (README), values checked against numpy after the cast.
PROMOTIONS = [
    (np.int64, np.float32, np.float32),
    (np.bool_, np.int64, np.int64),
    (np.bool_, np.float16, np.float16),
    (np.float16, np.float32, np.float32),
    (np.int32, np.float16, np.float16),
    (np.uint8, np.int8, np.int16),
    (np.int32, np.int64, np.int64),
    (np.float32, np.float64, np.float64),
]


@pytest.mark.parametrize("da,db,want", PROMOTIONS)
def test_cat_and_stack_promote(da, db, want):
    a, b = rnd((2, 3), da), rnd((2, 3), db)
    check(mint.cat([T(a), T(b)]), np.concatenate([a.astype(want), b.astype(want)]))
    check(mint.cat([T(b), T(a)], 1), np.concatenate([b.astype(want), a.astype(want)], 1))
    check(mint.stack([T(a), T(b)], -1), np.stack([a.astype(want), b.astype(want)], -1))


def test_cat_promotes_three_way_and_bfloat16():
    a, b, c = rnd((2,), np.uint8), rnd((3,), np.int8), rnd((1,), np.bool_)
    check(mint.cat([T(a), T(b), T(c)]),
          np.concatenate([a.astype(np.int16), b.astype(np.int16), c.astype(np.int16)]))
    h = T(rnd((2,), np.float16))
    bf = T(rnd((2,), np.float32)).to(tandem.bfloat16)
    assert mint.cat([h, bf]).dtype == tandem.float32


def test_cat_skips_legacy_empty_1d():
    x = rnd((2, 3), np.int64)
    e = mint.empty(0)  # float32, shape (0,)
    out = mint.cat([e, T(x), e], dim=1)
    check(out, x.astype(np.float32))  # still promotes with the skipped tensor
    check(mint.cat([e, e]), np.zeros(0, np.float32))
    check(mint.cat([T(x[:0]), T(x)], 0), x)  # (0, 3) is an ordinary tensor
    check(mint.cat([T(x[:, :0]), T(x)], 1), x)
    check(mint.cat([T(x[:0]), T(x[:0])], 1), np.zeros((0, 6), np.int64))


def test_cat_returns_fresh_tensor():
    x = T(rnd((2, 3)))
    assert_fresh(mint.cat([x]), x)


def test_cat_errors():
    with pytest.raises(ValueError, match="non-empty"):
        mint.cat([])
    with pytest.raises(ValueError, match="zero-dimensional tensor \\(at position 1\\)"):
        mint.cat([mint.ones(2), mint.ones(())])
    with pytest.raises(ValueError, match=r"cat: sizes of tensors must match except in dimension "
                       r"1, but tensor 0 has shape \[2, 3\] and tensor 2 has shape \[3, 3\]"):
        mint.cat([mint.ones(2, 3), mint.ones(2, 1), mint.ones(3, 3)], dim=1)
    with pytest.raises(ValueError, match=r"same number of dimensions.*tensor 1 has shape "
                       r"\[2, 3, 1\]"):
        mint.cat([mint.ones(2, 3), mint.ones(2, 3, 1)])
    with pytest.raises(IndexError, match="cat: dimension out of range"):
        mint.cat([mint.ones(2, 3)], dim=2)
    with pytest.raises(TypeError, match="element 1 is int"):
        mint.cat([mint.ones(2), 3])
    with pytest.raises(TypeError, match="list or tuple of Tensors"):
        mint.cat(mint.ones(2, 3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_stack_matches_numpy(dtype):
    for dim in range(-3, 3):
        pairs = list(layouts((2, 3), dtype))
        check(mint.stack([t for t, _ in pairs], dim), np.stack([a for _, a in pairs], dim))
    s = [rnd((), dtype) for _ in range(3)]
    check(mint.stack([T(v) for v in s]), np.stack(s))
    check(mint.stack([T(v) for v in s], dim=-1), np.stack(s, -1))
    e = rnd((0, 2), dtype)
    check(mint.stack([T(e), T(e)], 1), np.stack([e, e], 1))


def test_stack_errors():
    with pytest.raises(ValueError, match=r"stack: expects each tensor to be equal size, but "
                       r"tensor 0 has shape \[2, 3\] and tensor 1 has shape \[2, 4\]"):
        mint.stack([mint.ones(2, 3), mint.ones(2, 4)])
    with pytest.raises(ValueError, match="stack: expected a non-empty"):
        mint.stack([])
    with pytest.raises(IndexError, match="stack: dimension out of range"):
        mint.stack([mint.ones(2, 3)], dim=3)
    with pytest.raises(TypeError, match="stack"):
        mint.stack([mint.ones(2), [1.0, 2.0]])


def test_hstack_vstack():
    a1, b1 = rnd((3,)), rnd((2,))
    check(mint.hstack([T(a1), T(b1)]), np.hstack([a1, b1]))
    a2, b2 = rnd((2, 3), np.int64), rnd((2, 1), np.int64)
    check(mint.hstack([T(a2), T(b2)]), np.hstack([a2, b2]))
    s = np.float32(2.5)
    check(mint.hstack([T(s), T(a1)]), np.hstack([s, a1]))
    check(mint.vstack([T(a1), T(a1)]), np.vstack([a1, a1]))
    c2 = rnd((4, 3))
    check(mint.vstack([T(a1), T(c2), T(a1)]), np.vstack([a1, c2, a1]))
    check(mint.vstack([T(s), T(s)]), np.vstack([s, s]))
    t = T(rnd((3, 4)))
    check(mint.vstack([t.T, t.T]), np.vstack([t.numpy().T, t.numpy().T]))
    check(mint.hstack([T(a2), T(b2).to(tandem.float32)]),
          np.hstack([a2, b2]).astype(np.float32))
    with pytest.raises(ValueError,
                       match=r"vstack: sizes of tensors must match.*\[1, 3\].*\[1, 2\]"):
        mint.vstack([T(a1), T(b1)])
    with pytest.raises(ValueError, match="hstack: sizes of tensors must match"):
        mint.hstack([T(a2), T(c2)])
    with pytest.raises(ValueError, match="vstack: expected a non-empty"):
        mint.vstack([])


# ---- flip / roll ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_flip_matches_numpy(dtype):
    for t, a in layouts((3, 4, 5), dtype):
        for dims in [(0,), (-1,), (0, 2), (1, -3), (0, 1, 2), ()]:
            check(mint.flip(t, dims), np.flip(a, dims))
        check(t.flip(0, -1), np.flip(a, (0, 2)))
        check(t.flip([1]), np.flip(a, 1))
        check(mint.fliplr(t), np.fliplr(a))
        check(t.flipud(), np.flipud(a))
    z = rnd((), dtype)
    check(mint.flip(T(z), [0]), z)
    e = rnd((0, 3), dtype)
    check(mint.flip(T(e), [0, 1]), e[::-1, ::-1])


def test_flip_copies_and_errors():
    x = T(rnd((3, 4)))
    assert_fresh(mint.flip(x, ()), x)
    with pytest.raises(ValueError, match="flip: dim 1 appears multiple times"):
        mint.flip(x, (1, -1))
    with pytest.raises(IndexError, match="flip: dimension out of range"):
        mint.flip(x, (2,))
    with pytest.raises(ValueError, match="fliplr: input must have at least 2 dims"):
        mint.fliplr(mint.ones(3))
    with pytest.raises(ValueError, match="flipud"):
        mint.flipud(mint.ones(()))


@pytest.mark.parametrize("dtype", DTYPES)
def test_roll_matches_numpy(dtype):
    for t, a in layouts((4, 5, 3), dtype):
        check(mint.roll(t, 2), np.roll(a, 2))
        check(mint.roll(t, -7), np.roll(a, -7))
        check(t.roll(1, 0), np.roll(a, 1, 0))
        check(mint.roll(t, (1, -2), (0, -1)), np.roll(a, (1, -2), (0, 2)))
        check(mint.roll(t, (3, 13, -1), (2, 1, 0)), np.roll(a, (3, 13, -1), (2, 1, 0)))
        check(mint.roll(t, (1, 2), (1, 1)), np.roll(a, (1, 2), (1, 1)))  # repeated dim
        check(mint.roll(t, 5, -2), np.roll(a, 5, -2))  # full turn
    z = rnd((), dtype)
    check(mint.roll(T(z), 3), z)
    e = rnd((0, 3), dtype)
    check(mint.roll(T(e), (1, 1), (0, 1)), e)
    check(mint.roll(T(e), 2), e)


def test_roll_copies_and_errors():
    x = T(rnd((3, 4)))
    assert_fresh(mint.roll(x, 0, 0), x)
    assert_fresh(mint.roll(x, 4, 1), x)
    with pytest.raises(ValueError, match="roll: shifts and dims must have the same length, got "
                       "2 shifts and 1 dims"):
        mint.roll(x, (1, 2), 0)
    with pytest.raises(ValueError, match="roll: without dims the tensor is rolled flattened"):
        mint.roll(x, (1, 2))
    with pytest.raises(IndexError, match="roll: dimension out of range"):
        mint.roll(x, 1, 2)


# ---- repeat / tile / repeat_interleave ----------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_repeat_and_tile_match_numpy(dtype):
    for t, a in layouts((2, 3), dtype):
        check(t.repeat(2, 3), np.tile(a, (2, 3)))
        check(t.repeat((1, 2)), np.tile(a, (1, 2)))
        check(t.repeat([3, 1, 2]), np.tile(a, (3, 1, 2)))
        check(t.repeat(2, 0, 1), np.tile(a, (2, 0, 1)))
        check(mint.tile(t, (2,)), np.tile(a, 2))
        check(t.tile(2, 1, 1), np.tile(a, (2, 1, 1)))
        check(t.tile(()), a)
    z = rnd((), dtype)
    check(T(z).repeat(3), np.tile(z, 3))
    check(T(z).repeat(()), z)
    check(mint.tile(T(z), (2, 2)), np.tile(z, (2, 2)))
    e = rnd((0, 2), dtype)
    check(T(e).repeat(3, 2), np.tile(e, (3, 2)))


def test_repeat_errors():
    x = mint.ones(2, 3)
    assert_fresh(x.repeat(1, 1), x)
    with pytest.raises(ValueError, match=r"repeat: the number of repeats \(1\) can't be smaller "
                       r"than the tensor's number of dims \(2\)"):
        x.repeat(2)
    with pytest.raises(ValueError, match="repeat: repeats can't be negative"):
        x.repeat(2, -1)
    with pytest.raises(ValueError, match="repeat: repeats can't be negative"):
        mint.tile(x, (-1,))
    with pytest.raises(TypeError, match="sizes must be an int or a sequence of ints"):
        x.repeat(2.5, 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_repeat_interleave_matches_numpy(dtype):
    for t, a in layouts((3, 4), dtype):
        check(mint.repeat_interleave(t, 2), np.repeat(a, 2))
        check(t.repeat_interleave(3, dim=0), np.repeat(a, 3, 0))
        check(t.repeat_interleave(2, -1), np.repeat(a, 2, -1))
        check(t.repeat_interleave(0, 1), np.repeat(a, 0, 1))
        reps = [2, 0, 1]
        check(t.repeat_interleave(mint.tensor(reps), 0), np.repeat(a, reps, 0))
        check(t.repeat_interleave(reps, dim=0), np.repeat(a, reps, 0))
        reps4 = np.array([1, 3, 0, 2], np.int32)
        check(mint.repeat_interleave(t, T(reps4), dim=-1), np.repeat(a, reps4, -1))
        check(t.repeat_interleave(mint.tensor([2]), 1), np.repeat(a, 2, 1))
        check(t.repeat_interleave(T(np.int64(2))), np.repeat(a, 2))
        flat = np.arange(12) % 3
        check(t.repeat_interleave(T(flat)), np.repeat(a, flat))
    z = rnd((), dtype)
    check(mint.repeat_interleave(T(z), 3), np.repeat(z, 3))
    e = rnd((0, 2), dtype)
    check(mint.repeat_interleave(T(e), 2, 0), np.repeat(e, 2, 0))
    check(mint.repeat_interleave(T(e), mint.tensor([1, 2]), 1), np.repeat(e, [1, 2], 1))


def test_repeat_interleave_index_form_and_errors():
    check(mint.repeat_interleave(mint.tensor([2, 0, 3])), np.repeat(np.arange(3), [2, 0, 3]))
    with pytest.raises(ValueError, match="1-d integer tensor"):  # torch: RuntimeError
        mint.repeat_interleave(T(np.int64(2)))
    x = mint.ones(2, 3)
    assert x.repeat_interleave(2, 0, output_size=4).shape == (4, 3)
    with pytest.raises(ValueError, match="output_size=5"):
        x.repeat_interleave(2, 0, output_size=5)
    with pytest.raises(ValueError, match="repeat_interleave: repeats must be non-negative"):
        x.repeat_interleave(-1)
    with pytest.raises(ValueError, match=r"repeats must be non-negative, but repeats\[1\] is -2"):
        x.repeat_interleave(mint.tensor([1, -2]), 0)
    with pytest.raises(ValueError, match=r"one entry per element along dim 1 \(size 3\), or a "
                       r"single entry, but it has 2"):
        x.repeat_interleave(mint.tensor([1, 2]), 1)
    with pytest.raises(TypeError, match="repeats must be an integer tensor, got Float32"):
        x.repeat_interleave(mint.tensor([1.0, 2.0]), 0)
    with pytest.raises(ValueError, match="repeats must be a 0-d or 1-d tensor"):
        x.repeat_interleave(mint.ones(2, 1, dtype=tandem.int64), 0)
    with pytest.raises(IndexError, match="repeat_interleave: dimension out of range"):
        x.repeat_interleave(2, 2)


# ---- tril / triu / diag -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_tril_triu_match_numpy(dtype):
    for shape in [(4, 5), (5, 3), (2, 3, 4, 4)]:
        for t, a in layouts(shape, dtype):
            for k in (-6, -2, -1, 0, 1, 3, 7):
                check(mint.tril(t, k), np.tril(a, k))
                check(t.triu(diagonal=k), np.triu(a, k))
    e = rnd((0, 3), dtype)
    check(mint.tril(T(e)), e)
    check(mint.triu(T(rnd((2, 0, 0), dtype)), 1), np.zeros((2, 0, 0), dtype))


def test_tril_triu_large_and_errors():
    a = rnd((3, 200, 300))
    t = T(a)
    check(mint.tril(t, 5), np.tril(a, 5))
    check(mint.triu(t.transpose(1, 2), -3), np.triu(a.transpose(0, 2, 1), -3))
    assert_fresh(mint.tril(t, 1000), t)
    with pytest.raises(ValueError, match=r"tril: expected a matrix or a batch of matrices \(at "
                       r"least 2 dims\), got shape \[3\]"):
        mint.tril(mint.ones(3))
    with pytest.raises(ValueError, match="triu: expected a matrix"):
        mint.triu(mint.ones(()))


@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_matches_numpy(dtype):
    for k in (-3, -1, 0, 2):
        for t, a in layouts((4,), dtype):
            check(mint.diag(t, k), np.diag(a, k))
        for t, a in layouts((3, 5), dtype):
            check(t.diag(k), np.diag(a, k))
    for t, a in layouts((3, 5), dtype):
        check(mint.diag(t, 9), np.diag(a, 9))
    check(mint.diag(T(rnd((0,), dtype)), 1), np.diag(rnd((0,), dtype), 1))
    check(mint.diag(T(rnd((0,), dtype))), np.zeros((0, 0), dtype))


def test_diag_copies_and_errors():
    m = T(rnd((3, 3)))
    assert_fresh(mint.diag(m), m)
    v = T(rnd((3,)))
    assert_fresh(mint.diag(v), v)
    with pytest.raises(ValueError, match=r"diag: expected a 1-D tensor .* got shape \[2, 2, 2\]"):
        mint.diag(mint.ones(2, 2, 2))
    with pytest.raises(ValueError, match=r"diag: .*got shape \[\]"):
        mint.diag(mint.ones(()))


# ---- pad --------------------------------------------------------------------------------------

def np_width(ndim, pad):
    width = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        width[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return width


PAD_MODES = [("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge"),
             ("circular", "wrap")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,np_mode", PAD_MODES)
def test_pad_matches_numpy(dtype, mode, np_mode):
    for t, a in layouts((3, 4, 5), dtype):
        for p in [(1, 2), (2, 0, 0, 3), (1, 1, 2, 3, 2, 0), (0, 0), (4, 4, 3, 1)]:
            check(tandem.pad(t, p, mode), np.pad(a, np_width(3, p), np_mode))


def ref_pad_constant(a, pad, value=0):
    """out[j] = a[j - left] where that index exists, else value (per padded dim)."""
    ndim = a.ndim
    width = np_width(ndim, pad)
    shape = [n + l + r for n, (l, r) in zip(a.shape, width)]
    out = np.full(shape, value, a.dtype)
    dst, src = [], []
    for n, size, (l, _) in zip(a.shape, shape, width):
        j = np.arange(size)
        ok = (j - l >= 0) & (j - l < n)
        dst.append(j[ok])
        src.append(j[ok] - l)
    out[np.ix_(*dst)] = a[np.ix_(*src)]
    return out


def test_pad_constant_crops_like_the_index_mapping():
    a = rnd((3, 4, 5))
    for p in [(-1, 2), (-5, 6), (2, -5), (-6, 3), (0, 0, -3, 5), (-2, -2, 4, -6, 1, 1),
              (-5, 0), (1, -1, -1, 1)]:
        for t in (T(a), T(np.ascontiguousarray(a.transpose(2, 1, 0))).permute(2, 1, 0)):
            check(mint.pad(t, p, value=7.0), ref_pad_constant(a, p, 7.0))


def test_pad_and_diagonals_reject_overflow():
    x = mint.ones(2, 3)
    with pytest.raises(ValueError, match="pad: padding .* is too large"):
        mint.pad(x, (2**63 - 1, 2**63 - 1))
    with pytest.raises(ValueError, match="pad: padding .* is too large"):
        mint.pad(x, (0, 0, 2**63 - 1, 1), mode="replicate")
    with pytest.raises(ValueError, match="diag: diagonal .* is too far"):
        mint.diag(mint.ones(3), -2**63)
    with pytest.raises(ValueError, match="too large"):
        mint.ones(3).repeat_interleave(2**62)
    with pytest.raises(ValueError, match="repeats add up to more than fits"):
        mint.ones(3).repeat_interleave(T(np.array([2**62] * 3)), 0)
    m = rnd((3, 4))
    for k in (2**63 - 1, -2**63):
        check(mint.tril(T(m), k), np.tril(m, 10 if k > 0 else -10))
        check(mint.triu(T(m), k), np.triu(m, 10 if k > 0 else -10))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pad_constant_value_and_crop(dtype):
    a = rnd((3, 4), dtype)
    value = True if dtype == np.bool_ else 3
    check(tandem.pad(T(a), (1, 2, 2, 0), value=value),
          np.pad(a, [(2, 0), (1, 2)], constant_values=value))
    # Negative padding crops, as in PyTorch.
    check(mint.pad(T(a), (-1, 2, 1, -2)), np.pad(a[:1, 1:], [(1, 0), (0, 2)]))
    check(mint.pad(T(a), (-2, -2)), a[:, 2:2])
    z = rnd((), dtype)
    check(mint.pad(T(z), ()), z)
    e = rnd((0, 2), dtype)
    check(mint.pad(T(e), (1, 1, 1, 0), value=value), np.pad(e, [(1, 0), (1, 1)],
                                                           constant_values=value))
    check(mint.pad(T(e), (1, 1), mode="replicate"), np.zeros((0, 4), dtype))


def test_pad_float_value_and_large():
    a = rnd((2, 70, 300))
    x = T(a)
    check(mint.pad(x, (1, 2), value=-1.5), np.pad(a, [(0, 0), (0, 0), (1, 2)],
                                                    constant_values=-1.5))
    check(mint.pad(x.transpose(1, 2), (3, 4, 5, 6), mode="reflect"),
          np.pad(a.transpose(0, 2, 1), [(0, 0), (5, 6), (3, 4)], "reflect"))
    iv = rnd((3,), np.int64)
    assert mint.pad(T(iv), (1, 1), value=2.9).tolist() == [2] + iv.tolist() + [2]  # truncates
    assert_fresh(mint.pad(x, (0, 0)), x)
    assert_fresh(mint.pad(x, (0, 0), mode="reflect"), x)


def test_pad_errors():
    x = mint.ones(2, 3)
    with pytest.raises(ValueError, match="pad: the padding must be \\(left, right\\) pairs, but "
                       "has an odd length 3"):
        mint.pad(x, (1, 1, 1))
    with pytest.raises(ValueError, match=r"pad: 3 \(left, right\) pairs pad 3 dims, but the "
                       r"input has shape \[2, 3\]"):
        mint.pad(x, (1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"pad: reflect padding \(3, 0\) at dim 1 must be "
                       r"smaller than the input size there \(3\)"):
        mint.pad(x, (3, 0), mode="reflect")
    with pytest.raises(ValueError, match=r"reflect padding \(0, 2\) at dim 0"):
        mint.pad(x, (0, 0, 0, 2), mode="reflect")
    with pytest.raises(ValueError, match=r"pad: replicate padding \(1, 0\) at dim 0 needs a "
                       r"non-empty input"):
        mint.pad(mint.ones(0, 3), (0, 0, 1, 0), mode="replicate")
    with pytest.raises(ValueError, match=r"pad: circular padding \(4, 0\) at dim 1 can't exceed"):
        mint.pad(x, (4, 0), mode="circular")
    with pytest.raises(ValueError, match="negative padding \\(-1, 0\\) at dim 1 is only supported "
                       "in 'constant' mode"):
        mint.pad(x, (-1, 0), mode="replicate")
    with pytest.raises(ValueError, match="pad: padding \\(-2, -2\\) at dim 1 of an input with "
                       "shape \\[2, 3\\] gives a negative size -1"):
        mint.pad(x, (-2, -2))
    with pytest.raises(ValueError, match="pad: unknown mode 'wrap'"):
        mint.pad(x, (1, 1), mode="wrap")
    with pytest.raises(ValueError, match="pad: mode 'reflect' doesn't take a value"):
        mint.pad(x, (1, 1), mode="reflect", value=2.0)


# ---- Tensor methods are bound -------------------------------------------------------------

def test_methods_exist():
    x = mint.ones(2, 3)
    for name in ["flip", "fliplr", "flipud", "roll", "repeat", "tile", "repeat_interleave",
                 "tril", "triu", "diag"]:
        assert callable(getattr(x, name)), name
    for name in ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "flip", "roll",
                 "tile", "repeat_interleave", "tril", "triu", "diag", "pad"]:
        assert callable(getattr(mint, name)) and callable(getattr(tandem.ops, name)), name


def test_reshape_as_adjoint_broadcast_tensors():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    check(T(a).reshape_as(T(np.zeros((2, 6)))), a.reshape(2, 6))
    check(mint.adjoint(T(a.reshape(1, 3, 4))), np.swapaxes(a.reshape(1, 3, 4), -2, -1))
    x, y = mint.broadcast_tensors(T(a[:, :1]), T(a[:1, :]))
    check(x, np.broadcast_to(a[:, :1], (3, 4)))
    check(y, np.broadcast_to(a[:1, :], (3, 4)))
    with pytest.raises(ValueError, match="broadcast"):
        mint.broadcast_tensors(T(a), T(np.zeros(5, np.float32)))
