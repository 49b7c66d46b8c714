"""Linear layers and shape helpers: Identity, Linear, Bilinear, Flatten, Unflatten (PyTorch)
and Dense (MindSpore)."""
from __future__ import annotations

import math
from typing import Sequence

from ._common import (Cell, F, Parameter, fan_in_bias_, kaiming_uniform_, ms_init, new_param,
                      ops, uniform_)


class Identity(Cell):
    """Returns its input; ignores constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Cell):
    """y = x @ weight.T + bias, weight (out_features, in_features).

    Weight kaiming_uniform(a=sqrt(5)), bias uniform(+-1/sqrt(in_features)), like PyTorch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = new_param((self.out_features, self.in_features), dtype)
        if bias:
            self.bias = new_param((self.out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in_bias_(self.bias, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Cell):
    """y_k = x1^T A_k x2 + b_k, weight (out_features, in1_features, in2_features)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = new_param((out_features, in1_features, in2_features), dtype)
        bound = 1.0 / math.sqrt(in1_features)
        uniform_(self.weight, -bound, bound)
        if bias:
            self.bias = uniform_(new_param((out_features,), dtype), -bound, bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input1, input2):
        lead = tuple(input1.shape[:-1])
        a = input1.reshape(-1, self.in1_features)
        b = input2.reshape(-1, self.in2_features)
        y = ops.einsum("bi,oij,bj->bo", a, self.weight, b).reshape(lead + (self.out_features,))
        return y + self.bias if self.bias is not None else y

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Cell):
    """Flattens dims start_dim..end_dim into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return ops.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Cell):
    """Splits dim into the shape unflattened_size."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return ops.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dense(Cell):
    """MindSpore's fully connected layer: activation(x @ weight.T + bias).

    weight_init / bias_init: an initializer name, number or Tensor; None means HeUniform
    (negative_slope=sqrt(5)) for the weight and Uniform(1/sqrt(in_channels)) for the bias,
    as in MindSpore 2.x. activation: a name ('relu', ...) or a Cell."""

    def __init__(self, in_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, activation=None, dtype=None):
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

    def construct(self, x):
        y = F.linear(x, self.weight, self.bias)
        return self.activation(y) if self.activation_flag else y

    def extra_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        return s
