"""@jit keeps eager semantics for state: methods bind their instance, in-place writes to
arguments reach the caller, aliased arguments compute what eager computes, and rebinding a
captured global / closure variable or replacing a Parameter retraces instead of reusing
stale values."""
import gc
import warnings
import weakref

import numpy as np
import pytest

import tandem
from tandem import jit, mint, nn


def _eq(a, b):
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_jit_on_a_cell_method_binds_the_instance():
    class Net(nn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.fc = nn.Dense(3, 2)
            self.scale = scale

        @jit
        def construct(self, x):
            return self.fc(x) * self.scale

    a, b = Net(1.0), Net(2.0)
    x = mint.ones(4, 3)
    for _ in range(2):
        _eq(a(x), a.fc(x))
        _eq(b(x), b.fc(x) * 2.0)
    assert a.construct is a.construct and a.construct is not b.construct
    assert len(a.construct._cache) == 1
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None  # the per-instance cache does not keep the instance alive


def test_inplace_writes_to_arguments_reach_the_caller():
    def f(x, y):
        x.add_(y)
        x[0] = -1.0
        return x * 2

    g = jit(f)
    xe, xc = mint.zeros(3), mint.zeros(3)
    y = mint.arange(3, dtype=tandem.float32)
    for _ in range(3):
        _eq(g(xc, y), f(xe, y))
        _eq(xc, xe)
    assert g._cache.num_direct() == 1  # still served from C++


def test_aliased_arguments_compute_what_eager_computes():
    def f(a, b):
        a.mul_(2)
        return a + b

    g = jit(f)
    for _ in range(2):
        xe, xc = mint.ones(3), mint.ones(3)
        _eq(g(xc, xc), f(xe, xe))  # 2 + 2, not 2 + 1
        _eq(xc, xe)
    u, v = mint.ones(3), mint.ones(3)
    _eq(g(u, v), mint.full((3,), 3.0))  # not aliased: its own entry
    base_e, base_c = mint.arange(5, dtype=tandem.float32), mint.arange(5, dtype=tandem.float32)
    with pytest.warns(UserWarning, match="overlap in memory"):
        out = g(base_c[:3], base_c[1:4])
    _eq(out, f(base_e[:3], base_e[1:4]))
    _eq(base_c, base_e)


W = mint.ones(2)


def test_rebinding_a_captured_global_retraces():
    global W
    W = mint.ones(2)
    f = jit(lambda x: x * W)
    x = mint.ones(2)
    _eq(f(x), mint.ones(2))
    W = mint.full((2,), 5.0)
    _eq(f(x), mint.full((2,), 5.0))
    _eq(f(x), mint.full((2,), 5.0))
    assert len(f._cache) == 2


def test_rebinding_a_closure_variable_retraces():
    scale = mint.ones(2)

    def step(x):
        return x * scale

    f = jit(step)
    _eq(f(mint.ones(2)), mint.ones(2))
    scale = mint.full((2,), 3.0)  # noqa: F841 - read by step through its closure
    _eq(f(mint.ones(2)), mint.full((2,), 3.0))


def test_replacing_a_parameter_retraces_and_set_data_is_seen():
    tandem.manual_seed(0)
    net = nn.Dense(2, 1)
    f = jit(lambda x: net(x))
    x = mint.ones(3, 2)
    _eq(f(x), net(x))
    net.weight = tandem.Parameter(mint.zeros(1, 2))  # a new object: retrace
    _eq(f(x), net(x))
    net.weight.set_data(mint.full((1, 2), 4.0))  # same object, new values: read by reference
    _eq(f(x), net(x))
    net.weight.set_data(mint.ones(1, 3))  # a new shape: the graph no longer fits, retrace
    _eq(f(mint.ones(3, 3)), net(mint.ones(3, 3)))


def test_state_tests_leave_no_unexpected_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = jit(lambda x: x + 1)
        f(mint.ones(2))
        f(mint.ones(2))
