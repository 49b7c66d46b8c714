"""Gradcheck cases for the NN ops: convolution, pooling, normalization, softmax, resampling,
im2col and the fused recurrent layer, with their backward ops (checked directly and through
double backward)."""
from gradcheck_util import rand
import tandem
from tandem import _C
from tandem.mint.nn import functional as F

CONV = dict(stride=[2, 1], padding=[1, 0, 0, 1], dilation=[1, 2], groups=2)
CONV_ARGS = (CONV["stride"], CONV["padding"], CONV["dilation"], CONV["groups"])


def _conv_shapes():
    x = rand(2, 4, 5, 6, seed=1)
    w = rand(6, 2, 2, 3, seed=2)
    y = _C.conv2d(x, w, None, *CONV_ARGS)
    return x, w, list(y.shape)


def _grad_of(f):
    """fn(*xs, v): the derivative of sum(f(*xs) * v) w.r.t. xs, kept differentiable, so
    checking fn checks the vjps of the backward ops that derivative runs through."""
    def fn(*args):
        xs = [a if a.requires_grad else a.detach().requires_grad_() for a in args[:-1]]
        return tandem.autograd.grad((f(*xs) * args[-1]).sum(), xs, create_graph=True)
    return fn


def conv_bwd_input():
    x, w, ys = _conv_shapes()
    return (lambda gy, w: _C.conv2d_backward_input(gy, w, list(x.shape), *CONV_ARGS),
            [rand(*ys, seed=3), w])


def conv_bwd_weight():
    x, w, ys = _conv_shapes()
    return (lambda x, gy: _C.conv2d_backward_weight(x, gy, list(w.shape), *CONV_ARGS),
            [x, rand(*ys, seed=3)])


def conv_double():
    # Second derivatives of conv2d reach both backward ops with every input live.
    x, w, ys = _conv_shapes()
    f = _grad_of(lambda x, w, b: _C.conv2d(x, w, b, *CONV_ARGS))
    return (f, [x, w, rand(6, seed=4), rand(*ys, seed=5)])


def _pool_x():
    return rand(2, 3, 6, 7, seed=7)


def maxpool_bwd():
    x = _pool_x()
    y, idx = _C.max_pool2d(x, [3, 2], [2, 1], [1, 1], [1, 1], True)  # overlapping windows
    return (lambda g: _C.max_pool2d_backward(g, idx, list(x.shape)), [rand(*y.shape, seed=8)])


def avgpool_bwd():
    x = _pool_x()
    args = ([3, 3], [2, 2], [1, 1], True, False, 0)
    y = _C.avg_pool2d(x, *args)
    return (lambda g: _C.avg_pool2d_backward(g, list(x.shape), *args), [rand(*y.shape, seed=8)])


def bn_eval():
    x, w, b = rand(3, 2, 4, seed=11), rand(2, seed=12), rand(2, seed=13)
    rm, rv = rand(2, seed=14), rand(2, low=0.5, high=1.5, seed=15)
    return (lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=False), [x, rm, rv, w, b])


def smb(fn, dim, shape):
    return lambda: (lambda y, g: fn(y, g, dim), [rand(*shape, seed=21), rand(*shape, seed=22)])


def resize(mode, size, align, scales=()):
    return lambda: (lambda x: _C.interpolate(x, size, mode, align, list(scales)),
                    [rand(1, 2, 3, 4, seed=31)])


def resize_bwd(mode, size, align, scales=()):
    def build():
        xs = [1, 2, 3, 4]
        return (lambda g: _C.interpolate_backward(g, xs, mode, align, list(scales)),
                [rand(1, 2, *size, seed=32)])
    return build


