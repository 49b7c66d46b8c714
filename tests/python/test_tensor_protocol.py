"""The Python face of Tensor: operators (reflected and in-place), the number protocol,
sequences, repr / format, metadata, copies and in-place fills, dtype conversion, numpy
interop and tensor construction."""
import operator

import numpy as np
import pytest

import tandem
from tandem import mint

T = tandem


def arr(t):
    return t.numpy()


# --- operators ----------------------------------------------------------------------------------

BINOPS = [
    (operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
    (operator.truediv, np.true_divide), (operator.floordiv, np.floor_divide),
    (operator.mod, np.remainder), (operator.pow, np.power),
]


@pytest.mark.parametrize("op,ref", BINOPS, ids=[o.__name__ for o, _ in BINOPS])
def test_binary_operators_and_reflected(op, ref):
    a = np.array([[1.5, 2.0, 3.0], [4.0, 5.5, 6.0]], dtype=np.float32)
    b = np.array([2.0, 0.5, 3.0], dtype=np.float32)
    ta, tb = mint.tensor(a), mint.tensor(b)
    np.testing.assert_allclose(arr(op(ta, tb)), ref(a, b), rtol=1e-6)
    np.testing.assert_allclose(arr(op(ta, 2)), ref(a, np.float32(2)), rtol=1e-6)
    np.testing.assert_allclose(arr(op(3, ta)), ref(np.float32(3), a), rtol=1e-6)
    np.testing.assert_allclose(arr(op(2.5, tb)), ref(np.float32(2.5), b), rtol=1e-6)
    # numpy arrays on the left defer to the tensor (its __array_priority__).
    out = op(np.float32(2.0) * np.ones(3, np.float32), tb)
    assert isinstance(out, tandem.Tensor)
    np.testing.assert_allclose(arr(out), ref(np.full(3, 2, np.float32), b), rtol=1e-6)


INPLACE = [("__iadd__", np.add), ("__isub__", np.subtract), ("__imul__", np.multiply),
           ("__itruediv__", np.true_divide), ("__ifloordiv__", np.floor_divide),
           ("__imod__", np.remainder), ("__ipow__", np.power)]


@pytest.mark.parametrize("name,ref", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_operators_keep_identity(name, ref):
    a = np.array([[1.5, 2.0, 3.0], [4.0, 5.5, 6.0]], dtype=np.float32)
    t = mint.tensor(a)
    view = t[1]  # a view: the in-place op must write through to t
    alias = t
    ident = id(t)
    out = getattr(t, name)(mint.tensor([2.0, 0.5, 3.0]))
    assert out is t and id(t) == ident and alias is t
    np.testing.assert_allclose(arr(t), ref(a, np.array([2.0, 0.5, 3.0], np.float32)), rtol=1e-6)
    np.testing.assert_allclose(arr(view), arr(t)[1])


def test_augmented_assignment_syntax():
    x = mint.tensor([1, 2, 3])
    keep = x
    x += 1
    assert x is keep and x.dtype == T.int64 and x.tolist() == [2, 3, 4]
    x -= 1
    x *= 4
    x //= 3
    x %= 3
    x **= 2
    assert x is keep and x.tolist() == [1, 4, 1]
    x <<= 2
    x >>= 1
    x |= 1
    x &= 7
    x ^= 2
    assert x is keep and x.tolist() == [1, 3, 1]
    f = mint.tensor([1.0, 2.0])
    g = f
    f /= 4
    f += mint.tensor([1, 1])  # an int tensor added into a float tensor keeps float32
    assert f is g and f.dtype == T.float32 and f.tolist() == [1.25, 1.5]


def test_int_tensor_iadd_float_raises_like_pytorch():
    x = mint.tensor([1, 2, 3])
    with pytest.raises(TypeError):
        x += 0.5
    assert x.tolist() == [1, 2, 3] and x.dtype == T.int64  # untouched
    with pytest.raises(TypeError):
        x *= mint.tensor([1.5, 1.5, 1.5])
    with pytest.raises(TypeError):
        x /= 2
    b = mint.tensor([True, False])
    with pytest.raises(TypeError):
        b += 1


def test_comparison_operators():
    a = mint.tensor([1, 2, 3])
    b = mint.tensor([3, 2, 1])
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        out = op(a, b)
        assert out.dtype == T.bool
        np.testing.assert_array_equal(arr(out), op(arr(a), arr(b)))
        np.testing.assert_array_equal(arr(op(a, 2)), op(arr(a), 2))
        np.testing.assert_array_equal(arr(op(2, a)), op(2, arr(a)))  # reflected via swap
        np.testing.assert_array_equal(arr(op(a, 2.5)), op(arr(a), 2.5))
    # Objects that aren't operands compare unequal instead of raising.
    assert (a == None) is False  # noqa: E711
    assert (a != None) is True  # noqa: E711
    assert (a == "text") is False
    assert a not in [None, "x"]
    with pytest.raises(TypeError):
        a < None  # noqa: B015
    with pytest.raises(TypeError):
        a + None
    with pytest.raises(TypeError):
        "s" * a


def test_unary_operators():
    x = mint.tensor([-1.5, 0.0, 2.0])
    np.testing.assert_array_equal(arr(-x), [1.5, -0.0, -2.0])
    np.testing.assert_array_equal(arr(+x), arr(x))
    np.testing.assert_array_equal(arr(abs(x)), [1.5, 0.0, 2.0])
    np.testing.assert_array_equal(arr(~mint.tensor([True, False])), [False, True])
    np.testing.assert_array_equal(arr(~mint.tensor([0, 5, -1], dtype=T.int8)), [-1, -6, 0])
    np.testing.assert_array_equal(arr(~mint.tensor([0, 5], dtype=T.uint8)), [255, 250])
    with pytest.raises(TypeError):
        ~x
    with pytest.raises(TypeError):
        -mint.tensor([True])


def test_bitwise_operators():
    a, b = mint.tensor([12, 10]), mint.tensor([10, 3])
    assert (a & b).tolist() == [8, 2]
    assert (a | b).tolist() == [14, 11]
    assert (a ^ b).tolist() == [6, 9]
    assert (a << 1).tolist() == [24, 20]
    assert (a >> b).tolist() == [0, 1]
    assert (1 << mint.tensor([0, 4])).tolist() == [1, 16]


# --- number protocol, sequences -----------------------------------------------------------------

def test_bool_int_float_of_one_element():
    for shape in [(), (1,), (1, 1)]:
        t = mint.tensor(np.full(shape, 2.75, np.float32))
        assert float(t) == 2.75 and int(t) == 2 and bool(t) is True
        assert isinstance(float(t), float) and isinstance(int(t), int)
    assert bool(mint.tensor(0.0)) is False
    assert bool(mint.tensor([0])) is False
    assert int(mint.tensor(-3.9)) == -3  # truncation, like int()
    assert float(mint.tensor(7)) == 7.0
    assert int(mint.tensor(True)) == 1
    assert [10, 20, 30][mint.tensor(1)] == 20  # __index__ for integer tensors
    with pytest.raises(TypeError):
        [1, 2][mint.tensor(1.0)]
    for bad in (mint.tensor([1, 2]), mint.zeros(0)):
        with pytest.raises(ValueError):
            bool(bad)
        with pytest.raises(ValueError):
            float(bad)
        with pytest.raises(ValueError):
            int(bad)
    if mint.tensor([1.0, 2.0]).any():
        pass  # truthiness through a reduction is fine


def test_len_iteration_item_tolist():
    t = mint.tensor([[1, 2, 3], [4, 5, 6]])
    assert len(t) == 2 and len(t[0]) == 3 and len(mint.zeros(0, 4)) == 0
    rows = list(t)
    assert len(rows) == 2 and all(isinstance(r, tandem.Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2, 3], [4, 5, 6]]
    assert [int(v) for v in t[1]] == [4, 5, 6]
    assert list(mint.zeros(0)) == []
    with pytest.raises(TypeError):
        len(mint.tensor(1))
    with pytest.raises(TypeError):
        iter(mint.tensor(1))
    assert t[1, 2].item() == 6 and isinstance(t[1, 2].item(), int)
    assert isinstance(mint.tensor(2.5).item(), float)
    assert mint.tensor(True).item() is True
    assert mint.tensor([[4.5]]).item() == 4.5
    assert mint.tensor(1.5, dtype=T.bfloat16).item() == 1.5
    with pytest.raises(ValueError):
        t.item()
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert mint.tensor(3).tolist() == 3
    assert mint.tensor([True, False]).tolist() == [True, False]
    assert mint.zeros(2, 0).tolist() == [[], []]
    fl = mint.tensor([0.5, -1.25]).tolist()
    assert fl == [0.5, -1.25] and all(type(v) is float for v in fl)
    assert all(type(v) is int for v in mint.tensor([1, 2], dtype=T.uint8).tolist())
    assert t.T.tolist() == [[1, 4], [2, 5], [3, 6]]  # non-contiguous


# --- repr and format ----------------------------------------------------------------------------

def test_repr_layout():
    t = mint.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = repr(t)
    assert r.startswith("Tensor(shape=[2, 3], dtype=Float32, value=")
    assert r.endswith(")")
    # MindSpore's repr: floats in scientific notation with 8 digits, rows indented under
    # "value=" (the form MindSpore's own tutorials print for gradients).
    assert "value=\n [[ 1.00000000e+00,  2.00000000e+00,  3.00000000e+00],\n" \
           "  [ 4.00000000e+00,  5.00000000e+00,  6.00000000e+00]])" in r
    assert str(t) == "[[1. 2. 3.]\n [4. 5. 6.]]"  # str() is numpy's
    assert repr(mint.tensor([1, 2])) == "Tensor(shape=[2], dtype=Int64, value= [1, 2])"
    assert repr(mint.tensor(3.5)) == "Tensor(shape=[], dtype=Float32, value= 3.5)"
    assert repr(mint.tensor([True, False])) == \
        "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert repr(mint.zeros(0, 3)) == "Tensor(shape=[0, 3], dtype=Float32, value= [])"
    for dt, name in [(T.uint8, "UInt8"), (T.int8, "Int8"), (T.int16, "Int16"),
                     (T.int32, "Int32"), (T.float16, "Float16"), (T.bfloat16, "BFloat16"),
                     (T.float64, "Float64")]:
        assert repr(mint.ones(2, dtype=dt)).startswith(f"Tensor(shape=[2], dtype={name}, value=")
    big = repr(mint.arange(5000))
    assert "..." in big and len(big) < 400  # summarised, not 5000 numbers
    assert "\n" in repr(mint.zeros(2, 2, 2))


def test_format():
    assert f"{mint.tensor(3.14159):.2f}" == "3.14"
    assert f"{mint.tensor([2.5]):.1f}" == "2.5"
    assert f"{mint.tensor(7):>4}" == "   7"
    assert f"{mint.tensor(255):x}" == "ff"
    t = mint.tensor([1, 2])
    assert f"{t}" == str(t) == "[1 2]"
    assert format(t, "") == str(t)
    assert "{}".format(mint.tensor(1.5)) == "1.5"
    assert "{!r}".format(t) == repr(t)


def test_dtype_objects():
    assert repr(T.float32) == "tandem.float32" and str(T.int64) == "Int64"
    assert T.float16.is_floating_point and not T.int32.is_floating_point
    assert T.int8.is_signed and not T.uint8.is_signed and not T.bool.is_signed
    assert [d.itemsize for d in (T.bool, T.int16, T.float32, T.float64, T.bfloat16)] == \
        [1, 2, 4, 8, 2]
    assert T.float is T.float32 and T.long is T.int64 and T.half is T.float16
    assert T.double is T.float64 and T.int is T.int32 and T.short is T.int16


# --- metadata -----------------------------------------------------------------------------------

def test_shape_and_sizes():
    t = mint.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert t.shape[0] == 2 and t.shape[-1] == 4 and t.shape[1:] == (3, 4)
    a, b, c = t.shape
    assert (a, b, c) == (2, 3, 4)
    assert np.zeros(t.shape).shape == (2, 3, 4)  # usable wherever a tuple is
    assert mint.zeros(t.shape).shape == t.shape
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3 and t.ndimension() == 3
    assert t.numel() == 24 and t.nelement() == 24
    s = mint.tensor(5)
    assert s.shape == () and s.dim() == 0 and s.numel() == 1 and s.size() == ()
    e = mint.zeros(3, 0)
    assert e.numel() == 0 and e.shape == (3, 0)
    assert t.element_size() == 4 and t.itemsize == 4
    assert t.is_contiguous() and not t.transpose(0, 2).is_contiguous()
    assert t.stride() == (12, 4, 1)
    with pytest.raises(IndexError):
        t.size(3)


def test_device_and_misc_attributes():
    t = mint.ones(2)
    assert str(t.device) == "cpu" and t.device.type == "cpu" and t.is_cuda is False
    assert t.cpu() is t
    assert t.is_floating_point() and not mint.ones(2, dtype=T.int32).is_floating_point()
    assert tandem.is_tensor(t) and not tandem.is_tensor(np.ones(2))
    assert tandem.Tensor is mint.Tensor
    assert isinstance(t, mint.Tensor)
    assert hash(t) == hash(t) and len({t, t}) == 1


# --- copies and in-place fills ------------------------------------------------------------------

def test_clone_and_detach():
    t = mint.tensor([[1.0, 2.0], [3.0, 4.0]])
    c = t.clone()
    assert c is not t and c.dtype == t.dtype and c.tolist() == t.tolist()
    c[0, 0] = 100
    assert t[0, 0].item() == 1.0
    ct = t.T.clone()
    assert ct.tolist() == [[1.0, 3.0], [2.0, 4.0]] and ct.is_contiguous()
    d = t.detach()
    assert d is not t and d.shape == t.shape
    d[1, 1] = -7  # detach shares storage
    assert t[1, 1].item() == -7
    assert t.data.tolist() == t.tolist()


def test_copy_fill_zero():
    t = mint.zeros(2, 3)
    ident = id(t)
    assert t.copy_(mint.tensor([1, 2, 3])) is t  # broadcast and convert int -> float
    assert id(t) == ident and t.tolist() == [[1, 2, 3], [1, 2, 3]] and t.dtype == T.float32
    t.copy_(np.arange(6).reshape(2, 3))
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    t.T.copy_(mint.tensor([[9.0, 8.0], [7.0, 6.0], [5.0, 4.0]]))  # into a strided view
    assert t.tolist() == [[9, 7, 5], [8, 6, 4]]
    with pytest.raises(ValueError):
        t.copy_(mint.zeros(4))
    assert t.fill_(2.5) is t and t.tolist() == [[2.5] * 3] * 2
    t.fill_(mint.tensor(1.0))
    assert t.tolist() == [[1.0] * 3] * 2
    t[:, 1].fill_(-1)
    assert t.tolist() == [[1, -1, 1], [1, -1, 1]]
    assert t.zero_() is t and t.tolist() == [[0.0] * 3] * 2
    i = mint.tensor([5, 6])
    i.fill_(3.9)  # a float fill into an int tensor truncates, like PyTorch
    assert i.tolist() == [3, 3] and i.dtype == T.int64
    b = mint.zeros(3, dtype=T.bool).fill_(True)
    assert b.tolist() == [True, True, True]


def test_normal_and_uniform_in_place():
    tandem.manual_seed(0)
    t = mint.empty(10_000)
    assert t.normal_() is t
    a = arr(t)
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1) < 0.05
    assert t.normal_(mean=5.0, std=0.1) is t and abs(arr(t).mean() - 5) < 0.01
    assert t.uniform_() is t and arr(t).min() >= 0 and arr(t).max() < 1
    t.uniform_(-2, -1)
    assert arr(t).min() >= -2 and arr(t).max() <= -1


# --- conversions --------------------------------------------------------------------------------

def test_to_type_and_casts():
    t = mint.tensor([1.7, -2.2, 0.0])
    assert t.to(T.float32) is t and t.float() is t  # no-op conversions return self
    assert t.to(T.float32, copy=True) is not t
    assert t.to(T.float64).dtype == T.float64
    assert t.to(dtype=T.int8).tolist() == [1, -2, 0]  # float -> int truncates
    assert t.to("cpu") is t and t.to("cpu", T.float16).dtype == T.float16
    assert t.to(mint.ones(1, dtype=T.int16)).dtype == T.int16
    with pytest.raises(RuntimeError, match="CPU"):
        t.to("cuda")
    assert t.long().dtype == T.int64 and t.long().tolist() == [1, -2, 0]
    casts = {"double": T.float64, "half": T.float16, "bfloat16": T.bfloat16, "int": T.int32,
             "short": T.int16, "char": T.int8, "byte": T.uint8, "bool": T.bool,
             "float": T.float32, "long": T.int64}
    for name, dt in casts.items():
        assert getattr(t, name)().dtype == dt, name
    assert t.bool().tolist() == [True, True, False]
    assert t.type() == "tandem.Float32Tensor"
    assert t.type(T.int32).dtype == T.int32
    assert t.astype(T.float64).dtype == T.float64
    big = mint.tensor([300, -1])
    np.testing.assert_array_equal(arr(big.to(T.uint8)), np.array([300, -1]).astype(np.uint8))
    assert mint.tensor([1.0], dtype=T.float16).to(T.bfloat16).item() == 1.0


# --- numpy interop ------------------------------------------------------------------------------

@pytest.mark.parametrize("npdt", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                  np.float16, np.float32, np.float64])
def test_numpy_zero_copy_both_ways(npdt):
    a = (np.arange(12) % 2 == 0) if npdt is np.bool_ else np.arange(12).astype(npdt)
    a = a.reshape(3, 4)
    t = tandem.from_numpy(a)
    assert t.shape == (3, 4) and t.dtype == getattr(T, np.dtype(npdt).name if npdt is not
                                                     np.bool_ else "bool_")
    n = t.numpy()
    assert np.shares_memory(n, a)
    a[1, 2] = 1
    assert t[1, 2].item() == a[1, 2]
    n[2, 3] = 0
    assert a[2, 3] == 0
    assert np.shares_memory(np.asarray(t), a)


