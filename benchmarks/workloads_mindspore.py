"""run_all's workloads for MindSpore on CPU: PyNative (eager) and GRAPH (mindspore.jit).

Uses mindspore.ops / mindspore.nn, which have CPU kernels (mindspore.mint targets Ascend);
a workload MindSpore cannot run reports its exception in the table. Threads:
mindspore.device_context.cpu.op_tuning.threads_num(THREADS) plus OMP_NUM_THREADS.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS  # noqa: E402
from workloads import (  # noqa: E402
    ATTN_SIZES, LR, MLP_SIZES, RNN_SIZES, add_model_rows, add_op_rows, make_timed)


def _ms():
    import mindspore as ms
    try:
        ms.set_device("CPU")
    except AttributeError:  # MindSpore < 2.5
        ms.set_context(device_target="CPU")
    try:
        ms.device_context.cpu.op_tuning.threads_num(THREADS)
    except (AttributeError, RuntimeError):
        pass
    return ms


def _conv(nn, cin, cout, k, stride=1, pad=0):
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad" if pad else "valid",
                     padding=pad, has_bias=True)


def nets(ms, model: str):
    nn, ops = ms.nn, ms.ops
    if model == "mlp":
        layers = [nn.Flatten()]
        for i, (a, b) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
            layers += [nn.Dense(a, b)] + ([nn.ReLU()] if i + 2 < len(MLP_SIZES) else [])
        return nn.SequentialCell(layers)
    if model == "lenet":
        return nn.SequentialCell([
            _conv(nn, 1, 6, 5, pad=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
            _conv(nn, 6, 16, 5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
            nn.Dense(400, 120), nn.Sigmoid(), nn.Dense(120, 84), nn.Sigmoid(), nn.Dense(84, 10)])

    class Residual(nn.Cell):  # D2L's ResNet-18 block, as in workloads_torchlike.resnet18
        def __init__(self, cin, cout, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = _conv(nn, cin, cout, 3, strides, 1)
            self.conv2 = _conv(nn, cout, cout, 3, 1, 1)
            self.conv3 = _conv(nn, cin, cout, 1, strides) if use_1x1conv else None
            self.bn1, self.bn2 = nn.BatchNorm2d(cout), nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()

        def construct(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            if self.conv3 is not None:
                x = self.conv3(x)
            return self.relu(y + x)

    class GlobalAvgPool(nn.Cell):
        def construct(self, x):
            return ops.mean(x, (2, 3))

    def stage(cin, cout, first):
        return [Residual(cin, cout, not first, 1 if first else 2), Residual(cout, cout)]
    return nn.SequentialCell([
        _conv(nn, 1, 64, 7, 2, 3), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1),
        *stage(64, 64, True), *stage(64, 128, False), *stage(128, 256, False),
        *stage(256, 512, False), GlobalAvgPool(), nn.Dense(512, 10)])


def rnn_net(ms, kind: str):
    """D2L's RNNModel (section 9.6) with mindspore.nn's recurrent layers: a recurrent layer
    over one-hot steps (L, N, vocab) and a Dense head on every step's state."""
    nn = ms.nn
    vocab, hidden = RNN_SIZES[:2]
    layer = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[kind](vocab, hidden)

    class RNNModel(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn, self.linear = layer, nn.Dense(hidden, vocab)

        def construct(self, x):
            y, _ = self.rnn(x)
            return self.linear(y.reshape(-1, hidden))
    return RNNModel()


def transformer_net(ms):
    """D2L's Transformer encoder (section 10.7, no dropout), as workloads_torchlike's, with
    mindspore.nn layers and ops.bmm: logits (batch * steps, vocab)."""
    nn, ops = ms.nn, ms.ops
    vocab, hidden, heads, ffn, blocks = ATTN_SIZES[:5]

    def split(x):
        x = ops.transpose(x.reshape(x.shape[0], x.shape[1], heads, -1), (0, 2, 1, 3))
        return x.reshape(-1, x.shape[2], x.shape[3])

    def merge(x):
        x = ops.transpose(x.reshape(-1, heads, x.shape[1], x.shape[2]), (0, 2, 1, 3))
        return x.reshape(x.shape[0], x.shape[1], -1)

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Dense(hidden, hidden, has_bias=False)
                                              for _ in range(4))
            self.ln1, self.ln2 = nn.LayerNorm((hidden,)), nn.LayerNorm((hidden,))
            self.ffn1, self.ffn2 = nn.Dense(hidden, ffn), nn.Dense(ffn, hidden)

        def construct(self, x):
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = ops.bmm(q, ops.transpose(k, (0, 2, 1))) / (hidden // heads) ** 0.5
            y = self.ln1(x + self.o(merge(ops.bmm(ops.softmax(scores, -1), v))))
            return self.ln2(y + self.ffn2(ops.relu(self.ffn1(y))))

    class Encoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, hidden)
            self.blocks = nn.SequentialCell([Block() for _ in range(blocks)])
            self.head = nn.Dense(hidden, vocab)

        def construct(self, tokens):
            y = self.blocks(self.embedding(tokens) * hidden ** 0.5)
            return self.head(y.reshape(-1, hidden))
    return Encoder()


