"""Linear layers and shape helpers: Identity, Linear, Bilinear, Flatten, Unflatten (PyTorch)
and Dense (MindSpore)."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union, cast

from .. import _C
from .._init import InitSpec
from ._common import (Cell, F, Parameter, fan_in_bias_, kaiming_uniform_, ms_init, new_param,
                      ops, uniform_)

Tensor = _C.Tensor

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dense"]


class Identity(Cell):
    """A placeholder layer that returns its input.

    Args:
        *args: ignored (so it can stand in for any layer's constructor call).
        **kwargs: ignored, as `args`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """Returns `input` unchanged.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: `input` itself.
        """
        return input


class Linear(Cell):
    """An affine map of the last dim: y = x @ weight.T + bias, with weight
    (out_features, in_features) drawn from kaiming_uniform(a=sqrt(5)) and bias from
    U(-1/sqrt(in_features), 1/sqrt(in_features)), as in PyTorch.

    Args:
        in_features (int): the size of each input sample (the last dim).
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype (float32 when ``None``).
            Default: ``None``.
    """

    weight: Parameter
    bias: Optional[Parameter]

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = new_param((self.out_features, self.in_features), dtype)
        if bias:
            self.bias = new_param((self.out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draws the weight and bias from their initial distributions."""
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in_bias_(self.bias, self.in_features)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the affine map to the last dim.

        Args:
            input (Tensor): (*, in_features).

        Returns:
            Tensor: (*, out_features).
        """
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Cell):
    """A bilinear map of two inputs: y_k = x1^T A_k x2 + b_k, with weight
    (out_features, in1_features, in2_features) and bias drawn from
    U(-1/sqrt(in1_features), 1/sqrt(in1_features)).

    Args:
        in1_features (int): the size of each first-input sample.
        in2_features (int): the size of each second-input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
    """

    weight: Parameter
    bias: Optional[Parameter]

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = new_param((out_features, in1_features, in2_features), dtype)
        bound = 1.0 / math.sqrt(in1_features)
        uniform_(self.weight, -bound, bound)
        if bias:
            self.bias = uniform_(new_param((out_features,), dtype), -bound, bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """Applies the bilinear map.

        Args:
            input1 (Tensor): (*, in1_features).
            input2 (Tensor): (*, in2_features), the same leading dims as `input1`.

        Returns:
            Tensor: (*, out_features).
        """
        lead = tuple(input1.shape[:-1])
        a = input1.reshape(-1, self.in1_features)
        b = input2.reshape(-1, self.in2_features)
        y = ops.einsum("bi,oij,bj->bo", a, self.weight, b).reshape(lead + (self.out_features,))
        return y + self.bias if self.bias is not None else y

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Cell):
    """Flattens the dims start_dim..end_dim into one (by default all but the batch dim).

    Args:
        start_dim (int): the first dim to flatten. Default: ``1``.
        end_dim (int): the last dim to flatten. Default: ``-1``.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        """Flattens the dims.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: a view (or copy) of `input` with those dims merged.
        """
        return ops.flatten(input, self.start_dim, self.end_dim)

    def ms_extra_repr(self) -> str:
        """MindSpore prints a Flatten with its default dims as ``Flatten<>``.

        Returns:
            str: the dims when they are not the defaults, else empty.
        """
        return "" if (self.start_dim, self.end_dim) == (1, -1) else self.extra_repr()

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Cell):
    """Splits one dim into several.

    Args:
        dim (int): the dim to split.
        unflattened_size (Sequence[int]): the sizes it becomes (their product is its size;
            one may be -1).
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        """Splits the dim.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: `input` with the dim replaced by `unflattened_size`.
        """
        return ops.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dense(Cell):
    """MindSpore's fully connected layer: activation(x @ weight.T + bias), weight
    (out_channels, in_channels).

    Args:
        in_channels (int): the size of each input sample (the last dim).
        out_channels (int): the size of each output sample.
        weight_init (Union[Tensor, str, Initializer, numbers.Number], optional): the
            weight's initializer; ``None`` means HeUniform(negative_slope=sqrt(5)), as in
            MindSpore 2.x. Default: ``None`` .
        bias_init (Union[Tensor, str, Initializer, numbers.Number], optional): the bias's
            initializer; ``None`` means Uniform(1/sqrt(in_channels)). Default: ``None`` .
        has_bias (bool): learn an additive bias. Default: ``True`` .
        activation (Union[str, Cell], optional): applied to the output: a name
            (``'relu'``, ...; see :func:`get_activation`) or a Cell. Default: ``None`` .
        dtype (mindspore.dtype, optional): the parameters' dtype (float32 when ``None``).
            Default: ``None`` .
    """

    weight: Parameter
    bias: Optional[Parameter]

    def __init__(self, in_channels: int, out_channels: int, weight_init: Optional[InitSpec] = None,
                 bias_init: Optional[InitSpec] = None, has_bias: bool = True,
                 activation: Union[str, Cell, None] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        from .activation import get_activation
        self.in_channels, self.out_channels, self.has_bias = int(in_channels), int(out_channels), bool(has_bias)
        shape = (self.out_channels, self.in_channels)
        if weight_init is None:
            self.weight = kaiming_uniform_(new_param(shape, dtype), a=math.sqrt(5))
        else:
            self.weight = Parameter(ms_init(weight_init, shape, dtype))
        if self.has_bias:
            if bias_init is None:
                self.bias = fan_in_bias_(new_param((self.out_channels,), dtype), self.in_channels)
            else:
                self.bias = Parameter(ms_init(bias_init, (self.out_channels,), dtype))
        else:
            self.register_parameter("bias", None)
        self.activation = get_activation(activation)
        self.activation_flag = self.activation is not None

    def construct(self, x: Tensor) -> Tensor:
        """Applies the layer.

        Args:
            x (Tensor): (*, in_channels).

        Returns:
            Tensor, (*, out_channels).
        """
        y = F.linear(x, self.weight, self.bias)
        if not self.activation_flag:
            return y
        out: Tensor = cast(Cell, self.activation)(y)
        return out

    def extra_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        return s
