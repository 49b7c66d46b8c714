"""Regression tests for the crash and silent-wrong-result classes found by hostile testing
(issue: differential testing against PyTorch). Every reproducer that once killed the
interpreter runs in a child process, so a crash fails its test instead of ending pytest."""
import gzip
import os
import signal
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tandem
from tandem import mint

PRELUDE = "import tandem\nfrom tandem import mint\n"


def run_child(code: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter; fails with the reproducer when it dies by a signal
    or exits non-zero."""
    src = PRELUDE + textwrap.dedent(code)
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ))
    if p.returncode < 0:
        pytest.fail(f"child died with {signal.Signals(-p.returncode).name}; reproducer:\n{src}\n"
                    f"stderr:\n{p.stderr[-2000:]}")
    assert p.returncode == 0, f"reproducer:\n{src}\nstderr:\n{p.stderr[-3000:]}"
    return p


_CHILD_BATCH = """
import sys
stmts = sys.stdin.read().split("\\n@@\\n")
for i, s in enumerate(stmts):
    print("START", i, flush=True)
    try:
        exec(s, {"tandem": tandem, "mint": mint})
    except Exception as e:
        print("RAISED", type(e).__name__, str(e).replace(chr(10), " "), flush=True)
    else:
        print("NOERROR", flush=True)
"""


def run_batch(stmts):
    """Runs each statement in one child interpreter, in order; returns one outcome line per
    statement ("RAISED <type> <message>" or "NOERROR"). A crash fails the test naming the
    statement that was running."""
    src = PRELUDE + _CHILD_BATCH
    p = subprocess.run([sys.executable, "-c", src], input="\n@@\n".join(stmts),
                       capture_output=True, text=True, timeout=120, env=dict(os.environ))
    lines = p.stdout.splitlines()
    starts = [ln for ln in lines if ln.startswith("START")]
    if p.returncode != 0:
        running = stmts[int(starts[-1].split()[1])] if starts else "<import>"
        why = signal.Signals(-p.returncode).name if p.returncode < 0 else f"exit {p.returncode}"
        pytest.fail(f"child died ({why}) running:\n{PRELUDE}{running}\nstderr:\n"
                    f"{p.stderr[-2000:]}")
    return [ln for ln in lines if not ln.startswith("START")]


def expect_raises(cases, exc: str) -> None:
    """Each (statement, message fragment) must raise `exc` (by name); all run in one child."""
    outs = run_batch([c[0] for c in cases])
    for (stmt, fragment), out in zip(cases, outs):
        assert out.startswith(f"RAISED {exc}"), f"{stmt}: {out}"
        assert fragment.lower() in out.lower(), f"{stmt}: {out}"


# --- C1 / C2: integer division by zero, eager and compiled -----------------------------------

DIVISION_BY_ZERO = [
    "mint.tensor([7], dtype=mint.int32) % 2**32",     # the divisor wraps to 0 in int32
    "mint.tensor([7], dtype=mint.int8) // 256",
    "mint.fmod(mint.tensor([7], dtype=mint.int8), 256)",
    "mint.tensor([7], dtype=mint.int8).remainder_(256)",
    "mint.div(mint.tensor([7, 1]), mint.tensor([0, 1]), rounding_mode='trunc')",
    "tandem.jit(lambda x, y: x // y)(mint.tensor([7, 1]), mint.tensor([0, 1]))",
    "tandem.jit(lambda x, y: x % y)(mint.tensor([7, 1]), mint.tensor([0, 1]))",
    "tandem.jit(lambda x, y: mint.fmod(x, y))(mint.tensor([7, 1]), mint.tensor([0, 1]))",
    "tandem.jit(lambda x, y: mint.div(x, y, rounding_mode='trunc'))(mint.tensor([7, 1]),"
    " mint.tensor([0, 1]))",
    "tandem.jit(lambda x: x // 256)(mint.tensor([7], dtype=mint.int8))",
]


def test_integer_division_by_zero_raises():
    # PyTorch: RuntimeError "ZeroDivisionError", also when a Python int is 0 in the dtype;
    # eager raised only for a visible zero, and compiled graphs trapped (SIGFPE).
    expect_raises([(s, "ZeroDivisionError") for s in DIVISION_BY_ZERO], "RuntimeError")


def test_integer_division_nonzero_after_a_zero_call():
    f = tandem.jit(lambda x, y: x // y)
    with pytest.raises(RuntimeError):
        f(mint.tensor([7, 1]), mint.tensor([0, 1]))
    assert f(mint.tensor([7, -7]), mint.tensor([2, 2])).tolist() == [3, -4]
    assert (mint.tensor([7], dtype=mint.int32) % 2**31).tolist() == [-2147483641]  # wraps


# --- W3: integer ** negative integer, eager and compiled -------------------------------------

@pytest.mark.parametrize("jit", [False, True])
def test_int_pow_negative_raises(jit):
    f = (lambda x, y: x ** y)
    if jit:
        f = tandem.jit(f)
    with pytest.raises(RuntimeError, match="negative integer powers"):
        f(mint.tensor([2, 3]), mint.tensor([-1, 2]))
    assert f(mint.tensor([2, 3]), mint.tensor([3, 2])).tolist() == [8, 9]


# --- C6: the dimension limit -----------------------------------------------------------------

def test_more_than_64_dims_raise():
    stmts = [
        "mint.ones(1).reshape([1] * 200).numpy()",
        "mint.ones(1).reshape([1] * 65).numpy()",
        "mint.ones([1] * 65)",
        "mint.ones(1).reshape([1] * 64).unsqueeze(0)",
        "tandem.jit(lambda x: x.reshape([1] * 70))(mint.ones(1))",
    ]
    expect_raises([(s, "at most 64 dims") for s in stmts], "ValueError")


def test_64_dims_work_like_numpy():
    x = mint.arange(6.0).reshape([2] + [1] * 62 + [3])
    assert x.numpy().shape == (2,) + (1,) * 62 + (3,)
    y = (x + x.transpose(0, 63).reshape(x.shape)).numpy()
    assert y.shape == x.numpy().shape
    assert (mint.ones(1).reshape([1] * 20) + 1).numpy().shape == (1,) * 20


def test_checkpoint_declaring_1000_dims_is_rejected(tmp_path):
    import json
    header = json.dumps({"x": {"dtype": "F32", "shape": [1] * 1000, "data_offsets": [0, 4]}})
    header += " " * ((8 - len(header) % 8) % 8)
    p = tmp_path / "deep.safetensors"
    p.write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0" * 4)
    expect_raises([(f"mint.load({str(p)!r})", "1000 dims")], "ValueError")


# --- C7: DataLoader worker exceptions --------------------------------------------------------

def test_loader_worker_exceptions_do_not_abort():
    # Releasing a captured exception's traceback on a worker destroyed the loader there,
    # whose destructor then joined its own thread (std::terminate).
    out = run_child("""
        from tandem.utils.data import DataLoader, Dataset
        class Bad(Dataset):
            def __len__(self): return 8
            def __getitem__(self, i):
                if i >= 2:
                    raise KeyError(i)
                return mint.ones(2)
        caught = 0
        for k in range(200):
            dl = DataLoader(Bad(), batch_size=2, num_workers=2)
            try:
                for b in dl:
                    pass
            except KeyError:
                caught += 1
        print("caught", caught)
    """, timeout=120)
    assert "caught 200" in out.stdout


def test_loader_stopped_from_another_thread_does_not_hang():
    out = run_child("""
        import threading, time
        from tandem.utils.data import DataLoader, Dataset
        class Slow(Dataset):
            def __len__(self): return 64
            def __getitem__(self, i):
                time.sleep(0.01)
                return mint.ones(2)
        dl = DataLoader(Slow(), batch_size=4, num_workers=2)
        it = iter(dl)
        next(it)
        t = threading.Timer(0.05, dl._loader.stop)
        t.start()
        n = sum(1 for _ in it)   # ends early (stopped) instead of waiting forever
        t.join()
        print("done", n < 16)
    """, timeout=60)
    assert "done True" in out.stdout


# --- W7: out-of-range Python numbers ---------------------------------------------------------

@pytest.mark.parametrize("stmt, fragment", [
    ("mint.tensor([2**63])", "int64"),
    ("mint.tensor([300], dtype=mint.uint8)", "uint8"),
    ("mint.tensor([[1, 1e30]], dtype=mint.int32)", "int32"),
    ("mint.full((3,), 300, dtype=mint.uint8)", "uint8"),
    ("mint.full((3,), 1e300)", "float32"),
    ("mint.full((3,), 70000.0, dtype=mint.float16)", "float16"),
    ("mint.zeros(3, dtype=mint.int32).fill_(1e30)", "int32"),
    ("mint.zeros(3, dtype=mint.int32).fill_(2**40)", "int32"),
    ("mint.zeros(3, dtype=mint.int8).fill_(float('nan'))", "int8"),
    ("mint.arange(0, 10, 1e-300)", "overflow"),
    ("mint.arange(-2**62, 2**62, 1)", "overflow"),
    ("mint.tensor([1, 2], dtype=mint.int8).masked_fill(mint.tensor([True, False]), 300)", "int8"),
    ("mint.tensor([1, 2], dtype=mint.int8).clamp(max=1000)", "int8"),
    ("mint.tensor([1.0, 2.0]).clamp(max=1e300)", "float32"),
    ("mint.pad(mint.zeros(2, dtype=mint.int8), (1, 1), value=300)", "int8"),
])
def test_out_of_range_numbers_raise(stmt, fragment):
    with pytest.raises(ValueError, match="overflow|out of the int64 range") as info:
        eval(stmt)
    assert fragment in str(info.value)


def test_numbers_in_range_and_pytorch_wrapping_cases():
    # what PyTorch accepts: negative ints into unsigned types wrap, arithmetic wraps
    assert mint.full((2,), -1, dtype=mint.uint8).tolist() == [255, 255]
    assert mint.zeros(2, dtype=mint.uint8).fill_(-255).tolist() == [1, 1]
    assert (mint.tensor([1, 2], dtype=mint.int8) + 300).tolist() == [45, 46]
    assert (mint.tensor([7], dtype=mint.int32) + 2**40).tolist() == [7]
    assert mint.tensor([-2**63]).tolist() == [-2**63]
    assert mint.tensor([1.0]).clamp(max=1e30).tolist() == [1.0]
    assert mint.tensor([1, 2], dtype=mint.int8).clamp(max=1000.5).dtype == mint.float32
    assert mint.tensor(np.array([300]), dtype=mint.uint8).tolist() == [44]  # arrays convert
    assert mint.tensor([1e39], dtype=mint.float32).tolist() == [float("inf")]


def test_int_of_a_large_float_is_the_nearest_integer():
    assert int(mint.tensor(1e19)) == 9999999980506447872
    assert int(mint.tensor(1e19, dtype=mint.float64)) == 10**19
    assert int(mint.tensor(-2.7)) == -2
    with pytest.raises(OverflowError):
        int(mint.tensor(float("inf")))
    with pytest.raises(ValueError):
        int(mint.tensor(float("nan")))


# --- W12: NUL bytes in file names ------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "mint.load({p!r})", "mint.save(mint.ones(1), {p!r})", "tandem._C.read_idx({p!r})",
    "tandem.load_checkpoint({p!r})",
])
def test_embedded_nul_in_paths_is_rejected(tmp_path, call):
    real = tmp_path / "x"
    mint.save(mint.ones(1), str(real))
    p = str(real) + "\0.ignored"
    with pytest.raises(ValueError, match="null byte") as info:
        eval(call.format(p=p))
    assert "\\x00" in str(info.value) or "null" in str(info.value)


# --- stale temporaries of killed saves -------------------------------------------------------

def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path):
    target = tmp_path / "model.safetensors"
    dead = tmp_path / f"model.safetensors.tmp.{_dead_pid()}"
    dead.write_bytes(b"x" * 100)
    live = tmp_path / f"model.safetensors.tmp.{os.getppid()}"  # a live process: kept
    live.write_bytes(b"y")
    other = tmp_path / "other.safetensors.tmp.1"  # another file's temporary: kept
    other.write_bytes(b"z")
    mint.save({"a": mint.ones(2)}, str(target))
    assert not dead.exists()
    assert live.exists() and other.exists()
    assert mint.load(str(target))["a"].tolist() == [1.0, 1.0]


def test_killed_saves_leave_no_temporaries_after_the_next_save(tmp_path):
    import time
    target = tmp_path / "big.safetensors"
    child = PRELUDE + textwrap.dedent(f"""
        x = mint.ones(8_000_000)
        while True:
            mint.save({{"x": x}}, {str(target)!r})
    """)
    for _ in range(2):
        p = subprocess.Popen([sys.executable, "-c", child], env=dict(os.environ))
        tmp = tmp_path / f"big.safetensors.tmp.{p.pid}"
        deadline = time.monotonic() + 30
        while not tmp.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        p.kill()  # mid-save, most likely; a save that just finished leaves nothing anyway
        p.wait()
    assert [f for f in os.listdir(tmp_path) if ".tmp." in f], "no save was interrupted"
    mint.save({"x": mint.ones(3)}, str(target))
    assert [f for f in os.listdir(tmp_path) if ".tmp." in f] == []
    assert mint.load(str(target))["x"].tolist() == [1.0] * 3


# --- mint.load on deeply nested metadata -----------------------------------------------------

@pytest.mark.parametrize("depth", [600, 100_000])
def test_load_of_deeply_nested_metadata_is_a_value_error(tmp_path, depth):
    s = '{"l":[' * depth + "]}" * depth
    p = str(tmp_path / "deep.safetensors")
    tandem._C.save_safetensors(p, [], {"tandem.structure": s, "tandem.format": "mint.save/1"})
    with pytest.raises(ValueError, match="corrupt structure metadata"):
        mint.load(p)


# --- IDX: header first, size bounded by it ---------------------------------------------------

def _idx(dims, payload: bytes) -> bytes:
    return bytes([0, 0, 0x08, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + payload


def test_idx_gzip_bomb_is_rejected_without_inflating_it(tmp_path):
    # 2x2 declared, but the stream goes on to inflate to 10 GiB of zeros (640 gzip members of
    # 16 MiB each, a 10 MB file): the old reader inflated it all before reading the header.
    p = tmp_path / "bomb-idx1-ubyte.gz"
    member = gzip.compress(b"\0" * (16 << 20), compresslevel=9)
    with open(p, "wb") as f:
        f.write(gzip.compress(_idx([2, 2], b"\0" * 4)))
        for _ in range(640):
            f.write(member)
    out = run_child(f"""
        try:
            tandem._C.read_idx({str(p)!r})
        except ValueError as e:
            print("ValueError", e)
        # VmHWM, not ru_maxrss: Linux carries the parent's peak into ru_maxrss across exec.
        hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        print("maxrss_mb", int(hwm.split()[1]) // 1024)
    """).stdout
    assert "past the 4 bytes" in out
    assert int(out.split("maxrss_mb")[1]) < 1000


def test_idx_header_larger_than_any_compressed_file_can_hold(tmp_path):
    p = tmp_path / "claims-idx3-ubyte.gz"
    with gzip.open(p, "wb") as f:
        f.write(_idx([60000, 2000, 2000], b"\1" * 100))
    with pytest.raises(ValueError, match="cannot hold"):
        tandem._C.read_idx(str(p))
    raw = tmp_path / "raw-idx1-ubyte"
    raw.write_bytes(_idx([5], b"\1\2\3"))
    with pytest.raises(ValueError):
        tandem._C.read_idx(str(raw))
    raw.write_bytes(_idx([3], b"\1\2\3"))
    assert tandem._C.read_idx(str(raw)).tolist() == [1, 2, 3]


# --- C3 / C4 / C5: crashes on zero-size and 0-d inputs --------------------------------------

def test_zero_size_and_0d_reproducers_do_not_crash():
    outs = run_batch([
        "r = tandem.jit(lambda x: (x * 2).sum(dim=1))(mint.zeros(0, 4)); assert r.shape == (0,)",
        "r = tandem.jit(lambda x: mint.softmax(x * 2, dim=1))(mint.zeros(0, 4));"
        " assert r.shape == (0, 4)",
        "r = tandem.jit(lambda x: mint.cumsum(x * 2, dim=1))(mint.zeros(0, 4));"
        " assert r.shape == (0, 4)",
        "assert tandem.jit(lambda x: (x * 2).sum())(mint.zeros(0, 4)).item() == 0",
        "assert mint.scatter(mint.tensor(1.), 0, mint.tensor(0), mint.tensor(2.)).item() == 2",
        "assert mint.scatter_add(mint.tensor(1.), 0, mint.tensor(0), mint.tensor(2.)).item() == 3",
        "assert mint.scatter_reduce(mint.tensor(1.), 0, mint.tensor(0), mint.tensor(2.),"
        " 'sum').item() == 3",
        "mint.unflatten(mint.tensor(1.), 0, (1,))",
        "mint.tensor(1.).unbind(0)",
        "mint.tensor(1.).narrow(0, 0, 1)",
        "mint.tensor(1.).select(0, 0)",
        "mint.chunk(mint.tensor(1.), 2, 0)",
        "mint.roll(mint.tensor(1.), 1, 0)",
    ])
    assert outs[:7] == ["NOERROR"] * 7, outs
    for o in outs[7:]:  # PyTorch raises for these too: a 0-d tensor has no dim 0
        assert o.startswith("RAISED") and "Error" in o.split()[1], outs


# --- W1: contiguous() is recorded by autograd and traced by jit -----------------------------

def test_contiguous_is_differentiable_and_traceable():
    x = mint.ones(2, 3, requires_grad=True)
    (x.t().contiguous() * 2 + x.t()).sum().backward()
    assert x.grad.tolist() == [[3.0] * 3] * 2
    f = tandem.jit(lambda x: x.t().contiguous() * 2)
    assert f(mint.arange(6.0).reshape(2, 3)).tolist() == (mint.arange(6.0).reshape(2, 3).t()
                                                            * 2).tolist()
    y = mint.ones(3)
    assert y.contiguous() is y


# --- W5 / W6 / W8 / W9 / W10 -----------------------------------------------------------------

def test_batch_norm_training_on_an_empty_batch_keeps_running_stats():
    rm, rv = mint.zeros(3), mint.ones(3)
    y = mint.nn.functional.batch_norm(mint.zeros(0, 3), rm, rv, training=True)
    assert y.shape == (0, 3)
    assert rm.tolist() == [0.0] * 3 and rv.tolist() == [1.0] * 3


@pytest.mark.parametrize("jit", [False, True])
def test_relu_and_hardsigmoid_keep_nan(jit):
    import math
    F = mint.nn.functional
    for f, want in [(mint.relu, [None, 0.0, -0.0, 2.0]),
                    (F.hardsigmoid, [None, 1 / 3, 0.5, 5 / 6]),
                    (F.relu6, [None, 0.0, -0.0, 2.0])]:
        g = tandem.jit(lambda x: f(x * 1.0)) if jit else f
        x = mint.tensor([float("nan"), -1.0, -0.0, 2.0] * 8)  # 32 lanes: the SIMD path too
        got = g(x).tolist()[:4]
        assert math.isnan(got[0]), (f, got)
        assert got[1:] == pytest.approx(want[1:]), (f, got)
    # relu's gradient passes through a NaN output, as PyTorch's threshold_backward does
    x = mint.tensor([float("nan"), 1.0, -1.0], requires_grad=True)
    mint.relu(x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0]


def test_topk_of_a_0d_tensor():
    for k in (0, 1):
        v, i = mint.topk(mint.tensor(3.5), k)
        assert v.item() == 3.5 and i.item() == 0 and v.shape == ()


def test_norm_and_bce_gradients_at_the_boundary_are_zero_not_nan():
    x = mint.zeros(3, requires_grad=True)
    mint.norm(x).backward()
    assert x.grad.tolist() == [0.0] * 3
    for p in (2, 3, 1.5):
        x = mint.zeros(2, 3, requires_grad=True)
        mint.norm(x, p=p, dim=1).sum().backward()
        assert x.grad.tolist() == [[0.0] * 3] * 2, p
    x = mint.tensor([3.0, 4.0], requires_grad=True)
    mint.norm(x).backward()
    assert x.grad.tolist() == pytest.approx([0.6, 0.8])
    assert mint.isnan(mint.norm(mint.tensor([float("nan"), 1.0]))).item()
    F = mint.nn.functional
    x = mint.tensor([0.0, 1.0], requires_grad=True)
    F.binary_cross_entropy(x, mint.tensor([0.0, 1.0])).backward()
    assert x.grad.tolist() == [0.0, 0.0]
    x = mint.tensor([0.0, 1.0], requires_grad=True)
    F.binary_cross_entropy(x, mint.tensor([1.0, 0.0])).backward()  # PyTorch: -+5e11
    assert x.grad.tolist() == pytest.approx([-5e11, 5e11], rel=1e-6)


def test_bce_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    p[0, :3] = [0.0, 1.0, 1e-30]
    t = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    for red in ("none", "mean", "sum"):
        x = mint.tensor(p, requires_grad=True)
        tx = torch.tensor(p, requires_grad=True)
        a = mint.nn.functional.binary_cross_entropy(x, mint.tensor(t), reduction=red)
        b = torch.nn.functional.binary_cross_entropy(tx, torch.tensor(t), reduction=red)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4)


def test_chunk_of_an_empty_dim_gives_chunks_pieces():
    parts = mint.chunk(mint.zeros(0, 3), 2, dim=0)
    assert len(parts) == 2 and all(p.shape == (0, 3) for p in parts)
    assert len(mint.chunk(mint.zeros(3, 0), 4, dim=1)) == 4
    assert [p.shape[0] for p in mint.chunk(mint.zeros(5), 3)] == [2, 2, 1]


# --- error messages: the argument, the expected type and the op the user called ------------

@pytest.mark.parametrize("stmt, fragments", [
    ("mint.leaky_relu(x, 'a')", ["leaky_relu()", "'negative_slope'", "number", "str"]),
    ("mint.nn.functional.gelu(x, approximate=1)", ["gelu()", "'approximate'", "str", "int"]),
    ("x.transpose(0, 2**70)", ["transpose()", "'dim1'", "64-bit"]),
    ("tandem._C.conv2d(x, x)", ["conv2d()", "missing", "'bias'"]),
    ("tandem._C.add(x, x, beta=2)", ["add()", "unexpected keyword", "'beta'"]),
    ("x.size('a')", ["size", "'dim'", "int", "str"]),
    ("mint.ones(2**70)", ["out of the int64 range"]),
    ("mint.nn.functional.conv1d(mint.ones(1, 1, 4), mint.ones(1, 2, 3))",
     ["conv1d:", "2 channels", "[1, 2, 3]"]),
    ("mint.index_add(mint.ones(3), 0, mint.tensor([0]), mint.ones(2, 2))", ["index_add:"]),
    ("mint.randn(-1)", ["randn:", "negative"]),
])
def test_argument_errors_name_the_op_the_argument_and_the_type(stmt, fragments):
    x = mint.ones(2, 3)  # noqa: F841 (used by eval)
    with pytest.raises((TypeError, ValueError, IndexError)) as info:
        eval(stmt)
    msg = str(info.value)
    assert "incompatible function arguments" not in msg and "std::bad_cast" not in msg, msg
    for f in fragments:
        assert f in msg, (stmt, msg)


def test_no_op_reports_a_raw_nanobind_signature_dump(tmp_path, monkeypatch):
    """Every public function, called with a wrong Python type in each argument position."""
    import inspect
    monkeypatch.chdir(tmp_path)  # save-like functions given "a" write a file named a
    x = mint.ones(2, 3)
    bad = ["a", None, 1.5, (1, "a"), object()]
    dumps = []
    for modname, mod in [("mint", mint), ("F", mint.nn.functional), ("ops", tandem.ops)]:
        for name in dir(mod):
            fn = getattr(mod, name)
            if name.startswith("_") or not callable(fn) or inspect.isclass(fn):
                continue
            try:
                n = len([p for p in inspect.signature(fn).parameters.values()
                         if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                p.POSITIONAL_OR_KEYWORD)])
            except (TypeError, ValueError):
                n = 2
            n = max(1, min(n, 3))
            for pos in range(n):
                for b in bad:
                    args = [x] * n
                    args[pos] = b
                    try:
                        fn(*args)
                    except TypeError as e:
                        if "incompatible function arguments" in str(e):
                            dumps.append(f"{modname}.{name}")
                    except Exception:
                        pass
    assert not dumps, sorted(set(dumps))


# --- accepted garbage: where PyTorch raises (or warns), mint does too -------------------------

def test_integer_data_into_float_layers_raises():
    F = mint.nn.functional
    img = mint.ones(2, 4, dtype=mint.uint8)
    with pytest.raises(TypeError, match="same dtype"):
        F.linear(img, mint.ones(3, 4))
    with pytest.raises(TypeError, match="same dtype"):
        mint.nn.Linear(4, 3)(img)
    with pytest.raises(TypeError):
        F.conv2d(mint.ones(1, 1, 4, 4, dtype=mint.uint8), mint.ones(1, 1, 3, 3))
    with pytest.raises(TypeError, match="same dtype"):
        mint.matmul(mint.ones(2, 2, dtype=mint.int64), mint.ones(2, 2))
    assert mint.matmul(mint.ones(2, 2, dtype=mint.int64),
                       mint.ones(2, 2, dtype=mint.int64)).tolist() == [[2, 2], [2, 2]]


def test_numpy_of_a_tensor_that_requires_grad_raises():
    x = mint.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]
    assert "Tensor(shape=[2]" in repr(x)  # repr still shows the values
    assert x.asnumpy().tolist() == [1.0, 1.0]  # MindSpore's asnumpy() has no such rule


def test_cross_entropy_with_float_class_indices_names_the_dtype():
    F = mint.nn.functional
    with pytest.raises(TypeError, match="integer dtype"):
        F.cross_entropy(mint.ones(2, 3), mint.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="integer dtype"):
        mint.nn.CrossEntropyLoss()(mint.ones(2, 3), mint.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="size"):  # probabilities of the wrong shape
        F.cross_entropy(mint.ones(2, 3), mint.ones(2, 4))
    assert F.cross_entropy(mint.ones(2, 3), mint.tensor([0, 1])).item() == pytest.approx(
        np.log(3))


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses_warn_on_broadcast_targets(loss):
    import warnings
    f = getattr(mint.nn.functional, loss)
    with pytest.warns(UserWarning, match="different to the input size"):
        f(mint.ones(4, 1), mint.ones(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(mint.ones(4), mint.zeros(4))  # same shapes: no warning
        with pytest.raises(UserWarning):  # warnings as errors propagate as exceptions
            f(mint.ones(4, 1), mint.ones(4))
