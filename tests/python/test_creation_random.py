"""Creation ops against numpy, and the seeded random ops: reproducibility, ranges and
statistical bounds (sample sizes are large enough that the bounds sit many standard errors
away from the expected values, so a correct generator never fails them)."""
import math

import numpy as np
import pytest

import tandem
from tandem import mint

T = tandem
FLOATS = [T.float16, T.bfloat16, T.float32, T.float64]
ALL = [T.bool, T.uint8, T.int8, T.int16, T.int32, T.int64] + FLOATS
NP = {T.bool: np.bool_, T.uint8: np.uint8, T.int8: np.int8, T.int16: np.int16,
      T.int32: np.int32, T.int64: np.int64, T.float16: np.float16, T.bfloat16: np.float32,
      T.float32: np.float32, T.float64: np.float64}


# --- creation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_zeros_ones_full_empty(dt):
    for size_args in [((2, 3),), (2, 3), ([2, 3],)]:
        z = mint.zeros(*size_args, dtype=dt)
        assert z.shape == (2, 3) and z.dtype == dt
        np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), NP[dt]))
        o = mint.ones(*size_args, dtype=dt)
        np.testing.assert_array_equal(o.numpy(), np.ones((2, 3), NP[dt]))
    f = mint.full((3, 1), 1, dtype=dt)
    assert f.dtype == dt and f.shape == (3, 1)
    np.testing.assert_array_equal(f.numpy(), np.full((3, 1), 1, NP[dt]))
    e = mint.empty(4, 0, dtype=dt)
    assert e.shape == (4, 0) and e.dtype == dt and e.numel() == 0
    assert mint.empty(5, dtype=dt).shape == (5,)
    assert mint.zeros((), dtype=dt).shape == ()


def test_default_dtypes():
    assert mint.zeros(2).dtype == T.float32
    assert mint.ones(2).dtype == T.float32
    assert mint.empty(2).dtype == T.float32
    assert mint.full((2,), 7).dtype == T.int64
    assert mint.full((2,), 1.5).dtype == T.float32
    assert mint.full((2,), True).dtype == T.bool
    assert mint.full(3, 2).shape == (3,)
    assert tandem.get_default_dtype() == T.float32


def test_full_values():
    np.testing.assert_array_equal(mint.full((2, 2), -3.25).numpy(), np.full((2, 2), -3.25))
    np.testing.assert_array_equal(mint.full((2,), 2 ** 40).numpy(), [2 ** 40, 2 ** 40])
    np.testing.assert_array_equal(mint.full((2,), 1.5, dtype=T.float64).numpy(), [1.5, 1.5])
    np.testing.assert_array_equal(mint.full((3,), float("inf")).numpy(), [np.inf] * 3)
    assert np.isnan(mint.full((1,), float("nan")).numpy()).all()
    np.testing.assert_array_equal(mint.full((2,), 300, dtype=T.int16).numpy(), [300, 300])


def test_set_default_dtype():
    try:
        tandem.set_default_dtype(T.float64)
        assert mint.zeros(2).dtype == T.float64
        assert mint.rand(2).dtype == T.float64
        assert mint.arange(0.0, 1.0, 0.5).dtype == T.float64
        assert mint.tensor([1.5, 2]).dtype == T.float64  # Python floats take the default
        assert mint.tensor([]).dtype == T.float64
        assert mint.full((2,), 0.5).dtype == T.float64
        assert mint.tensor(np.float32(1.0)).dtype == T.float32  # numpy keeps its own dtype
    finally:
        tandem.set_default_dtype(T.float32)
    assert mint.zeros(2).dtype == T.float32
    with pytest.raises(TypeError):
        tandem.set_default_dtype(T.int32)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_like_and_new(dt):
    x = mint.ones(2, 3, dtype=dt)
    for fn, val in [(mint.zeros_like, 0), (mint.ones_like, 1)]:
        y = fn(x)
        assert y.shape == (2, 3) and y.dtype == dt
        np.testing.assert_array_equal(y.numpy(), np.full((2, 3), val, NP[dt]))
    y = mint.full_like(x, 1)
    assert y.dtype == dt and y.shape == (2, 3)
    assert mint.empty_like(x).shape == (2, 3) and mint.empty_like(x).dtype == dt
    assert mint.zeros_like(x, dtype=T.float64).dtype == T.float64
    assert x.new_zeros(4).shape == (4,) and x.new_zeros(4).dtype == dt
    assert x.new_ones((2, 2)).dtype == dt
    assert x.new_full((3,), 1).dtype == dt
    assert x.new_tensor([1, 0]).dtype == dt
    assert x.new_zeros(2, dtype=T.int16).dtype == T.int16


