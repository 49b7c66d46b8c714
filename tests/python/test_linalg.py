"""Linear algebra against numpy: matmul (numpy semantics: 1-D promotion, broadcast batch dims,
strided / expanded operands, every compute dtype), the matmul family (mm, bmm, mv, dot, outer,
inner, addmm, baddbmm), tensordot, einsum, trace, cross, cdist, linalg.inv / norm, and the
error messages of bad calls."""
import math

import numpy as np
import pytest

import tandem
from tandem import mint

RTOL = {tandem.float16: 2e-2, tandem.float32: 1e-5, tandem.float64: 1e-12}


def T(a, dt=None):
    t = tandem.from_numpy(np.array(a, copy=True))
    return t if dt is None else t.to(dt)


def check(t, expected, dt=None, rtol=None, atol=None):
    assert isinstance(t, tandem.Tensor)
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    if dt is not None:
        assert t.dtype == dt, (t.dtype, dt)
    got = t.to(tandem.float64).numpy() if t.dtype in (tandem.float16, tandem.bfloat16) \
        else t.numpy()
    if got.dtype.kind == "f" or expected.dtype.kind == "f":
        r = RTOL.get(t.dtype, 0) if rtol is None else rtol
        a = r if atol is None else atol
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=r,
                                   atol=a)
    else:
        np.testing.assert_array_equal(got, expected)


def rnd(*shape, rng=None):
    rng = rng or np.random.default_rng(0)
    return rng.standard_normal(shape)


# --- matmul: numpy semantics -------------------------------------------------------------------

MATMUL_SHAPES = [
    ((5,), (5,)),                     # 1-D x 1-D -> 0-d
    ((4,), (4, 3)),                   # 1-D x 2-D
    ((3, 4), (4,)),                   # 2-D x 1-D
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),           # batched
    ((2, 3, 4), (4, 5)),              # batch on one side
    ((4,), (2, 4, 5)),                # 1-D against batched
    ((2, 3, 4), (4,)),
    ((2, 1, 3, 4), (5, 4, 2)),        # broadcast batch dims
    ((1, 3, 4), (6, 4, 2)),
    ((1, 1), (1, 1)),
    ((3, 1), (1, 4)),                 # K = 1
    ((0, 4), (4, 3)),                 # empty M
    ((3, 0), (0, 2)),                 # K = 0 -> zeros
    ((2, 0, 3), (2, 3, 4)),
    ((0, 2, 3), (3, 4)),              # empty batch
    ((4,), (2, 3, 4, 5)),             # 1-D against 4-D
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64], ids=str)
def test_matmul_shapes_float(sa, sb, dt):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    npdt = np.float32 if dt == tandem.float32 else np.float64
    a, b = a.astype(npdt), b.astype(npdt)
    exp = np.matmul(a.astype(np.float64), b.astype(np.float64))
    check(mint.matmul(T(a), T(b)), exp, dt)
    check(tandem.matmul(T(a), T(b)), exp, dt)
    check(T(a) @ T(b), exp, dt)
    check(T(a).matmul(T(b)), exp, dt)


def test_matmul_float32_large_k_vs_float64():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((17, 300)).astype(np.float32)
    b = rng.standard_normal((300, 23)).astype(np.float32)
    exp = a.astype(np.float64) @ b.astype(np.float64)
    # float32 accumulation over K=300: relative to the row/col magnitude.
    check(T(a) @ T(b), exp, tandem.float32, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((6,), (6,)),
                                   ((2, 1, 3, 4), (5, 4, 2))], ids=str)
@pytest.mark.parametrize("dt", [tandem.int64, tandem.int32, tandem.int8], ids=str)
def test_matmul_integers_exact(sa, sb, dt):
    rng = np.random.default_rng(3)
    a = rng.integers(-5, 6, sa)
    b = rng.integers(-5, 6, sb)
    exp = np.matmul(a, b)
    if dt == tandem.int8:
        exp = exp.astype(np.int8)  # wraps like numpy int8 arithmetic
    check(T(a, dt) @ T(b, dt), exp, dt)


