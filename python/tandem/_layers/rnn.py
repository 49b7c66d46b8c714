"""Recurrent layers: RNN (tanh / relu), LSTM, GRU and their single-step cells. Each direction
of each layer is one input-projection GEMM over all steps plus the fused rnn_layer op
(ops/rnn.h: per step one GEMM and one pass over the gates, backward through time in C++).
PyTorch layout: time-major input (L, N, H_in) unless batch_first, or unbatched (L, H_in);
parameters weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}; gates
i, f, g, o (LSTM) and r, z, n (GRU).
MindSpore's RNN / LSTM / GRU take has_bias instead of bias."""
from __future__ import annotations

import math
from typing import Any, Generic, List, Optional, Tuple, Type, TypeVar, Union, cast

from .. import _C, _amp
from ._common import Cell, F, Parameter, new_param, ops, uniform_

Tensor = _C.Tensor
#: The hidden state of one step: h, or (h, c) for LSTM.
_State = Union[Tensor, Tuple[Tensor, Tensor]]

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "MSRNN", "MSLSTM",
           "MSGRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _run_layer(mode: str, x: Tensor, w_ih: Tensor, b_ih: Optional[Tensor], h0: Tensor,
               c0: Optional[Tensor], w_hh: Tensor, b_hh: Optional[Tensor], reverse: bool,
               low_precision: bool) -> Tuple[Tensor, Optional[Tensor]]:
    """One direction of one layer over the sequence x [L, N, H_in]: the input projection of
    every step as one GEMM, then the fused rnn_layer op. Returns h of every step [L, N, H]
    and, for LSTM, c of every step.

    Under PyTorch-style autocast (op lists) the layer runs in low precision where PyTorch's
    CPU autocast does (LSTM and RNN layers, RNNCell) and in float32 where it does not (GRU
    layers, GRUCell, LSTMCell: low_precision False). The state and weights follow the
    projection's dtype."""
    ac_mode, ac_dtype = _amp.state()
    # Outside GRU (whose b_hn sits inside r * (...)) both biases add to the same
    # pre-activations, so the fused layer adds their sum: the projection skips a pass over
    # [L, N, G*H] and its backward a reduction of the same size, the layer's own column sum
    # of the gate gradients serving both biases.
    if b_ih is not None and b_hh is not None and mode != "GRU":
        b_hh = b_ih + b_hh
        b_ih = None
    if not low_precision and ac_mode == 1:
        with _amp.AutocastScope(0, ac_dtype):
            xw = F.linear(x, w_ih, b_ih)
    else:
        xw = F.linear(x, w_ih, b_ih)
    dt = xw.dtype

    def as_dt(t: Tensor) -> Tensor:
        return t if t.dtype == dt else t.to(dt)
    return _C.rnn_layer(mode, xw, as_dt(h0), None if c0 is None else as_dt(c0), as_dt(w_hh),
                        None if b_hh is None else as_dt(b_hh), reverse)


_RNN_COMMON = """
        num_layers (int): the number of stacked layers. Default: ``1``."""
_RNN_TAIL = """
        bias (bool): learn the biases bias_ih / bias_hh. Default: ``True``.
        batch_first (bool): batched input and output are (N, L, H) instead of (L, N, H)
            (the hidden state stays (layers * directions, N, H)). Default: ``False``.
        dropout (float): the dropout probability on the outputs of every layer but the last,
            in training. Default: ``0.0``.
        bidirectional (bool): also run each layer backwards in time and concatenate the two
            directions' outputs. Default: ``False``."""
_DEVICE_DTYPE = """
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
"""