@pytest.mark.parametrize("args,kw", [
    ((5,), {}), ((2, 9), {}), ((10, 0, -3), {}), ((-4, 4, 3), {}), ((0, 1, 0.1), {}),
    ((1, 2.5, 0.5), {}), ((0.5, -2.0, -0.25), {}), ((0, 5), {"dtype": T.float64}),
    ((0, 10, 3), {"dtype": T.int32}), ((3, 3), {}), ((0, 1e-3, 1e-4), {"dtype": T.float64}),
])
def test_arange(args, kw):
    t = mint.arange(*args, **kw)
    ref = np.arange(*args)
    if "dtype" in kw:
        assert t.dtype == kw["dtype"]
    elif all(isinstance(a, int) for a in args):
        assert t.dtype == T.int64
    else:
        assert t.dtype == T.float32
    assert t.shape == ref.shape
    np.testing.assert_allclose(t.numpy().astype(np.float64), ref.astype(np.float64), rtol=1e-6,
                               atol=1e-7)


def test_arange_errors_and_tensor_bounds():
    with pytest.raises(ValueError):
        mint.arange(0, 5, 0)
    with pytest.raises(ValueError):
        mint.arange(5, 0, 1)
    with pytest.raises(ValueError):
        mint.arange(0, float("inf"))
    assert mint.arange(mint.tensor(4)).tolist() == [0, 1, 2, 3]
    big = mint.arange(2 ** 40, 2 ** 40 + 3)
    assert big.tolist() == [2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2]  # exact, no float detour


@pytest.mark.parametrize("start,end,steps", [(0, 1, 5), (-1, 1, 1), (0, 1, 0), (2, -3, 7),
                                             (0, 10, 101), (-5.5, 5.5, 12)])
@pytest.mark.parametrize("dt", [T.float32, T.float64], ids=str)
def test_linspace(start, end, steps, dt):
    t = mint.linspace(start, end, steps, dtype=dt)
    ref = np.linspace(start, end, steps)
    assert t.dtype == dt and t.shape == ref.shape
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-6, atol=1e-6)
    if steps > 1:  # both ends are exact
        assert t[0].item() == np.asarray(start, NP[dt]) and t[-1].item() == np.asarray(end, NP[dt])
    with pytest.raises(ValueError):
        mint.linspace(0, 1, -1)


def test_linspace_integer_dtype_and_logspace():
    np.testing.assert_array_equal(mint.linspace(0, 10, 6, dtype=T.int64).numpy(),
                                  np.linspace(0, 10, 6).astype(np.int64))
    np.testing.assert_allclose(mint.logspace(0, 3, 4).numpy(), [1, 10, 100, 1000], rtol=1e-6)
    np.testing.assert_allclose(mint.logspace(0, 4, 5, base=2.0).numpy(), [1, 2, 4, 8, 16])
    np.testing.assert_allclose(mint.logspace(-2, 2, 9, dtype=T.float64).numpy(),
                               np.logspace(-2, 2, 9), rtol=1e-12)


@pytest.mark.parametrize("n,m", [(3, None), (2, 4), (4, 2), (0, None), (1, 1)])
@pytest.mark.parametrize("dt", [T.float32, T.int64, T.bool], ids=str)
def test_eye(n, m, dt):
    t = mint.eye(n, m, dtype=dt)
    assert t.dtype == dt
    np.testing.assert_array_equal(t.numpy(), np.eye(n, m, dtype=NP[dt]))
    with pytest.raises(ValueError):
        mint.eye(-1)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    a, b, c = np.arange(3), np.arange(4) * 10, np.array([7, 8])
    for arrays in [(a,), (a, b), (a, b, c)]:
        got = mint.meshgrid(*[mint.tensor(x) for x in arrays], indexing=indexing)
        ref = np.meshgrid(*arrays, indexing=indexing)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g.numpy(), r)
    got = mint.meshgrid([mint.tensor(a), mint.tensor(b)], indexing=indexing)  # list form
    np.testing.assert_array_equal(got[1].numpy(), np.meshgrid(a, b, indexing=indexing)[1])
    with pytest.raises(ValueError):
        mint.meshgrid(mint.tensor(a), indexing="yx")