def test_numpy_strided_views_and_lifetime():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = base[::2, 1::2]
    t = tandem.from_numpy(view)
    assert t.shape == (2, 3) and t.tolist() == view.tolist()
    base[2, 3] = -1
    assert t[1, 1].item() == -1
    rev = tandem.from_numpy(base[::-1])
    assert rev.tolist() == base[::-1].tolist()
    # The tensor keeps the array alive, and the array from numpy() keeps the tensor alive.
    t2 = tandem.from_numpy(np.arange(5.0))
    assert t2.tolist() == [0, 1, 2, 3, 4]
    n = mint.arange(6).reshape(2, 3).T.numpy()
    assert n.tolist() == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(TypeError):
        tandem.from_numpy([1, 2, 3])
    with pytest.raises(TypeError):
        tandem.from_numpy(np.array([1 + 2j]))


def test_array_protocol():
    t = mint.tensor([[1, 2], [3, 4]], dtype=T.int32)
    a = np.asarray(t)
    assert a.dtype == np.int32 and a.tolist() == [[1, 2], [3, 4]]
    assert np.array(t, dtype=np.float64).dtype == np.float64
    assert np.add(t, 1).tolist() == [[2, 3], [4, 5]]  # ufuncs read it through __array__
    b = np.asarray(mint.tensor([1.5, 2.5], dtype=T.bfloat16))
    assert b.dtype == np.float32 and b.tolist() == [1.5, 2.5]
    assert np.asarray(mint.tensor(3.0)).shape == ()
    assert t.asnumpy().tolist() == a.tolist()


