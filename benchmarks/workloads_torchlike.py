"""run_all's workloads for tandem (eager / @jit graph) and PyTorch (eager / torch.compile).

tandem.mint mirrors torch, so one definition of each model and step serves both; only the
compiled training step differs: tandem compiles MindSpore's functional form
(value_and_grad + optimizer(grads) inside @jit), torch compiles the usual
forward / backward / opt.step() closure.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS  # noqa: E402
from workloads import (  # noqa: E402
    ATTN_SIZES, LR, MLP_SIZES, RNN_SIZES, add_model_rows, add_op_rows, make_timed)


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
        nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))


def mlp(nn):
    layers = [nn.Flatten()]
    for i, (a, b) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i + 2 < len(MLP_SIZES) else [])
    return nn.Sequential(*layers)


def resnet18(nn, num_classes: int = 10, in_channels: int = 1):
    """D2L's ResNet-18 (section 8.6): 7x7/2 stem + 3x3/2 max-pool, four stages of two
    residual blocks (64, 128, 256, 512 channels), global average pool, linear."""
    class Residual(nn.Module):
        def __init__(self, cin, cout, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, kernel_size=3, padding=1, stride=strides)
            self.conv2 = nn.Conv2d(cout, cout, kernel_size=3, padding=1)
            self.conv3 = nn.Conv2d(cin, cout, kernel_size=1, stride=strides) if use_1x1conv else None
            self.bn1, self.bn2 = nn.BatchNorm2d(cout), nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            if self.conv3 is not None:
                x = self.conv3(x)
            return self.relu(y + x)

    def stage(cin, cout, first):
        return [Residual(cin, cout, use_1x1conv=not first, strides=1 if first else 2),
                Residual(cout, cout)]

    return nn.Sequential(
        nn.Conv2d(in_channels, 64, kernel_size=7, stride=2, padding=3), nn.BatchNorm2d(64),
        nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
        *stage(64, 64, True), *stage(64, 128, False), *stage(128, 256, False),
        *stage(256, 512, False), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
        nn.Linear(512, num_classes))


def rnn_model(nn, kind: str):
    """D2L's RNNModel (section 9.6): a recurrent layer over one-hot steps (L, N, vocab) and a
    linear head on every step's state, logits (L * N, vocab)."""
    vocab, hidden = RNN_SIZES[:2]
    layer = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[kind](vocab, hidden)

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn, self.linear = layer, nn.Linear(hidden, vocab)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.linear(y.reshape(-1, hidden))
    return RNNModel()


def transformer_encoder(T, nn):
    """D2L's Transformer encoder (section 10.7, no dropout): token embedding scaled by
    sqrt(hidden), blocks of multi-head self-attention (heads split by transpose_qkv's
    reshape / permute, scores by bmm) and a position-wise FFN, each with residual + LayerNorm;
    a linear head classifies every position's token: logits (batch * steps, vocab)."""
    vocab, hidden, heads, ffn, blocks = ATTN_SIZES[:5]

    def split(x):  # [B, L, H] -> [B * heads, L, H / heads]
        x = x.reshape(x.shape[0], x.shape[1], heads, -1).permute(0, 2, 1, 3)
        return x.reshape(-1, x.shape[2], x.shape[3])

    def merge(x):  # the inverse
        x = x.reshape(-1, heads, x.shape[1], x.shape[2]).permute(0, 2, 1, 3)
        return x.reshape(x.shape[0], x.shape[1], -1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden, bias=False)
                                              for _ in range(4))
            self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.ffn1, self.ffn2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)

        def forward(self, x):
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = T.bmm(q, k.transpose(1, 2)) / (hidden // heads) ** 0.5
            y = self.ln1(x + self.o(merge(T.bmm(T.softmax(scores, dim=-1), v))))
            return self.ln2(y + self.ffn2(T.relu(self.ffn1(y))))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, hidden)
            self.blocks = nn.Sequential(*(Block() for _ in range(blocks)))
            self.head = nn.Linear(hidden, vocab)

        def forward(self, tokens):
            y = self.blocks(self.embedding(tokens) * hidden ** 0.5)
            return self.head(y.reshape(-1, hidden))
    return Encoder()


def framework(lib: str):
    """(module, mint-like namespace, nn, functional) for 'tandem' or 'torch'."""
    if lib == "tandem":
        import tandem
        tandem.set_num_threads(THREADS)
        return tandem, tandem.mint, tandem.mint.nn, tandem.mint.nn.functional
    import torch
    torch.set_num_threads(THREADS)
    return torch, torch, torch.nn, torch.nn.functional