def test_creation_errors():
    with pytest.raises(ValueError):
        mint.zeros(-1)
    with pytest.raises(ValueError):
        mint.ones(2, -3)
    with pytest.raises(ValueError):
        mint.empty(-2)
    with pytest.raises(TypeError):
        mint.zeros(2.5)


def test_as_tensor_shares_and_tensor_copies():
    a = np.arange(6, dtype=np.float32)
    shared = mint.as_tensor(a)
    copied = mint.tensor(a)
    a[0] = 100
    assert shared[0].item() == 100
    assert copied[0].item() == 0
    assert mint.as_tensor(a, dtype=T.float64).dtype == T.float64
    t = mint.ones(3)
    assert mint.as_tensor(t) is t


# --- random: reproducibility --------------------------------------------------------------------

RANDOM_MAKERS = {
    "rand": lambda: mint.rand(1000),
    "randn": lambda: mint.randn(10, 100),
    "randint": lambda: mint.randint(0, 1000, (1000,)),
    "randperm": lambda: mint.randperm(500),
    "normal": lambda: mint.normal(1.0, 2.0, (1000,)),
    "uniform": lambda: mint.uniform(-2.0, 3.0, (1000,)),
    "bernoulli": lambda: mint.bernoulli(mint.full((1000,), 0.5)),
    "multinomial": lambda: mint.multinomial(mint.ones(50), 20),
    "rand_f16": lambda: mint.rand(1000, dtype=T.float16),
}


@pytest.mark.parametrize("name", sorted(RANDOM_MAKERS))
def test_same_seed_same_numbers(name):
    make = RANDOM_MAKERS[name]
    tandem.manual_seed(42)
    a, a2 = make().numpy(), make().numpy()
    tandem.manual_seed(42)
    b, b2 = make().numpy(), make().numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a, a2), "consecutive draws must differ"
    tandem.manual_seed(43)
    c = make().numpy()
    assert not np.array_equal(a, c), "different seeds must differ"


def test_seed_api_and_rng_state():
    tandem.manual_seed(7)
    assert tandem.initial_seed() == 7
    mint.rand(10)
    state = tandem.get_rng_state()
    x = mint.randn(20).numpy()
    tandem.set_rng_state(state)
    np.testing.assert_array_equal(mint.randn(20).numpy(), x)
    tandem.set_seed(7)  # MindSpore's name
    y = mint.rand(10).numpy()
    tandem.manual_seed(7)
    np.testing.assert_array_equal(mint.rand(10).numpy(), y)
    tandem.manual_seed(-1)  # negative seeds wrap like PyTorch's 64-bit seeds
    assert tandem.initial_seed() == 2 ** 64 - 1


def test_random_independent_of_thread_count():
    old = tandem.get_num_threads()
    try:
        tandem.set_num_threads(1)
        tandem.manual_seed(5)
        a = mint.randn(100_000).numpy()
        tandem.set_num_threads(max(2, old))
        tandem.manual_seed(5)
        b = mint.randn(100_000).numpy()
    finally:
        tandem.set_num_threads(old)
    np.testing.assert_array_equal(a, b)


def test_like_random():
    x = mint.zeros(3, 4, dtype=T.float64)
    for t in (mint.rand_like(x), mint.randn_like(x)):
        assert t.shape == (3, 4) and t.dtype == T.float64
    r = mint.randint_like(x, 5)
    assert r.shape == (3, 4) and r.dtype == T.float64
    assert ((r.numpy() >= 0) & (r.numpy() < 5)).all()
    r = mint.randint_like(x, 3, 7, dtype=T.int32)
    assert r.dtype == T.int32 and ((r.numpy() >= 3) & (r.numpy() < 7)).all()


# --- random: distributions ---------------------------------------------------------------------

N = 200_000


