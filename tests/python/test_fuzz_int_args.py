"""#15: int and number arguments of the mint face against PyTorch 2.13 as the oracle.

Where PyTorch's argument parser refuses a value, tandem must refuse it too, with an error of
the same family that names the op and the argument; where PyTorch accepts it, both results
must agree. The classes of the fuzzer (tests/fuzz/differential.py) this closes:

* an explicit None for arange's end (``arange(5, None)`` is not ``arange(5)``);
* floats, even integral ones (2.0), for int parameters (dims, k, steps, kernel sizes, ...);
* Python ints beyond the C type PyTorch converts them to: int64 for int parameters
  (ValueError), [-2**63, 2**64) for Scalar parameters (OverflowError).
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import tandem  # noqa: E402
import tandem.mint.nn.functional as MF  # noqa: E402
from tandem import mint  # noqa: E402
from tandem import ops  # noqa: E402

_RNG = np.random.default_rng(15)
_X = _RNG.standard_normal((3, 4))
_V = _RNG.standard_normal(6)
_IMG = _RNG.standard_normal((1, 2, 4, 4))
_IDX = np.array([0, 2, 1, 2])


def _namespace(lib):
    """The names a case expression sees, built alike for torch and for tandem."""
    if lib == "torch":
        L, F = torch, TF
    else:
        L, F = mint, MF
    return {"L": L, "F": F, "np": np,
            "x": L.tensor(_X, dtype=L.float32), "v": L.tensor(_V, dtype=L.float32),
            "img": L.tensor(_IMG, dtype=L.float32), "idx": L.tensor(_IDX),
            "i0": L.tensor(2), "f0": L.tensor(2.0)}


def _plain(out):
    """A result as comparable plain data (tensors as numpy arrays)."""
    if isinstance(out, (torch.Tensor, tandem.Tensor)):
        return np.asarray(out.detach().numpy())
    if isinstance(out, (tuple, list)):
        return [_plain(o) for o in out]
    return out


def _family(e: BaseException) -> str:
    # PyTorch raises ValueError for an int parameter beyond int64 ("Overflow when unpacking
    # long long") and OverflowError for a Scalar beyond [-2**63, 2**64): both are "range"
    if isinstance(e, TypeError):
        return "type"
    if isinstance(e, (ValueError, OverflowError)):
        return "range"
    return type(e).__name__


def _run(lib, expr):
    try:
        return "ok", _plain(eval(expr, _namespace(lib)))
    except Exception as e:  # noqa: BLE001 - the oracle comparison classifies it
        return "raise", e


def _check_same(expr):
    ts, tv = _run("torch", expr)
    ds, dv = _run("tandem", expr)
    if ts == "raise":
        assert ds == "raise", f"{expr}: torch raised {type(tv).__name__}: {tv}; tandem " \
                              f"returned {dv!r}"
        assert _family(dv) == _family(tv), \
            f"{expr}: torch {type(tv).__name__}: {tv} / tandem {type(dv).__name__}: {dv}"
        return tv, dv
    assert ds == "ok", f"{expr}: torch returned, tandem raised {type(dv).__name__}: {dv}"
    _assert_equal(dv, tv, expr)
    return None, None


def _assert_equal(d, t, expr):
    if isinstance(t, list):
        assert isinstance(d, list) and len(d) == len(t), expr
        for a, b in zip(d, t):
            _assert_equal(a, b, expr)
        return
    if isinstance(t, np.ndarray):
        assert d.dtype == t.dtype and d.shape == t.shape, f"{expr}: {d.dtype}{d.shape} vs " \
                                                          f"{t.dtype}{t.shape}"
        np.testing.assert_allclose(d.astype(np.float64), t.astype(np.float64), rtol=1e-5,
                                   atol=1e-6, err_msg=expr)
        return
    assert d == t, expr


# --- 1. arange's end: an explicit None is refused; omitted, arange(n) counts to n ----------

ARANGE = [
    "L.arange(5)", "L.arange(5, None)", "L.arange(None)", "L.arange(1, 5, None)",
    "L.arange(None, 5)", "L.arange(end=5)", "L.arange(start=1, end=5)", "L.arange()",
    "L.arange(1.5, 4)", "L.arange(0, 5, 2)", "L.arange(5, dtype=None)", "L.arange(2.0)",
    "L.arange(1, end=None)",
]


@pytest.mark.parametrize("expr", ARANGE)
def test_arange_end_none_matches_torch(expr):
    _check_same(expr)


def test_arange_explicit_none_names_the_argument():
    with pytest.raises(TypeError, match=r"arange\(\): argument 'end' must be Number, not "
                                        r"NoneType"):
        mint.arange(5, None)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'end'"):
        mint.arange()


def test_ms_arange_keeps_mindspore_end_none():
    # MindSpore's ops.arange(start=0, end=None, step=1): end None takes start as the end
    assert ops.arange(5, None).tolist() == [0, 1, 2, 3, 4]
    assert ops.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert ops.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert ops.arange(start=3).tolist() == [0, 1, 2]


# --- 2. floats for int parameters (PyTorch refuses even 2.0) -------------------------------

INT_FLOATS = [
    # (expression, op, argument): tandem's message must name both
    ("L.topk(v, 2.0)", "topk", "k"), ("L.topk(v, 1.5)", "topk", "k"),
    ("L.kthvalue(v, 2.0)", "kthvalue", "k"), ("L.histc(x, 4.0)", "histc", "bins"),
    ("L.bincount(idx, minlength=3.0)", "bincount", "minlength"),
    ("L.randperm(3.0)", "randperm", "n"), ("L.linspace(0, 1, 3.0)", "linspace", "steps"),
    ("L.logspace(0, 1, 3.0)", "logspace", "steps"),
    ("L.narrow(x, 0, 1.0, 1)", "narrow", "start"), ("L.narrow(x, 0.0, 1, 1)", "narrow", "dim"),
    ("L.narrow(x, 0, 1, 1.0)", "narrow", "length"), ("x.select(0, 1.0)", "select", "index"),
    ("L.diagonal(x, 1.0)", "diagonal", "offset"), ("L.tril(x, 1.0)", "tril", "diagonal"),
    ("L.triu(x, diagonal=-1.0)", "triu", "diagonal"),
    ("L.transpose(x, 0, 1.0)", "transpose", "dim1"),
    ("L.unsqueeze(x, 0.0)", "unsqueeze", "dim"), ("L.flatten(x, 0.0)", "flatten", "start_dim"),
    ("L.cat([x, x], 1.0)", "cat", "dim"), ("L.stack([x, x], 0.0)", "stack", "dim"),
    ("L.chunk(x, 2.0)", "chunk", "chunks"), ("L.unbind(x, 1.0)", "unbind", "dim"),
    ("L.split(v, 2, 0.0)", "split", "dim"),
    ("L.repeat_interleave(v, 2, output_size=12.0)", "repeat_interleave", "output_size"),
    ("L.unique(x, dim=0.0)", "unique", "dim"),
    ("L.unique_consecutive(x, dim=1.0)", "unique_consecutive", "dim"),
    ("L.cumsum(x, 0.0)", "cumsum", "dim"), ("L.softmax(x, 1.0)", "softmax", "dim"),
    ("x.softmax(1.0)", "softmax", "dim"), ("L.argmax(x, 1.0)", "argmax", "dim"),
    ("L.sort(x, 0.0)", "sort", "dim"), ("L.sum(x, 1.0)", "sum", "dim"),
    ("L.sum(x, (0, 1.0))", "sum", "dim"), ("L.mean(x, [1.0])", "mean", "dim"),
    ("L.round(x, decimals=1.0)", "round", "decimals"),
    ("L.eye(3.0)", "eye", "n"), ("L.index_select(x, 0.0, idx[:2])", "index_select", "dim"),
    ("L.gather(x, 1.0, idx[:3].reshape(3, 1))", "gather", "dim"),
    ("L.zeros(2.0)", "zeros", "size"), ("L.zeros((2, 3.0))", "zeros", "size"),
    ("L.ones(size=2.0)", "ones", "size"), ("x.view(12.0)", "view", "shape"),
    ("x.reshape(3, 4.0)", "reshape", ""), ("x.permute(1.0, 0)", "permute", ""),
    ("L.flip(x, (0.0,))", "flip", "dims"), ("L.movedim(x, 0.0, 1)", "movedim", "source"),
    ("F.max_pool2d(img, 2.0)", "max_pool2d", "kernel_size"),
    ("F.max_pool2d(img, (2, 2.0))", "max_pool2d", "kernel_size"),
    ("F.max_pool2d(img, 2, stride=1.0)", "max_pool2d", "stride"),
    ("F.avg_pool2d(img, 2, padding=1.0)", "avg_pool2d", "padding"),
    ("F.avg_pool2d(img, 2, divisor_override=2.0)", "avg_pool2d", "divisor_override"),
    ("F.conv2d(img, L.ones(3, 2, 1, 1), stride=2.0)", "conv2d", "stride"),
    ("F.conv2d(img, L.ones(2, 1, 1, 1), groups=2.0)", "conv2d", "groups"),
    ("F.one_hot(idx, 3.0)", "one_hot", "num_classes"),
    ("F.group_norm(img, 2.0)", "group_norm", "num_groups"),
    ("F.cross_entropy(x, idx[:3], ignore_index=1.0)", "cross_entropy", "ignore_index"),
    ("F.embedding(idx, x, padding_idx=1.0)", "embedding", "padding_idx"),
    ("L.topk(v, f0)", "topk", "k"), ("L.tril(x, f0)", "tril", "diagonal"),
    ("L.topk(v, np.float64(2.0))", "topk", "k"),
]


@pytest.mark.parametrize("expr, op, arg", INT_FLOATS, ids=[c[0] for c in INT_FLOATS])
def test_float_for_int_parameter_raises_like_torch(expr, op, arg):
    tv, dv = _check_same(expr)
    assert isinstance(tv, TypeError) and isinstance(dv, TypeError), (tv, dv)
    msg = str(dv)
    assert f"{op}" in msg, msg
    if arg:
        assert f"'{arg}" in msg, msg


@pytest.mark.parametrize("expr", [
    # integer-like values PyTorch takes for an int (the same results)
    "L.topk(v, 2)", "L.topk(v, i0)", "L.topk(v, np.int64(2))", "L.tril(x, i0)",
    "L.narrow(x, 1, np.int32(1), 2)", "L.linspace(0, 1, 3)", "L.histc(x, 4)",
    "L.sum(x, (0, np.int64(1)))", "F.max_pool2d(img, (2, np.int64(2)))",
    "L.zeros((2, np.int64(3)))", "x.view(np.int64(12))", "L.cat([x, x], np.int64(1))",
    "L.diagonal(x, -1, 0, 1)", "L.kthvalue(v, 3)",
])
def test_integer_like_values_work_like_torch(expr):
    _check_same(expr)


# --- 3. ints beyond the C type PyTorch converts them to -------------------------------------

OUT_OF_RANGE = [
    # int parameters: int64 (PyTorch: ValueError)
    "L.tril(x, 2**63)", "L.tril(x, -2**63 - 1)", "L.topk(v, 2**64)",
    "L.transpose(x, 0, 2**70)", "L.sum(x, 2**63)", "L.eye(2**63)", "L.histc(x, 2**63)",
    "L.linspace(0, 1, 2**63)", "L.narrow(x, 0, 2**63, 1)", "L.cat([x, x], 2**63)",
    "L.unique(x, dim=2**63)", "L.randperm(2**63)",
    # Scalar parameters: [-2**63, 2**64) (PyTorch: OverflowError)
    "L.celu(x, 2**64)", "L.celu(x, -2**63 - 1)", "F.elu(x, 2**64)",
    "F.leaky_relu(x, -2**63 - 1)", "F.hardtanh(x, -2**63 - 1)", "F.softplus(x, 2**64)",
    "F.threshold(x, 2**64, 1.0)", "F.threshold(x, 0.5, -2**63 - 1)",
    "L.histc(x, 4, 2**64, 2**64 + 1)", "L.var(x, correction=2**64)",
    "L.std_mean(x, correction=-2**63 - 1)", "L.norm(x, 2**64)",
    "L.linalg.vector_norm(x, 2**64)", "L.linalg.norm(x, -2**63 - 1)",
    "L.linspace(2**64, 1, 3)", "L.logspace(0, -2**63 - 1, 3)", "L.arange(2**64)",
    "L.add(x, x, alpha=2**64)", "L.sub(x, 1, alpha=-2**63 - 1)",
    "L.addcmul(x, x, x, value=2**64)", "x + 2**64", "x == 2**70", "x < -2**63 - 1",
    "L.pow(x, 2**64)", "L.float_power(2**64, x)", "L.full((2,), 2**64)",
    "L.full_like(x, -2**63 - 1)", "L.clamp(x, 2**64)", "L.where(x > 0, x, 2**64)",
    "x.clone().fill_(2**64)", "x.masked_fill(x > 0, 2**64)", "L.lerp(x, x, 2**64)",
    "L.manual_seed(2**64)",
]


@pytest.mark.parametrize("expr", OUT_OF_RANGE)
def test_out_of_range_ints_raise_like_torch(expr):
    tv, dv = _check_same(expr)
    assert tv is not None, f"{expr}: torch accepted it"
    assert _family(dv) == "range", dv
    assert "2**6" in str(dv) or "int64" in str(dv), str(dv)


@pytest.mark.parametrize("expr", [
    # in range: the same results (the uint64 half of a Scalar is a float for float ops)
    "L.celu(x, 2**63)", "F.leaky_relu(x, 2**63)", "L.celu(x, -2**63)",
    "F.hardtanh(x, -2**63, 2**63)", "L.tril(x, 2**63 - 1)", "L.tril(x, -2**63)",
    "L.add(x, x, alpha=2**40)", "L.linspace(-2**63, 2**62, 3)",
])
def test_in_range_ints_work_like_torch(expr):
    _check_same(expr)


def test_errors_name_the_op_the_argument_and_the_value():
    with pytest.raises(ValueError, match=r"tril\(\): argument 'diagonal' = 9223372036854775808 "
                                         r"does not fit a 64-bit int"):
        mint.tril(mint.ones(2, 2), 2**63)
    with pytest.raises(OverflowError, match=r"celu.*18446744073709551616.*\[-2\*\*63, "
                                            r"2\*\*64\)"):
        mint.celu(mint.ones(2), 2**64)
    with pytest.raises(TypeError, match=r"topk\(\): argument 'k' must be int, not float \(got "
                                        r"2\.0; pass int\(k\) = 2"):
        mint.topk(mint.ones(4), 2.0)


def test_jit_checks_int_arguments_as_eager():
    @tandem.jit
    def f(a):
        return mint.topk(a, 2.0)

    with pytest.raises(TypeError, match="argument 'k' must be int, not float"):
        f(mint.ones(4))


def test_ms_face_rows_are_unchanged():
    # tandem.ops keeps MindSpore's own rows: their arguments follow MindSpore
    x = mint.ones(2, 3)
    assert ops.flatten(x).shape == (2, 3)
    assert ops.arange(0, 3, 1).tolist() == [0, 1, 2]
