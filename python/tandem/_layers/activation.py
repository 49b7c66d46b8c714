"""Activation layers: PyTorch's modules (ReLU, GELU(approximate), Softmax(dim), ...) and
MindSpore's (nn.Softmax(axis=-1), nn.GELU(approximate=True), nn.LeakyReLU(alpha=0.2), ...)."""
from __future__ import annotations

from typing import Dict, Optional, Type, Union

from .. import _C
from .._impl.nn import threshold as threshold_fn
from ._common import Cell, F, Parameter, fill_, inplace_result, ops

Tensor = _C.Tensor

__all__ = ["ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish", "Sigmoid", "Tanh",
           "LogSigmoid", "LeakyReLU", "ELU", "CELU", "GELU", "Softplus", "Hardtanh", "Threshold",
           "Softsign", "Tanhshrink", "PReLU", "Softmax", "LogSoftmax", "Softmin", "GLU",
           "MSSoftmax", "MSLogSoftmax", "MSGELU", "MSLeakyReLU", "MSPReLU", "get_activation"]

_ELEMENTWISE_ARGS = """

    Args:
        inplace (bool): write the result into the input instead of a new tensor.
            Default: ``False``.
"""


class _Elementwise(Cell):
    """An activation with no arguments other than inplace."""

    _fn = ""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input` (`input` itself when ``inplace``).
        """
        return inplace_result(input, getattr(F, self._fn)(input), self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _ElementwiseNoInplace(_Elementwise):
    """An activation without arguments."""

    def __init__(self) -> None:
        super().__init__(False)


class ReLU(_Elementwise):
    __doc__ = "The rectified linear unit, elementwise: max(0, x)." + _ELEMENTWISE_ARGS
    _fn = "relu"


class ReLU6(_Elementwise):
    __doc__ = "ReLU capped at 6, elementwise: min(max(0, x), 6)." + _ELEMENTWISE_ARGS
    _fn = "relu6"


class SELU(_Elementwise):
    __doc__ = ("The scaled exponential linear unit, elementwise: scale * (max(0, x) + "
               "min(0, alpha * (exp(x) - 1))) with alpha = 1.6733 and scale = 1.0507."
               + _ELEMENTWISE_ARGS)
    _fn = "selu"


class SiLU(_Elementwise):
    __doc__ = "The sigmoid linear unit (swish), elementwise: x * sigmoid(x)." + _ELEMENTWISE_ARGS
    _fn = "silu"


class Mish(_Elementwise):
    __doc__ = "Mish, elementwise: x * tanh(softplus(x))." + _ELEMENTWISE_ARGS
    _fn = "mish"


class Hardsigmoid(_Elementwise):
    __doc__ = "The piecewise-linear sigmoid, elementwise: relu6(x + 3) / 6." + _ELEMENTWISE_ARGS
    _fn = "hardsigmoid"


class Hardswish(_Elementwise):
    __doc__ = "The piecewise-linear swish, elementwise: x * relu6(x + 3) / 6." + _ELEMENTWISE_ARGS
    _fn = "hardswish"


class Sigmoid(_ElementwiseNoInplace):
    """The logistic sigmoid, elementwise: 1 / (1 + exp(-x))."""

    _fn = "sigmoid"


class Tanh(_ElementwiseNoInplace):
    """The hyperbolic tangent, elementwise."""

    _fn = "tanh"


class LogSigmoid(_ElementwiseNoInplace):
    """The log of the sigmoid, elementwise (computed stably): log(sigmoid(x))."""

    _fn = "logsigmoid"


class LeakyReLU(Cell):
    """x for x >= 0, negative_slope * x otherwise, elementwise.

    Args:
        negative_slope (float): the slope for negative inputs. Default: ``0.01``.
        inplace (bool): write the result into the input. Default: ``False``.
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = float(negative_slope), bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return inplace_result(input, F.leaky_relu(input, self.negative_slope), self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Cell):
    """The exponential linear unit, elementwise: x for x > 0, alpha * (exp(x) - 1)
    otherwise.

    Args:
        alpha (float): the saturation value for negative inputs is -alpha. Default: ``1.0``.
        inplace (bool): write the result into the input. Default: ``False``.
    """

    _fn = "elu"

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = float(alpha), bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return inplace_result(input, getattr(F, self._fn)(input, self.alpha), self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """The continuously differentiable ELU, elementwise:
    max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        alpha (float): the scale of the negative part. Default: ``1.0``.
        inplace (bool): write the result into the input. Default: ``False``.
    """

    _fn = "celu"


class GELU(Cell):
    """The Gaussian error linear unit, elementwise: x * Phi(x), Phi the standard normal CDF.

    Args:
        approximate (str): ``'none'`` for the exact form, ``'tanh'`` for the tanh
            approximation. Default: ``'none'``.
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Cell):
    """A smooth ReLU, elementwise: log(1 + exp(beta * x)) / beta, and x itself where
    beta * x > threshold (for numerical stability).

    Args:
        beta (float): the sharpness. Default: ``1.0``.
        threshold (float): above this value of beta * x the function is linear.
            Default: ``20.0``.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = float(beta), float(threshold)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Cell):
    """Clamps elementwise to [min_val, max_val].

    Args:
        min_val (float): the lower bound. Default: ``-1.0``.
        max_val (float): the upper bound (greater than `min_val`). Default: ``1.0``.
        inplace (bool): write the result into the input. Default: ``False``.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = float(min_val), float(max_val), bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return inplace_result(input, F.hardtanh(input, self.min_val, self.max_val), self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Threshold(Cell):
    """x where x > threshold, `value` elsewhere, elementwise (NaN stays NaN).

    Args:
        threshold (float): the threshold.
        value (float): what replaces the elements at or below the threshold.
        inplace (bool): write the result into the input. Default: ``False``.
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = float(threshold), float(value), bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the threshold elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return inplace_result(input, threshold_fn(input, self.threshold, self.value),
                              self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class Softsign(Cell):
    """x / (1 + |x|), elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return input / (input.abs() + 1)


class Tanhshrink(Cell):
    """x - tanh(x), elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return input - F.tanh(input)


class PReLU(Cell):
    """max(0, x) + weight * min(0, x) with a learnt slope: one per channel (dim 1 of the
    input) or one shared by all elements.

    Args:
        num_parameters (int): the number of slopes, 1 or the number of input channels.
            Default: ``1``.
        init (float): the initial slope. Default: ``0.25``.
        dtype (tandem.dtype, optional): the dtype of the weight (float32 when ``None``).
            Default: ``None``.
    """

    weight: Parameter

    def __init__(self, num_parameters: int = 1, init: float = 0.25,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        self.num_parameters = int(num_parameters)
        self.weight = Parameter(fill_(ops.empty(self.num_parameters, dtype=dtype), init))

    def forward(self, input: Tensor) -> Tensor:
        """Applies the activation elementwise.

        Args:
            input (Tensor): the input; with several slopes, dim 1 holds the channels.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        w: Tensor = self.weight
        if self.num_parameters > 1:
            if input.ndim < 2 or input.shape[1] != self.num_parameters:
                raise ValueError(f"PReLU: expected input with {self.num_parameters} channels "
                                 f"in dim 1, got shape {tuple(input.shape)}")
            w = w.reshape([self.num_parameters] + [1] * (input.ndim - 2))
        return F.relu(input) - w * F.relu(-input)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _SoftmaxBase(Cell):
    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along `dim`: each slice along it becomes a distribution.

    Args:
        dim (int, optional): the dim to normalise over (``None``: PyTorch's legacy choice,
            dim 0 for 0-D, 1-D and 3-D input, else 1). Default: ``None``.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Applies softmax along the layer's dim.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`, summing to 1 along the dim.
        """
        return F.softmax(input, self.dim)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along `dim`, computed stably.

    Args:
        dim (int, optional): the dim to normalise over (``None``: as :class:`Softmax`).
            Default: ``None``.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Applies log-softmax along the layer's dim.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the log-probabilities, of the shape of `input`.
        """
        return F.log_softmax(input, self.dim)