def train_step(lib: str, compiled: bool, net, loss_fn):
    """One SGD step (lr LR, no momentum) on (X, y): returns step(X, y) -> loss."""
    T, mint, nn, _ = framework(lib)
    if lib == "tandem" and compiled:
        import tandem
        opt = tandem.nn.SGD(net.trainable_params(), learning_rate=LR)
        grad_fn = tandem.value_and_grad(lambda X, y: loss_fn(net(X), y), None, opt.parameters)

        def functional_step(X, y):
            loss, grads = grad_fn(X, y)
            opt(grads)
            return loss
        return tandem.jit(functional_step)
    opt = (mint.optim if lib == "tandem" else T.optim).SGD(net.parameters(), lr=LR)

    def step(X, y):
        loss = loss_fn(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return T.compile(step) if compiled else step


def model_step(lib: str, compiled: bool, model: str, sz: dict):
    """(step, X, y) for model 'mlp', 'lenet', 'resnet18', or the D2L language model 'rnn',
    'gru', 'lstm', at the sizes of sz."""
    T, mint, nn, F = framework(lib)
    T.manual_seed(0)
    if model in ("rnn", "gru", "lstm"):
        vocab, _, steps, batch = RNN_SIZES
        net = rnn_model(nn, model)
        X = F.one_hot(mint.randint(0, vocab, (steps, batch)), vocab).float()
        y = T.randint(0, vocab, (steps * batch,))
        return train_step(lib, compiled, net, nn.CrossEntropyLoss()), X, y
    if model == "attn":
        vocab, steps, batch = ATTN_SIZES[0], ATTN_SIZES[5], ATTN_SIZES[6]
        net = transformer_encoder(T if lib == "torch" else mint, nn)
        X = T.randint(0, vocab, (batch, steps))
        y = T.randint(0, vocab, (batch * steps,))
        return train_step(lib, compiled, net, nn.CrossEntropyLoss()), X, y
    if model == "resnet18":
        net, shape = resnet18(nn), (sz["resnet_batch"], 1, sz["resnet_hw"], sz["resnet_hw"])
    else:
        net = mlp(nn) if model == "mlp" else lenet(nn)
        shape = (sz[f"{model}_batch"], 1, 28, 28)
    X, y = T.randn(*shape), T.randint(0, 10, (shape[0],))
    return train_step(lib, compiled, net, nn.CrossEntropyLoss()), X, y


def build(mode: str, sz: dict) -> dict:
    """mode: 'tandem:eager', 'tandem:graph', 'torch:eager' or 'torch:compile'."""
    lib, how = mode.split(":")
    compiled = how != "eager"
    T, mint, nn, F = framework(lib)
    jit = (lambda f: T.jit(f)) if lib == "tandem" else T.compile
    wrap = jit if compiled else (lambda f: f)
    impls = {}

    timed = make_timed(sz["reps"])
    add_op_rows(impls, sz, wrap, timed, T.randn, mint, lambda v: v.sum(),
                lambda v: F.softmax(v, dim=-1))
    for key, shape in sz["conv"].items():
        impls[key] = lambda shape=shape: conv_fwd_bwd(lib, compiled, shape, timed)
    add_model_rows(impls, lambda model: model_step(lib, compiled, model, sz), timed,
                   lambda out: out, compiled)
    return impls


def conv_fwd_bwd(lib: str, compiled: bool, shape, timed) -> float:
    """Median seconds of conv2d + sum and the gradients for input, weight and bias."""
    T, _, _, F = framework(lib)
    N, C, H, W, O, k, s, p = shape
    x, w, b = T.randn(N, C, H, W), T.randn(O, C, k, k) * 0.1, T.randn(O)
    if lib == "tandem":
        vg = T.value_and_grad(lambda x, w, b: F.conv2d(x, w, b, stride=s, padding=p).sum(),
                              grad_position=(0, 1, 2))
        return timed(T.jit(vg) if compiled else vg, x, w, b)
    for t in (x, w, b):
        t.requires_grad_(True)

    def step():
        for t in (x, w, b):
            t.grad = None
        F.conv2d(x, w, b, stride=s, padding=p).sum().backward()
    return timed(T.compile(step) if compiled else step)