@pytest.mark.parametrize("dt", [tandem.float64, tandem.int64], ids=str)
def test_matmul_threaded_loop_with_transposed_operands(dt):
    # Large enough for the multi-threaded float64 / integer loop, B transposed (packed).
    rng = np.random.default_rng(21)
    a = rng.integers(-3, 4, (70, 90))
    b = rng.integers(-3, 4, (80, 90))
    npdt = np.float64 if dt == tandem.float64 else np.int64
    check(T(a.astype(npdt)) @ T(b.astype(npdt)).T, (a @ b.T).astype(npdt), dt)
    check(T(a.astype(npdt)).T.T @ T(b.T.copy().astype(npdt)), (a @ b.T).astype(npdt), dt)


def test_matmul_integer_empty_k_is_zero():
    r = T(np.zeros((2, 0), np.int64)) @ T(np.zeros((0, 3), np.int64))
    check(r, np.zeros((2, 3), np.int64), tandem.int64)


def test_matmul_float16_loose():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 5, 7)).astype(np.float16)
    b = rng.standard_normal((7, 3)).astype(np.float16)
    exp = a.astype(np.float64) @ b.astype(np.float64)
    check(T(a) @ T(b), exp, tandem.float16, rtol=1e-2, atol=1e-2)


def test_matmul_bfloat16_and_mixed_dtypes():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 2))
    # Operands of different dtypes are refused, as in PyTorch and MindSpore: promoting would
    # accept int / uint8 data in a float layer.
    with pytest.raises(TypeError, match="same dtype"):
        T(a) @ T(b)
    check(T(a).double() @ T(b), a.astype(np.float64) @ b, tandem.float64)
    rb = T(a, tandem.bfloat16) @ T(b, tandem.bfloat16)
    assert rb.dtype == tandem.bfloat16
    np.testing.assert_allclose(rb.to(tandem.float64).numpy(), a @ b, rtol=5e-2, atol=5e-2)
    with pytest.raises(TypeError, match="same dtype"):
        T(np.arange(12).reshape(3, 4)) @ T(b)  # int64 @ float64


@pytest.mark.parametrize("dt", [tandem.float32, tandem.float64, tandem.int64], ids=str)
def test_matmul_transposed_and_strided_operands(dt):
    rng = np.random.default_rng(6)
    base_a = rng.integers(-4, 5, (6, 8)).astype(np.float64)
    base_b = rng.integers(-4, 5, (8, 10)).astype(np.float64)
    if dt == tandem.int64:
        base_a, base_b = base_a.astype(np.int64), base_b.astype(np.int64)
    A, B = T(base_a, dt), T(base_b, dt)
    cases = [
        (A.T, B.T[:6], base_a.T, base_b.T[:6]),                    # both transposed
        (A[::2, ::2], B[::2, 1::2], base_a[::2, ::2], base_b[::2, 1::2]),  # step slices
        (A[:, 1:5], B[1:5, :], base_a[:, 1:5], base_b[1:5, :]),   # row stride > cols
        (A.T[::3], B[:6, ::4], base_a.T[::3], base_b[:6, ::4]),   # neither dim unit-stride
    ]
    for x, y, xa, yb in cases:
        check(x @ y, xa @ yb, dt)
    # Batched operands that are permuted views.
    c = rng.integers(-3, 4, (4, 3, 5)).astype(base_a.dtype)
    d = rng.integers(-3, 4, (5, 3, 2)).astype(base_a.dtype)
    C, D = T(c, dt), T(d, dt)
    check(C.permute(1, 0, 2) @ D.permute(1, 0, 2), c.transpose(1, 0, 2) @ d.transpose(1, 0, 2),
          dt)
    check(C.transpose(1, 2) @ C, c.transpose(0, 2, 1) @ c, dt)


def test_matmul_expanded_operands():
    rng = np.random.default_rng(7)
    v = rng.standard_normal((1, 4))
    w = rng.standard_normal((4, 1))
    # stride-0 rows / cols and stride-0 batch dims
    check(T(v).expand(3, 4) @ T(w).expand(4, 5), np.broadcast_to(v, (3, 4)) @
          np.broadcast_to(w, (4, 5)), tandem.float64)
    m = rng.standard_normal((3, 4))
    check(T(m).expand(5, 3, 4) @ T(w), np.broadcast_to(m, (5, 3, 4)) @ w, tandem.float64)
    mf = m.astype(np.float32)
    wf = rng.standard_normal((4, 6)).astype(np.float32)
    check(T(mf).expand(2, 3, 4) @ T(wf).expand(2, 4, 6),
          np.broadcast_to(mf, (2, 3, 4)).astype(np.float64) @ wf.astype(np.float64),
          tandem.float32)
    s = np.full((1, 1), 2.5)
    check(T(s).expand(3, 2) @ T(s).expand(2, 4), np.full((3, 4), 12.5), tandem.float64)


