"""float16 / bfloat16 <-> float32 conversions, dense (the vectorized F16C path) and strided
(the scalar path), against numpy's IEEE conversions and a numpy round-to-nearest-even
bfloat16 reference: every 16-bit pattern widens exactly, and narrowing rounds to nearest
even with overflow to inf, subnormals kept and NaN kept NaN."""
import numpy as np
import pytest

from tandem import jit, mint

SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 65504, 65519, 65520, 1e5,
                    -1e5, 2.0 ** -25, 2.0 ** -24, 3 * 2.0 ** -26, 5.96e-8, 6.1e-5, 1e-45,
                    3.3895314e38, 3.39e38, 1e-39, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -9],
                   np.float32)


def _floats(n=4099):
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    x *= np.float32(10.0) ** np.random.default_rng(1).integers(-8, 6, n).astype(np.float32)
    x[:len(SPECIAL)] = SPECIAL
    return x


def _bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even, NaN quieted (numpy reference)."""
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def _same(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("step", [1, 3])
def test_every_float16_pattern_widens_exactly(step):
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = mint.tensor(h)[::step].float().numpy()
    want = h[::step].astype(np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("step", [1, 3])
def test_float32_narrows_to_float16_like_numpy(step):
    x = _floats()[::step]
    got = mint.tensor(x).half().numpy()
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    ok = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), x[~ok][:8]


@pytest.mark.parametrize("step", [1, 3])
def test_bfloat16_round_trip_matches_round_to_nearest_even(step):
    x = _floats()[::step]
    got = mint.tensor(x).bfloat16().float().numpy()
    want = (_bf16_bits(x).astype(np.uint32) << 16).view(np.float32)
    assert _same(got, want).all()


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_fused_casts_round_like_eager(low):
    x = mint.tensor(_floats(1000))
    dt = getattr(mint, low)

    def f(x):
        return (x * 3).to(dt).float() + 1, ((x + 1).to(dt) * 2).to(dt)
    eager, graph = f(x), jit(f)(x)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype
        assert _same(e.float().numpy(), g.float().numpy()).all()
