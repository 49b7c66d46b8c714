"""Data-dependent Python under @jit: conditions, loops, int()/item() reads and print compile
(specialized behind guards, one path per branch taken) and compute what eager computes,
call after call; a guard that fails never leaves state half-written."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tandem
from tandem import jit, mint, nn


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, tandem.Tensor):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    else:
        assert a == b


def test_if_on_a_tensor_takes_each_branch_like_eager():
    def f(x):
        y = x * 2
        if y.sum() > 0:
            return y + 1
        return y - 1

    g = jit(f)
    for v in (1.0, -1.0, 2.0, -3.0, 0.5):
        _same(g(mint.full((3,), v)), f(mint.full((3,), v)))
    assert len(g._cache) == 2


def test_while_loop_on_a_tensor_condition_and_int_reads():
    def f(x, y):
        n = 0
        while (x > y).any():
            x = x - 1
            n += 1
        return x, int(x.sum()) + n

    g = jit(f)
    for v in (3.0, 5.0, 3.0, 0.0):
        _same(g(mint.full((2,), v), mint.zeros(2)), f(mint.full((2,), v), mint.zeros(2)))


def test_item_and_numpy_reads_as_loop_bounds():
    def f(x, k):
        out = x
        for _ in range(int(k.item())):
            out = out * 2
        return out + float(len(k.numpy().reshape(-1)))

    g = jit(f)
    x = mint.ones(3)
    for k in (2, 3, 2):
        _same(g(x, mint.tensor(k)), f(x, mint.tensor(k)))


def test_print_inside_jit_prints_every_call_in_program_order(capsys):
    def f(x):
        y = x + 1
        print("y =", y)
        z = y * 2
        print("z sum", z.sum(), "done")
        return z

    g = jit(f)
    x = mint.arange(3, dtype=tandem.float32)
    f(x)
    eager = capsys.readouterr().out
    for _ in range(3):
        g(x)
        assert capsys.readouterr().out == eager
    x2 = x + 10
    f(x2)
    eager2 = capsys.readouterr().out
    g(x2)  # the same graph, printing the new values
    assert capsys.readouterr().out == eager2
    assert "print" in g.explain(x)


def test_a_failed_guard_writes_nothing_back():
    """The in-place update happens before the branch: on the call whose guard fails the
    first path's write-back must not land, or the state would be updated twice."""
    state = mint.zeros(())

    def f(x):
        state.add_(1)
        if x.sum() > 0:
            return x * state
        return x - state

    g = jit(f)
    ref = mint.zeros(())
    for v in (1.0, -1.0, 1.0, -1.0, -1.0):
        x = mint.full((2,), v)
        got = g(x)
        state_after = float(state)
        state.fill_(float(ref))
        want = f(x)
        ref = state.clone()
        state.fill_(state_after)
        _same(got, want)
        assert state_after == float(ref)


def test_reads_after_random_draws_match_eager():
    def f(x):
        y = x + mint.randn(4)
        if y.mean() > 0:
            return y * 2
        return y

    g = jit(f)
    for seed in range(4):
        tandem.manual_seed(seed)
        want = f(mint.zeros(4))
        tandem.manual_seed(seed)
        _same(g(mint.zeros(4)), want)


def test_too_many_paths_warn_then_run_eagerly():
    def f(x):
        return x * int(x.sum())  # a different value every call

    g = jit(f, max_paths=3)
    with pytest.warns(UserWarning, match="max_paths"):
        for v in range(1, 6):
            _same(g(mint.full((2,), float(v))), f(mint.full((2,), float(v))))
    assert len(g._cache) == 3


def test_a_cell_method_with_a_branch():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)

        @jit
        def construct(self, x):
            y = self.fc(x)
            if y.max() > 0:
                y = mint.nn.functional.relu(y)
            return y

    tandem.manual_seed(0)
    net = Net()
    for v in (1.0, -1.0, 3.0):
        x = mint.full((2, 3), v)
        _same(net(x), Net.construct._fn(net, x))


# --- generated programs ----------------------------------------------------------------------

_OPS = ["add", "mul", "sub", "neg", "relu", "tanh"]


