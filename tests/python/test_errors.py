"""A catalogue of bad calls across the API: each must raise the right Python exception with
a message naming the problem, and none may take the interpreter down (checked in a child
process that runs the whole catalogue and then keeps computing)."""
import os
import subprocess
import sys
import textwrap

import pytest

import tandem  # noqa: F401  (imported here so a broken build fails collection loudly)

# Names every entry may use; the entries are source text so that the child process can
# run exactly the same calls.
SETUP = textwrap.dedent("""
    import numpy as np
    import tandem
    from tandem import mint
    F = lambda a: tandem.from_numpy(np.array(a))
    x = F(np.ones((2, 3), np.float32))
    i = F(np.array([1, 2]))
    b = F(np.array([True, False]))
    z = F(np.float32(1))
    e = F(np.zeros((0,), np.float32))
""")

# (statement, exception type, fragment of the message)
CATALOGUE = [
    # broadcasting
    ("x + F(np.ones(4))", ValueError, "cannot be broadcast"),
    ("x.add_(F(np.ones((4, 2, 3))))", ValueError, "broadcast shape"),
    ("x * F(np.ones((3, 2)))", ValueError, "cannot be broadcast"),
    ("mint.where(F(np.ones(4, bool)), x, x)", ValueError, "cannot be broadcast"),
    ("x.copy_(F(np.ones((3, 3))))", ValueError, "cannot be broadcast"),
    ("x.expand(3, 3)", ValueError, "expanded size"),
    ("mint.broadcast_to(x, (3,))", ValueError, "number of sizes"),
    ("mint.broadcast_shapes((2, 3), (4,))", ValueError, "cannot be broadcast"),
    ("x[0] = F(np.ones(4))", ValueError, "cannot be broadcast"),
    ("x[[0, 1]] = F(np.ones(4))", ValueError, "broadcast"),
    ("x.masked_fill_(F(np.ones((3, 2, 3), bool)), 0.0)", ValueError, "cannot be broadcast"),
    ("x.masked_select(F(np.ones(2, bool)))", ValueError, "cannot be broadcast"),
    # bad dims / axes
    ("x.sum(2)", IndexError, "dimension out of range"),
    ("x.mean(-3)", IndexError, "dimension out of range"),
    ("x.amax(axis=5)", IndexError, "dimension out of range"),
    ("x.sum((0, 0))", ValueError, "multiple times"),
    ("x.var((1, -1))", ValueError, "multiple times"),
    ("x.sum('a')", TypeError, "dim must be"),
    ("x.sum(1.5)", TypeError, "argument 'dim' must be int"),
    ("x.sum(dim=0, axis=1)", TypeError, "either dim or axis"),
    ("x.max((0, 1))", TypeError, "single int"),
    ("x.argmax(5)", IndexError, "dimension out of range"),
    ("x.transpose(0, 2)", IndexError, "transpose"),
    ("x.permute(0, 0)", ValueError, "repeated"),
    ("x.permute(1)", ValueError, "number of dims"),
    ("x.unsqueeze(3)", IndexError, "unsqueeze"),
    ("x.squeeze(2)", IndexError, "squeeze"),
    ("x.flatten(1, 0)", ValueError, "start_dim"),
    ("x.movedim(0, 5)", IndexError, "movedim"),
    ("x.movedim([0, 1], [1])", ValueError, "movedim"),
    ("x.diagonal(0, 1, 1)", ValueError, "cannot be the same"),
    ("x[0].diagonal()", ValueError, "at least 2 dims"),
    ("F(np.ones((2, 2, 2))).t()", ValueError, "<= 2 dims"),
    ("x.select(2, 0)", IndexError, "dimension out of range"),
    ("x.gather(2, F(np.zeros((1, 1), np.int64)))", IndexError, "dimension out of range"),
    ("x.gather(0, F(np.zeros(3, np.int64)))", ValueError, "same number of dimensions"),
    ("x.index_select(0, F(np.zeros((1, 1), np.int64)))", ValueError, "0-d or 1-d"),
    # index out of range
    ("x[2]", IndexError, "out of bounds"),
    ("x[-3]", IndexError, "out of bounds"),
    ("x[:, [0, 3]]", IndexError, "out of bounds"),
    ("x[F(np.array([-3]))]", IndexError, "out of bounds"),
    ("x[2**70]", IndexError, "out of range"),
    ("x[0, 0, 0]", IndexError, "too many indices"),
    ("z[0]", IndexError, "too many indices"),
    ("x[..., ...]", IndexError, "single ellipsis"),
    ("x[F(np.array([True, False, True]))]", IndexError, "shape of the mask"),
    ("x[[0, 1], [0, 1, 2]]", IndexError, "could not be broadcast"),
    ("x[5] = 1.0", IndexError, "out of bounds"),
    ("x.narrow(1, 2, 2)", IndexError, "exceeds dimension size"),
    ("x.select(0, 2)", IndexError, "out of bounds"),
    ("x.take(F(np.array([6])))", IndexError, "out of bounds"),
    ("x.index_select(0, F(np.array([2])))", IndexError, "out of range"),
    ("x.gather(1, F(np.array([[3]])))", IndexError, "out of bounds"),
    ("x.scatter(0, F(np.array([[2]])), 1.0)", IndexError, "out of bounds"),
    ("x.index_add(0, F(np.array([2])), F(np.ones((1, 3), np.float32)))", IndexError,
     "out of range"),
    ("mint.index_put(x, (F(np.array([2])),), F(np.float32(0)))", IndexError, "out of bounds"),
    ("mint.one_hot(F(np.array([0, 3])), 3)", ValueError, "class values"),
    # wrong index types
    ("x[F(np.array([0.0]))]", IndexError, "long, int or bool"),
    ("x[F(np.array([[1.0, 0.0]]))] = 0.0", IndexError, "long, int or bool"),
    ("x[1.5]", IndexError, "valid indices"),
    ("x['a']", IndexError, "valid indices"),
    ("x[0.5:]", TypeError, "slice indices"),
    ("x[::0]", ValueError, "step cannot be zero"),
    ("x.gather(0, F(np.zeros((1, 3), np.float32)))", TypeError, "int64"),
    ("x.scatter(0, F(np.zeros((1, 3), np.float32)), 1.0)", TypeError, "int64"),
    ("x.index_select(0, F(np.array([0.0])))", IndexError, "int32 or int64 index"),
    ("x.take(F(np.array([0.5])))", IndexError, "long, int or bool"),
    ("[1, 2][i]", TypeError, "single element"),
    # mismatched cat / stack shapes
    ("mint.cat([x, F(np.ones((2, 4), np.float32))])", ValueError, "must match"),
    ("mint.cat([x, F(np.ones(3, np.float32))])", ValueError, "number of dimensions"),
    ("mint.cat([x, x], dim=3)", IndexError, "dimension out of range"),
    ("mint.cat([])", ValueError, "non-empty"),
    ("mint.stack([x, x.t()])", ValueError, "equal size"),
    # reshape / view / split
    ("x.reshape(4, 2)", ValueError, "invalid for input of size 6"),
    ("x.reshape(-1, -1)", ValueError, "only one dimension can be inferred"),
    ("x.view(-2, 3)", ValueError, "invalid shape dimension"),
    ("x.t().view(6)", ValueError, "use .reshape"),
    ("x.unflatten(1, (2, 2))", ValueError, "invalid for input of size 3"),
    ("x.split([1, 2])", ValueError, "sum to 3"),
    ("x.split(0)", ValueError, "positive"),
    ("x.chunk(0)", ValueError, "positive"),
    ("z.split(1)", ValueError, "1-dimensional"),
    # bad dtype arguments
    ("x.sum(dtype='float32')", TypeError, "tandem dtype"),
    ("x.mean(dtype=np.float32)", TypeError, "tandem dtype"),
    ("mint.zeros(2, dtype='float32')", TypeError, "tandem dtype"),
    ("i.mean()", TypeError, "floating point"),
    ("i.var()", TypeError, "floating point"),
    ("i.std()", TypeError, "floating point"),
    ("b.argmax()", TypeError, "Bool"),
    ("b.argmin(0)", TypeError, "Bool"),
    ("x & x", TypeError, "integer and bool"),
    ("mint.one_hot(x, 3)", TypeError, "int64"),
    ("x.masked_fill(F(np.ones((2, 3), np.int64)), 0.0)", TypeError, "bool mask"),
    ("x.masked_select(F(np.ones((2, 3), np.int64)))", TypeError, "bool mask"),
    ("x.masked_fill(x > 0, F(np.ones(2)))", ValueError, "0-dimensional"),
    ("mint.tensor(['a'])", TypeError, "strings"),
    ("mint.norm(x, 'nuc')", NotImplementedError, "nuclear"),
    ("mint.norm(x, 'bad')", ValueError, "unsupported p"),
    ("mint.norm(x, 2, dim='a')", TypeError, "dim must be"),
    ("x.scatter(0, F(np.zeros((1, 1), np.int64)), 1.0, reduce='bogus')", ValueError, "reduce"),
    ("x.scatter_reduce(0, F(np.zeros((1, 1), np.int64)), x, 'median')", ValueError, "reduce"),
    ("x.scatter(0, F(np.zeros((1, 3), np.int64)), F(np.ones((1, 2), np.float32)))", ValueError,
     "src"),
    # reductions of empty tensors without an identity
    ("e.amax()", IndexError, "zero-size"),
    ("e.amin()", IndexError, "zero-size"),
    ("e.min()", IndexError, "zero-size"),
    ("e.max(0)", IndexError, "size 0"),
    ("e.argmax()", IndexError, "size 0"),
    ("F(np.zeros((2, 0))).amin(1)", IndexError, "zero-size"),
    ("F(np.zeros((2, 0))).argmin(1)", IndexError, "size 0"),
    # integer division by zero
    ("i // 0", RuntimeError, "division by zero"),
    ("i % F(np.array([0, 1]))", RuntimeError, "division by zero"),
    ("mint.div(i, 0, rounding_mode='trunc')", RuntimeError, "division by zero"),
    ("mint.div(i, F(np.array([1, 0])), rounding_mode='floor')", RuntimeError, "division by zero"),
    ("mint.fmod(i, 0)", RuntimeError, "division by zero"),
    # bool arithmetic
    ("b - b", TypeError, "bool"),
    ("b - True", TypeError, "bool"),
    ("-b", TypeError, "bool"),
    # Python protocol on tensors of the wrong size
    ("x.item()", ValueError, "6 elements"),
    ("e.item()", ValueError, "0 elements"),
    ("float(x)", ValueError, "6 elements"),
    ("len(z)", TypeError, "0-d"),
    ("list(z)", TypeError, "0-d"),
    ("bool(x)", ValueError, "ambiguous"),
    ("bool(e)", ValueError, "ambiguous"),
    ("x[0] = None", TypeError, "None"),
    # random-number arguments
    ("mint.randint(5, 5, (2,))", ValueError, "low < high"),
    ("mint.randint(6, 5, (2,))", ValueError, "low < high"),
    ("mint.normal(0.0, -1.0, (2,))", ValueError, "std >= 0"),
    ("mint.uniform(1.0, 0.0, (2,))", ValueError, "low <= high"),
    ("mint.randperm(-1)", ValueError, "non-negative"),
    ("mint.multinomial(F(np.array([0.0, 0.0])), 1)", ValueError, "invalid distribution"),
    ("mint.rand(-1)", ValueError, "negative dimension"),
    # creation from Python / numpy data
    ("tandem.from_numpy(np.array([1, 'a'], dtype=object))", TypeError, "from_numpy"),
    ("tandem.from_numpy([1, 2])", TypeError, "numpy array"),
    ("tandem.from_numpy(np.ones(2, np.complex64))", TypeError, "unsupported array dtype"),
    ("mint.tensor([[1, 2], [3]])", ValueError, "cannot build a tensor"),
    ("mint.tensor([object()])", TypeError, "could not infer dtype"),
    ("mint.tensor(None)", TypeError, "None"),
    ("mint.zeros(-1)", ValueError, "negative"),
    ("mint.arange(0, 5, 0)", ValueError, "step"),
    ("mint.full((2,), 'a')", TypeError, "expected a number"),
    # settings
    ("tandem.set_num_threads(0)", ValueError, "positive"),
    ("tandem.set_num_threads(-1)", ValueError, "positive"),
    ("x.to('cuda')", RuntimeError, "device"),
]


