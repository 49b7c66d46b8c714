"""Parameter initialisation: mint.nn.init (PyTorch names) and tandem.common.initializer
(MindSpore names). Random fills are checked by their statistics on large tensors (bounds
sit many standard errors from the expected values), orthogonal_ against numpy's QR of the
same normal draws, plus fans, gains, seeding and argument errors."""
import math

import numpy as np
import pytest

import tandem
from tandem.common import initializer as I
from tandem.mint.nn import init
from tandem import Parameter

N = (400, 500)  # 200k draws: standard errors ~0.2% of the std


def empty(shape, dtype=tandem.float32):
    return tandem.zeros(shape, dtype=dtype)


def stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


# --- fans and gains ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,fans", [((4, 3), (3, 4)), ((8, 3, 5, 5), (75, 200)),
                                         ((6, 2, 7), (14, 42)), ((2, 3, 2, 2, 2), (24, 16))])
def test_fan_in_and_fan_out(shape, fans):
    assert init._calculate_fan_in_and_fan_out(empty(shape)) == fans
    assert init._calculate_correct_fan(empty(shape), "fan_out") == fans[1]


def test_fan_needs_two_dims():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(empty((5,)))


def test_calculate_gain():
    for nl in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "sigmoid"]:
        assert init.calculate_gain(nl) == 1.0
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("leaky_relu", 0) == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("selu") == pytest.approx(0.75)
    with pytest.raises(ValueError):
        init.calculate_gain("softmax")
    with pytest.raises(ValueError):
        init.calculate_gain("leaky_relu", "x")
    with pytest.raises(ValueError):
        init.calculate_gain("leaky_relu", True)


# --- constant fills -----------------------------------------------------------------------------

def test_constant_zeros_ones_eye():
    t = empty((3, 4))
    assert init.constant_(t, 2.5) is t
    np.testing.assert_array_equal(t.detach().numpy(), np.full((3, 4), 2.5, np.float32))
    np.testing.assert_array_equal(init.zeros_(t).detach().numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(init.ones_(t).detach().numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(init.eye_(t).detach().numpy(), np.eye(3, 4))
    np.testing.assert_array_equal(init.eye_(empty((5, 2))).detach().numpy(), np.eye(5, 2))
    i = tandem.zeros((2, 2), dtype=tandem.int32)
    np.testing.assert_array_equal(init.constant_(i, 7).detach().numpy(), np.full((2, 2), 7))
    with pytest.raises(ValueError):
        init.eye_(empty((2, 2, 2)))


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 4, 3, 3), 2), ((4, 2, 3, 3, 3), 2)])
def test_dirac(shape, groups):
    w = init.dirac_(empty(shape), groups)
    ref = np.zeros(shape)
    per = shape[0] // groups
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(per, shape[1])):
            ref[(g * per + d, d) + centre] = 1
    np.testing.assert_array_equal(w.detach().numpy(), ref)
    with pytest.raises(ValueError):
        init.dirac_(empty((4, 4)))


# --- random fills -----------------------------------------------------------------------------

def test_uniform_and_normal():
    m, s, lo, hi = stats(init.uniform_(empty(N), -0.5, 1.5))
    assert lo >= -0.5 and hi <= 1.5
    assert abs(m - 0.5) < 0.01 and abs(s - 2 / math.sqrt(12)) < 0.01
    m, s, _, _ = stats(init.normal_(empty(N), 3.0, 0.5))
    assert abs(m - 3.0) < 0.005 and abs(s - 0.5) < 0.005
    m, s, lo, hi = stats(init.uniform_(empty(N)))
    assert lo >= 0 and hi < 1 and abs(m - 0.5) < 0.005


