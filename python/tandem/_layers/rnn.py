"""Recurrent layers: RNN (tanh / relu), LSTM, GRU and their single-step cells, written with
linear / sigmoid / tanh ops so they differentiate. PyTorch layout: time-major input
(L, N, H_in) unless batch_first, or unbatched (L, H_in); parameters weight_ih_l{k}[_reverse],
weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}; gates i, f, g, o (LSTM) and r, z, n (GRU).
MindSpore's RNN / LSTM / GRU take has_bias instead of bias."""
from __future__ import annotations

import math
from ._common import Cell, F, new_param, ops, uniform_

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(mode, xw, h, w_hh, b_hh):
    """One time step given xw = x @ w_ih.T + b_ih; h is a tensor (or (h, c) for LSTM)."""
    if mode == "LSTM":
        h, c = h
        gates = xw + F.linear(h, w_hh, b_hh)
        i, f, g, o = ops.chunk(gates, 4, -1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        return F.sigmoid(o) * F.tanh(c), c
    gh = F.linear(h, w_hh, b_hh)
    if mode == "GRU":
        xr, xz, xn = ops.chunk(xw, 3, -1)
        hr, hz, hn = ops.chunk(gh, 3, -1)
        r = F.sigmoid(xr + hr)
        z = F.sigmoid(xz + hz)
        n = F.tanh(xn + r * hn)
        return n + z * (h - n)
    pre = xw + gh
    return F.tanh(pre) if mode == "RNN_TANH" else F.relu(pre)


class RNNBase(Cell):
    """Multi-layer, optionally bidirectional recurrent network."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if proj_size:
            raise NotImplementedError("LSTM: proj_size is not supported")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{type(self).__name__}: dropout must be in [0, 1], got {dropout}")
        if num_layers < 1 or hidden_size < 1:
            raise ValueError(f"{type(self).__name__}: num_layers and hidden_size must be positive")
        self.mode, self.input_size, self.hidden_size = mode, int(input_size), int(hidden_size)
        self.num_layers, self.bias, self.batch_first = int(num_layers), bool(bias), bool(batch_first)
        self.dropout, self.bidirectional = float(dropout), bool(bidirectional)
        self.proj_size = 0
        gates = _GATES[mode] * self.hidden_size
        dirs = 2 if self.bidirectional else 1
        self._flat_weights_names = []
        for layer in range(self.num_layers):
            layer_in = self.input_size if layer == 0 else self.hidden_size * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih", (gates, layer_in)), ("weight_hh", (gates, self.hidden_size))]
                if self.bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                for name, shape in shapes:
                    setattr(self, name + sfx, new_param(shape, dtype))
                    self._flat_weights_names.append(name + sfx)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        k = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            uniform_(p, -k, k)

    def _weights(self, layer: int, d: int):
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        get = lambda n: getattr(self, n + sfx) if hasattr(self, n + sfx) else None  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _zeros_state(self, x, batch):
        dirs = 2 if self.bidirectional else 1
        return ops.zeros(self.num_layers * dirs, batch, self.hidden_size, dtype=x.dtype)

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        batched = input.ndim == 3
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: expected 2D (unbatched) or 3D input, got "
                             f"shape {tuple(input.shape)}")
        if input.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: input has {input.shape[-1]} features, "
                             f"expected input_size={self.input_size}")
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        batch = x.shape[1]
        if hx is None:
            h0 = self._zeros_state(x, batch)
            c0 = h0 if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if lstm else None
            dirs = 2 if self.bidirectional else 1
            want = (self.num_layers * dirs, batch, self.hidden_size)
            for t in (h0, c0) if lstm else (h0,):
                if tuple(t.shape) != want:
                    raise ValueError(f"{type(self).__name__}: expected hidden state of shape "
                                     f"{want}, got {tuple(t.shape)}")
        dirs = 2 if self.bidirectional else 1
        steps = x.shape[0]
        h_n, c_n = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                idx = layer * dirs + d
                xw = F.linear(layer_in, w_ih, b_ih)  # all time steps at once
                state = (h0[idx], c0[idx]) if lstm else h0[idx]
                seq = [None] * steps
                order = range(steps - 1, -1, -1) if d else range(steps)
                for t in order:
                    state = _rnn_step(self.mode, xw[t], state, w_hh, b_hh)
                    seq[t] = state[0] if lstm else state
                outs.append(ops.stack(seq, 0))
                h_n.append(state[0] if lstm else state)
                if lstm:
                    c_n.append(state[1])
            layer_in = outs[0] if dirs == 1 else ops.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        out = layer_in
        h = ops.stack(h_n, 0)
        c = ops.stack(c_n, 0) if lstm else None
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out, h = out.squeeze(1), h.squeeze(1)
            c = c.squeeze(1) if lstm else None
        return (out, (h, c)) if lstm else (out, h)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "nonlinearity", nonlinearity)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory; forward(input, (h_0, c_0)) -> (output, (h_n, c_n))."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit; forward(input, h_0) -> (output, h_n)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, dtype=dtype)


class _CellBase(Cell):
    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = int(input_size), int(hidden_size), bool(bias)
        gates = _GATES[self._mode] * self.hidden_size
        self.weight_ih = new_param((gates, self.input_size), dtype)
        self.weight_hh = new_param((gates, self.hidden_size), dtype)
        if self.bias:
            self.bias_ih = new_param((gates,), dtype)
            self.bias_hh = new_param((gates,), dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        k = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            uniform_(p, -k, k)

    def _step(self, input, hx):
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            z = ops.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            hx = (z, z) if self._mode == "LSTM" else z
        elif not batched:
            hx = tuple(t.unsqueeze(0) for t in hx) if self._mode == "LSTM" else hx.unsqueeze(0)
        out = _rnn_step(self._mode, F.linear(x, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                        self.bias_hh)
        if not batched:
            out = tuple(t.squeeze(0) for t in out) if self._mode == "LSTM" else out.squeeze(0)
        return out

    def forward(self, input, hx=None):
        return self._step(input, hx)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(_CellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        object.__setattr__(self, "nonlinearity", nonlinearity)
        super().__init__(input_size, hidden_size, bias, dtype)


class LSTMCell(_CellBase):
    """One LSTM step: forward(x, (h, c)) -> (h', c')."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, dtype)


class GRUCell(_CellBase):
    """One GRU step: forward(x, h) -> h'."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, dtype)


# --- MindSpore names ------------------------------------------------------------------------------

def _ms_rnn(base, mode_kw=None):
    class _MS(base):
        def __init__(self, *args, has_bias: bool = True, batch_first: bool = False,
                     dropout: float = 0.0, bidirectional: bool = False, dtype=None, **kwargs):
            super().__init__(*args, bias=has_bias, batch_first=batch_first, dropout=dropout,
                             bidirectional=bidirectional, dtype=dtype, **kwargs)

        def construct(self, x, hx=None, seq_length=None):
            if seq_length is not None:
                raise NotImplementedError(f"{base.__name__}: seq_length is not supported")
            return base.forward(self, x, hx)

        def forward(self, x, hx=None, seq_length=None):
            return self.construct(x, hx, seq_length)

    _MS.__name__ = _MS.__qualname__ = base.__name__
    _MS.__doc__ = f"MindSpore's nn.{base.__name__} (has_bias instead of bias); construct(x, hx)."
    return _MS


MSRNN = _ms_rnn(RNN)
MSLSTM = _ms_rnn(LSTM)
MSGRU = _ms_rnn(GRU)