def _ids():
    return [f"{n:03d}-{stmt[:40]}" for n, (stmt, _, _) in enumerate(CATALOGUE)]


def _namespace():
    ns = {}
    exec(SETUP, ns)
    return ns


@pytest.mark.parametrize("entry", CATALOGUE, ids=_ids())
def test_bad_call_raises(entry):
    stmt, exc, fragment = entry
    if stmt.startswith("mint.cat") or stmt.startswith("mint.stack"):
        from tandem import mint
        if not hasattr(mint, "cat"):
            pytest.skip("cat / stack not available")
    ns = _namespace()
    threads = ns["tandem"].get_num_threads()
    with pytest.raises(exc) as info:
        exec(stmt, ns)
    assert fragment.lower() in str(info.value).lower(), str(info.value)
    # a failed call leaves its inputs and the global settings alone
    assert ns["x"].tolist() == [[1.0] * 3] * 2
    assert ns["tandem"].get_num_threads() == threads


def test_errors_are_catalogued_once():
    stmts = [c[0] for c in CATALOGUE]
    assert len(stmts) == len(set(stmts))


CHILD = SETUP + textwrap.dedent("""
    import sys
    stmts = sys.stdin.read().split("\\n")
    for s in stmts:
        try:
            exec(s)
            print("NOERROR", flush=True)
        except Exception as exc:
            print(type(exc).__name__, flush=True)
    # still healthy: compute something real after every error
    a = np.arange(12.0).reshape(3, 4)
    t = F(a)
    assert t.sum().item() == a.sum()
    assert t[t > 5].tolist() == a[a > 5].tolist()
    assert t.amax(1).tolist() == a.max(1).tolist()
    print("ALIVE", flush=True)
""")


def test_interpreter_survives_the_catalogue():
    """Runs the whole catalogue in a fresh interpreter: no crash, abort or hang, each call
    raises the same exception type as in-process, and the interpreter keeps working."""
    stmts = [c[0] for c in CATALOGUE]
    expected = [c[1].__name__ for c in CATALOGUE]
    proc = subprocess.run([sys.executable, "-c", CHILD], input="\n".join(stmts),
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.split()
    assert lines[-1] == "ALIVE", proc.stdout[-2000:] + proc.stderr[-2000:]
    assert lines[:-1] == expected
