"""Checkpoints (tandem.serialization): the safetensors reader/writer in _C, interop with the
safetensors package, validation of corrupt files, crash safety of overwrites, and the
MindSpore (save_checkpoint / load_checkpoint / load_param_into_net) and PyTorch
(mint.save / mint.load) faces. numpy is the oracle."""
import io
import json
import os
import signal
import struct
import subprocess
import sys
import time
from collections import OrderedDict

import numpy as np
import pytest

import tandem
from tandem import _C
from tandem import serialization as S

try:
    import safetensors
    import safetensors.numpy as stnp
except ImportError:  # pragma: no cover - tools/setup.sh installs it
    safetensors = stnp = None
needs_st = pytest.mark.skipif(stnp is None, reason="the safetensors package is not installed")

NP_DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
             np.uint8, np.bool_]


def np_values(dtype, shape):
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    v = np.arange(n) * 7 - n * 3
    if np.issubdtype(dtype, np.unsignedinteger):
        v = np.arange(n) * 37
    return (v.astype(np.float64) * (0.25 if np.issubdtype(dtype, np.floating) else 1)
            ).astype(dtype).reshape(shape)


def as_np(t):
    return t.detach().numpy()  # bfloat16 comes back as float32, exactly


def roundtrip(tmp_path, pairs, metadata=None):
    p = str(tmp_path / "t.safetensors")
    _C.save_safetensors(p, pairs, metadata or {})
    return _C.load_safetensors(p)


# --- the _C reader / writer -------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (5,)])
@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_round_trip_numpy_dtypes(tmp_path, dtype, shape):
    a = np_values(dtype, shape)
    out, md = roundtrip(tmp_path, [("x", tandem.tensor(a))])
    assert md == {} and [n for n, _ in out] == ["x"]
    got = as_np(out[0][1])
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("shape", [(3, 2), (), (0,)])
def test_round_trip_bfloat16(tmp_path, shape):
    a = np_values(np.float32, shape) * 0.5  # exactly representable in bfloat16
    t = tandem.tensor(a).to(tandem.bfloat16)
    out, _ = roundtrip(tmp_path, [("b", t)])
    assert out[0][1].dtype == tandem.bfloat16 and tuple(out[0][1].shape) == shape
    np.testing.assert_array_equal(as_np(out[0][1]), a)


def test_round_trip_many_tensors_keeps_order_and_views(tmp_path):
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    t = tandem.tensor(base)
    pairs = [("z.last", tandem.tensor(np.ones(3, np.uint8))), ("a.view", t.T),
             ("m.slice", t[1:3, ::2]), ("d", tandem.tensor(np.float64(2.5)))]
    out, md = roundtrip(tmp_path, pairs, {"k": "v", "ü✓": 'q"\\\n\t\x01'})
    assert [n for n, _ in out] == ["z.last", "a.view", "m.slice", "d"]
    assert md == {"k": "v", "ü✓": 'q"\\\n\t\x01'}
    np.testing.assert_array_equal(as_np(out[1][1]), base.T)
    np.testing.assert_array_equal(as_np(out[2][1]), base[1:3, ::2])
    assert as_np(out[3][1]).shape == () and float(as_np(out[3][1])) == 2.5


