"""Run-time CPU dispatch: the library is compiled for x86-64-v3 and its hot kernels carry
AVX-512 forms picked from cpuid. TANDEM_ISA=avx2 keeps a process on the AVX2 forms; the two
must compute the same values (exactly where the operation is exact)."""
from __future__ import annotations

import builtins
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import tandem
from tandem import mint

# Computes every workload whose kernel has an AVX-512 form, an AVX2 form, or a width that
# follows the vector length (tails of 1..33 elements cross the 8- and 16-lane boundaries),
# and saves the results to the .npz named by argv[1].
CHILD = r"""
import sys
import numpy as np
import tandem
from tandem import mint
import tandem.mint.nn.functional as F

rng = np.random.default_rng(7)
out = {"capability": np.array(mint.backends.cpu.get_cpu_capability())}
sizes = [1, 7, 8, 9, 15, 16, 17, 33, 1000]
for dt in ("float32", "float64"):
    for n in sizes:
        x = rng.standard_normal(n).astype(dt) * 3
        if n > 8:
            x[3] = np.nan
            x[5] = 1e30 if dt == "float32" else 1e200
        pos = np.abs(x) + 1.5
        y = rng.standard_normal(n).astype(dt)
        t, p, u = mint.tensor(x), mint.tensor(pos), mint.tensor(y)
        k = f"{dt}_{n}_"
        out[k + "in_x"], out[k + "in_pos"], out[k + "in_y"] = x, pos, y
        unit = mint.tensor(np.tanh(x) * 0.99)  # asin, acos, atanh: inside (-1, 1)
        for name in ("exp", "exp2", "expm1", "tanh", "sigmoid", "erf", "erfc", "sin", "cos",
                     "tan", "atan", "sinh", "cosh", "asinh", "abs", "round", "reciprocal"):
            out[k + name] = getattr(mint, name)(t).numpy()
        for name in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "acosh"):
            out[k + name] = getattr(mint, name)(p).numpy()
        for name in ("asin", "acos", "atanh"):
            out[k + name] = getattr(mint, name)(unit).numpy()
        for name in ("gelu", "silu", "mish", "logsigmoid", "softplus", "elu", "hardsigmoid",
                     "hardswish"):
            out[k + name] = getattr(F, name)(t).numpy()
        out[k + "gelu_tanh"] = F.gelu(t, approximate="tanh").numpy()
        out[k + "leaky_relu"] = F.leaky_relu(t, 0.1).numpy()
        out[k + "clamp"] = mint.clamp(t, -1.0, 2.0).numpy()
        out[k + "clamp_min"] = mint.clamp(t, min=-1.0).numpy()
        out[k + "clamp_max"] = mint.clamp(t, max=2.0).numpy()
        out[k + "add"] = (t + u).numpy()
        out[k + "mul"] = (t * u).numpy()
        out[k + "div"] = (t / u).numpy()
        out[k + "pow"] = mint.pow(p, u).numpy()
        out[k + "atan2"] = mint.atan2(t, u).numpy()
        out[k + "logaddexp"] = mint.logaddexp(t, u).numpy()
        out[k + "maximum"] = mint.maximum(t, u).numpy()
        out[k + "sum"] = mint.sum(u).numpy()
        out[k + "amax"] = mint.amax(u).numpy()
        out[k + "max_nan"] = mint.max(t).numpy()
x = rng.standard_normal((6, 37)).astype("float32")
out["softmax"] = mint.softmax(mint.tensor(x), dim=1).numpy()
out["log_softmax"] = mint.log_softmax(mint.tensor(x), dim=1).numpy()
img = rng.standard_normal((2, 3, 19, 23)).astype("float32")
img[0, 0, 2, 2] = np.nan
v, i = F.max_pool2d(mint.tensor(img), 3, 2, 1, return_indices=True)
out["pool_v"], out["pool_i"] = v.numpy(), i.numpy()
a = mint.tensor(rng.standard_normal((70, 45)).astype("float32"))
b = mint.tensor(rng.standard_normal((45, 70)).astype("float32"))
out["transposed_add"] = (a.T + b).numpy()
out["transposed_copy"] = a.T.contiguous().numpy()
h = np.array([0.5, -2.0, np.inf, -np.inf, np.nan, 65504.0, 1e-7] * 5, dtype="float32")
out["to_half"] = mint.tensor(h).to(mint.float16).numpy().view(np.uint16)
out["from_half"] = mint.tensor(h.astype(np.float16)).to(mint.float32).numpy()


@tandem.jit
def chain(z):
    return z * mint.sigmoid(z) + mint.tanh(z) * mint.exp(-z * z)


z = mint.tensor(rng.standard_normal(1003).astype("float32"))
out["jit_chain"] = chain(z).numpy()
out["eager_chain"] = (z * mint.sigmoid(z) + mint.tanh(z) * mint.exp(-z * z)).numpy()
mint.manual_seed(0)
lstm = mint.nn.LSTM(5, 12, num_layers=2)
seq = mint.tensor(rng.standard_normal((9, 4, 5)).astype("float32"), requires_grad=True)
o, _ = lstm(seq)
o.sum().backward()
out["lstm"], out["lstm_grad"] = o.detach().numpy(), seq.grad.numpy()
np.savez(sys.argv[1], **out)
"""