def test_rmatmul_and_python_operands():
    a = np.arange(6.0).reshape(2, 3)
    check(T(a) @ T(np.ones(3)), a @ np.ones(3))
    r = T(a).__rmatmul__(T(np.ones((4, 2))))
    check(r, np.ones((4, 2)) @ a)


def test_matmul_result_is_fresh():
    a = T(np.eye(3))
    b = T(np.arange(9.0).reshape(3, 3))
    r = a @ b
    r[0, 0] = 100.0
    assert b.numpy()[0, 0] == 0.0


# --- matmul family -----------------------------------------------------------------------------

def test_mm_bmm_mv_dot():
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    check(mint.mm(T(a), T(b)), a @ b, tandem.float64)
    check(T(a).mm(T(b)), a @ b)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    check(mint.bmm(T(x), T(y)), x @ y, tandem.float64)
    v = rng.standard_normal(4)
    check(mint.mv(T(a), T(v)), a @ v)
    check(mint.dot(T(v), T(v)), np.dot(v, v))
    assert mint.dot(T(v), T(v)).shape == ()
    check(mint.dot(T(np.arange(4)), T(np.arange(4))), np.int64(14), tandem.int64)


def test_matmul_family_rejects_wrong_ranks():
    a3 = T(np.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="mm"):
        mint.mm(a3, T(np.ones((4, 2))))
    with pytest.raises(ValueError, match="bmm"):
        mint.bmm(T(np.ones((3, 4))), T(np.ones((4, 2))))
    with pytest.raises(ValueError, match="batch"):
        mint.bmm(T(np.ones((2, 3, 4))), T(np.ones((3, 4, 2))))
    with pytest.raises(ValueError, match="mv"):
        mint.mv(T(np.ones((3, 4))), T(np.ones((4, 1))))
    with pytest.raises(ValueError, match="dot"):
        mint.dot(T(np.ones((3, 4))), T(np.ones(4)))
    with pytest.raises(ValueError):
        mint.dot(T(np.ones(3)), T(np.ones(4)))


def test_outer_inner():
    rng = np.random.default_rng(9)
    u, v = rng.standard_normal(4), rng.standard_normal(3)
    check(mint.outer(T(u), T(v)), np.outer(u, v))
    check(mint.ger(T(u), T(v)), np.outer(u, v))
    check(mint.outer(T(np.arange(3)), T(np.arange(2))), np.outer(np.arange(3), np.arange(2)),
          tandem.int64)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4))
    check(mint.inner(T(a), T(b)), np.inner(a, b))
    check(mint.inner(T(u), T(u)), np.inner(u, u))
    check(mint.inner(T(np.float64(2.0)), T(a)), 2.0 * a)
    with pytest.raises(ValueError):
        mint.inner(T(a), T(np.ones((5, 3))))


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (2, 0), (-1.5, 0.25)])
def test_addmm(beta, alpha):
    rng = np.random.default_rng(10)
    m1, m2 = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    for inp in (rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((3, 1))):
        exp = beta * inp + alpha * (m1 @ m2)
        check(mint.addmm(T(inp), T(m1), T(m2), beta=beta, alpha=alpha), exp, tandem.float64)
        check(T(inp).addmm(T(m1), T(m2), beta=beta, alpha=alpha), exp)


