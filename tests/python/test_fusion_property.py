"""Property test of elementwise fusion: random DAGs of elementwise ops over broadcasting
inputs, returning random intermediates (so fused kernels get several outputs and values
read both inside and outside a group), compiled with @jit and compared with eager mode bit
for bit, with the generated fused kernels and with the interpreter."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tandem
from tandem import jit, mint

UNARY = {
    "neg": lambda a: -a,
    "tanh": mint.tanh,
    "relu": mint.relu,
    "exp": lambda a: mint.exp(mint.clamp(a, -20.0, 20.0)),
    "sigmoid": mint.sigmoid,
    "square": mint.square,
    "abs": mint.abs,
    "scale": lambda a: a * 0.75 + 0.5,
    # identities the simplifier removes only where exact (-0.0 + 0.0 is +0.0)
    "add_zero": lambda a: a + 0.0,
    "sub_zero": lambda a: a - 0.0,
    "mul_one": lambda a: a * 1.0,
    "neg_neg": lambda a: -(-a),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (mint.abs(b) + 1.0),
    "maximum": mint.maximum,
}
SHAPES = [(6, 5), (1, 5), (6, 1), (5,), ()]


@st.composite
def programs(draw):
    n_in = draw(st.integers(1, 3))
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(n_in)]
    shapes[0] = (6, 5)  # at least one full-size input
    ops = []
    for k in range(draw(st.integers(1, 10))):
        avail = n_in + k
        if draw(st.booleans()):
            ops.append(("u", draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, avail - 1))))
        else:
            ops.append(("b", draw(st.sampled_from(sorted(BINARY))),
                        draw(st.integers(0, avail - 1)), draw(st.integers(0, avail - 1))))
    total = n_in + len(ops)
    outs = draw(st.lists(st.integers(n_in, total - 1), min_size=1, max_size=4, unique=True))
    if total - 1 not in outs:
        outs.append(total - 1)
    return shapes, ops, outs


def build(ops, outs):
    def fn(*xs):
        vals = list(xs)
        for op in ops:
            if op[0] == "u":
                vals.append(UNARY[op[1]](vals[op[2]]))
            else:
                vals.append(BINARY[op[1]](vals[op[2]], vals[op[3]]))
        return tuple(vals[i] for i in outs)
    return fn


def same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and
                np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32)))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**16))
def test_random_elementwise_graphs_compile_to_eager_results(prog, seed):
    shapes, ops, outs = prog
    rng = np.random.default_rng(seed)
    xs = [np.array(rng.standard_normal(s) * 2, dtype=np.float32) for s in shapes]
    for x in xs:  # signed zeros, so that sign-of-zero rules are exercised
        x[rng.random(x.shape) < 0.2] = -0.0
    xs = [tandem.tensor(x) for x in xs]
    fn = build(ops, outs)
    eager = [o.numpy() for o in fn(*xs)]
    compiled = jit(fn)
    native = [o.numpy() for o in compiled(*xs)]
    tandem._C.set_fused_codegen(False)
    try:
        interp = [o.numpy() for o in compiled(*xs)]
    finally:
        tandem._C.set_fused_codegen(True)
    again = [o.numpy() for o in compiled(*xs)]  # the C++ fast path on a repeat call
    for e, a, b, c in zip(eager, native, interp, again):
        assert same(a, e) and same(b, e) and same(c, e), (shapes, ops, outs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**16), st.sampled_from(["add_", "copy_", "mul_"]),
       st.sampled_from([np.float32, np.float64]))
def test_random_graphs_updating_captured_state_match_eager(prog, seed, how, dtype):
    """The same DAGs also update two captured state tensors in place (written back after
    each call, in place where the planner allows, possibly by an early output of a fused
    kernel) over three calls: states and results equal eager mode's, float32 and float64."""
    shapes, ops, outs = prog
    rng = np.random.default_rng(seed)
    xs = [tandem.tensor(np.array(rng.standard_normal(s), dtype=dtype)) for s in shapes]
    init = [np.array(rng.standard_normal((6, 5)), dtype=dtype) for _ in range(2)]
    inner = build(ops, outs)

    def run(compiled):
        states = [tandem.tensor(v.copy()) for v in init]

        def step(*args):
            vals = inner(*(args[:1] + (args[0] * 0.5 + states[0],) + args[2:])
                         if len(args) > 1 else (args[0] + states[1],))
            first = vals[0] if vals[0].shape == states[0].shape else vals[0] + states[0]
            getattr(states[0], how)(mint.tanh(first))
            states[1].add_(first * 0.25)
            return vals
        f = jit(step) if compiled else step
        results = [[o.numpy() for o in f(*xs)] for _ in range(3)]
        return results, [s.numpy() for s in states]

    (er, es), (gr, gs) = run(False), run(True)
    for a, b in zip(es, gs):
        assert same(a, b) if dtype == np.float32 else np.array_equal(a, b), (shapes, ops, how)
    for ra, rb in zip(er, gr):
        for a, b in zip(ra, rb):
            assert same(a, b) if dtype == np.float32 else np.array_equal(a, b, equal_nan=True)