@pytest.mark.parametrize("shape", [(300, 700), (64, 32, 5, 5)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(shape, gain):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(empty(shape))
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    m, s, lo, hi = stats(init.xavier_uniform_(empty(shape), gain))
    bound = math.sqrt(3) * std
    assert -bound <= lo and hi <= bound and lo < -0.99 * bound and hi > 0.99 * bound
    assert abs(m) < 0.01 * std and abs(s / std - 1) < 0.01
    m, s, _, _ = stats(init.xavier_normal_(empty(shape), gain))
    assert abs(m) < 0.01 * std and abs(s / std - 1) < 0.01


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize("nl,a", [("relu", 0), ("leaky_relu", 0.2), ("tanh", 0),
                                  ("leaky_relu", 0)])
def test_kaiming(mode, nl, a):
    shape = (128, 64, 3, 3)
    fan = init._calculate_correct_fan(empty(shape), mode)
    std = init.calculate_gain(nl, a) / math.sqrt(fan)
    m, s, lo, hi = stats(init.kaiming_uniform_(empty(shape), a=a, mode=mode, nonlinearity=nl))
    bound = math.sqrt(3) * std
    assert -bound <= lo and hi <= bound and hi > 0.99 * bound
    assert abs(m) < 0.01 * std and abs(s / std - 1) < 0.01
    m, s, _, _ = stats(init.kaiming_normal_(empty(shape), a=a, mode=mode, nonlinearity=nl))
    assert abs(m) < 0.01 * std and abs(s / std - 1) < 0.01


def test_kaiming_default_is_pytorch_linear_default():
    # nn.Linear's reset_parameters: kaiming_uniform_(w, a=sqrt(5)) -> bound 1 / sqrt(fan_in).
    w = init.kaiming_uniform_(empty((200, 1000)), a=math.sqrt(5))
    _, s, lo, hi = stats(w)
    assert -1 / math.sqrt(1000) <= lo and hi <= 1 / math.sqrt(1000)
    assert abs(s * math.sqrt(3 * 1000) - 1) < 0.01


def _phi(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _Phi(x):
    return (1 + math.erf(x / math.sqrt(2))) / 2


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 3.0),
                                          (0.0, 0.02, -0.04, 0.04), (0.0, 1.0, 1.5, 4.0)])
def test_trunc_normal_moments_and_cdf(mean, std, a, b):
    x = init.trunc_normal_(empty(N, tandem.float64), mean, std, a, b).detach().numpy()
    assert x.min() >= a and x.max() <= b
    al, be = (a - mean) / std, (b - mean) / std
    Z = _Phi(be) - _Phi(al)
    mu = mean + std * (_phi(al) - _phi(be)) / Z
    var = std ** 2 * (1 + (al * _phi(al) - be * _phi(be)) / Z - ((_phi(al) - _phi(be)) / Z) ** 2)
    assert abs(x.mean() - mu) < 0.01 * std and abs(x.std() / math.sqrt(var) - 1) < 0.01
    for q in np.linspace(a, b, 7)[1:-1]:  # empirical CDF vs the truncated CDF
        want = (_Phi((q - mean) / std) - _Phi(al)) / Z
        assert abs((x <= q).mean() - want) < 0.005


def test_trunc_normal_float32_and_errors():
    x = init.trunc_normal_(empty(N), std=0.02, a=-0.04, b=0.04).detach().numpy()
    assert x.dtype == np.float32 and x.min() >= -0.04 and x.max() <= 0.04
    with pytest.raises(ValueError):
        init.trunc_normal_(empty((3,)), a=1.0, b=-1.0)
    with pytest.warns(UserWarning):
        init.trunc_normal_(empty((3,)), mean=10.0, std=1.0, a=-1.0, b=1.0)


@pytest.mark.parametrize("shape", [(6, 10), (10, 6), (7, 7), (8, 3, 2, 2), (1, 5)])
@pytest.mark.parametrize("gain", [1.0, 3.0])
def test_orthogonal(shape, gain):
    w = init.orthogonal_(empty(shape, tandem.float64), gain).detach().numpy().reshape(shape[0], -1)
    r, c = w.shape
    gram = w @ w.T if r <= c else w.T @ w
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(min(r, c)), atol=1e-12)


def test_orthogonal_matches_numpy_qr_of_the_same_draw():
    for shape in [(5, 9), (9, 5), (6, 6)]:
        tandem.manual_seed(7)
        a = tandem.randn(*shape, dtype=tandem.float64).detach().numpy()
        tandem.manual_seed(7)
        w = init.orthogonal_(empty(shape, tandem.float64)).detach().numpy()
        flat = a.T if shape[0] < shape[1] else a
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))  # PyTorch's sign correction
        np.testing.assert_allclose(w, q.T if shape[0] < shape[1] else q, atol=1e-12)


def test_orthogonal_float32_large():
    w = init.orthogonal_(empty((256, 300))).detach().numpy().astype(np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(256), atol=1e-5)


