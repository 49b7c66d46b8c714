"""Activation layers: PyTorch's modules (ReLU, GELU(approximate), Softmax(dim), ...) and
MindSpore's (nn.Softmax(axis=-1), nn.GELU(approximate=True), nn.LeakyReLU(alpha=0.2), ...)."""
from __future__ import annotations

from typing import Optional

from ._common import Cell, F, Parameter, fill_, inplace_result, ops


class _Elementwise(Cell):
    """An activation with no arguments other than inplace."""

    _fn = ""
    _has_inplace = True

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = bool(inplace)

    def forward(self, input):
        return inplace_result(input, getattr(F, self._fn)(input), self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


def _simple(name: str, fn: str, inplace: bool = True, doc: str = ""):
    attrs = {"_fn": fn, "__doc__": doc or f"Applies {fn} elementwise."}
    if not inplace:
        attrs["__init__"] = lambda self: _Elementwise.__init__(self, False)
    return type(name, (_Elementwise,), attrs)


ReLU = _simple("ReLU", "relu", doc="max(0, x).")
ReLU6 = _simple("ReLU6", "relu6", doc="min(max(0, x), 6).")
SELU = _simple("SELU", "selu")
SiLU = _simple("SiLU", "silu", doc="x * sigmoid(x).")
Mish = _simple("Mish", "mish", doc="x * tanh(softplus(x)).")
Hardsigmoid = _simple("Hardsigmoid", "hardsigmoid", doc="relu6(x + 3) / 6.")
Hardswish = _simple("Hardswish", "hardswish", doc="x * relu6(x + 3) / 6.")
Sigmoid = _simple("Sigmoid", "sigmoid", inplace=False, doc="1 / (1 + exp(-x)).")
Tanh = _simple("Tanh", "tanh", inplace=False)
LogSigmoid = _simple("LogSigmoid", "logsigmoid", inplace=False, doc="log(sigmoid(x)).")


class LeakyReLU(Cell):
    """x for x >= 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = float(negative_slope), bool(inplace)

    def forward(self, input):
        return inplace_result(input, F.leaky_relu(input, self.negative_slope), self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    _fn = "elu"

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = float(alpha), bool(inplace)

    def forward(self, input):
        return inplace_result(input, getattr(F, self._fn)(input, self.alpha), self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    _fn = "celu"


class GELU(Cell):
    """x * Phi(x); approximate='tanh' uses the tanh approximation."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, linear above threshold."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = float(beta), float(threshold)

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Cell):
    """clamp(x, min_val, max_val)."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = float(min_val), float(max_val), bool(inplace)

    def forward(self, input):
        return inplace_result(input, F.hardtanh(input, self.min_val, self.max_val), self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Threshold(Cell):
    """x where x > threshold, value elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = float(threshold), float(value), bool(inplace)

    def forward(self, input):
        y = ops.where(input > self.threshold, input, ops.full_like(input, self.value))
        return inplace_result(input, y, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class Softsign(Cell):
    """x / (1 + |x|)."""

    def forward(self, input):
        return input / (input.abs() + 1)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def forward(self, input):
        return input - F.tanh(input)


class PReLU(Cell):
    """max(0, x) + weight * min(0, x) with a learnt slope per channel (dim 1) or one shared."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype=None):
        super().__init__()
        self.num_parameters = int(num_parameters)
        self.weight = Parameter(fill_(ops.empty(self.num_parameters, dtype=dtype), init))

    def forward(self, input):
        w = self.weight
        if self.num_parameters > 1:
            if input.ndim < 2 or input.shape[1] != self.num_parameters:
                raise ValueError(f"PReLU: expected input with {self.num_parameters} channels "
                                 f"in dim 1, got shape {tuple(input.shape)}")
            w = w.reshape([self.num_parameters] + [1] * (input.ndim - 2))
        return F.relu(input) - w * F.relu(-input)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _SoftmaxBase(Cell):
    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim."""

    def forward(self, input):
        return F.softmax(input, self.dim)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim."""

    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim."""

    def forward(self, input):
        return F.softmax(-input, self.dim)


class GLU(Cell):
    """a * sigmoid(b) where a, b are the halves of the input along dim."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        if input.shape[self.dim] % 2:
            raise ValueError(f"GLU: dim {self.dim} has odd size {input.shape[self.dim]}; it must halve")
        a, b = ops.chunk(input, 2, self.dim)
        return a * F.sigmoid(b)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# --- MindSpore names (tandem.nn) ----------------------------------------------------------------

class MSSoftmax(Softmax):
    """MindSpore's nn.Softmax(axis=-1)."""

    def __init__(self, axis: int = -1):
        super().__init__(axis)


class MSLogSoftmax(LogSoftmax):
    """MindSpore's nn.LogSoftmax(axis=-1)."""

    def __init__(self, axis: int = -1):
        super().__init__(axis)


class MSGELU(GELU):
    """MindSpore's nn.GELU(approximate=True): the tanh approximation by default."""

    def __init__(self, approximate: bool = True):
        super().__init__("tanh" if approximate else "none")


class MSLeakyReLU(LeakyReLU):
    """MindSpore's nn.LeakyReLU(alpha=0.2)."""

    def __init__(self, alpha: float = 0.2):
        super().__init__(alpha)


class MSPReLU(PReLU):
    """MindSpore's nn.PReLU(channel=1, w=0.25)."""

    def __init__(self, channel: int = 1, w: float = 0.25):
        super().__init__(channel, w)


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": MSSoftmax,
    "logsoftmax": MSLogSoftmax, "gelu": MSGELU, "leakyrelu": MSLeakyReLU, "elu": ELU,
    "silu": SiLU, "swish": SiLU, "mish": Mish, "hsigmoid": Hardsigmoid, "hswish": Hardswish,
    "softplus": Softplus, "selu": SELU, "logsigmoid": LogSigmoid, "prelu": MSPReLU,
}


def get_activation(name, prim_name=None) -> Optional[Cell]:
    """MindSpore's nn.get_activation: the activation Cell for a lower-case name."""
    if name is None:
        return None
    if isinstance(name, Cell):
        return name
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        raise KeyError(f"unknown activation {name!r}; known: {sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name.lower()]()