def rnn_case(mode, reverse, bias=True, L=3, N=2, H=3):
    """_C.rnn_layer on float64 inputs: (out, c) for LSTM, out otherwise."""
    G = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    lstm = mode == "LSTM"

    def build():
        ins = [rand(L, N, G * H, seed=1), rand(N, H, seed=2)]
        if lstm:
            ins.append(rand(N, H, seed=3))
        ins.append(rand(G * H, H, seed=4) * 0.5)
        if bias:
            ins.append(rand(G * H, seed=5))

        def fn(xw, h0, *rest):
            c0 = rest[0] if lstm else None
            w = rest[1 if lstm else 0]
            b = rest[-1] if bias else None
            out, c = _C.rnn_layer(mode, xw, h0, c0, w, b, reverse)
            return (out, c) if lstm else out
        return fn, ins
    return build


CASES = {
    "rnn_layer": [rnn_case("LSTM", False), rnn_case("LSTM", True, bias=False),
                  rnn_case("GRU", False), rnn_case("GRU", True, bias=False),
                  rnn_case("RNN_TANH", True), rnn_case("RNN_RELU", False, L=4)],
    "conv2d": [
        lambda: (lambda x, w, b: F.conv2d(x, w, b, stride=1, padding=1), [rand(2, 3, 4, 5), rand(4, 3, 3, 2), rand(4)]),
        lambda: (lambda x, w: _C.conv2d(x, w, None, *CONV_ARGS), list(_conv_shapes()[:2])),
        lambda: (lambda x, w: F.conv2d(x, w), [rand(2, 4, 4), rand(3, 2, 2, 2)]),  # unbatched
    ],
    "conv2d_backward_input": [conv_bwd_input, conv_double],
    # the layout conversions around a compiled graph's channel-blocked region
    "to_channel_blocked": [
        lambda: (lambda x: _C.to_channel_blocked(x, 16), [rand(1, 16, 2, 3)]),
        lambda: (lambda x: _C.to_channel_blocked(x, 4), [rand(2, 8, 3, 2).transpose(2, 3)]),
    ],
    "from_channel_blocked": [
        lambda: (lambda x: _C.from_channel_blocked(x, 16), [rand(1, 1, 3, 2, 16)]),
        lambda: (lambda x: _C.from_channel_blocked(x, 4), [rand(2, 2, 2, 3, 4)]),
    ],
    "conv2d_backward_weight": [conv_bwd_weight, conv_double],
    "max_pool2d": [
        lambda: (lambda x: F.max_pool2d(x, 2), [_pool_x()]),
        lambda: (lambda x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True), [_pool_x()]),
    ],
    "max_pool2d_backward": [
        maxpool_bwd,
        lambda: (_grad_of(lambda x: F.max_pool2d(x, 3, stride=2, padding=1)), [_pool_x(), rand(2, 3, 3, 4, seed=9)]),
    ],
    "adaptive_max_pool2d": [lambda: (lambda x: F.adaptive_max_pool2d(x, (4, 3)), [_pool_x()])],
    "avg_pool2d": [
        lambda: (lambda x: F.avg_pool2d(x, 2), [_pool_x()]),
        lambda: (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), [_pool_x()]),
        lambda: (lambda x: F.avg_pool2d(x, (2, 3), padding=1, divisor_override=4), [_pool_x()]),
    ],
    "avg_pool2d_backward": [avgpool_bwd],
    "adaptive_avg_pool2d": [lambda: (lambda x: F.adaptive_avg_pool2d(x, (4, 3)), [_pool_x()]),
                            lambda: (lambda x: F.adaptive_avg_pool2d(x, 1), [rand(3, 4, 5)])],
    "adaptive_avg_pool2d_backward": [
        lambda: (lambda g: _C.adaptive_avg_pool2d_backward(g, [2, 3, 6, 7]), [rand(2, 3, 4, 3)]),
    ],
    # inputs away from 0 and 1, where the gradient is PyTorch's (x - y) / (x (1 - x))
    # the pass-through node that checks bce's [0, 1] range when a compiled graph runs
    "check_between": [
        lambda: (tandem.jit(lambda x, y: F.binary_cross_entropy(x, y, reduction="none")),
                 [rand(3, 4, low=0.1, high=0.9, seed=11), rand(3, 4, low=0.0, high=1.0, seed=12)]),
    ],
    "binary_cross_entropy": [
        lambda: (lambda x, y: F.binary_cross_entropy(x, y, reduction="none"),
                 [rand(3, 4, low=0.1, high=0.9, seed=7), rand(3, 4, low=0.0, high=1.0, seed=8)]),
        lambda: (lambda x: F.binary_cross_entropy(x, rand(5, low=0.0, high=1.0, seed=9)),
                 [rand(5, low=0.2, high=0.8, seed=10)]),
    ],
    "batch_norm": [
        lambda: (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [rand(3, 2, 2, 3), rand(2), rand(2)]),
        lambda: (lambda x: F.batch_norm(x, None, None, training=True), [rand(4, 3)]),
        lambda: (lambda x, b: F.batch_norm(x, None, None, None, b, training=True), [rand(2, 3, 4), rand(3)]),
        bn_eval,
    ],
    "layer_norm": [
        lambda: (lambda x, w, b: F.layer_norm(x, (3, 4), w, b), [rand(2, 3, 4), rand(3, 4), rand(3, 4)]),
        lambda: (lambda x: F.layer_norm(x, 5), [rand(3, 5)]),
        lambda: (lambda x, w: F.layer_norm(x, 4, w), [rand(2, 2, 4), rand(4)]),
    ],
    "group_norm": [
        lambda: (lambda x, w, b: F.group_norm(x, 2, w, b), [rand(2, 4, 3), rand(4), rand(4)]),
        lambda: (lambda x: F.group_norm(x, 3, eps=1e-3), [rand(2, 6, 2, 2)]),
    ],
    "softmax": [lambda: (lambda x: F.softmax(x, dim=1), [rand(3, 4, 2)]),
                lambda: (lambda x: F.softmax(x, dim=-1), [rand(2, 5)])],
    "log_softmax": [lambda: (lambda x: F.log_softmax(x, dim=0), [rand(3, 4)]),
                    lambda: (lambda x: F.log_softmax(x, dim=-1), [rand(2, 5)])],
    "softmax_backward": [smb(_C.softmax_backward, -1, (3, 4)), smb(_C.softmax_backward, 0, (3, 2, 2)),
                         lambda: (_grad_of(lambda x: F.softmax(x, dim=1)), [rand(2, 4), rand(2, 4, seed=3)])],
    "log_softmax_backward": [smb(_C.log_softmax_backward, -1, (3, 4)), smb(_C.log_softmax_backward, 1, (2, 3, 2)),
                             lambda: (_grad_of(lambda x: F.log_softmax(x, dim=1)), [rand(2, 4), rand(2, 4, seed=3)])],
    "upsample_nearest2d": [resize("nearest", [5, 7], False), resize("nearest", [2, 3], False),
                           resize("nearest", [6, 6], False, (2.0, 1.5))],
    "upsample_bilinear2d": [resize("bilinear", [5, 7], False), resize("bilinear", [5, 7], True),
                            resize("bilinear", [2, 3], False), resize("bilinear", [6, 6], False, (2.0, 1.5))],
    "upsample_nearest2d_backward": [resize_bwd("nearest", [5, 7], False), resize_bwd("nearest", [2, 3], False)],
    "upsample_bilinear2d_backward": [resize_bwd("bilinear", [5, 7], False), resize_bwd("bilinear", [5, 7], True),
                                     resize_bwd("bilinear", [6, 6], False, (2.0, 1.5))],
    "unfold": [lambda: (lambda x: F.unfold(x, 2, padding=1), [rand(2, 2, 3, 4)]),
               lambda: (lambda x: F.unfold(x, (2, 3), dilation=(2, 1), stride=(1, 2)), [rand(1, 2, 5, 6)])],
    "fold": [lambda: (lambda x: F.fold(x, (3, 4), 2, padding=1), [rand(2, 8, 20)]),
             lambda: (lambda x: F.fold(x, (5, 6), (2, 3), dilation=(2, 1), stride=(1, 2)), [rand(1, 12, 6)])],
}