def test_addmm_beta_zero_ignores_nan_input():
    # PyTorch: with beta=0 the input is ignored, so nan / inf in it do not propagate.
    m1, m2 = np.ones((2, 3)), np.ones((3, 2))
    inp = np.full((2, 2), np.nan)
    check(mint.addmm(T(inp), T(m1), T(m2), beta=0), m1 @ m2, tandem.float64)
    b1, b2 = np.ones((2, 2, 3)), np.ones((2, 3, 2))
    check(mint.baddbmm(T(np.full((2, 2, 2), np.inf)), T(b1), T(b2), beta=0), b1 @ b2)


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (3, 0.5)])
def test_baddbmm(beta, alpha):
    rng = np.random.default_rng(11)
    b1, b2 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    for inp in (rng.standard_normal((2, 3, 5)), rng.standard_normal((3, 5)),
                rng.standard_normal((1, 1, 5))):
        check(mint.baddbmm(T(inp), T(b1), T(b2), beta=beta, alpha=alpha),
              beta * inp + alpha * (b1 @ b2), tandem.float64)
    f = [x.astype(np.float32) for x in (rng.standard_normal((2, 3, 5)), b1, b2)]
    check(mint.baddbmm(*(T(x) for x in f), beta=beta, alpha=alpha),
          beta * f[0].astype(np.float64) + alpha * (f[1].astype(np.float64) @ f[2]),
          tandem.float32, rtol=1e-5, atol=1e-5)


# --- tensordot / einsum ------------------------------------------------------------------------

@pytest.mark.parametrize("sa,sb,dims", [
    ((3, 4, 5), (4, 5, 6), 2),
    ((3, 4), (4, 5), 1),
    ((3, 4), (5, 6), 0),
    ((3, 4, 5), (5, 4, 2), ([1, 2], [1, 0])),
    ((3, 4, 5), (6, 3), ([0], [1])),
    ((2, 3), (3, 2), (1, 0)),
    ((2, 3, 4), (4, 3, 2), ([2, 1, 0], [0, 1, 2])),
], ids=str)
def test_tensordot(sa, sb, dims):
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    check(mint.tensordot(T(a), T(b), dims=dims), np.tensordot(a, b, axes=dims), tandem.float64)


def test_tensordot_errors():
    with pytest.raises(ValueError, match="tensordot"):
        mint.tensordot(T(np.ones((3, 4))), T(np.ones((5, 6))), dims=([1], [0]))
    with pytest.raises(ValueError, match="tensordot"):
        mint.tensordot(T(np.ones((3, 4))), T(np.ones((4, 6))), dims=([1], [0, 1]))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk", [(2, 3), (3, 4)]),             # implicit output ik
    ("ba,ac", [(2, 3), (3, 4)]),             # implicit output is alphabetical: bc
    ("i,i->", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ijk->j", [(2, 3, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("ij,kj->", [(3, 4), (5, 4)]),
    ("i,jk,k->ij", [(2,), (3, 4), (4,)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 2), (2, 4), (4, 3)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(eq, shapes):
    rng = np.random.default_rng(13)
    ops = [rng.standard_normal(s) for s in shapes]
    exp = np.einsum(eq.replace(" ", ""), *ops)
    check(mint.einsum(eq, *(T(o) for o in ops)), exp, tandem.float64)
    check(tandem.einsum(eq, [T(o) for o in ops]), exp, tandem.float64)


def test_einsum_float32_and_int():
    rng = np.random.default_rng(14)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    check(mint.einsum("bij,bjk->bik", T(a), T(b)),
          np.einsum("bij,bjk->bik", a.astype(np.float64), b.astype(np.float64)), tandem.float32,
          rtol=1e-5, atol=1e-5)
    x = np.arange(12).reshape(3, 4)
    check(mint.einsum("ij,kj->ik", T(x), T(x)), np.einsum("ij,kj->ik", x, x), tandem.int64)


def test_einsum_errors():
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("ij,jk->ik", T(np.ones((2, 3))), T(np.ones((4, 5))))
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("ij,jk->ik", T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("ijk->i", T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("ij->iz", T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("ii->i", T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="einsum.*more than once"):
        mint.einsum("ij->ii", T(np.ones((2, 2))))
    with pytest.raises(ValueError, match="einsum"):
        mint.einsum("i1->i", T(np.ones((2, 2))))


# --- trace / cross / cdist ---------------------------------------------------------------------

def test_trace():
    a = np.arange(12.0).reshape(3, 4)
    check(mint.trace(T(a)), np.trace(a), tandem.float64)
    check(T(np.arange(9).reshape(3, 3)).trace(), np.int64(12), tandem.int64)
    check(mint.trace(T(a).T), np.trace(a.T))
    with pytest.raises(ValueError, match="trace"):
        mint.trace(T(np.ones(3)))


def test_cross():
    rng = np.random.default_rng(15)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    check(mint.cross(T(a), T(b)), np.cross(a, b), tandem.float64)
    check(mint.cross(T(a), T(b), dim=1), np.cross(a, b))
    c, d = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    check(mint.cross(T(c), T(d), dim=0), np.cross(c, d, axis=0))
    check(mint.linalg.cross(T(a), T(b[:1])), np.cross(a, b[:1]))      # broadcast
    check(mint.cross(T(np.array([1, 0, 0])), T(np.array([0, 1, 0]))), np.array([0, 0, 1]),
          tandem.int64)
    with pytest.raises(ValueError, match="cross"):
        mint.cross(T(np.ones((2, 4))), T(np.ones((2, 4))))


def _np_cdist(x1, x2, p):
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(x1.dtype)
    if p == math.inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1.0 / p)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, math.inf])
def test_cdist(p):
    rng = np.random.default_rng(16)
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((4, 3))
    check(mint.cdist(T(x1), T(x2), p=p), _np_cdist(x1, x2, p), tandem.float64)
    b1, b2 = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 6, 3))
    check(mint.cdist(T(b1), T(b2), p=p), _np_cdist(b1, b2, p))
    f1, f2 = x1.astype(np.float32), x2.astype(np.float32)
    check(mint.cdist(T(f1), T(f2), p=p), _np_cdist(f1.astype(np.float64), f2, p),
          tandem.float32, rtol=1e-5, atol=1e-5)