def model_step(ms, graph: bool, model: str, sz: dict):
    import numpy as np
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    if model == "attn":
        vocab, steps, batch = ATTN_SIZES[0], ATTN_SIZES[5], ATTN_SIZES[6]
        net = transformer_net(ms)
        X = ms.Tensor(rng.integers(0, vocab, (batch, steps)).astype(np.int32))
        y = ms.Tensor(rng.integers(0, vocab, steps * batch).astype(np.int32))
    elif model in ("rnn", "gru", "lstm"):
        vocab, _, steps, batch = RNN_SIZES
        net = rnn_net(ms, model)
        X = ms.Tensor(np.eye(vocab, dtype=np.float32)[rng.integers(0, vocab, (steps, batch))])
        y = ms.Tensor(rng.integers(0, vocab, steps * batch).astype(np.int32))
    else:
        net = nets(ms, model)
        if model == "resnet18":
            shape = (sz["resnet_batch"], 1, sz["resnet_hw"], sz["resnet_hw"])
        else:
            shape = (sz[f"{model}_batch"], 1, 28, 28)
        X = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 10, shape[0]).astype(np.int32))
    net.set_train(True)
    loss_fn = ms.nn.CrossEntropyLoss()
    opt = ms.nn.SGD(net.trainable_params(), learning_rate=LR)
    def forward(X, y):
        return loss_fn(net(X), y)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def step(X, y):
        loss, grads = grad_fn(X, y)
        opt(grads)
        return loss
    return (ms.jit(step) if graph else step), X, y


def build(mode: str, sz: dict) -> dict:
    """mode: 'mindspore:pynative' or 'mindspore:graph'."""
    ms = _ms()
    import numpy as np
    ops = ms.ops
    graph = mode.endswith("graph")
    wrap = ms.jit if graph else (lambda f: f)
    rng = np.random.default_rng(0)

    def tensor(*shape):
        return ms.Tensor(rng.standard_normal(shape).astype(np.float32))

    timed = make_timed(sz["reps"], lambda out: ms.runtime.synchronize())

    impls = {}
    def softmax(v):
        return ops.softmax(v, axis=-1)
    add_op_rows(impls, sz, wrap, timed, tensor, ops, ops.sum, softmax)
    for key, (N, C, H, W, O, k, s, p) in sz["conv"].items():
        def conv(N=N, C=C, H=H, W=W, O=O, k=k, s=s, p=p):
            def loss(x, w, b):
                y = ops.conv2d(x, w, b, stride=s, pad_mode="pad" if p else "valid", padding=p)
                return y.sum()
            vg = ms.value_and_grad(loss, grad_position=(0, 1, 2))
            return timed(wrap(vg), tensor(N, C, H, W), tensor(O, C, k, k) * 0.1, tensor(O))
        impls[key] = conv
    add_model_rows(impls, lambda model: model_step(ms, graph, model, sz), timed,
                   lambda out: ms.runtime.synchronize(), graph)
    return impls
