"""Result dtypes of elementwise ops against PyTorch's type-promotion rules, written out here
as tables (torch is not imported): tensors with dims outrank 0-d tensors, which outrank
Python numbers, and a lower-priority operand only counts when it is of a higher category
(bool < integer < floating)."""
import itertools

import numpy as np
import pytest

import tandem
from tandem import mint

T = tandem
ORDER = [T.bool, T.uint8, T.int8, T.int16, T.int32, T.int64, T.float16, T.bfloat16, T.float32,
         T.float64]
NAMES = ["b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"]
BY_NAME = dict(zip(NAMES, ORDER))

# torch.promote_types(row, column), for every pair (symmetric).
PROMOTE_TABLE = """
      b    u8   i8   i16  i32  i64  f16  bf16 f32  f64
b     b    u8   i8   i16  i32  i64  f16  bf16 f32  f64
u8    u8   u8   i16  i16  i32  i64  f16  bf16 f32  f64
i8    i8   i16  i8   i16  i32  i64  f16  bf16 f32  f64
i16   i16  i16  i16  i16  i32  i64  f16  bf16 f32  f64
i32   i32  i32  i32  i32  i32  i64  f16  bf16 f32  f64
i64   i64  i64  i64  i64  i64  i64  f16  bf16 f32  f64
f16   f16  f16  f16  f16  f16  f16  f16  f32  f32  f64
bf16  bf16 bf16 bf16 bf16 bf16 bf16 f32  bf16 f32  f64
f32   f32  f32  f32  f32  f32  f32  f32  f32  f32  f64
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  f64
"""


def _parse(table):
    rows = [line.split() for line in table.strip().splitlines()]
    header = rows[0]
    out = {}
    for row in rows[1:]:
        for col, val in zip(header, row[1:]):
            out[(BY_NAME[row[0]], BY_NAME[col])] = BY_NAME[val]
    return out


PROMOTE = _parse(PROMOTE_TABLE)
PAIRS = list(itertools.product(ORDER, ORDER))
FLOATS = {T.float16, T.bfloat16, T.float32, T.float64}


def ones(shape, dt):
    return mint.ones(*shape, dtype=dt) if shape else mint.tensor(1, dtype=dt)


def test_table_is_symmetric():
    for a, b in PAIRS:
        assert PROMOTE[(a, b)] == PROMOTE[(b, a)]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{x}-{y}" for x, y in PAIRS])
def test_tensor_tensor(a, b):
    """Two tensors of the same class (both with dims, or both 0-d) promote by the table."""
    exp = PROMOTE[(a, b)]
    x, y = ones((2, 3), a), ones((3,), b)
    assert (x + y).dtype == exp
    assert mint.mul(x, y).dtype == exp
    assert mint.maximum(x, y).dtype == exp
    assert mint.where(mint.ones(3, dtype=T.bool), x, y).dtype == exp
    assert (ones((), a) * ones((), b)).dtype == exp
    assert (x == y).dtype == T.bool
    # True division and the float ops: integers and bool compute in float32.
    assert (x / y).dtype == (exp if exp in FLOATS else T.float32)
    assert mint.atan2(x, y).dtype == (exp if exp in FLOATS else T.float32)


# (dims-tensor dtype, 0-d tensor dtype) -> result, per combine_categories.
DIMS_VS_ZERO_D = [
    ("i32", "i64", "i32"),    # same category: the dims tensor wins
    ("i8", "i64", "i8"),
    ("u8", "i8", "u8"),
    ("i64", "u8", "i64"),
    ("f16", "f64", "f16"),    # README: float16_tensor + float64_scalar_tensor stays float16
    ("bf16", "f32", "bf16"),
    ("f32", "f64", "f32"),
    ("f16", "i64", "f16"),
    ("b", "i32", "i32"),      # higher category in the 0-d tensor: promote
    ("b", "u8", "u8"),
    ("b", "f64", "f64"),
    ("i32", "f64", "f64"),
    ("i64", "f16", "f16"),
    ("u8", "bf16", "bf16"),
    ("i16", "f32", "f32"),
    ("i32", "b", "i32"),
    ("f32", "b", "f32"),
]


@pytest.mark.parametrize("dims,zero_d,exp", DIMS_VS_ZERO_D)
def test_dims_tensor_beats_zero_d_tensor(dims, zero_d, exp):
    d, z, e = BY_NAME[dims], BY_NAME[zero_d], BY_NAME[exp]
    x, s = ones((4,), d), ones((), z)
    assert (x + s).dtype == e
    assert (s + x).dtype == e
    assert mint.mul(s, x).dtype == e
    assert mint.where(mint.tensor([True] * 4), x, s).dtype == e
    assert mint.where(mint.tensor([True] * 4), s, x).dtype == e


