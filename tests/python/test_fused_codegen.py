"""Generated code for fused elementwise kernels (graph/fused_jit.cpp) against the fused-program
interpreter and eager mode: bit-identical results for every op the generator covers, at
lengths with and without a partial last vector, with several outputs, broadcast and
strided operands, and a clean fallback to the interpreter where it does not apply."""
from __future__ import annotations

import numpy as np
import pytest

import tandem
from tandem import jit, mint

_C = tandem._C
LENGTHS = [1, 15, 16, 17, 1000, 65537]


def native_available() -> bool:
    probe = jit(lambda x: x * 2.0 + 1.0)
    return "native=True" in probe.explain(mint.ones(4))


needs_native = pytest.mark.skipif(not native_available(),
                                  reason="no AVX-512 code generation on this machine/build")


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit patterns, except that any NaN matches any NaN."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    if a.shape != b.shape:
        return False
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and
                np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32)))


def sample(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32) * 3
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 9.0, -9.0,
                        3e-4, -3e-4, 5e-4], np.float32)
    k = min(n, special.size)
    x[:k] = special[:k]
    return x


def run_three(fn, *args):
    """(eager, compiled with generated code, compiled and interpreted) outputs as numpy."""
    def as_list(out):
        return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]
    eager = as_list(fn(*args))
    compiled = jit(fn)
    native = as_list(compiled(*args))
    _C.set_fused_codegen(False)
    try:
        interp = as_list(compiled(*args))
    finally:
        _C.set_fused_codegen(True)
    return compiled, eager, native, interp


UNARY = {
    "neg": lambda x: -(x * 1.5),
    "square": lambda x: mint.square(x) + x,
    "sqrt": lambda x: mint.sqrt(x) * 2.0,
    "rsqrt": lambda x: mint.rsqrt(x) - x,
    "reciprocal": lambda x: mint.reciprocal(x) + 1.0,
    "relu": lambda x: mint.relu(x * 3.0),
    "tanh": lambda x: mint.tanh(x) * x,
    "gelu_tanh": lambda x: 0.5 * x * (1 + mint.tanh(0.7978845608 * (x + 0.044715 * x * x * x))),
    "div_const_first": lambda x: 2.0 / (x + 1.0),
    "sub_const_first": lambda x: 1.0 - x * x,
    # ops without inline code are calls to their SIMD form from the generated loop
    "exp": lambda x: mint.exp(x) * 2.0 + x,
    "silu": lambda x: x * mint.sigmoid(x) - 1.0,
    "gelu_erf": lambda x: mint.nn.functional.gelu(x) + x * x,
    "log1p": lambda x: mint.log1p(x * x * 0.5) * x,
    "leaky_relu_param": lambda x: mint.nn.functional.leaky_relu(x * 2.0, 0.3) + 1.0,
    "many_calls": lambda x: mint.sin(x) * mint.cos(x) + mint.exp(-x * x) * mint.tanh(x),
}


@needs_native
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("n", LENGTHS)
def test_unary_programs_are_bit_identical(name, n):
    fn = UNARY[name]
    x = tandem.tensor(sample(n, n))
    compiled, eager, native, interp = run_three(fn, x)
    assert "native=True" in compiled.explain(x)
    for e, a, b in zip(eager, native, interp):
        assert same_bits(a, e), name
        assert same_bits(b, e), name


@needs_native
@pytest.mark.parametrize("n", LENGTHS)
def test_binary_ops_and_several_outputs(n):
    def fn(x, y):
        t = x * y
        u = (t - x) / (y + 2.0)
        return mint.tanh(u) + t, t, u - y
    x, y = tandem.tensor(sample(n, 1)), tandem.tensor(sample(n, 2)[::-1].copy())
    compiled, eager, native, interp = run_three(fn, x, y)
    text = compiled.explain(x, y)
    assert "native=True" in text and "(1 kernels)" in text
    for e, a, b in zip(eager, native, interp):
        assert same_bits(a, e) and same_bits(b, e)