def test_seeded_reproducibility():
    fills = [lambda t: init.uniform_(t), lambda t: init.normal_(t), init.xavier_uniform_,
             init.kaiming_normal_, init.trunc_normal_, init.orthogonal_]
    for fill in fills:
        tandem.manual_seed(42)
        a = fill(empty((20, 30))).detach().numpy()
        b = fill(empty((20, 30))).detach().numpy()
        tandem.manual_seed(42)
        c = fill(empty((20, 30))).detach().numpy()
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, b)


def test_parameter_is_filled_in_place_without_history():
    p = Parameter(np.zeros((30, 20), np.float32))
    for fill in [init.xavier_uniform_, init.kaiming_uniform_, init.orthogonal_,
                 init.trunc_normal_, init.zeros_, init.eye_]:
        out = fill(p)
        assert out is p and isinstance(out, Parameter)
        assert p.requires_grad and p.is_leaf and p.grad_fn is None
    init.normal_(p)
    (p * 2).sum().backward()
    np.testing.assert_array_equal(p.grad.detach().numpy(), np.full((30, 20), 2, np.float32))


def test_non_contiguous_and_low_precision_targets():
    base = empty((40, 60))
    view = base.T  # (60, 40), non-contiguous
    init.orthogonal_(view)
    v = base.detach().numpy().T.astype(np.float64)
    np.testing.assert_allclose(v.T @ v, np.eye(40), atol=1e-5)
    h = init.uniform_(empty((1000,), tandem.float16), -1, 1)
    assert h.dtype == tandem.float16 and abs(h.detach().numpy()).max() <= 1


def test_errors():
    with pytest.raises(TypeError):
        init.normal_(tandem.zeros((3, 3), dtype=tandem.int64))
    with pytest.raises(ValueError):
        init.kaiming_uniform_(empty((3, 3)), mode="fan_avg")
    with pytest.raises(ValueError):
        init.xavier_uniform_(empty((3,)))
    with pytest.raises(ValueError):
        init.orthogonal_(empty((3,)))
    with pytest.raises(ValueError):
        init.uniform_(empty((3,)), 1.0, 0.0)
    with pytest.raises(TypeError):
        init.normal_(np.zeros(3))
    with pytest.warns(UserWarning):
        init.kaiming_uniform_(empty((0, 3)))


# --- MindSpore initializers -------------------------------------------------------------------

def test_ms_defaults():
    t = I.initializer("normal", N)
    assert t.shape == N and t.dtype == tandem.float32
    m, s, _, _ = stats(t)
    assert abs(m) < 1e-4 and abs(s / 0.01 - 1) < 0.01
    m, s, lo, hi = stats(I.initializer(I.Uniform(), N))
    assert -0.07 <= lo and hi <= 0.07 and abs(s / (0.07 / math.sqrt(3)) - 1) < 0.01
    m, s, lo, hi = stats(I.initializer("truncatedNormal", N))
    assert -0.02 <= lo and hi <= 0.02 and abs(s / (0.01 * 0.8796256610342398) - 1) < 0.01
    m, s, _, _ = stats(I.initializer(I.Normal(sigma=0.5, mean=2.0), N))
    assert abs(m - 2) < 0.005 and abs(s - 0.5) < 0.005


def test_ms_xavier_and_he():
    shape = (256, 128, 3, 3)
    fan_in, fan_out = 128 * 9, 256 * 9
    _, s, lo, hi = stats(I.initializer("xavier_uniform", shape))
    bound = math.sqrt(6 / (fan_in + fan_out))
    assert -bound <= lo and hi <= bound and abs(s / (bound / math.sqrt(3)) - 1) < 0.01
    _, s, lo, hi = stats(I.initializer(I.XavierUniform(gain=2), shape))
    assert hi <= 2 * bound and hi > 1.99 * bound
    _, s, _, _ = stats(I.initializer("xavier_normal", shape))
    assert abs(s / math.sqrt(2 / (fan_in + fan_out)) - 1) < 0.01
    # HeUniform defaults: negative_slope 0, leaky_relu -> gain sqrt(2), bound sqrt(6 / fan_in).
    _, s, lo, hi = stats(I.initializer("he_uniform", shape))
    bound = math.sqrt(6 / fan_in)
    assert -bound <= lo and hi <= bound and abs(s / (bound / math.sqrt(3)) - 1) < 0.01
    _, s, _, _ = stats(I.initializer(I.HeNormal(mode="fan_out", nonlinearity="relu"), shape))
    assert abs(s / math.sqrt(2 / fan_out) - 1) < 0.01
    _, s, _, _ = stats(I.initializer(I.HeUniform(negative_slope=0.5), shape))
    assert abs(s / math.sqrt(2 / 1.25 / fan_in) - 1) < 0.01