def test_save_rejects_bad_arguments_and_keeps_old_file(tmp_path):
    p = str(tmp_path / "k.safetensors")
    _C.save_safetensors(p, [("a", tandem.ones(2))])
    before = open(p, "rb").read()
    x = tandem.ones(1)
    with pytest.raises(ValueError, match="duplicate tensor name"):
        _C.save_safetensors(p, [("a", x), ("a", x)])
    with pytest.raises(ValueError, match="reserved"):
        _C.save_safetensors(p, [("__metadata__", x)])
    assert open(p, "rb").read() == before
    with pytest.raises(FileNotFoundError):
        _C.save_safetensors(str(tmp_path / "no" / "dir.safetensors"), [("a", x)])
    with pytest.raises(FileNotFoundError):
        _C.load_safetensors(str(tmp_path / "missing.safetensors"))
    with pytest.raises(IsADirectoryError):
        _C.load_safetensors(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["k.safetensors"]  # no temporary left behind


# --- interop with the safetensors package ----------------------------------------------------

@needs_st
def test_tandem_file_loads_with_safetensors(tmp_path):
    arrays = {f"t{i}.{np.dtype(d).name}": np_values(d, (2, 3) if i % 2 else (4,))
              for i, d in enumerate(NP_DTYPES)}
    arrays["scalar"] = np.array(3.5, np.float32)
    arrays["empty"] = np.zeros((0, 2), np.int64)
    p = str(tmp_path / "tandem.safetensors")
    _C.save_safetensors(p, [(k, tandem.tensor(v)) for k, v in arrays.items()], {"epoch": "7"})
    got = stnp.load_file(p)
    assert set(got) == set(arrays)
    for k, v in arrays.items():
        assert got[k].dtype == v.dtype and got[k].shape == v.shape, k
        np.testing.assert_array_equal(got[k], v)
    with safetensors.safe_open(p, framework="np") as f:
        assert f.metadata() == {"epoch": "7"}


@needs_st
def test_tandem_bfloat16_matches_safetensors_deserialize(tmp_path):
    a = np.array([1.0, -2.5, 0.0, 2.0**100], np.float32)
    t = tandem.tensor(a).to(tandem.bfloat16)
    p = tmp_path / "bf.safetensors"
    _C.save_safetensors(str(p), [("w", t), ("u", tandem.tensor(np.arange(3, dtype=np.uint8)))])
    entries = dict(safetensors.deserialize(p.read_bytes()))
    assert entries["w"]["dtype"] == "BF16" and list(entries["w"]["shape"]) == [4]
    # bfloat16 is the top half of the float32 bit pattern (these values are exact in it).
    expect = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    assert bytes(entries["w"]["data"]) == expect
    assert bytes(entries["u"]["data"]) == b"\x00\x01\x02"


@needs_st
def test_safetensors_file_loads_in_tandem(tmp_path):
    arrays = {f"layer{i}.weight": np_values(d, (3, 2)) for i, d in enumerate(NP_DTYPES)}
    arrays["zero_d"] = np.array(-4, np.int16)
    arrays["empty"] = np.zeros((2, 0), np.float16)
    p = str(tmp_path / "st.safetensors")
    stnp.save_file(arrays, p, metadata={"format": "np", "note": "ünïcode"})
    out, md = _C.load_safetensors(p)
    assert md == {"format": "np", "note": "ünïcode"}
    assert {n for n, _ in out} == set(arrays)
    for name, t in out:
        np.testing.assert_array_equal(as_np(t), arrays[name])
        assert as_np(t).dtype == arrays[name].dtype
    flat = S.load(p)  # a foreign file loads as a flat dict under the PyTorch face
    assert set(flat) == set(arrays)
    np.testing.assert_array_equal(flat["layer1.weight"].detach().numpy(), arrays["layer1.weight"])


# --- validation of corrupt files ---------------------------------------------------------------

def craft(path, header, data=b"", length=None):
    h = header.encode() if isinstance(header, str) else header
    path.write_bytes(struct.pack("<Q", len(h) if length is None else length) + h + data)
    return str(path)


def entry(dtype="F32", shape=(1,), offsets=(0, 4)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


BAD_FILES = {
    "short": (lambda p: (p.write_bytes(b"abc"), str(p))[1], "too short"),
    "absurd_length": (lambda p: craft(p, "{}", length=1 << 40), "absurd"),
    "length_past_eof": (lambda p: craft(p, "{}", length=64), "past the end of the file"),
    "not_utf8": (lambda p: craft(p, b'{"\xff":1}'), "not valid UTF-8"),
    "malformed_json": (lambda p: craft(p, '{"a": {"dtype": "F32",}}'), "malformed JSON"),
    "not_object": (lambda p: craft(p, '["a"]'), "must start with '{'"),
    "trailing_garbage": (lambda p: craft(p, "{} {}"), "malformed JSON"),
    "unknown_dtype": (lambda p: craft(p, json.dumps({"a": entry("F8_E4M3", (1,), (0, 1))}), b"x"),
                      'unsupported dtype "F8_E4M3"'),
    "missing_shape": (lambda p: craft(p, '{"a": {"dtype": "F32", "data_offsets": [0, 4]}}',
                                      b"xxxx"), 'no "shape" field'),
    "missing_offsets": (lambda p: craft(p, '{"a": {"dtype": "F32", "shape": [1]}}', b"xxxx"),
                        'no "data_offsets" field'),
    "size_mismatch": (lambda p: craft(p, json.dumps({"a": entry("F64", (1,), (0, 4))}), b"xxxx"),
                      "needs 8 bytes"),
    "offsets_out_of_range": (lambda p: craft(p, json.dumps({"a": entry(offsets=(0, 4))}), b"xx"),
                             "past the end of the data region"),
    "overlap": (lambda p: craft(p, json.dumps({"a": entry(offsets=(0, 4)),
                                               "b": entry(offsets=(2, 6))}), b"x" * 6),
                "overlaps"),
    "gap": (lambda p: craft(p, json.dumps({"a": entry(offsets=(0, 4)),
                                           "b": entry(offsets=(6, 10))}), b"x" * 10),
            "belong to no tensor"),
    "trailing_bytes": (lambda p: craft(p, json.dumps({"a": entry()}), b"x" * 5), "trailing bytes"),
    "duplicate_name": (lambda p: craft(p, '{"a": %s, "a": %s}' % (json.dumps(entry()),
                                                                   json.dumps(entry())), b"xxxx"),
                       'duplicate key "a"'),
    "metadata_not_str": (lambda p: craft(p, '{"__metadata__": {"k": 1}}'), "must be a string"),
    "negative_dim": (lambda p: craft(p, json.dumps({"a": entry(shape=(-1,))}), b"xxxx"),
                     "non-negative integer"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_corrupt_file_raises_value_error(tmp_path, case):
    make, fragment = BAD_FILES[case]
    p = make(tmp_path / f"{case}.safetensors")
    with pytest.raises(ValueError) as e:
        _C.load_safetensors(p)
    assert fragment in str(e.value) and p in str(e.value), str(e.value)
    with pytest.raises(ValueError):
        S.load(p)
    with pytest.raises(ValueError):
        S.load_checkpoint(p)


def test_truncated_and_mutated_files_never_crash(tmp_path):
    p = tmp_path / "good.safetensors"
    pairs = [("w", tandem.ones(3, 4)), ("b", tandem.zeros(4, dtype=tandem.int64)),
             ("m", tandem.ones(2) > 0)]
    _C.save_safetensors(str(p), pairs, {"a": "b"})
    good = p.read_bytes()
    for cut in (len(good) - 1, len(good) - 20, 30, 9, 8, 7):
        q = tmp_path / f"cut{cut}"
        q.write_bytes(good[:cut])
        with pytest.raises(ValueError):
            _C.load_safetensors(str(q))
    rng = np.random.default_rng(0)
    q = tmp_path / "mut"
    outcomes = set()
    for _ in range(300):
        b = bytearray(good)
        for pos in rng.integers(0, len(good), size=int(rng.integers(1, 4))):
            b[pos] = int(rng.integers(0, 256))
        q.write_bytes(bytes(b))
        try:
            _C.load_safetensors(str(q))
            outcomes.add("ok")  # e.g. a flipped data byte: still a valid file
        except ValueError:
            outcomes.add("error")
    assert outcomes == {"ok", "error"}


# --- crash safety ------------------------------------------------------------------------------

CHILD = """
import sys
import tandem
from tandem import _C
big = tandem.ones(50_000_000)  # 200 MB of float32
print("ready", flush=True)
_C.save_safetensors(sys.argv[1], [("big", big)], {"v": "new"})
print("done", flush=True)
"""


def test_killed_writer_leaves_previous_checkpoint_intact(tmp_path):
    target = tmp_path / "model.safetensors"
    w = np.arange(1000, dtype=np.float32)
    _C.save_safetensors(str(target), [("w", tandem.tensor(w))], {"v": "old"})
    before = target.read_bytes()
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_root, env.get("PYTHONPATH", "")])
    if env.get("TANDEM_BUILD_DIR"):
        env["TANDEM_BUILD_DIR"] = os.path.abspath(env["TANDEM_BUILD_DIR"])
    for _attempt in range(3):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(target)],
                                stdout=subprocess.PIPE, env=env)
        try:
            assert proc.stdout.readline() == b"ready\n"
            tmp = tmp_path / f"model.safetensors.tmp.{proc.pid}"
            deadline = time.monotonic() + 60
            while not (tmp.exists() and tmp.stat().st_size > 0):
                assert proc.poll() is None and time.monotonic() < deadline, "child never wrote"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()
        if target.read_bytes() == before:
            break  # killed mid-write (the usual case); else the child won the race: retry
        _C.save_safetensors(str(target), [("w", tandem.tensor(w))], {"v": "old"})
    assert target.read_bytes() == before
    out, md = _C.load_safetensors(str(target))
    assert md == {"v": "old"} and out[0][0] == "w"
    np.testing.assert_array_equal(out[0][1].detach().numpy(), w)
    # The partial temporary is what the kill left; it never replaced the checkpoint.
    assert tmp.exists() and tmp.stat().st_size < 200_000_000 + 128