class RNNBase(Cell):
    __doc__ = """Multi-layer, optionally bidirectional recurrent network (the base of RNN, LSTM and
    GRU), with parameters weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k},
    bias_hh_l{k} drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Args:
        mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.""" + _RNN_COMMON + _RNN_TAIL + """
        proj_size (int): LSTM projections; not supported (must be 0). Default: ``0``.""" + \
        _DEVICE_DTYPE

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
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
        self._flat_weights_names: List[str] = []
        for layer in range(self.num_layers):
            layer_in = self.input_size if layer == 0 else self.hidden_size * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes: List[Tuple[str, Tuple[int, ...]]] = [
                    ("weight_ih", (gates, layer_in)), ("weight_hh", (gates, self.hidden_size))]
                if self.bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                for name, shape in shapes:
                    setattr(self, name + sfx, new_param(shape, dtype))
                    self._flat_weights_names.append(name + sfx)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        k = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            uniform_(p, -k, k)

    def flatten_parameters(self) -> None:
        """PyTorch's cuDNN weight compaction: the CPU kernels read the parameters where they
        are, so there is nothing to do (kept so code written for PyTorch runs)."""

    def _weights(self, layer: int, d: int) -> Tuple[Any, Any, Any, Any]:
        sfx = f"_l{layer}" + ("_reverse" if d else "")

        def get(n: str) -> Any:
            return getattr(self, n + sfx) if hasattr(self, n + sfx) else None
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _zeros_state(self, x: Tensor, batch: int) -> Tensor:
        dirs = 2 if self.bidirectional else 1
        return ops.zeros(self.num_layers * dirs, batch, self.hidden_size, dtype=x.dtype)

    def forward(self, input: Tensor, hx: Optional[_State] = None
                ) -> Union[Tuple[Tensor, Tensor], Tuple[Tensor, Tuple[Tensor, Tensor]]]:
        """Runs the network over the sequence.

        Args:
            input (Tensor): (L, N, H_in), (N, L, H_in) with batch_first, or unbatched
                (L, H_in).
            hx (Tensor or Tuple[Tensor, Tensor], optional): the initial hidden state
                (layers * directions, N, H) (unbatched: without N); for LSTM the pair
                (h_0, c_0). Zeros when ``None``. Default: ``None``.

        Returns:
            tuple: (output, h_n), or for LSTM (output, (h_n, c_n)); output is
            (L, N, directions * H) (batch_first / unbatched likewise) and h_n, c_n are
            shaped like the initial state.
        """
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
        h0: Any
        c0: Any
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
        h_n: List[Tensor] = []
        c_n: List[Tensor] = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                idx = layer * dirs + d
                hs, cs = _run_layer(self.mode, layer_in, w_ih, b_ih, h0[idx],
                                    c0[idx] if lstm else None, w_hh, b_hh, bool(d),
                                    self.mode != "GRU")
                last = 0 if d else steps - 1  # the step processed last
                outs.append(hs)
                h_n.append(hs[last])
                if cs is not None:
                    c_n.append(cs[last])
            layer_in = outs[0] if dirs == 1 else ops.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        out = layer_in
        h = ops.stack(h_n, 0)
        c: Any = ops.stack(c_n, 0) if lstm else None
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
    __doc__ = """The Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu),
    stacked `num_layers` deep.

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.""" + _RNN_COMMON + """
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.""" + _RNN_TAIL + \
        _DEVICE_DTYPE

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "nonlinearity", nonlinearity)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None  # type: ignore[override]
                ) -> Tuple[Tensor, Tensor]:
        """Runs the network over the sequence.

        Args:
            input (Tensor): (L, N, H_in), (N, L, H_in) with batch_first, or unbatched
                (L, H_in).
            hx (Tensor, optional): the initial hidden state (layers * directions, N, H)
                (unbatched: without N); zeros when ``None``. Default: ``None``.

        Returns:
            Tuple[Tensor, Tensor]: output (L, N, directions * H) and h_n, shaped like `hx`.
        """
        return cast(Tuple[Tensor, Tensor], super().forward(input, hx))


class LSTM(RNNBase):
    __doc__ = """Long short-term memory, stacked `num_layers` deep, with gates i, f, g, o.

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden and cell states.""" + _RNN_COMMON + \
        _RNN_TAIL + """
        proj_size (int): projections; not supported (must be 0). Default: ``0``.""" + \
        _DEVICE_DTYPE

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, dtype=dtype)

    def forward(self, input: Tensor,  # type: ignore[override]
                hx: Optional[Tuple[Tensor, Tensor]] = None
                ) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        """Runs the network over the sequence.

        Args:
            input (Tensor): (L, N, H_in), (N, L, H_in) with batch_first, or unbatched
                (L, H_in).
            hx (Tuple[Tensor, Tensor], optional): (h_0, c_0), each (layers * directions, N, H)
                (unbatched: without N); zeros when ``None``. Default: ``None``.

        Returns:
            Tuple[Tensor, Tuple[Tensor, Tensor]]: output (L, N, directions * H) and
            (h_n, c_n), shaped like the initial state.
        """
        return cast(Tuple[Tensor, Tuple[Tensor, Tensor]], super().forward(input, hx))