# Exact in IEEE arithmetic whatever the vector width: both forms must agree bit for bit.
EXACT = ("sqrt", "abs", "round", "clamp", "clamp_min", "clamp_max", "add", "mul", "div",
         "maximum", "amax", "max_nan", "reciprocal", "leaky_relu", "hardsigmoid", "pool_v", "pool_i", "transposed_add", "transposed_copy", "to_half",
         "from_half")


def _avx512_cpu() -> bool:
    return {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= tandem._cpu_flags()


def _run(tmp_path, isa: str | None) -> dict:
    env = dict(os.environ)
    env.pop("TANDEM_ISA", None)
    if isa:
        env["TANDEM_ISA"] = isa
    path = tmp_path / f"out_{isa or 'best'}.npz"
    subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, check=True, timeout=300)
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_capability_names_what_the_cpu_has():
    if os.environ.get("TANDEM_ISA"):
        pytest.skip("TANDEM_ISA caps the choice in this process")
    want = "AVX512" if _avx512_cpu() else "AVX2"
    assert mint.backends.cpu.get_cpu_capability() == want
    assert tandem._C.build_isa() in ("x86-64-v3", "native")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dispatch")
    return _run(tmp, None), _run(tmp, "avx2")


def test_avx2_cap_is_reported(both):
    best, avx2 = both
    assert str(avx2["capability"]) == "AVX2"
    assert str(best["capability"]) == ("AVX512" if _avx512_cpu() else "AVX2")


def test_avx512_and_avx2_forms_agree(both):
    best, avx2 = both
    assert best.keys() == avx2.keys()
    for k in best:
        if k == "capability":
            continue
        exact = k.split("_", 2)[-1] in EXACT or k in EXACT
        # Sums and SLEEF's functions may differ in the last place (lanes add up in another
        # order; a 16-lane call is not two 8-lane ones), never more.
        if exact or best[k].dtype.kind in "iu":
            np.testing.assert_array_equal(best[k], avx2[k], err_msg=k)
        else:
            rtol = 1e-12 if best[k].dtype == np.float64 else 2e-6
            np.testing.assert_allclose(best[k], avx2[k], rtol=rtol, atol=1e-6, err_msg=k)


def test_both_forms_match_numpy(both):
    """Each form is right, not merely equal to the other (float64 numpy as the oracle)."""
    refs = {
        "exp": lambda x, p, y: np.exp(x), "log": lambda x, p, y: np.log(p),
        "tanh": lambda x, p, y: np.tanh(x), "sin": lambda x, p, y: np.sin(x),
        "sigmoid": lambda x, p, y: 1 / (1 + np.exp(-x)),
        "asinh": lambda x, p, y: np.arcsinh(x), "acosh": lambda x, p, y: np.arccosh(p),
        "expm1": lambda x, p, y: np.expm1(x), "atan": lambda x, p, y: np.arctan(x),
        "div": lambda x, p, y: x / y, "pow": lambda x, p, y: p ** y,
        "atan2": lambda x, p, y: np.arctan2(x, y), "logaddexp": lambda x, p, y: np.logaddexp(x, y),
        "sum": lambda x, p, y: np.sum(y), "log2": lambda x, p, y: np.log2(p),
        "log10": lambda x, p, y: np.log10(p), "cosh": lambda x, p, y: np.cosh(x),
        "rsqrt": lambda x, p, y: 1 / np.sqrt(p), "softplus": lambda x, p, y: np.logaddexp(0, x),
        "silu": lambda x, p, y: x / (1 + np.exp(-x)),
        "mish": lambda x, p, y: x * np.tanh(np.logaddexp(0, x)),
        "atanh": lambda x, p, y: np.arctanh(np.tanh(x) * 0.99),
    }
    for res in both:
        for dt in ("float32", "float64"):
            for n in (1, 9, 17, 1000):
                k = f"{dt}_{n}_"
                x, p, y = (res[k + s].astype(np.float64) for s in ("in_x", "in_pos", "in_y"))
                with np.errstate(all="ignore"):
                    for name, ref in refs.items():
                        want = ref(x, p, y)
                        rtol = 4e-6 if dt == "float32" else 1e-12
                        # A sum's error is relative to the sum of magnitudes.
                        atol = rtol * np.abs(y).sum() if name == "sum" else 1e-30
                        np.testing.assert_allclose(res[k + name], want.astype(dt), rtol=rtol,
                                                   atol=atol, err_msg=k + name)
        np.testing.assert_allclose(res["jit_chain"], res["eager_chain"], rtol=1e-6, atol=1e-6)
        sm = res["softmax"]
        np.testing.assert_allclose(sm.sum(1), np.ones(6), rtol=1e-6)
        np.testing.assert_allclose(np.exp(res["log_softmax"]), sm, rtol=1e-5)


def test_import_refuses_a_cpu_below_the_baseline(monkeypatch):
    """On a CPU without AVX2 the import raises instead of dying of SIGILL."""
    fake = "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx\n"
    real_open = builtins.open

    def fake_open(path, *a, **k):
        if str(path) == "/proc/cpuinfo":
            return io.StringIO(fake)
        return real_open(path, *a, **k)

    monkeypatch.setattr(builtins, "open", fake_open)
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        pytest.skip("the check runs on Linux x86-64 only")
    with pytest.raises(ImportError, match=r"x86-64-v3.*avx2.*TANDEM_ARCH=native"):
        tandem._check_cpu()