# --- construction -------------------------------------------------------------------------------

def test_tensor_from_python_data():
    assert mint.tensor([[1, 2], [3, 4]]).dtype == T.int64
    assert mint.tensor([[1, 2], [3, 4]]).shape == (2, 2)
    assert mint.tensor([1.0, 2]).dtype == T.float32
    assert mint.tensor([True, False]).dtype == T.bool
    assert mint.tensor([[True], [False]]).shape == (2, 1)
    assert mint.tensor(5).shape == () and mint.tensor(5).dtype == T.int64
    assert mint.tensor(2.5).shape == () and mint.tensor(2.5).dtype == T.float32
    assert mint.tensor(True).dtype == T.bool
    assert mint.tensor([]).shape == (0,) and mint.tensor([]).dtype == T.float32
    assert mint.tensor([[], []]).shape == (2, 0)
    assert mint.tensor(((1, 2), (3, 4))).tolist() == [[1, 2], [3, 4]]
    assert mint.tensor([[1, 2]], dtype=T.float16).dtype == T.float16
    assert mint.tensor([1.5, 2.5], dtype=T.int32).tolist() == [1, 2]
    nested = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
    assert mint.tensor(nested).tolist() == nested
    assert mint.tensor([mint.tensor(1.0), mint.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert mint.Tensor([1, 2]).tolist() == [1, 2]
    assert mint.Tensor([1.0], dtype=T.float64).dtype == T.float64
    assert mint.tensor([2 ** 62]).item() == 2 ** 62


def test_tensor_from_numpy_scalars_and_arrays():
    assert mint.tensor(np.float64(2.5)).dtype == T.float64
    assert mint.tensor(np.float32(2.5)).dtype == T.float32
    assert mint.tensor(np.int32(3)).dtype == T.int32 and mint.tensor(np.int32(3)).shape == ()
    assert mint.tensor(np.int8(-3)).item() == -3
    assert mint.tensor(np.bool_(True)).dtype == T.bool
    assert mint.tensor(np.uint8(200)).item() == 200
    assert mint.tensor([np.float32(1.0), np.float32(2.0)]).dtype == T.float32
    a = np.arange(4, dtype=np.int16)
    t = mint.tensor(a)
    assert t.dtype == T.int16
    a[0] = 9
    assert t[0].item() == 0  # tensor() copies
    assert mint.tensor(np.ones((2, 3), np.float64)[:, ::2]).shape == (2, 2)
    assert mint.tensor(np.float64(1.0) * np.ones(())).shape == ()


def test_tensor_construction_errors():
    with pytest.raises(TypeError):
        mint.tensor(None)
    with pytest.raises(TypeError):
        mint.tensor(["a", "b"])
    with pytest.raises((TypeError, ValueError)):
        mint.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        mint.tensor([1 + 2j])
    with pytest.raises(TypeError):
        mint.tensor({"a": 1})