def _phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_rand_uniform_statistics(dt):
    x = mint.rand(N, dtype=dt)
    assert x.dtype == dt and x.shape == (N,)
    a = x.numpy().astype(np.float64)
    assert a.min() >= 0.0 and a.max() < 1.0  # [0, 1), also after rounding to 16-bit floats
    assert abs(a.mean() - 0.5) < 0.005
    assert abs(a.std() - 1 / math.sqrt(12)) < 0.005
    hist = np.histogram(a, bins=10, range=(0, 1))[0] / N
    assert np.all(np.abs(hist - 0.1) < 0.01)  # each decile holds ~10%
    u = mint.uniform(-3.0, 5.0, (N,), dtype=dt).numpy().astype(np.float64)
    assert u.min() >= -3 and u.max() <= 5
    assert abs(u.mean() - 1.0) < 0.04 and abs(u.std() - 8 / math.sqrt(12)) < 0.04


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_randn_normal_statistics(dt):
    x = mint.randn(N, dtype=dt)
    assert x.dtype == dt
    a = x.numpy().astype(np.float64)
    assert abs(a.mean()) < 0.01
    assert abs(a.std() - 1.0) < 0.01
    for q in (-2.0, -1.0, 0.0, 0.5, 1.5):  # empirical CDF against the normal CDF
        assert abs((a <= q).mean() - _phi(q)) < 0.01, q
    assert np.abs(a).max() < 7
    y = mint.normal(3.0, 0.5, (N,), dtype=dt).numpy().astype(np.float64)
    assert abs(y.mean() - 3.0) < 0.01 and abs(y.std() - 0.5) < 0.01


def test_normal_with_tensor_arguments():
    mean = mint.tensor([0.0, 10.0, -5.0]).reshape(3, 1).expand(3, 20000)
    z = mint.normal(mean, 2.0)
    assert z.shape == (3, 20000) and z.dtype == T.float32
    a = z.numpy()
    np.testing.assert_allclose(a.mean(axis=1), [0, 10, -5], atol=0.1)
    np.testing.assert_allclose(a.std(axis=1), [2, 2, 2], atol=0.1)
    std = mint.tensor([0.5, 3.0]).reshape(2, 1).expand(2, 20000)
    b = mint.normal(1.0, std).numpy()
    np.testing.assert_allclose(b.std(axis=1), [0.5, 3.0], rtol=0.05)
    np.testing.assert_allclose(b.mean(axis=1), [1.0, 1.0], atol=0.1)
    assert mint.normal(0.0, 1.0).shape == ()


def test_distribution_errors():
    with pytest.raises(TypeError):
        mint.rand(3, dtype=T.int32)
    with pytest.raises(TypeError):
        mint.randn(3, dtype=T.bool)
    with pytest.raises(ValueError):
        mint.normal(0.0, -1.0, (3,))
    with pytest.raises(ValueError):
        mint.uniform(2.0, 1.0, (3,))
    with pytest.raises(ValueError):
        mint.randint(5, 5, (3,))
    with pytest.raises(TypeError):
        mint.randint(5)  # missing size
    with pytest.raises(ValueError):
        mint.randperm(-1)


@pytest.mark.parametrize("low,high", [(0, 2), (-5, 5), (3, 10), (0, 1), (-2 ** 40, 2 ** 40)])
def test_randint_range(low, high):
    x = mint.randint(low, high, (50_000,))
    assert x.dtype == T.int64
    a = x.numpy()
    assert a.min() >= low and a.max() < high
    if high - low <= 10:  # every value appears, about equally often
        counts = np.bincount(a - low, minlength=high - low)
        assert (counts > 0).all()
        np.testing.assert_allclose(counts / len(a), 1 / (high - low), atol=0.01)
    else:
        assert abs(a.mean() / (high - low) - (low + high - 1) / 2 / (high - low)) < 0.01


@pytest.mark.parametrize("dt", [T.int32, T.int16, T.uint8, T.float32, T.float64], ids=str)
def test_randint_dtypes(dt):
    x = mint.randint(0, 100, (2000,), dtype=dt)
    assert x.dtype == dt
    a = x.numpy()
    assert a.min() >= 0 and a.max() < 100 and np.all(a == np.floor(a))
    assert mint.randint(10, (3, 4)).shape == (3, 4)
    assert mint.randint(2, 10, size=5).shape == (5,)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm_is_permutation(n):
    p = mint.randperm(n)
    assert p.dtype == T.int64 and p.shape == (n,)
    np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(n))
    assert mint.randperm(n, dtype=T.int32).dtype == T.int32