@st.composite
def _programs(draw):
    steps = draw(st.lists(st.tuples(st.sampled_from(_OPS + ["if", "while", "print", "inplace"]),
                                    st.floats(-2, 2, allow_nan=False, width=32)),
                          min_size=1, max_size=8))
    return steps


def _run(steps, x, out):
    """Interprets a generated program; `out` collects what print would show."""
    y = x
    for op, c in steps:
        if op == "add":
            y = y + c
        elif op == "mul":
            y = y * c
        elif op == "sub":
            y = y - x
        elif op == "neg":
            y = -y
        elif op == "relu":
            y = mint.nn.functional.relu(y)
        elif op == "tanh":
            y = mint.tanh(y)
        elif op == "if":
            if y.sum() > c:
                y = y * 0.5
            else:
                y = y + 1.0
        elif op == "while":
            n = 0
            while (y.abs().max() > 4.0) and n < 5:
                y = y * 0.5
                n += 1
        elif op == "print":
            print("y", y)
        elif op == "inplace":
            x.add_(c)
    return y


@settings(max_examples=40, deadline=None)
@given(_programs(), st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=3, max_size=3))
def test_generated_programs_compiled_equal_eager(steps, values):
    xe = mint.tensor(values)
    xc = mint.tensor(values)
    g = jit(lambda x: _run(steps, x, None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a program may exceed max_paths)
        for _ in range(3):
            want = _run(steps, xe, None)
            got = g(xc)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            np.testing.assert_array_equal(xc.numpy(), xe.numpy())


# --- functional forms and graph-mode helpers ------------------------------------------------

def test_cond_is_one_graph_for_both_branches():
    def f(x):
        return tandem.ops.cond(x.sum() > 0, lambda a: a * 2, lambda a: a - 1, (x,))

    g = jit(f)
    for v in (1.0, -1.0, 2.0, -2.0):
        _same(g(mint.full((3,), v)), f(mint.full((3,), v)))
    assert len(g._cache) == 1  # no guard: one graph serves both


def test_while_loop_and_vmap_and_partial():
    def f(x):
        (y, n) = mint.while_loop(lambda y, n: (y > 1).any(), lambda y, n: (y * 0.5, n + 1),
                                 (x, mint.zeros(())))
        return y, n

    g = jit(f)
    for v in (3.0, 10.0):
        _same(g(mint.full((2,), v)), f(mint.full((2,), v)))
    batched = tandem.vmap(lambda a, b: (a * b).sum(), in_axes=(0, None))
    x, w = mint.randn(5, 3), mint.randn(3)
    _same(batched(x, w), (x * w).sum(dim=1))
    _same(jit(batched)(x, w), batched(x, w))
    add3 = tandem.ops.partial(mint.add, other=3)
    _same(add3(mint.ones(2)), mint.full((2,), 4.0))


def test_jit_class_instances_inside_jit():
    @tandem.jit_class
    class Config:
        def __init__(self):
            self.scale = 3.0
            self.bias = mint.ones(2)

    cfg = Config()
    g = jit(lambda x: x * cfg.scale + cfg.bias)
    _same(g(mint.ones(2)), mint.full((2,), 4.0))
    with pytest.raises(TypeError, match="is a Cell"):
        tandem.jit_class(nn.Dense)


def test_ops_print_prints_at_run_time(capsys):
    p = tandem.ops.Print()
    g = jit(lambda x: (p("x:", x), x + 1)[1])
    for _ in range(2):
        g(mint.ones(2))
    out = capsys.readouterr().out
    assert out.count("x:") == 2


def test_a_guarded_function_may_return_a_constant_tensor():
    """MindSpore's builtin-functions tutorial returns tandem.tensor(d) next to max(tensor),
    whose comparisons guard the path; the joined guarded graph used to drop the captured
    constant that no node reads ('graph verify: output is not defined')."""
    @tandem.jit
    def f():
        return tandem.tensor(4), max(tandem.tensor([1, 3, 2]))

    a, b = f()
    assert int(a) == 4 and int(b) == 3
    a, b = f()  # the compiled path
    assert int(a) == 4 and int(b) == 3
