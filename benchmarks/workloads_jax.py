"""run_all's workloads for JAX (jax.jit on CPU), written as pure functions with jax.lax
(no Flax, so the peers need only jax[cpu]). Threads: the worker process is pinned to THREADS
CPUs (run_all does it for every worker), and XLA's CPU thread pool follows that affinity.
"""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import (  # noqa: E402
    ATTN_SIZES, LR, MLP_SIZES, RNN_SIZES, add_model_rows, add_op_rows, make_timed)


def _layers(jax):
    """conv / dense / pools / batch norm / cross entropy over NCHW arrays."""
    jnp, lax = jax.numpy, jax.lax

    def conv(p, x, stride=1, pad=0):
        y = lax.conv_general_dilated(x, p["w"], (stride, stride), [(pad, pad)] * 2,
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + p["b"][None, :, None, None]

    def dense(p, x):
        return x @ p["w"] + p["b"]

    def avgpool2(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID") / 4

    def maxpool3s2(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2),
                                 [(0, 0), (0, 0), (1, 1), (1, 1)])

    def bn(p, s, x):
        """Training-mode batch norm; returns (y, new running stats)."""
        mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
        y = (x - mean[None, :, None, None]) * lax.rsqrt(var[None, :, None, None] + 1e-5)
        n = x.size / x.shape[1]
        new = {"mean": 0.9 * s["mean"] + 0.1 * mean, "var": 0.9 * s["var"] + 0.1 * var * n / (n - 1)}
        return y * p["g"][None, :, None, None] + p["b"][None, :, None, None], new

    def cross_entropy(logits, y):
        logp = jax.nn.log_softmax(logits)
        return -jnp.take_along_axis(logp, y[:, None], axis=1).mean()
    return conv, dense, avgpool2, maxpool3s2, bn, cross_entropy


def _init(rng, model: str):
    """(params, batch-norm state) as nested dicts of float32 numpy arrays."""
    import numpy as np

    def conv(cin, cout, k):
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2 / (cin * k * k))
        return {"w": w.astype(np.float32), "b": np.zeros(cout, np.float32)}

    def dense(a, b):
        return {"w": (rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32),
                "b": np.zeros(b, np.float32)}

    def bn(c):
        return ({"g": np.ones(c, np.float32), "b": np.zeros(c, np.float32)},
                {"mean": np.zeros(c, np.float32), "var": np.ones(c, np.float32)})
    if model == "mlp":
        return {"fc": [dense(a, b) for a, b in zip(MLP_SIZES[:-1], MLP_SIZES[1:])]}, {}
    if model == "lenet":
        return {"c1": conv(1, 6, 5), "c2": conv(6, 16, 5), "fc": [dense(400, 120),
                dense(120, 84), dense(84, 10)]}, {}
    params, state = {"stem": conv(1, 64, 7), "blocks": []}, {"blocks": []}
    params["bn"], state["bn"] = bn(64)
    for cin, cout, first in ((64, 64, True), (64, 128, False), (128, 256, False),
                             (256, 512, False)):
        for i in range(2):
            c_in = cin if i == 0 else cout
            p = {"conv1": conv(c_in, cout, 3), "conv2": conv(cout, cout, 3)}
            (p["bn1"], s1), (p["bn2"], s2) = bn(cout), bn(cout)
            if i == 0 and not first:
                p["conv3"] = conv(cin, cout, 1)
            params["blocks"].append(p)
            state["blocks"].append({"bn1": s1, "bn2": s2})
    params["fc"] = dense(512, 10)
    return params, state


def _forward(jax, model: str):
    """forward(params, state, X) -> (logits, new state)."""
    jnp = jax.numpy
    conv, dense, avgpool2, maxpool3s2, bn, _ = _layers(jax)
    sig = jax.nn.sigmoid

    def mlp(params, state, x):
        h = x.reshape(x.shape[0], -1)
        for i, p in enumerate(params["fc"]):
            h = dense(p, h)
            h = jax.nn.relu(h) if i + 1 < len(params["fc"]) else h
        return h, state

    def lenet(params, state, x):
        h = avgpool2(sig(conv(params["c1"], x, pad=2)))
        h = avgpool2(sig(conv(params["c2"], h))).reshape(x.shape[0], -1)
        f1, f2, f3 = params["fc"]
        return dense(f3, sig(dense(f2, sig(dense(f1, h))))), state

    def resnet18(params, state, x):
        new = {"blocks": []}
        h, new["bn"] = bn(params["bn"], state["bn"], conv(params["stem"], x, 2, 3))
        h = maxpool3s2(jax.nn.relu(h))
        for p, s in zip(params["blocks"], state["blocks"]):
            stride = 2 if "conv3" in p else 1  # the first block of stages 2-4
            y, s1 = bn(p["bn1"], s["bn1"], conv(p["conv1"], h, stride, 1))
            y, s2 = bn(p["bn2"], s["bn2"], conv(p["conv2"], jax.nn.relu(y), 1, 1))
            skip = conv(p["conv3"], h, stride) if "conv3" in p else h
            h = jax.nn.relu(y + skip)
            new["blocks"].append({"bn1": s1, "bn2": s2})
        return dense(params["fc"], jnp.mean(h, axis=(2, 3))), new
    return {"mlp": mlp, "lenet": lenet, "resnet18": resnet18}[model]