@needs_native
def test_broadcast_and_strided_operands():
    def fn(x, b):
        return mint.relu(x * 2.0 + b) - b
    x = tandem.tensor(np.random.default_rng(3).standard_normal((33, 64)).astype(np.float32)).t()
    b = tandem.tensor(np.random.default_rng(4).standard_normal(33).astype(np.float32))
    compiled, eager, native, interp = run_three(fn, x, b)
    assert "native=True" in compiled.explain(x, b)
    assert same_bits(native[0], eager[0]) and same_bits(interp[0], eager[0])


@needs_native
def test_relu_backward_in_a_compiled_training_step():
    w = tandem.Parameter(tandem.tensor(np.random.default_rng(5).standard_normal((8, 40))
                                       .astype(np.float32)))

    def loss_fn(x):
        return (mint.relu(x @ w) * 0.5 - 1.0).square().sum()
    grad_fn = tandem.value_and_grad(loss_fn, None, [w])

    def step(x):
        loss, (g,) = grad_fn(x)
        return loss, g
    x = tandem.tensor(np.random.default_rng(6).standard_normal((300, 8)).astype(np.float32))
    compiled, eager, native, interp = run_three(step, x)
    assert "relu_backward" in compiled.explain(x)
    for e, a, b in zip(eager, native, interp):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)
        assert same_bits(a, b)


@needs_native
@pytest.mark.parametrize("n", LENGTHS)
def test_binary_calls_and_calls_between_live_values(n):
    """A binary op called out (atan2) while other values live in registers across it."""
    def fn(x, y):
        a = x * 3.0
        b = y + x
        return mint.atan2(a, b) * a + b * mint.exp(a * 0.1)
    x, y = tandem.tensor(sample(n, 11)), tandem.tensor(sample(n, 12))
    compiled, eager, native, interp = run_three(fn, x, y)
    assert "native=True" in compiled.explain(x, y)
    for e, a, b in zip(eager, native, interp):
        assert same_bits(a, e) and same_bits(b, e)


def test_programs_outside_the_generator_fall_back_to_the_interpreter():
    def scalar_only(x):  # maximum has only a scalar form: interpreted, still exact
        return mint.maximum(x * 2.0, x + 1.0) - x

    def many_constants(x):  # 40 constants pinned in registers do not fit in 32
        out = x * 1.0
        for k in range(40):
            out = out + x * (1.0 + k / 64)
        return out
    x = tandem.tensor(sample(1000, 7))
    for fn in (scalar_only, many_constants):
        compiled = jit(fn)
        assert "native=False" in compiled.explain(x)
        assert same_bits(compiled(x).numpy(), fn(x).numpy())


def test_float64_programs_are_interpreted():
    x = tandem.tensor(sample(100, 8).astype(np.float64))
    compiled = jit(lambda x: mint.tanh(x) * 2.0 + x)
    assert "native=False" in compiled.explain(x)
    np.testing.assert_array_equal(compiled(x).numpy(), (mint.tanh(x) * 2.0 + x).numpy())


@pytest.mark.parametrize("codegen", [True, False])
def test_state_update_written_early_in_a_fused_kernel_does_not_clobber_later_reads(codegen):
    """t = s * 2 is written back into s, but the same fused kernel still reads the old s
    after computing t: t must not be stored into s's buffer in place."""
    def step(x, s):
        t = s * 2.0
        u = t + x
        v = s - u  # reads the old s after t is computed
        s.mul_(2.0)  # the same value as t (CSE): t is what is written back
        return v

    x = tandem.tensor(sample(1000, 21))
    init = sample(1000, 22)
    s_e, s_g = tandem.tensor(init.copy()), tandem.tensor(init.copy())
    compiled = jit(lambda x: step(x, s_g))
    _C.set_fused_codegen(codegen)
    try:
        for _ in range(3):
            assert same_bits(compiled(x).numpy(), step(x, s_e).numpy())
            assert same_bits(s_g.numpy(), s_e.numpy())
    finally:
        _C.set_fused_codegen(True)
    assert "fused_elementwise" in compiled.explain(x)
