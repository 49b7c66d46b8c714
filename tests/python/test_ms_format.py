"""Printed forms as MindSpore documents them: str(tensor) is numpy's, repr(tensor) is
``Tensor(shape=[..], dtype=Name, value=...)`` with 8-digit scientific floats, dtypes print by
their type names, Parameters and Cells print in MindSpore's layouts."""
import numpy as np

import tandem
from tandem import nn

T = tandem


def test_dtype_names():
    assert [str(d) for d in (T.float32, T.float16, T.int32, T.int64, T.bool_, T.uint8)] == \
        ["Float32", "Float16", "Int32", "Int64", "Bool", "UInt8"]
    assert f"{T.Tensor([1.0]).dtype}" == "Float32"


def test_str_is_numpy():
    assert str(T.Tensor([1, 0, 1, 0])) == "[1 0 1 0]"
    assert str(T.Tensor([4.0, 2.5, 2.0])) == "[4.  2.5 2. ]"
    assert str(T.Tensor(np.float32(3.0))) == "3.0"
    a = np.random.rand(3, 20).astype(np.float32)
    assert str(T.Tensor(a)) == str(a)
    big = np.arange(2000, dtype=np.float32)
    assert str(T.Tensor(big)) == str(big) and "..." in str(T.Tensor(big))
    assert f"{T.Tensor([1.0, 2.0])}" == "[1. 2.]"
    assert f"{T.Tensor(0.1234567):.3f}" == "0.123"


def test_repr_is_mindspores():
    assert repr(T.Tensor([2, 4]).int()) == "Tensor(shape=[2], dtype=Int32, value= [2, 4])"
    assert repr(T.Tensor(np.array(2, np.int32))) == "Tensor(shape=[], dtype=Int32, value= 2)"
    assert repr(T.Tensor(np.ones(2))) == \
        "Tensor(shape=[2], dtype=Float64, value= [ 1.00000000e+00,  1.00000000e+00])"
    g = np.full((2, 3), 0.32618925, np.float32)
    g[1, 2] = -1.5
    assert repr(T.Tensor(g)) == (
        "Tensor(shape=[2, 3], dtype=Float32, value=\n"
        " [[ 3.26189250e-01,  3.26189250e-01,  3.26189250e-01],\n"
        "  [ 3.26189250e-01,  3.26189250e-01, -1.50000000e+00]])")
    rows = [repr(t) for t in (T.Tensor([True, False]),)]
    assert rows == ["Tensor(shape=[2], dtype=Bool, value= [ True, False])"]


def test_tuple_of_tensors_prints_reprs():
    out = str((T.Tensor(np.zeros(1, np.float32)),))
    assert out == "(Tensor(shape=[1], dtype=Float32, value= [ 0.00000000e+00]),)"


def test_parameter_repr():
    p = T.Parameter(T.Tensor(np.zeros((5, 3), np.float32)), name="w")
    assert repr(p) == "Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)"
    q = T.Parameter([1, 2, 3], name="ints")  # MindSpore allows integer Parameters
    assert q.dtype == T.int64 and not q.requires_grad
    assert repr(q) == "Parameter (name=ints, shape=(3,), dtype=Int64, requires_grad=True)"
    r = T.Parameter(T.Tensor([1.0]), name="frozen", requires_grad=False)
    assert "requires_grad=False" in repr(r)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.body = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2, has_bias=False))

    def construct(self, x):
        return self.body(self.flatten(x))


def test_cell_repr_mindspore_layout():
    assert repr(_Net()) == (
        "_Net<\n"
        "  (flatten): Flatten<>\n"
        "  (body): SequentialCell<\n"
        "    (0): Dense<input_channels=4, output_channels=3, has_bias=True>\n"
        "    (1): ReLU<>\n"
        "    (2): Dense<input_channels=3, output_channels=2, has_bias=False>\n"
        "    >\n"
        "  >")


def test_pytorch_style_module_keeps_pytorch_layout():
    from tandem import mint

    class M(mint.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = mint.nn.Linear(2, 2)

        def forward(self, x):
            return self.fc(x)

    assert repr(M()).startswith("M(\n  (fc): Linear(")