def _rnn(jax, kind: str, rng):
    """D2L's RNNModel (section 9.6) with lax.scan over the steps: params (PyTorch's layout
    and initialization, gates i, f, g, o / r, z, n) and forward(params, state, X) on one-hot
    X (L, N, vocab) -> logits (L * N, vocab)."""
    import numpy as np
    jnp, lax = jax.numpy, jax.lax
    vocab, hidden = RNN_SIZES[:2]
    G = {"rnn": 1, "gru": 3, "lstm": 4}[kind] * hidden
    k = 1 / np.sqrt(hidden)

    def u(*shape):
        return rng.uniform(-k, k, shape).astype(np.float32)
    params = {"w_ih": u(G, vocab), "w_hh": u(G, hidden), "b_ih": u(G), "b_hh": u(G),
              "fc": {"w": u(hidden, vocab), "b": u(vocab)}}
    sig = jax.nn.sigmoid

    def cell(p, carry, xw):
        h = carry[0]
        gh = h @ p["w_hh"].T + p["b_hh"]
        if kind == "rnn":
            h = jnp.tanh(xw + gh)
            return (h,), h
        if kind == "gru":
            xr, xz, xn = jnp.split(xw, 3, axis=-1)
            hr, hz, hn = jnp.split(gh, 3, axis=-1)
            r, z = sig(xr + hr), sig(xz + hz)
            n = jnp.tanh(xn + r * hn)
            h = (1 - z) * n + z * h
            return (h,), h
        i, f, g, o = jnp.split(xw + gh, 4, axis=-1)
        c = sig(f) * carry[1] + sig(i) * jnp.tanh(g)
        h = sig(o) * jnp.tanh(c)
        return (h, c), h

    def forward(p, state, X):
        xw = X @ p["w_ih"].T + p["b_ih"]
        zeros = jnp.zeros((X.shape[1], hidden), X.dtype)
        init = (zeros, zeros) if kind == "lstm" else (zeros,)
        _, hs = lax.scan(lambda carry, x: cell(p, carry, x), init, xw)
        return hs.reshape(-1, hidden) @ p["fc"]["w"] + p["fc"]["b"], state
    return params, forward