def test_cdist_errors():
    with pytest.raises(ValueError, match="cdist"):
        mint.cdist(T(np.ones((3, 2))), T(np.ones((3, 4))))
    with pytest.raises(ValueError, match="cdist"):
        mint.cdist(T(np.ones((3, 2))), T(np.ones((3, 2))), p=-1.0)


# --- linalg.inv / norm -------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_inv(n):
    rng = np.random.default_rng(17)
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    inv = mint.linalg.inv(T(a))
    assert inv.dtype == tandem.float64
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose((T(a) @ inv).numpy(), np.eye(n), atol=1e-12)
    af = a.astype(np.float32)
    invf = mint.inverse(T(af))
    assert invf.dtype == tandem.float32
    np.testing.assert_allclose((T(af) @ invf).numpy(), np.eye(n), atol=1e-5)


def test_inv_batched_pivoting_and_strided():
    rng = np.random.default_rng(18)
    a = rng.standard_normal((3, 4, 4))
    np.testing.assert_allclose(mint.linalg.inv(T(a)).numpy(), np.linalg.inv(a), rtol=1e-9,
                               atol=1e-10)
    p = np.array([[0.0, 1.0], [1.0, 0.0]])  # needs a row swap
    check(mint.linalg.inv(T(p)), p)
    at = T(a).transpose(1, 2)
    np.testing.assert_allclose(mint.linalg.inv(at).numpy(),
                               np.linalg.inv(a.transpose(0, 2, 1)), rtol=1e-9, atol=1e-10)


def test_inv_errors():
    with pytest.raises(ValueError, match="singular"):
        mint.linalg.inv(T(np.array([[1.0, 2.0], [2.0, 4.0]])))
    with pytest.raises(ValueError, match="singular"):
        mint.linalg.inv(T(np.zeros((3, 3))))
    with pytest.raises(ValueError, match="square"):
        mint.linalg.inv(T(np.ones((2, 3))))
    with pytest.raises(TypeError, match="floating"):
        mint.linalg.inv(T(np.eye(2, dtype=np.int64)))


@pytest.mark.parametrize("ord", [1, 2, 3, 0.5, math.inf, -math.inf, 0])
def test_vector_norm(ord):
    rng = np.random.default_rng(19)
    a = rng.standard_normal((3, 4))
    a[0, 1] = 0.0
    check(mint.linalg.vector_norm(T(a), ord), np.linalg.norm(a.ravel(), ord), tandem.float64,
          rtol=1e-12)
    check(mint.linalg.vector_norm(T(a), ord, dim=1), np.linalg.norm(a, ord, axis=1),
          rtol=1e-12)
    check(mint.linalg.vector_norm(T(a), ord, dim=0, keepdim=True),
          np.linalg.norm(a, ord, axis=0, keepdims=True), rtol=1e-12)