# --- PyTorch face: mint.save / mint.load -------------------------------------------------------

def test_mint_save_load_optimizer_like_state(tmp_path):
    w = tandem.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    shared = tandem.ones(3, dtype=tandem.float64)
    state = {
        "model": OrderedDict([("fc.weight", w), ("fc.bias", tandem.zeros(3)),
                              ("bn.num_batches_tracked", tandem.tensor(5))]),
        "optimizer": {
            "state": {0: {"step": tandem.tensor(3.0), "exp_avg": shared, "exp_avg_sq": shared},
                      1: {"momentum_buffer": None}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8,
                              "weight_decay": 0, "amsgrad": False, "params": [0, 1],
                              "name": "group ü", "inf": float("inf")}],
        },
        "epoch": 12,
        "rng": np.arange(4, dtype=np.int64),
        "tag": None,
    }
    p = tmp_path / "ckpt.pt"
    S.save(state, p)
    back = S.load(p)
    assert list(back) == list(state)
    assert isinstance(back["model"], OrderedDict) and list(back["model"]) == list(state["model"])
    np.testing.assert_array_equal(back["model"]["fc.weight"].detach().numpy(), w.detach().numpy())
    assert back["model"]["bn.num_batches_tracked"].dtype == tandem.int64
    st = back["optimizer"]["state"]
    assert list(st) == [0, 1] and st[1] == {"momentum_buffer": None}
    assert st[0]["exp_avg"] is st[0]["exp_avg_sq"]  # one tensor saved once, shared again
    np.testing.assert_array_equal(st[0]["exp_avg"].detach().numpy(), np.ones(3))
    assert st[0]["exp_avg"].dtype == tandem.float64
    assert back["optimizer"]["param_groups"] == state["optimizer"]["param_groups"]
    assert isinstance(back["optimizer"]["param_groups"][0]["betas"], tuple)
    assert back["epoch"] == 12 and back["tag"] is None
    assert isinstance(back["rng"], np.ndarray)
    np.testing.assert_array_equal(back["rng"], state["rng"])
    # Tensors sit under flattened dotted keys, so plain safetensors readers see them too.
    names = {n for n, _ in _C.load_safetensors(str(p))[0]}
    assert names == {"model.fc.weight", "model.fc.bias", "model.bn.num_batches_tracked",
                     "optimizer.state.0.step", "optimizer.state.0.exp_avg", "rng"}