def _transformer(jax, rng):
    """D2L's Transformer encoder (section 10.7, no dropout), as workloads_torchlike's: params
    in PyTorch's layout and forward(params, state, tokens) -> logits (batch * steps, vocab)."""
    import numpy as np
    vocab, hidden, heads, ffn, blocks = ATTN_SIZES[:5]

    def u(fan_in, *shape):
        k = 1 / np.sqrt(fan_in)
        return rng.uniform(-k, k, shape).astype(np.float32)

    def block():
        return {"q": u(hidden, hidden, hidden), "k": u(hidden, hidden, hidden),
                "v": u(hidden, hidden, hidden), "o": u(hidden, hidden, hidden),
                "ln1": {"g": np.ones(hidden, np.float32), "b": np.zeros(hidden, np.float32)},
                "ln2": {"g": np.ones(hidden, np.float32), "b": np.zeros(hidden, np.float32)},
                "f1": {"w": u(hidden, ffn, hidden), "b": u(hidden, ffn)},
                "f2": {"w": u(ffn, hidden, ffn), "b": u(ffn, hidden)}}
    params = {"emb": rng.standard_normal((vocab, hidden)).astype(np.float32),
              "blocks": [block() for _ in range(blocks)],
              "head": {"w": u(hidden, vocab, hidden), "b": u(hidden, vocab)}}

    def ln(p, x):
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * p["g"] + p["b"]

    def split(x):
        b, n = x.shape[:2]
        return x.reshape(b, n, heads, -1).transpose(0, 2, 1, 3).reshape(b * heads, n, -1)

    def merge(x):
        n = x.shape[1]
        x = x.reshape(-1, heads, n, x.shape[2]).transpose(0, 2, 1, 3)
        return x.reshape(x.shape[0], n, -1)

    def forward(p, state, tokens):
        x = p["emb"][tokens] * hidden ** 0.5
        for b in p["blocks"]:
            q, k, v = split(x @ b["q"].T), split(x @ b["k"].T), split(x @ b["v"].T)
            scores = q @ k.transpose(0, 2, 1) / (hidden // heads) ** 0.5
            y = ln(b["ln1"], x + merge(jax.nn.softmax(scores, -1) @ v) @ b["o"].T)
            h = jax.nn.relu(y @ b["f1"]["w"].T + b["f1"]["b"])
            x = ln(b["ln2"], y + h @ b["f2"]["w"].T + b["f2"]["b"])
        return x.reshape(-1, hidden) @ p["head"]["w"].T + p["head"]["b"], state
    return params, forward


def model_step(jax, model: str, sz: dict):
    import numpy as np
    rng = np.random.default_rng(0)
    ce = _layers(jax)[-1]
    if model == "attn":
        vocab, steps, batch = ATTN_SIZES[0], ATTN_SIZES[5], ATTN_SIZES[6]
        (params, forward), state = _transformer(jax, rng), {}
        X = jax.numpy.asarray(rng.integers(0, vocab, (batch, steps)).astype(np.int32))
        y = jax.numpy.asarray(rng.integers(0, vocab, steps * batch).astype(np.int32))
    elif model in ("rnn", "gru", "lstm"):
        vocab, _, steps, batch = RNN_SIZES
        (params, forward), state = _rnn(jax, model, rng), {}
        X = jax.numpy.asarray(np.eye(vocab, dtype=np.float32)[rng.integers(0, vocab,
                                                                           (steps, batch))])
        y = jax.numpy.asarray(rng.integers(0, vocab, steps * batch).astype(np.int32))
    else:
        params, state = _init(rng, model)
        forward = _forward(jax, model)
        if model == "resnet18":
            shape = (sz["resnet_batch"], 1, sz["resnet_hw"], sz["resnet_hw"])
        else:
            shape = (sz[f"{model}_batch"], 1, 28, 28)
        X = jax.numpy.asarray(rng.standard_normal(shape).astype(np.float32))
        y = jax.numpy.asarray(rng.integers(0, 10, shape[0]).astype(np.int32))

    def loss_fn(params, state, X, y):
        logits, new_state = forward(params, state, X)
        return ce(logits, y), new_state

    @partial(jax.jit, donate_argnums=(0, 1))
    def train(params, state, X, y):
        (loss, new_state), g = jax.value_and_grad(loss_fn, has_aux=True)(params, state, X, y)
        return jax.tree.map(lambda p, d: p - LR * d, params, g), new_state, loss
    held = [jax.device_put(params), jax.device_put(state)]

    def step(X, y):
        held[0], held[1], loss = train(held[0], held[1], X, y)
        return loss
    return step, X, y


def build(mode: str, sz: dict) -> dict:
    """mode: 'jax:jit'."""
    import jax
    import numpy as np
    jnp = jax.numpy
    rng = np.random.default_rng(0)

    def randn(*shape):
        return jnp.asarray(rng.standard_normal(shape).astype(np.float32))

    timed = make_timed(sz["reps"], jax.block_until_ready)

    impls = {}
    add_op_rows(impls, sz, jax.jit, timed, randn, jnp, jnp.sum,
                lambda v: jax.nn.softmax(v, axis=-1))
    conv = _layers(jax)[0]
    for key, (N, C, H, W, O, k, s, p) in sz["conv"].items():
        def conv_row(N=N, C=C, H=H, W=W, O=O, k=k, s=s, p=p):
            vg = jax.jit(jax.value_and_grad(
                lambda x, w, b: conv({"w": w, "b": b}, x, s, p).sum(), argnums=(0, 1, 2)))
            return timed(vg, randn(N, C, H, W), randn(O, C, k, k) * 0.1, randn(O))
        impls[key] = conv_row
    add_model_rows(impls, lambda model: model_step(jax, model, sz), timed,
                   jax.block_until_ready, True)
    return impls