class Softmin(_SoftmaxBase):
    """softmax(-x) along `dim`.

    Args:
        dim (int, optional): the dim to normalise over (``None``: as :class:`Softmax`).
            Default: ``None``.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Applies softmin along the layer's dim.

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`, summing to 1 along the dim.
        """
        return F.softmax(-input, self.dim)


class GLU(Cell):
    """The gated linear unit: a * sigmoid(b), where a and b are the two halves of the input
    along `dim`.

    Args:
        dim (int): the dim to split (its size must be even). Default: ``-1``.
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """Splits `input` along the dim and gates one half by the other.

        Args:
            input (Tensor): the input; its size along the dim must be even.

        Returns:
            Tensor: the result, with half the size of `input` along the dim.
        """
        if input.shape[self.dim] % 2:
            raise ValueError(f"GLU: dim {self.dim} has odd size {input.shape[self.dim]}; it must halve")
        a, b = ops.chunk(input, 2, self.dim)
        return a * F.sigmoid(b)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# --- MindSpore names (tandem.nn) ----------------------------------------------------------------

class MSSoftmax(Softmax):
    """MindSpore's nn.Softmax: exp(x) / sum(exp(x)) along `axis`.

    Args:
        axis (int): the axis to normalise over. Default: ``-1`` .
    """

    def __init__(self, axis: int = -1) -> None:
        super().__init__(axis)


class MSLogSoftmax(LogSoftmax):
    """MindSpore's nn.LogSoftmax: log(softmax(x)) along `axis`.

    Args:
        axis (int): the axis to normalise over. Default: ``-1`` .
    """

    def __init__(self, axis: int = -1) -> None:
        super().__init__(axis)


class MSGELU(GELU):
    """MindSpore's nn.GELU: x * Phi(x), by default with the tanh approximation.

    Args:
        approximate (bool): use the tanh approximation; ``False`` computes the exact form.
            Default: ``True`` .
    """

    def __init__(self, approximate: bool = True) -> None:
        super().__init__("tanh" if approximate else "none")


class MSLeakyReLU(LeakyReLU):
    """MindSpore's nn.LeakyReLU: x for x >= 0, alpha * x otherwise.

    Args:
        alpha (float): the slope for negative inputs. Default: ``0.2`` .
    """

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__(alpha)


class MSPReLU(PReLU):
    """MindSpore's nn.PReLU: max(0, x) + w * min(0, x) with a learnt slope w.

    Args:
        channel (int): the number of slopes, 1 or the number of input channels.
            Default: ``1`` .
        w (float): the initial slope. Default: ``0.25`` .
    """

    def __init__(self, channel: int = 1, w: float = 0.25) -> None:
        super().__init__(channel, w)


_ACTIVATIONS: Dict[str, Type[Cell]] = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": MSSoftmax,
    "logsoftmax": MSLogSoftmax, "gelu": MSGELU, "leakyrelu": MSLeakyReLU, "elu": ELU,
    "silu": SiLU, "swish": SiLU, "mish": Mish, "hsigmoid": Hardsigmoid, "hswish": Hardswish,
    "softplus": Softplus, "selu": SELU, "logsigmoid": LogSigmoid, "prelu": MSPReLU,
}


def get_activation(name: Union[str, Cell, None], prim_name: Optional[str] = None) -> Optional[Cell]:
    """MindSpore's nn.get_activation: the activation Cell for a lower-case name.

    Args:
        name (Union[str, Cell, None]): ``'relu'``, ``'relu6'``, ``'sigmoid'``, ``'tanh'``,
            ``'softmax'``, ``'logsoftmax'``, ``'gelu'``, ``'leakyrelu'``, ``'elu'``,
            ``'silu'`` / ``'swish'``, ``'mish'``, ``'hsigmoid'``, ``'hswish'``,
            ``'softplus'``, ``'selu'``, ``'logsigmoid'`` or ``'prelu'`` (any case); a Cell is
            returned as is, ``None`` gives ``None``.
        prim_name (str, optional): the caller's name, accepted for compatibility.
            Default: ``None`` .

    Returns:
        Cell, a new activation cell with its default settings (or ``None``).
    """
    if name is None:
        return None
    if isinstance(name, Cell):
        return name
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        raise KeyError(f"unknown activation {name!r}; known: {sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name.lower()]()