def test_ms_constants_and_inputs():
    np.testing.assert_array_equal(I.initializer("zeros", [2, 3]).detach().numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(I.initializer("ONES", (2, 3)).detach().numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(I.initializer(I.One(), 4).detach().numpy(), np.ones(4))
    np.testing.assert_array_equal(I.initializer(I.Zero(), (2,)).detach().numpy(), np.zeros(2))
    np.testing.assert_array_equal(I.initializer(I.Constant(3), (2, 2)).detach().numpy(), np.full((2, 2), 3))
    t = I.initializer(5, (2, 3), tandem.int32)
    assert t.dtype == tandem.int32
    np.testing.assert_array_equal(t.detach().numpy(), np.full((2, 3), 5))
    np.testing.assert_array_equal(I.initializer("identity", (3, 4)).detach().numpy(), np.eye(3, 4))
    d = I.initializer("normal", (50, 40), tandem.float64)
    assert d.dtype == tandem.float64
    src = tandem.ones((2, 3))
    assert I.initializer(src, (2, 3)) is src
    with pytest.raises(ValueError):
        I.initializer(src, (3, 2))
    with pytest.raises(ValueError):
        I.initializer("no_such_init", (2, 2))
    with pytest.raises(TypeError):
        I.initializer([1, 2], (2,))
    with pytest.raises(ValueError):
        I.initializer("zeros", (2, 0))
    with pytest.raises(ValueError):
        I.initializer("xavier_uniform", (5,))


def test_ms_orthogonal_dirac_and_variance_scaling():
    w = I.initializer(I.Orthogonal(gain=2.0), (6, 3, 4), tandem.float64).detach().numpy().reshape(6, 12)
    np.testing.assert_allclose(w @ w.T, 4 * np.eye(6), atol=1e-12)
    d = I.initializer(I.Dirac(groups=2), (6, 4, 3, 3)).detach().numpy()
    assert d.sum() == 6 and d[0, 0, 1, 1] == 1 and d[3, 0, 1, 1] == 1
    _, s, _, _ = stats(I.initializer(I.VarianceScaling(2.0, "fan_avg", "untruncated_normal"),
                                     (300, 500)))
    assert abs(s / math.sqrt(2.0 / 400) - 1) < 0.01
    _, s, lo, hi = stats(I.initializer(I.VarianceScaling(), (300, 500)))
    assert abs(s / math.sqrt(1 / 500) - 1) < 0.01  # truncated, rescaled to the target std
    with pytest.raises(ValueError):
        I.VarianceScaling(mode="fan_max")


def test_ms_initializer_fills_numpy_and_tensors_in_place():
    arr = np.zeros((200, 300), np.float32)
    assert I.Uniform(0.5)(arr) is arr
    assert np.abs(arr).max() <= 0.5 and arr.std() > 0.25
    t = tandem.zeros((3, 3), dtype=tandem.int64)
    I.Constant(4)(t)
    np.testing.assert_array_equal(t.detach().numpy(), np.full((3, 3), 4))
    tandem.manual_seed(3)
    a = I.initializer("he_normal", (20, 30)).detach().numpy()
    tandem.manual_seed(3)
    b = I.initializer("he_normal", (20, 30)).detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_weight_init_truncated_normal_truncates_like_the_class():
    """weight_init='truncatedNormal' is MindSpore's TruncatedNormal (sigma 0.01, within two
    sigma), not a normal clamped to the bounds (which piled 4.5 % of the weights on +-0.02)."""
    from tandem import nn
    from tandem.common.initializer import TruncatedNormal, initializer
    tandem.manual_seed(3)
    w = nn.Dense(200, 100, weight_init="truncatedNormal").weight.detach().numpy()
    assert np.all(np.abs(w) <= 0.02)
    assert np.mean(np.abs(w) >= 0.02 - 1e-7) < 1e-3
    tandem.manual_seed(3)
    ref = initializer(TruncatedNormal(), (100, 200)).detach().numpy()
    np.testing.assert_array_equal(w, ref)
