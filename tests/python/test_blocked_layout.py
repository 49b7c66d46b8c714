"""Compiled convolution networks keep their activations channel-blocked (oneDNN's nChw16c)
between convolutions, batch norms and elementwise ops: the optimized graph has the blocked
nodes and few conversions, and every compiled step equals the eager one (the same oneDNN
primitives on the same values), for float32 and bf16 autocast, training and inference,
including the edges of the blocked region (channel counts that are not whole blocks, grouped
convolutions, per-channel broadcasts, pooling, blocked values returned from the step)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tandem
from tandem import mint

nn = mint.nn
F = nn.functional
AVX512 = mint.backends.cpu.get_cpu_capability() == "AVX512"


class Block(nn.Module):
    """conv-bn-relu-conv-bn + shortcut, relu; optional per-channel scale and grouped conv."""

    def __init__(self, cin, cout, stride, scale, groups):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1, groups=groups)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = nn.Conv2d(cin, cout, 1, stride=stride) if stride > 1 or cin != cout else None
        self.scale = nn.Parameter(mint.rand(1, cout, 1, 1) + 0.5) if scale else None

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        if self.scale is not None:
            y = y * self.scale  # a per-channel broadcast: a plain-layout op
        y = y * 0.5 + (x if self.short is None else self.short(x))
        return F.relu(y)


def make_net(cin, widths, strides, scale, groups, stem=False):
    layers, c = [nn.Conv2d(cin, widths[0], 3, padding=1), nn.ReLU()], widths[0]
    if stem:  # ResNet's: a 7x7 convolution of the image's few channels, batch norm, max pool
        layers = [nn.Conv2d(cin, c, 7, stride=2, padding=3), nn.BatchNorm2d(c), nn.ReLU(),
                  nn.MaxPool2d(3, 2, 1)]
    for w, s in zip(widths, strides):
        layers.append(Block(c, w, s, scale, groups))
        c = w
    layers += [nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(c, 10)]
    return nn.Sequential(*layers)


def train(net, x, y, compiled, bf16, steps=2):
    opt = mint.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)

    def step(x, y):
        opt.zero_grad()
        with mint.autocast("cpu", dtype=mint.bfloat16, enabled=bf16):
            loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss

    f = tandem.jit(step) if compiled else step
    losses = [float(f(x, y)) for _ in range(steps)]
    return losses, [p.detach().float().numpy().copy() for p in net.parameters()], f


def run_pair(seed, cin, widths, strides, scale=False, groups=1, bf16=False, hw=12, batch=4,
             stem=False):
    results = []
    for compiled in (False, True):
        mint.manual_seed(seed)
        net = make_net(cin, widths, strides, scale, groups, stem)
        mint.manual_seed(seed + 1)
        x = mint.randn(batch, cin, hw, hw)
        y = mint.randint(0, 10, (batch,))
        results.append(train(net, x, y, compiled, bf16) + ((x, y),))
    (le, pe, _, _), (lc, pc, f, xy) = results
    # The same kernels on the same values: equal up to the batch-norm sums' order.
    tol = 2e-2 if bf16 else 1e-4
    np.testing.assert_allclose(lc, le, rtol=tol, atol=tol)
    for a, b in zip(pc, pe):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    return f.explain(*xy)


def optimized(text):
    return text[text.index("optimized graph"):]


def count(text, what):
    return optimized(text).count(what)


@pytest.mark.parametrize("bf16", [False, True])
def test_residual_network_runs_blocked_and_equals_eager(bf16):
    text = run_pair(0, 3, [16, 32], [1, 2], bf16=bf16)
    if AVX512:
        # Every convolution after the stem (whose input has 3 channels) and its gradients.
        assert count(text, "channel_block=16") >= 3 * 5, optimized(text)
        # In: the stem's output (forward) and the pooling's gradient; out: into the pooling
        # and the stem's gradient. Nothing converts between the blocks.
        assert count(text, "to_channel_blocked(") <= 3, optimized(text)
        assert count(text, "from_channel_blocked(") <= 3, optimized(text)
    else:
        assert count(text, "channel_block") == 0


@pytest.mark.parametrize("bf16", [False, True])
def test_first_layer_takes_its_channels_plain_and_max_pooling_stays_blocked(bf16):
    text = run_pair(6, 1, [16, 16], [1, 1], bf16=bf16, hw=24, stem=True)
    if not AVX512:
        assert count(text, "channel_block") == 0
        return
    lines = optimized(text).splitlines()
    stem = [ln for ln in lines if "conv2d" in ln and "padding=[3, 3, 3, 3]" in ln]
    assert len(stem) == 2 and all("plain_input=True" in ln and "channel_block=16" in ln for ln in stem), (
        "\n".join(stem))
    pools = [ln for ln in lines if "max_pool2d" in ln]
    assert len(pools) == 2 and all("channel_block=16" in ln for ln in pools), "\n".join(pools)
    # Only the head converts: out of the blocks into the average pooling, and its gradient in.
    assert count(text, "to_channel_blocked(") <= 1, optimized(text)
    assert count(text, "from_channel_blocked(") <= 1, optimized(text)


def test_first_layer_input_gradient_is_plain_and_equals_eager():
    mint.manual_seed(7)
    conv, bn, conv2 = nn.Conv2d(3, 16, 7, stride=2, padding=3), nn.BatchNorm2d(16), nn.Conv2d(
        16, 16, 3, padding=1)

    def f(x, w):
        y = F.max_pool2d(F.relu(bn(F.conv2d(x, w, conv.bias, stride=2, padding=3))), 3, 2, 1)
        return (conv2(y) ** 2).sum()

    g = tandem.grad(f, grad_position=(0, 1))
    x = mint.randn(2, 3, 20, 20)
    want = g(x, conv.weight)
    jg = tandem.jit(g)
    got = jg(x, conv.weight)
    for a, b in zip(got, want):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-4)
    if AVX512:
        text = optimized(jg.explain(x, conv.weight))
        assert "conv2d_backward_input" in text and text.count("plain_input=True") == 3, text


def test_broadcasts_groups_and_partial_blocks_stay_plain_and_correct():
    # 24 channels are not whole blocks: those convolutions stay plain.
    text = run_pair(1, 1, [16, 24], [1, 1])
    lines = [ln for ln in optimized(text).splitlines() if "conv2d" in ln]
    partial = [ln for ln in lines
               if "[4, 24," in ln or "weight_size=[24" in ln or "input_size=[4, 24" in ln]
    assert partial and not any("channel_block" in ln for ln in partial), "\n".join(partial)
    if AVX512:  # the 16-channel block's convolutions are blocked
        assert any("channel_block=16" in ln for ln in lines), optimized(text)
    # Per-channel scales and grouped convolutions next to blocked ones.
    run_pair(2, 1, [32, 32], [1, 2], scale=True)
    text = run_pair(3, 1, [32], [1], groups=2)
    for line in optimized(text).splitlines():
        if "groups=2" in line:
            assert "channel_block" not in line


def test_a_blocked_value_returned_from_the_step_is_plain():
    mint.manual_seed(4)
    conv = nn.Conv2d(16, 32, 3, padding=1)
    bn = nn.BatchNorm2d(32)

    def f(x):
        y = conv(x)
        return y, F.relu(bn(y)) + 1.0

    x = mint.randn(2, 16, 8, 8)
    got = tandem.jit(f)(x)
    mint.manual_seed(4)
    conv2, bn2 = nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32)
    y = conv2(x)
    want = (y, F.relu(bn2(y)) + 1.0)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-5, atol=1e-5)
    # The running statistics the compiled call updated are the eager ones.
    np.testing.assert_allclose(bn.running_var.numpy(), bn2.running_var.numpy(), rtol=1e-5)


def test_inference_in_eval_mode():
    mint.manual_seed(5)
    net = make_net(1, [16, 32], [1, 2], False, 1)
    x = mint.randn(3, 1, 10, 10)
    net.train()
    net(x)  # running statistics away from their initial values
    net.eval()
    with mint.no_grad():
        want = net(x).numpy()
        got = tandem.jit(lambda t: net(t))(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 1000), width=st.sampled_from([16, 32, 48]),
       stride=st.sampled_from([1, 2]), hw=st.sampled_from([5, 8, 11]),
       bf16=st.booleans())
def test_random_networks_compiled_equal_eager(seed, width, stride, hw, bf16):
    run_pair(seed, 2, [width, width], [stride, 1], bf16=bf16, hw=hw, batch=3)
