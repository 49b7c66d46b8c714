"""The op table is the one definition of the Python op surface: every row is exported where
it says, with its declared signature and a docstring, attached as a method where it says,
covered by some test, and the generated modules are what the table gives."""
import ast
import inspect
import pathlib
import re

import numpy as np
import pytest

import tandem
from tandem import mint, ops
from tandem._api import gen
from tandem._api.table import ROWS, by_key
from tandem.mint.nn import functional as F

HERE = pathlib.Path(__file__).parent
FACES = {"torch": [tandem, mint], "F": [F], "linalg": [tandem.linalg, mint.linalg],
         "ms": [ops]}
FUNCTIONS = [r for r in ROWS if not r.sig.startswith("(self")]


def test_generated_modules_are_current():
    assert gen.main(["--check"]) == 0, "run `python tools/gen_api.py` after editing the table"


def test_keys_are_unique():
    assert len(by_key()) == len(ROWS)


def _declared(sig):
    fn = ast.parse(f"def f{sig}: pass").body[0]
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = [(p.arg, None if d is None else ast.literal_eval(d)) for p, d in zip(pos, defaults)]
    if a.vararg:
        out.append(("*" + a.vararg.arg, None))
    out += [(p.arg, None if d is None else ast.literal_eval(d))
            for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append(("**" + a.kwarg.arg, None))
    return out


def _actual(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        name = ("*" + p.name if p.kind is p.VAR_POSITIONAL
                else "**" + p.name if p.kind is p.VAR_KEYWORD else p.name)
        out.append((name, None if p.default is p.empty else p.default))
    return out


@pytest.mark.parametrize("row", FUNCTIONS, ids=lambda r: r.key)
def test_row_is_exported_with_its_signature(row):
    for ns in (row.ns,) + row.also:
        for module in FACES[ns]:
            for name in (row.name,) + row.aliases:
                fn = getattr(module, name, None)
                assert fn is not None, f"{module.__name__}.{name} is missing"
                assert _actual(fn) == _declared(row.sig), f"{module.__name__}.{name}"


@pytest.mark.parametrize("row", FUNCTIONS, ids=lambda r: r.key)
def test_row_is_documented(row):
    module = FACES[row.ns][0]
    doc = getattr(module, row.name).__doc__ or ""
    assert row.doc.split()[0] in doc
    params = [p for p in _declared(row.sig)]
    if params:
        assert "Args:" in doc or "Keyword args:" in doc or "Keyword Args:" in doc
    if not row.sig.rstrip().endswith("-> None"):
        assert "Returns:" in doc


@pytest.mark.parametrize("row", [r for r in ROWS if r.method or r.sig.startswith("(self")],
                         ids=lambda r: r.key)
def test_method_is_attached(row):
    name = row.name if row.sig.startswith("(self") else row.method_name
    assert callable(getattr(tandem.Tensor, name)), name
    if row.inplace:
        assert callable(getattr(tandem.Tensor, row.name + "_"))


def _test_sources():
    return "\n".join(p.read_text() for p in HERE.glob("*.py") if p.name != "test_op_table.py")


def test_every_row_is_used_by_a_test():
    """A crude but biting check: each row's name (or an alias) appears in some test, as a
    call, a method or a case-table key (the @ operator for __matmul__); a new row without a
    test fails here."""
    src = _test_sources()
    missing = []
    for row in ROWS:
        names = (row.name,) + row.aliases
        pattern = "|".join(re.escape(n) for n in names)
        if row.name in ("__matmul__", "__rmatmul__"):
            pattern = "@"
        elif not re.search(rf"(\b({pattern})\(|[\"']({pattern})[\"'])", src):
            missing.append(row.key)
    assert not missing, f"rows no test mentions: {missing}"


_UNARY_SAMPLE = np.array([[0.6, 0.2], [0.3, 0.9]])  # in every unary op's domain, invertible


@pytest.mark.parametrize("row", [r for r in ROWS if r.sig == "(input: Tensor) -> Tensor"
                                 and r.ns == "torch" and not r.name.startswith("bitwise_")
                                 and not r.name.endswith("_")],
                         ids=lambda r: r.key)
def test_grad_flag_matches_autograd(row):
    x = tandem.tensor(_UNARY_SAMPLE).requires_grad_(True)
    y = getattr(mint, row.name)(x)
    assert bool(y.requires_grad) == row.grad, row.key


# --- regressions of bugs the hand-kept tables had -------------------------------------------

@pytest.mark.parametrize("name,args", [("leaky_relu", (0.2,)), ("elu", (1.0,)), ("celu", (1.0,)),
                                       ("hardtanh", (-0.5, 0.5)), ("relu", ()), ("relu6", ()),
                                       ("silu", ()), ("selu", ()), ("hardswish", ()),
                                       ("hardsigmoid", ()), ("mish", ())])
def test_functional_inplace_writes_input(name, args):
    x = tandem.tensor([-2.0, -0.25, 0.5, 3.0])
    expected = getattr(F, name)(x.clone(), *args)
    out = getattr(F, name)(x, *args, inplace=True)
    assert out is x
    np.testing.assert_allclose(x.numpy(), expected.numpy())


def test_signatures_show_real_defaults():
    assert inspect.signature(F.conv2d).parameters["padding"].default == 0
    assert inspect.signature(F.conv1d).parameters["padding"].default == 0
    assert inspect.signature(mint.sum).parameters["keepdim"].default is False


def test_stubs_are_current():
    from tandem._api import stubs
    assert stubs.main(["--check"]) == 0, "run `python -m tandem._api.stubs` after changing bindings"
