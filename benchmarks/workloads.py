"""The workloads of benchmarks/run_all: names, sizes, and the loop every framework's worker
runs. Standard library only: this module is imported inside the peers' venvs too.

A framework module (workloads_torchlike, workloads_mindspore, workloads_jax) provides
`build(mode, sz) -> (impls, sync)`: impls maps a workload key to a zero-argument callable
returning the measured value (seconds, or bytes for the memory row); keys it lacks are
reported as not applicable, exceptions as the cell's reason.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import median_time, peak_rss_delta  # noqa: E402

# (key, label, unit): unit "s" is a median time, "compile" a first-call time minus the
# steady time, "bytes" a peak-memory delta.
WORKLOADS = [
    ("overhead", "per-op overhead: add of 1-element tensors", "s"),
    ("triple", "y = x + x + x, 16 M float32", "s"),
    ("gelu", "6-op elementwise chain (tanh-GELU), 16 M float32", "s"),
    ("add2d", "add, [1024, 256] float32, contiguous", "s"),
    ("add_t", "add of transposed views: a.T + b.T, a, b [256, 1024] float32", "s"),
    ("sum", "sum, 16 M float32", "s"),
    ("softmax", "softmax(dim=-1), 4096x4096 float32", "s"),
    ("gemm1024", "GEMM 1024^3 fp32", "s"),
    ("gemm2048", "GEMM 2048^3 fp32", "s"),
    ("conv_lenet1", "conv2d fwd+bwd, LeNet conv1 (256x1x28x28, 6 5x5, pad 2)", "s"),
    ("conv_lenet2", "conv2d fwd+bwd, LeNet conv2 (256x6x14x14, 16 5x5)", "s"),
    ("conv_r18s1", "conv2d fwd+bwd, ResNet-18 stage 1 (32x64x24x24, 64 3x3)", "s"),
    ("conv_r18s2", "conv2d fwd+bwd, ResNet-18 stage 2 (32x128x12x12, 128 3x3)", "s"),
    ("conv_r18s3", "conv2d fwd+bwd, ResNet-18 stage 3 (32x256x6x6, 256 3x3)", "s"),
    ("conv_r18s4", "conv2d fwd+bwd, ResNet-18 stage 4 (32x512x3x3, 512 3x3)", "s"),
    ("mlp_step", "MLP 784-256-256-10 training step, batch 256", "s"),
    ("lenet_step", "LeNet training step, batch 256, 1x28x28", "s"),
    ("resnet18_step", "ResNet-18 training step, batch 32, 1x96x96", "s"),
    ("rnn_step", "D2L RNN (tanh) training step: vocab 28, hidden 256, 35 steps, batch 32", "s"),
    ("gru_step", "D2L GRU training step: vocab 28, hidden 256, 35 steps, batch 32", "s"),
    ("lstm_step", "D2L LSTM training step: vocab 28, hidden 256, 35 steps, batch 32", "s"),
    ("attn_step", "D2L Transformer encoder training step: 2 blocks, hidden 32, 4 heads, FFN 64, "
     "10 steps, batch 64", "s"),
    ("lenet_compile", "compile time of the LeNet training step", "compile"),
    ("resnet18_peak", "peak memory of the ResNet-18 training step", "bytes"),
]
# Rows measured in a fresh process per column (process-wide peak RSS).
FRESH_PROCESS = ("resnet18_peak",)
# Measurement order: the slowest row last, so a column that runs out of time loses least.
RUN_ORDER = [k for k, _, _ in WORKLOADS if k != "resnet18_step"] + ["resnet18_step"]

# (name, N, C, H, W, O, k, stride, pad), the shapes of benchmarks/kernels.py's first six rows.
CONV = {"conv_lenet1": (256, 1, 28, 28, 6, 5, 1, 2), "conv_lenet2": (256, 6, 14, 14, 16, 5, 1, 0),
        "conv_r18s1": (32, 64, 24, 24, 64, 3, 1, 1), "conv_r18s2": (32, 128, 12, 12, 128, 3, 1, 1),
        "conv_r18s3": (32, 256, 6, 6, 256, 3, 1, 1), "conv_r18s4": (32, 512, 3, 3, 512, 3, 1, 1)}
MLP_SIZES = (784, 256, 256, 10)
# D2L chapter 9's language models: (vocab, hidden, num_steps, batch).
RNN_SIZES = (28, 256, 35, 32)
# D2L's Transformer (zh edition 10.7, machine translation): (vocab, hidden, heads, FFN hidden,
# blocks, num_steps, batch); the encoder with an embedding and a token-classifier head.
ATTN_SIZES = (200, 32, 4, 64, 2, 10, 64)
LR = 0.05


def sizes(quick: bool) -> dict:
    """Problem sizes; --quick shrinks them so tandem's rows run in well under 3 minutes.
    BENCH_REPS overrides the timed repetitions (run_all's interleaved rounds set it)."""
    reps = int(os.environ.get("BENCH_REPS", "5"))
    if quick:
        conv = {k: (min(v[0], 8),) + v[1:] for k, v in CONV.items()}
        return {"n": 1 << 21, "softmax": (512, 4096), "gemm1024": 256, "gemm2048": 512,
                "conv": conv, "mlp_batch": 64, "lenet_batch": 64, "resnet_batch": 4,
                "resnet_hw": 96, "reps": reps, "overhead_inner": 500}
    return {"n": 16 << 20, "softmax": (4096, 4096), "gemm1024": 1024, "gemm2048": 2048,
            "conv": CONV, "mlp_batch": 256, "lenet_batch": 256, "resnet_batch": 32,
            "resnet_hw": 96, "reps": reps, "overhead_inner": 2000}


SLOW_CALL_S = 8.0  # a call slower than this is timed once after warm-up (budget of the run)


def make_timed(reps: int, sync=lambda out: None, target_s: float = 0.02):
    """timed(f, *args, inner=None): median seconds per call of f(*args) over `reps`
    repetitions of `inner` back-to-back calls followed by one sync(last output) (so an
    asynchronous runtime pays its completion wait once per repetition, not per call).
    inner defaults to enough calls for about target_s per repetition. A call slower than
    SLOW_CALL_S is timed once after its warm-up call: {'value', 'note'}."""
    def once(f, args):
        t = time.perf_counter()
        sync(f(*args))
        return time.perf_counter() - t

    def timed(f, *args, inner=None):
        once(f, args)  # first call: compiles, allocates
        t1 = once(f, args)
        if t1 > SLOW_CALL_S:
            return {"value": t1, "note": "1 run after warm-up: a call takes > "
                    f"{SLOW_CALL_S:.0f} s"}
        n = inner or max(1, min(1000, int(target_s / max(t1, 1e-9))))

        def run():
            out = None
            for _ in range(n):
                out = f(*args)
            sync(out)
        return median_time(run, reps=reps, warmup=1) / n
    return timed


def chain_fns(mint):
    """x + x + x and the six-op tanh-GELU, written with `mint.tanh` of any framework."""
    def triple(x):
        return x + x + x

    def gelu_tanh(x):  # six elementwise ops
        return 0.5 * x * (1 + mint.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
    return triple, gelu_tanh


def add_op_rows(impls: dict, sz: dict, wrap, timed, randn, ns, total, softmax) -> None:
    """The single-op rows. wrap(f) compiles f (or returns it, eager); timed(f, *args, inner)
    is the framework's synchronizing median; randn(*shape) makes float32 inputs; ns.tanh."""
    def add(a, b):  # named functions: mindspore.jit parses source and rejects inline lambdas
        return a + b

    def matmul(a, b):
        return a @ b

    def add_t(a, b):  # both operands strided: the elementwise driver's tiled path
        return a.T + b.T
    made = {}  # inputs are made on first use: the peak-memory process must not hold them

    def inp(name, *shape):
        if name not in made:
            made[name] = randn(*shape)
        return made[name]
    impls["overhead"] = lambda: timed(wrap(add), inp("a1", 1), inp("b1", 1),
                                      inner=sz["overhead_inner"])
    triple, gelu = chain_fns(ns)
    impls["triple"] = lambda: timed(wrap(triple), inp("x", sz["n"]))
    impls["gelu"] = lambda: timed(wrap(gelu), inp("x", sz["n"]))
    impls["add2d"] = lambda: timed(wrap(add), inp("c1", 1024, 256), inp("c2", 1024, 256))
    impls["add_t"] = lambda: timed(wrap(add_t), inp("t1", 256, 1024), inp("t2", 256, 1024))
    impls["sum"] = lambda: timed(wrap(total), inp("x", sz["n"]))
    impls["softmax"] = lambda: timed(wrap(softmax), inp("z", *sz["softmax"]))
    for key in ("gemm1024", "gemm2048"):
        m = sz[key]
        impls[key] = lambda m=m: timed(wrap(matmul), randn(m, m), randn(m, m))


def add_model_rows(impls: dict, make_step, timed, sync, compiled: bool) -> None:
    """The training-step rows, the LeNet compile time (first call minus steady call) and the
    ResNet-18 peak memory. make_step(model) -> (step, X, y) for 'mlp', 'lenet', 'resnet18',
    and the recurrent language models 'rnn', 'gru', 'lstm' (a framework without them raises
    in make_step, which the cell reports)."""
    state = {}

    def step_time(model):
        step, X, y = make_step(model)
        t0 = time.perf_counter()
        sync(step(X, y))
        first = time.perf_counter() - t0
        t = timed(step, X, y)
        state[model] = first - (t["value"] if isinstance(t, dict) else t)
        return t
    for model in ("mlp", "lenet", "resnet18"):
        impls[f"{model}_step"] = lambda model=model: step_time(model)
    def compile_time():
        if "lenet" not in state:
            raise RuntimeError("the LeNet training step failed (see its row)")
        return state["lenet"]
    if compiled:
        impls["lenet_compile"] = compile_time

    for model in ("rnn", "gru", "lstm", "attn"):
        impls[f"{model}_step"] = lambda model=model: timed(*make_step(model))

    def peak():
        step, X, y = make_step("resnet18")
        return peak_rss_delta(lambda: sync(step(X, y)), warmup=1, reps=2)
    impls["resnet18_peak"] = peak


def run_column(build, mode: str, quick: bool, only: list | None = None, emit=None) -> dict:
    """Runs every workload of one column in this process; a failing workload gets its
    exception as the cell, the others still run. emit(key, value) is called after each
    (so a parent can resume after a crash that kills this process)."""
    out = {}
    try:
        impls = build(mode, sizes(quick))
    except Exception as e:  # the framework itself could not start
        return {"error": _reason(e)}
    for key in RUN_ORDER:
        if only is not None and key not in only:
            continue
        if only is None and key in FRESH_PROCESS:
            continue
        if key not in impls:
            continue
        try:
            v = impls[key]()
            out[key] = v if isinstance(v, dict) else float(v)
        except Exception as e:
            out[key] = {"error": _reason(e)}
        if emit:
            emit(key, out[key])
    return out


def _reason(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    first = next((m for m in msg if m.strip()), "")
    where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    loc = f" (at {where.name})" if where else ""
    return f"{type(e).__name__}: {first[:160]}{loc}"