def test_mint_save_load_flat_state_dict_and_single_tensor(tmp_path):
    sd = {"a.weight": tandem.randn(3, 2), "a.bias": tandem.randn(2)}
    S.save(sd, str(tmp_path / "sd.pt"))
    back = S.load(str(tmp_path / "sd.pt"), map_location="cpu")
    assert list(back) == ["a.weight", "a.bias"]
    for k in sd:
        np.testing.assert_array_equal(back[k].detach().numpy(), sd[k].detach().numpy())
    assert [n for n, _ in _C.load_safetensors(str(tmp_path / "sd.pt"))[0]] == list(sd)
    S.save(tandem.arange(5), tmp_path / "t.pt")
    np.testing.assert_array_equal(S.load(tmp_path / "t.pt").detach().numpy(), np.arange(5))
    # Key collisions after flattening still get distinct tensors.
    S.save({"a.b": tandem.ones(1), "a": {"b": tandem.zeros(1)}}, tmp_path / "c.pt")
    c = S.load(tmp_path / "c.pt")
    assert float(c["a.b"].detach().numpy()[0]) == 1.0 and float(c["a"]["b"].detach().numpy()[0]) == 0.0


def test_mint_save_load_file_objects_and_parameters(tmp_path):
    from tandem import Parameter
    p = Parameter(tandem.ones(2, 2), requires_grad=False)
    buf = io.BytesIO()
    S.save({"p": p, "q": Parameter(tandem.zeros(2))}, buf)
    buf.seek(0)
    back = S.load(buf)
    assert isinstance(back["p"], Parameter) and not back["p"].requires_grad
    assert isinstance(back["q"], Parameter) and back["q"].requires_grad
    np.testing.assert_array_equal(back["p"].detach().numpy(), np.ones((2, 2)))


