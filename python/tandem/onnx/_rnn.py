"""tandem's fused recurrent layer (rnn_layer) -> ONNX LSTM / GRU / RNN.

rnn_layer takes the input projection of every step (xw = x W_ih^T + b_ih, computed by the
matmul before it), so the ONNX node's input weight W is a permutation matrix that routes
xw's gate blocks into ONNX's gate order (LSTM i, o, f, c from tandem's i, f, g, o; GRU z, r,
h from r, z, n); R and the recurrent bias are W_hh and b_hh in that order. GRU uses
linear_before_reset=1, PyTorch's formula. The identity-like W costs ONNX runtimes one extra
[N, G*H] x [G*H, G*H] product per step; fusing the preceding matmul into W is not done."""
from __future__ import annotations

import numpy as np

# ONNX gate block k reads tandem's block ORDER[mode][k].
ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}
OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


def _blocks(a: np.ndarray, order, H: int) -> np.ndarray:
    return np.concatenate([a[k * H:(k + 1) * H] for k in order], axis=0)


def convert(c, n, a) -> None:
    """Emits one ONNX recurrent node for rnn_layer node n (attrs a) into converter c."""
    mode = a["mode"]
    lstm = mode == "LSTM"
    ins = list(n["inputs"])
    xw, h0 = ins[0], ins[1]
    c0 = ins[2] if lstm else None
    w_hh = ins[3 if lstm else 2]
    b_hh = ins[-1] if a["has_bias"] else None
    if lstm:
        c.unused(n, 1, "cell-state sequence (ONNX's LSTM gives only the last cell state)")
    c.unused(n, 2, "saved-activations")
    for v, what in ((w_hh, "weight_hh"), (b_hh, "bias_hh")):
        if v is not None and v not in c.const:
            raise NotImplementedError(f"{what} must be a constant of the model")
    order = ORDER[mode]
    w = c.const[w_hh]
    GH, H = w.shape
    dt = w.dtype
    eye = np.eye(GH, dtype=dt)
    W = _blocks(eye, order, H)[None]
    R = _blocks(w, order, H)[None]
    rb = _blocks(c.const[b_hh], order, H) if b_hh is not None else np.zeros(GH, dt)
    B = np.concatenate([np.zeros(GH, dt), rb])[None]
    axis0 = c.ints([0])
    init = [c.emit("Unsqueeze", [c.ref(h0), axis0])]
    if lstm:
        init.append(c.emit("Unsqueeze", [c.ref(c0), axis0]))
    attrs = {"hidden_size": int(H), "direction": "reverse" if a["reverse"] else "forward"}
    if mode == "GRU":
        attrs["linear_before_reset"] = 1
    if mode.startswith("RNN"):
        attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"]
    outs = [c.tmp("y"), c.tmp("yh")] + ([c.tmp("yc")] if lstm else [])
    c.emit(OP[mode], [c.ref(xw), c.initializer(W, "W"), c.initializer(R, "R"),
                      c.initializer(B, "B"), ""] + init, outs, **attrs)
    # Y is [L, num_directions = 1, N, H].
    c.emit("Squeeze", [outs[0], c.ints([1])], [c.out(n["outputs"][0])])