class GRU(RNNBase):
    __doc__ = """Gated recurrent unit, stacked `num_layers` deep, with gates r, z, n.

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.""" + _RNN_COMMON + _RNN_TAIL + \
        _DEVICE_DTYPE

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None  # type: ignore[override]
                ) -> Tuple[Tensor, Tensor]:
        """Runs the network over the sequence.

        Args:
            input (Tensor): (L, N, H_in), (N, L, H_in) with batch_first, or unbatched
                (L, H_in).
            hx (Tensor, optional): the initial hidden state (layers * directions, N, H)
                (unbatched: without N); zeros when ``None``. Default: ``None``.

        Returns:
            Tuple[Tensor, Tensor]: output (L, N, directions * H) and h_n, shaped like `hx`.
        """
        return cast(Tuple[Tensor, Tensor], super().forward(input, hx))


_CELL_ARGS = """

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        bias (bool): learn the biases bias_ih and bias_hh. Default: ``True``."""


class _CellBase(Cell):
    _mode = "RNN_TANH"
    weight_ih: Parameter
    weight_hh: Parameter
    bias_ih: Optional[Parameter]
    bias_hh: Optional[Parameter]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 dtype: Optional[_C.dtype] = None) -> None:
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

    def _step(self, input: Tensor, hx: Optional[_State]) -> Any:
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        state: Any = hx
        if state is None:
            z = ops.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            state = (z, z) if self._mode == "LSTM" else z
        elif not batched:
            state = (tuple(t.unsqueeze(0) for t in state) if self._mode == "LSTM"
                     else state.unsqueeze(0))
        lstm = self._mode == "LSTM"
        h, c = state if lstm else (state, None)
        hs, cs = _run_layer(self._mode, x.unsqueeze(0), self.weight_ih, self.bias_ih, h, c,
                            self.weight_hh, self.bias_hh, False,
                            self._mode.startswith("RNN"))
        out: Any = (hs[0], cast(Tensor, cs)[0]) if lstm else hs[0]
        if not batched:
            out = tuple(t.squeeze(0) for t in out) if self._mode == "LSTM" else out.squeeze(0)
        return out

    def forward(self, input: Tensor, hx: Optional[_State] = None) -> _State:
        """One step of the cell.

        Args:
            input (Tensor): (N, input_size) or unbatched (input_size,).
            hx (Tensor or Tuple[Tensor, Tensor], optional): the state, (N, hidden_size)
                (for LSTMCell the pair (h, c)); zeros when ``None``. Default: ``None``.

        Returns:
            Tensor or Tuple[Tensor, Tensor]: the next state, shaped like `hx`.
        """
        return cast(_State, self._step(input, hx))

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(_CellBase):
    __doc__ = ("One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."
               + _CELL_ARGS + """
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.""" + _DEVICE_DTYPE)

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Optional[str] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        object.__setattr__(self, "nonlinearity", nonlinearity)
        super().__init__(input_size, hidden_size, bias, dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:  # type: ignore[override]
        """One step of the cell.

        Args:
            input (Tensor): (N, input_size) or unbatched (input_size,).
            hx (Tensor, optional): the hidden state (N, hidden_size); zeros when ``None``.
                Default: ``None``.

        Returns:
            Tensor: the next hidden state, shaped like `hx`.
        """
        return cast(Tensor, self._step(input, hx))


class LSTMCell(_CellBase):
    __doc__ = "One LSTM step: (x, (h, c)) -> (h', c')." + _CELL_ARGS + _DEVICE_DTYPE

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(input_size, hidden_size, bias, dtype)

    def forward(self, input: Tensor,  # type: ignore[override]
                hx: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tensor]:
        """One step of the cell.

        Args:
            input (Tensor): (N, input_size) or unbatched (input_size,).
            hx (Tuple[Tensor, Tensor], optional): (h, c), each (N, hidden_size); zeros when
                ``None``. Default: ``None``.

        Returns:
            Tuple[Tensor, Tensor]: (h', c'), shaped like `hx`.
        """
        return cast(Tuple[Tensor, Tensor], self._step(input, hx))


class GRUCell(_CellBase):
    __doc__ = "One GRU step: (x, h) -> h'." + _CELL_ARGS + _DEVICE_DTYPE

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(input_size, hidden_size, bias, dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:  # type: ignore[override]
        """One step of the cell.

        Args:
            input (Tensor): (N, input_size) or unbatched (input_size,).
            hx (Tensor, optional): the hidden state (N, hidden_size); zeros when ``None``.
                Default: ``None``.

        Returns:
            Tensor: the next hidden state, shaped like `hx`.
        """
        return cast(Tensor, self._step(input, hx))


# --- MindSpore names ------------------------------------------------------------------------------

_MS_RNN_TAIL = """
        has_bias (bool): learn the biases. Default: ``True`` .
        batch_first (bool): input and output are (N, L, H) instead of (L, N, H).
            Default: ``False`` .
        dropout (float): the dropout probability on the outputs of every layer but the last,
            in training. Default: ``0.0`` .
        bidirectional (bool): also run each layer backwards in time. Default: ``False`` .
        dtype (mindspore.dtype, optional): the parameters' dtype. Default: ``None`` .
        **kwargs: passed on to the PyTorch-style layer (``proj_size``, ``device``).
"""


_H = TypeVar("_H", Tensor, Tuple[Tensor, Tensor])
_Out = TypeVar("_Out")


class _MSRecurrent(RNNBase, Generic[_H, _Out]):
    """MindSpore's calling convention: construct(x, hx=None, seq_length=None) runs the
    PyTorch-style layer `_pt`'s forward; _H is the state's type, _Out the result's."""

    _pt: Type[RNNBase] = RNNBase

    def construct(self, x: Tensor, hx: Optional[_H] = None,
                  seq_length: Optional[Tensor] = None) -> _Out:
        """Runs the network over the sequence.

        Args:
            x (Tensor): (L, N, H_in), or (N, L, H_in) with batch_first.
            hx (Union[Tensor, tuple[Tensor, Tensor]], optional): the initial state
                (layers * directions, N, H), for LSTM the pair (h_0, c_0); zeros when
                ``None``. Default: ``None`` .
            seq_length (Tensor, optional): per-sample lengths; not supported (must be
                ``None``). Default: ``None`` .

        Returns:
            tuple, (output, h_n) or for LSTM (output, (h_n, c_n)).
        """
        if seq_length is not None:
            raise NotImplementedError(f"{self._pt.__name__}: seq_length is not supported")
        return cast(_Out, self._pt.forward(self, x, hx))

    def forward(self, x: Tensor, hx: Optional[_H] = None,  # type: ignore[override]
                seq_length: Optional[Tensor] = None) -> _Out:
        """The same as :meth:`construct`, under PyTorch's name.

        Args:
            x (Tensor): (L, N, H_in), or (N, L, H_in) with batch_first.
            hx (Union[Tensor, tuple[Tensor, Tensor]], optional): the initial state.
                Default: ``None`` .
            seq_length (Tensor, optional): not supported (must be ``None``).
                Default: ``None`` .

        Returns:
            tuple, (output, h_n) or for LSTM (output, (h_n, c_n)).
        """
        return self.construct(x, hx, seq_length)


class MSRNN(_MSRecurrent[Tensor, Tuple[Tensor, Tensor]], RNN):
    __doc__ = """MindSpore's nn.RNN (the Elman RNN, ``has_bias`` instead of ``bias``).

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): the number of stacked layers. Default: ``1`` .
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'`` .""" + _MS_RNN_TAIL

    _pt = RNN

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", has_bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False,
                 dtype: Optional[_C.dtype] = None, **kwargs: Any) -> None:
        RNN.__init__(self, input_size, hidden_size, num_layers, nonlinearity, bias=has_bias,
                     batch_first=batch_first, dropout=dropout, bidirectional=bidirectional,
                     dtype=dtype, **kwargs)


class MSLSTM(_MSRecurrent[Tuple[Tensor, Tensor], Tuple[Tensor, Tuple[Tensor, Tensor]]], LSTM):
    __doc__ = """MindSpore's nn.LSTM (``has_bias`` instead of ``bias``).

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden and cell states.
        num_layers (int): the number of stacked layers. Default: ``1`` .""" + _MS_RNN_TAIL

    _pt = LSTM

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: Optional[_C.dtype] = None,
                 **kwargs: Any) -> None:
        LSTM.__init__(self, input_size, hidden_size, num_layers, bias=has_bias,
                      batch_first=batch_first, dropout=dropout, bidirectional=bidirectional,
                      dtype=dtype, **kwargs)


class MSGRU(_MSRecurrent[Tensor, Tuple[Tensor, Tensor]], GRU):
    __doc__ = """MindSpore's nn.GRU (``has_bias`` instead of ``bias``).

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): the number of stacked layers. Default: ``1`` .""" + _MS_RNN_TAIL

    _pt = GRU

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: Optional[_C.dtype] = None,
                 **kwargs: Any) -> None:
        GRU.__init__(self, input_size, hidden_size, num_layers, bias=has_bias,
                     batch_first=batch_first, dropout=dropout, bidirectional=bidirectional,
                     dtype=dtype, **kwargs)