def test_mint_save_rejects_unsupported_values(tmp_path):
    p = tmp_path / "x.pt"
    S.save({"ok": tandem.ones(1)}, p)
    before = p.read_bytes()
    with pytest.raises(TypeError, match="cannot save a object at 'bad.x'"):
        S.save({"ok": tandem.ones(1), "bad": {"x": object()}}, p)
    with pytest.raises(TypeError, match="dict key"):
        S.save({(1, 2): 3}, p)
    assert p.read_bytes() == before
    with pytest.raises(ValueError, match="map_location"):
        S.load(p, map_location="cuda:0")
    with pytest.raises(TypeError, match="file name"):
        S.save_checkpoint({"a": tandem.ones(1)}, 3)


# --- MindSpore face ----------------------------------------------------------------------------

class DuckNet:
    """Anything with named_parameters() works as a network."""

    def __init__(self, seed):
        from tandem import Parameter
        rng = np.random.default_rng(seed)
        self.w = Parameter(tandem.tensor(rng.standard_normal((3, 4)).astype(np.float32)))
        self.b = Parameter(tandem.tensor(rng.standard_normal(4).astype(np.float32)))
        self.steps = Parameter(tandem.tensor(np.int64(seed)), requires_grad=False)

    def named_parameters(self):
        return iter([("dense.weight", self.w), ("dense.bias", self.b), ("steps", self.steps)])


def test_save_checkpoint_and_load_param_into_net(tmp_path):
    from tandem import Parameter
    src, dst = DuckNet(1), DuckNet(2)
    S.save_checkpoint(src, tmp_path / "net", append_dict={"epoch_num": 7, "lr": 0.5,
                                                          "tag": "run-1", "extra": tandem.ones(2)})
    assert os.path.exists(tmp_path / "net.ckpt")  # MindSpore appends the suffix
    params = S.load_checkpoint(tmp_path / "net.ckpt")
    assert list(params) == ["dense.weight", "dense.bias", "steps", "epoch_num", "lr", "extra",
                            "tag"]
    assert isinstance(params["dense.weight"], Parameter)
    assert params["dense.weight"].name == "dense.weight"
    assert params["epoch_num"].dtype == tandem.int64 and int(params["epoch_num"].item()) == 7
    assert float(params["lr"].item()) == 0.5 and params["tag"] == "run-1"
    not_loaded, ckpt_not_loaded = S.load_param_into_net(dst, params)
    assert not_loaded == [] and ckpt_not_loaded == ["epoch_num", "lr", "extra", "tag"]
    w_obj = dst.w
    for a, b in [(src.w, dst.w), (src.b, dst.b), (src.steps, dst.steps)]:
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert dst.w is w_obj and dst.w.requires_grad  # loaded in place
    # load_checkpoint(net=...) loads too; filter_prefix skips names.
    dst2 = DuckNet(3)
    got = S.load_checkpoint(tmp_path / "net.ckpt", net=dst2, filter_prefix="dense.b")
    assert "dense.bias" not in got
    np.testing.assert_array_equal(dst2.w.detach().numpy(), src.w.detach().numpy())
    assert not np.array_equal(dst2.b.detach().numpy(), src.b.detach().numpy())