# (tensor dtype, Python number) -> result; a Python float counts as the default float32.
TENSOR_VS_NUMBER = [
    ("i64", 0.5, "f32"),      # int tensor + 0.5 -> float32 (not float64)
    ("i32", 0.5, "f32"),
    ("u8", 2.5, "f32"),
    ("b", 2.5, "f32"),
    ("i8", 1000, "i8"),       # no value-based promotion
    ("u8", -1, "u8"),
    ("i32", 7, "i32"),
    ("b", 1, "i64"),          # bool tensor + int: the int category wins, as int64
    ("b", True, "b"),
    ("f16", 1.5, "f16"),
    ("bf16", 1e10, "bf16"),
    ("f16", 3, "f16"),
    ("f64", 0.5, "f64"),
    ("f32", 2, "f32"),
    ("i16", True, "i16"),
    ("f32", False, "f32"),
]


@pytest.mark.parametrize("shape", [(3,), ()], ids=["dims", "0-d"])
@pytest.mark.parametrize("dt,num,exp", TENSOR_VS_NUMBER,
                         ids=[f"{d}-{n!r}" for d, n, _ in TENSOR_VS_NUMBER])
def test_tensor_beats_python_number(dt, num, exp, shape):
    x, e = ones(shape, BY_NAME[dt]), BY_NAME[exp]
    assert (x * num).dtype == e
    assert (num * x).dtype == e
    assert mint.mul(x, num).dtype == e
    assert mint.maximum(num, x).dtype == e
    if e != T.bool:
        assert (x + num).dtype == e
        assert (num - x).dtype == e
    if (dt, num) == ("i8", 1000):  # where stores the number, which must fit (torch checks)
        with pytest.raises(ValueError, match="without overflow"):
            mint.where(mint.tensor(True), x, num)
    else:
        assert mint.where(mint.tensor(True), x, num).dtype == e
    assert (x < num).dtype == T.bool


# (0-d tensor dtype, Python number) -> result.
ZERO_D_VS_NUMBER = [
    ("i32", 0.5, "f32"),
    ("f64", 0.5, "f64"),
    ("f16", 0.5, "f16"),
    ("i32", 5, "i32"),
    ("b", 5, "i64"),
    ("u8", 300, "u8"),
]


@pytest.mark.parametrize("dt,num,exp", ZERO_D_VS_NUMBER)
def test_zero_d_tensor_beats_python_number(dt, num, exp):
    assert (ones((), BY_NAME[dt]) + num).dtype == BY_NAME[exp]


def test_three_classes_together():
    """dims int8 + 0-d int64 + Python float: the float number lifts the category, and the
    result is the default float type, not float64."""
    x = mint.ones(3, dtype=T.int8)
    z = mint.tensor(1, dtype=T.int64)
    assert mint.addcmul(x, z, x, value=1).dtype == T.int8
    assert mint.where(mint.tensor([True, False, True]), x, z).dtype == T.int8
    assert mint.lerp(mint.ones(3, dtype=T.float16), mint.tensor(2.0, dtype=T.float64),
                     0.5).dtype == T.float16
    assert mint.addcdiv(mint.ones(3, dtype=T.int32), z, z, value=1).dtype == T.float32
    assert (x + z + 0.5).dtype == T.float32
    assert (x + mint.tensor(0.5, dtype=T.float64)).dtype == T.float64