def test_randperm_is_uniform():
    """Every element lands in every position about equally often."""
    n, reps = 5, 4000
    pos = np.zeros((n, n))
    for _ in range(reps):
        p = mint.randperm(n).numpy()
        pos[p, np.arange(n)] += 1
    np.testing.assert_allclose(pos / reps, 1 / n, atol=0.035)
    assert not np.array_equal(mint.randperm(1000).numpy(), np.arange(1000))


def test_multinomial_with_replacement_frequencies():
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    draws = mint.multinomial(mint.tensor(probs), 40_000, replacement=True)
    assert draws.dtype == T.int64 and draws.shape == (40_000,)
    freq = np.bincount(draws.numpy(), minlength=4) / 40_000
    np.testing.assert_allclose(freq, probs, atol=0.01)
    assert freq[1] == 0  # zero-weight categories are never drawn
    # Unnormalised weights, 2-D input: one row per distribution.
    w = mint.tensor([[1.0, 3.0, 0.0], [0.0, 0.0, 5.0]])
    d = mint.multinomial(w, 20_000, replacement=True)
    assert d.shape == (2, 20_000)
    np.testing.assert_allclose(np.bincount(d.numpy()[0], minlength=3) / 20_000, [0.25, 0.75, 0],
                               atol=0.015)
    assert (d.numpy()[1] == 2).all()


def test_multinomial_without_replacement():
    w = mint.tensor([[1.0, 2.0, 3.0, 4.0, 0.0]] * 50)
    d = mint.multinomial(w, 4)  # every non-zero category exactly once per row
    assert d.shape == (50, 4)
    for row in d.numpy():
        assert sorted(row.tolist()) == [0, 1, 2, 3]
    # The first draw follows the weights; heavier categories come first more often.
    firsts = np.array([mint.multinomial(mint.tensor([1.0, 2.0, 3.0, 4.0]), 2).numpy()[0]
                       for _ in range(3000)])
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 3000, [0.1, 0.2, 0.3, 0.4],
                               atol=0.03)
    with pytest.raises(ValueError):
        mint.multinomial(mint.tensor([1.0, 2.0]), 3)  # more samples than categories
    with pytest.raises(ValueError):
        mint.multinomial(mint.tensor([1.0, -1.0]), 1)
    with pytest.raises(ValueError):
        mint.multinomial(mint.tensor([0.0, 0.0]), 1)
    with pytest.raises(ValueError):
        mint.multinomial(mint.ones(2, 2, 2), 1)
    assert mint.ones(3).multinomial(2).shape == (2,)


@pytest.mark.parametrize("p", [0.0, 0.05, 0.3, 0.5, 0.9, 1.0])
def test_bernoulli_rate(p):
    x = mint.bernoulli(mint.full((N,), p))
    assert x.dtype == T.float32 and x.shape == (N,)
    a = x.numpy()
    assert set(np.unique(a)).issubset({0.0, 1.0})
    assert abs(a.mean() - p) < 0.005
    y = mint.bernoulli(mint.zeros(N, dtype=T.float64), p=p)
    assert y.dtype == T.float64 and abs(y.numpy().mean() - p) < 0.005


def test_bernoulli_per_element_probabilities():
    probs = np.tile(np.array([0.0, 0.2, 0.8, 1.0]), (25_000, 1))
    x = mint.tensor(probs).bernoulli()
    np.testing.assert_allclose(x.numpy().mean(axis=0), [0.0, 0.2, 0.8, 1.0], atol=0.01)
    with pytest.raises(TypeError):
        mint.bernoulli(mint.ones(3, dtype=T.int64))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_inplace_normal_uniform(dt):
    x = mint.zeros(N, dtype=dt)
    assert x.normal_(2.0, 3.0) is x and x.dtype == dt
    a = x.numpy().astype(np.float64)
    assert abs(a.mean() - 2.0) < 0.03 and abs(a.std() - 3.0) < 0.03
    assert x.uniform_(-1.0, 1.0) is x
    a = x.numpy().astype(np.float64)
    assert a.min() >= -1 and a.max() <= 1 and abs(a.mean()) < 0.01
    view = mint.zeros(4, 6, dtype=dt)
    view[:, ::2].uniform_(5.0, 6.0)  # only the strided view changes
    v = view.numpy().astype(np.float64)
    assert (v[:, 1::2] == 0).all() and ((v[:, ::2] >= 5) & (v[:, ::2] <= 6)).all()