def test_load_param_into_net_mismatches():
    net = DuckNet(0)
    with pytest.raises(ValueError, match="shape of 'dense.bias'"):
        S.load_param_into_net(net, {"dense.bias": tandem.ones(5)})
    with pytest.raises(ValueError, match="strict_load"):
        S.load_param_into_net(net, {"dense.bias": tandem.ones(4, dtype=tandem.float64)},
                              strict_load=True)
    missing, extra = S.load_param_into_net(net, {"dense.bias": tandem.ones(4, dtype=tandem.float64),
                                                 "other": tandem.ones(1)})
    assert missing == ["dense.weight", "steps"] and extra == ["other"]
    assert net.b.dtype == tandem.float32
    np.testing.assert_array_equal(net.b.detach().numpy(), np.ones(4, np.float32))
    with pytest.raises(TypeError, match="parameter_dict"):
        S.load_param_into_net(net, [("a", 1)])


def test_save_checkpoint_list_and_dict_forms(tmp_path):
    items = [{"name": "a", "data": tandem.ones(2)}, {"name": "b", "data": np.arange(3)}]
    S.save_checkpoint(items, str(tmp_path / "l.safetensors"))
    got = S.load_checkpoint(str(tmp_path / "l.safetensors"))
    np.testing.assert_array_equal(got["b"].detach().numpy(), np.arange(3))
    S.save_checkpoint({"x": tandem.zeros(1), "y": tandem.ones(1)}, tmp_path / "d.ckpt",
                      choice_func=lambda n: n != "y")
    assert list(S.load_checkpoint(tmp_path / "d.ckpt")) == ["x"]
    with pytest.raises(ValueError, match="duplicate name"):
        S.save_checkpoint({"x": tandem.ones(1)}, tmp_path / "e.ckpt", append_dict={"x": 1})
    with pytest.raises(TypeError, match="'name' and 'data'"):
        S.save_checkpoint([{"name": "a"}], tmp_path / "e.ckpt")
    with pytest.raises(TypeError, match="Cell / Module"):
        S.save_checkpoint(42, tmp_path / "e.ckpt")
    assert not os.path.exists(tmp_path / "e.ckpt")


def test_cell_checkpoint_includes_persistent_buffers(tmp_path):
    cell_mod = tandem.nn
    from tandem import Parameter

    class Net(cell_mod.Cell):
        def __init__(self, v):
            super().__init__()
            self.w = Parameter(tandem.full((2, 2), float(v)))
            self.register_buffer("running_mean", tandem.full((2,), float(v)))
            self.register_buffer("scratch", tandem.full((2,), float(v)), persistent=False)

    a, b = Net(1), Net(2)
    S.save_checkpoint(a, tmp_path / "cell.ckpt")
    assert sorted(S.load_checkpoint(tmp_path / "cell.ckpt")) == ["running_mean", "w"]
    S.load_checkpoint(tmp_path / "cell.ckpt", net=b)
    np.testing.assert_array_equal(b.w.detach().numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(b.running_mean.detach().numpy(), np.ones(2))
    np.testing.assert_array_equal(b.scratch.detach().numpy(), np.full(2, 2.0))
    # A PyTorch-style state_dict round trip through mint.save / mint.load.
    c = Net(3)
    S.save(a.state_dict(), tmp_path / "sd.pt")
    c.load_state_dict(S.load(tmp_path / "sd.pt"))
    np.testing.assert_array_equal(c.w.detach().numpy(), np.ones((2, 2)))