def test_linalg_norm():
    rng = np.random.default_rng(20)
    a = rng.standard_normal((3, 4))
    check(mint.linalg.norm(T(a)), np.linalg.norm(a), tandem.float64)          # Frobenius
    check(mint.linalg.norm(T(a), "fro"), np.linalg.norm(a, "fro"))
    check(mint.linalg.norm(T(a), dim=1), np.linalg.norm(a, axis=1))
    check(mint.linalg.norm(T(a), 1, dim=1), np.linalg.norm(a, 1, axis=1))
    check(mint.linalg.norm(T(a[0]), math.inf), np.linalg.norm(a[0], np.inf))
    check(mint.linalg.matrix_norm(T(a)), np.linalg.norm(a, "fro"))
    f = a.astype(np.float32)
    check(mint.linalg.norm(T(f)), np.linalg.norm(f.astype(np.float64)), tandem.float32,
          rtol=1e-6)
    with pytest.raises(NotImplementedError):
        mint.linalg.norm(T(a), 2)  # spectral norm needs an SVD


# --- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (4, 5)), ((2, 3), (4,)),
                                   ((2, 2, 3), (2, 4, 5)), ((3,), (4,)), ((5, 2, 3), (5, 4, 2))],
                         ids=str)
def test_matmul_shape_mismatch_names_both_shapes(sa, sb):
    with pytest.raises(ValueError) as e:
        T(np.ones(sa)) @ T(np.ones(sb))
    msg = str(e.value)
    assert "matmul" in msg
    fmt = lambda s: "[" + ", ".join(map(str, s)) + "]"  # noqa: E731
    assert fmt(sa) in msg and fmt(sb) in msg, msg


def test_matmul_batch_broadcast_mismatch():
    with pytest.raises(ValueError, match="matmul"):
        T(np.ones((2, 3, 4))) @ T(np.ones((3, 4, 5)))


def test_matmul_bool_raises_type_error():
    b = T(np.ones((2, 2), dtype=bool))
    with pytest.raises(TypeError, match="Bool"):
        b @ b
    with pytest.raises(TypeError):
        mint.mm(b, b)


def test_matmul_zero_dim_operands():
    s = T(np.float64(2.0))
    with pytest.raises(ValueError, match="1 dimension"):
        s @ T(np.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        mint.matmul(T(np.ones((3, 3))), s)


def test_many_tiny_batched_products_match_numpy():
    """Attention-sized products (heads x batch of 10 x 8 matrices) run side by side on the
    threads with gemm's own loop: every batch layout and transposition against numpy."""
    rng = np.random.default_rng(13)
    q = rng.standard_normal((256, 10, 8)).astype(np.float32)
    k = rng.standard_normal((256, 10, 8)).astype(np.float32)
    w = rng.standard_normal((8, 6)).astype(np.float32)
    tq, tk = mint.tensor(q), mint.tensor(k)
    np.testing.assert_allclose(mint.bmm(tq, tk.transpose(1, 2)).numpy(),
                               q @ k.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mint.bmm(tq.transpose(1, 2), tk).numpy(),
                               q.transpose(0, 2, 1) @ k, rtol=1e-5, atol=1e-5)
    # broadcast batch dims, and a [4, 64, ...] batch read through a permuted view
    np.testing.assert_allclose(mint.matmul(tq.reshape(4, 64, 10, 8), mint.tensor(w)).numpy(),
                               q.reshape(4, 64, 10, 8) @ w, rtol=1e-5, atol=1e-5)
    p = tq.reshape(64, 4, 10, 8).permute(1, 0, 2, 3)
    np.testing.assert_allclose(mint.matmul(p, p.transpose(-1, -2)).numpy(),
                               q.reshape(64, 4, 10, 8).transpose(1, 0, 2, 3)
                               @ q.reshape(64, 4, 10, 8).transpose(1, 0, 3, 2),
                               rtol=1e-5, atol=1e-5)
    # gradients through the batched path
    tq.requires_grad_(True)
    (mint.bmm(tq, tk.transpose(1, 2)) ** 2).sum().backward()
    s = q @ k.transpose(0, 2, 1)
    np.testing.assert_allclose(tq.grad.numpy(), 2 * s @ k, rtol=1e-4, atol=1e-4)