@pytest.mark.parametrize("dt", ORDER, ids=str)
def test_division_and_float_unary(dt):
    """int / int is true division in float32; float ops on ints and bool give float32."""
    x = ones((2,), dt)
    fexp = dt if dt in FLOATS else T.float32
    assert (x / x).dtype == fexp
    assert (x / 2).dtype == fexp
    assert mint.true_divide(x, x).dtype == fexp
    for op in ("sqrt", "exp", "log", "sin", "sigmoid", "tanh", "erf", "rsqrt"):
        assert getattr(mint, op)(x).dtype == fexp, op
    assert mint.isnan(x).dtype == T.bool
    if dt != T.bool:
        assert mint.abs(x).dtype == dt
        assert mint.neg(x).dtype == dt
        assert (x // x).dtype == dt
        assert mint.div(x, x, rounding_mode="floor").dtype == dt
        assert mint.div(x, x, rounding_mode="trunc").dtype == dt


def test_readme_examples():
    assert (mint.tensor([1, 2]) + 0.5).dtype == T.float32
    assert (mint.tensor([1, 2]) / 2).dtype == T.float32
    assert (mint.tensor([1, 2]) / mint.tensor([3, 4])).dtype == T.float32
    u8 = mint.tensor([1], dtype=T.uint8)
    i8 = mint.tensor([1], dtype=T.int8)
    assert (u8 + i8).dtype == T.int16
    f16 = mint.tensor([1.0], dtype=T.float16)
    assert (f16 + mint.tensor(2.0, dtype=T.float64)).dtype == T.float16
    assert (mint.tensor([1.0], dtype=T.bfloat16) + f16).dtype == T.float32


def test_default_dtype_drives_float_promotion():
    """With set_default_dtype(float64), Python floats and int / int become float64."""
    i = mint.tensor([1, 2])
    try:
        tandem.set_default_dtype(T.float64)
        assert (i + 0.5).dtype == T.float64
        assert (i / i).dtype == T.float64
        assert mint.sqrt(i).dtype == T.float64
        assert (mint.ones(2, dtype=T.float32) + 0.5).dtype == T.float32  # tensors still win
        assert (mint.ones(2, dtype=T.float16) * 2.0).dtype == T.float16
        assert mint.clamp(i, 0.5).dtype == T.float64
    finally:
        tandem.set_default_dtype(T.float32)
    assert (i + 0.5).dtype == T.float32 and (i / i).dtype == T.float32


def test_promoted_values_are_exact():
    """Promotion converts before computing: uint8 200 + int8 -100 is 100 in int16, and a
    large int64 + 0.5 rounds once, in float32."""
    u8 = mint.tensor([200, 255], dtype=T.uint8)
    i8 = mint.tensor([-100, -1], dtype=T.int8)
    np.testing.assert_array_equal((u8 + i8).numpy(), np.array([100, 254], dtype=np.int16))
    np.testing.assert_array_equal((u8 > i8).numpy(), [True, True])
    big = mint.tensor([2 ** 40 + 1])
    assert (big + 0.5).dtype == T.float32
    assert (big + 0.5).item() == float(np.float32(2 ** 40 + 1.5))
    assert (mint.tensor([3]) * 2 ** 40).item() == 3 * 2 ** 40  # no float detour for ints


# In-place ops keep self's dtype; the promoted result must be castable to it
# (PyTorch's canCast: no float -> integer, no non-bool -> bool).
INPLACE = [
    ("i64", "f32", TypeError),
    ("i32", 0.5, TypeError),
    ("b", "i64", TypeError),
    ("b", 1, TypeError),
    ("u8", "f16", TypeError),
    ("i32", "i64", None),     # same category narrowing is allowed
    ("f16", "f64", None),
    ("f32", "i64", None),
    ("i8", "u8", None),
    ("i64", 3, None),
    ("f64", 0.5, None),
    ("b", True, None),
]


@pytest.mark.parametrize("self_dt,other,err", INPLACE, ids=[f"{a}-{b}" for a, b, _ in INPLACE])
def test_inplace_keeps_dtype_or_raises(self_dt, other, err):
    x = ones((3,), BY_NAME[self_dt])
    y = ones((3,), BY_NAME[other]) if isinstance(other, str) else other
    before = id(x)
    if err is not None:
        with pytest.raises(err):
            x += y
        with pytest.raises(err):
            x.mul_(y)
        return
    x += y
    assert id(x) == before and x.dtype == BY_NAME[self_dt]
    x.mul_(y)
    assert x.dtype == BY_NAME[self_dt]


def test_int_inplace_true_division_raises():
    x = mint.tensor([4, 6])
    with pytest.raises(TypeError):
        x /= 2
    with pytest.raises(TypeError):
        x.div_(mint.tensor([2, 3]))
    x //= 2
    assert x.dtype == T.int64 and x.tolist() == [2, 3]


def test_comparisons_and_logical_always_bool():
    for a, b in [(T.uint8, T.int8), (T.float16, T.int64), (T.bool, T.float64)]:
        x, y = ones((2,), a), ones((2,), b)
        for op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                   "logical_xor", "isclose"):
            assert getattr(mint, op)(x, y).dtype == T.bool, op
    assert mint.logical_not(mint.ones(2)).dtype == T.bool


def test_rejections_by_category():
    f, i, b = mint.ones(2), mint.ones(2, dtype=T.int64), mint.ones(2, dtype=T.bool)
    with pytest.raises(TypeError):
        f & f
    with pytest.raises(TypeError):
        f << i
    with pytest.raises(TypeError):
        b - b
    with pytest.raises(TypeError):
        -b
    with pytest.raises(TypeError):
        mint.hypot(i, i)
    with pytest.raises(TypeError):
        mint.frac(i)
    assert (i & b).dtype == T.int64
    assert (b - i).dtype == T.int64
