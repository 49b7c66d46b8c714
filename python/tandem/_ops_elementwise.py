"""Elementwise ops: math, activations, comparisons, logical and bitwise ops."""
from __future__ import annotations

from typing import Optional, Union

from . import _C
from ._registry import PUBLIC, METHODS, public, method

Tensor = _C.Tensor
Number = Union[int, float, bool]

# Unary ops whose Python form is exactly the C++ one: f(input) -> Tensor, and a method.
_UNARY = """neg abs sign square floor ceil trunc frac relu sqrt rsqrt reciprocal exp exp2 expm1
log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc
erfinv sigmoid logsigmoid silu mish hardsigmoid hardswish selu relu6 isnan isinf isfinite
isposinf isneginf signbit logical_not bitwise_not""".split()
# Binary ops f(input, other) -> Tensor, and a method.
_BINARY = """floor_divide remainder fmod pow atan2 maximum minimum fmax fmin hypot copysign
logaddexp eq ne lt le gt ge logical_and logical_or logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_left_shift bitwise_right_shift""".split()


def _unary_fn(name: str):
    f = getattr(_C, name)

    def op(input) -> Tensor:
        return f(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name}(input)."
    return op


def _binary_fn(name: str):
    f = getattr(_C, name)

    def op(input, other) -> Tensor:
        return f(input, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name}(input, other), with broadcasting and type promotion."
    return op


# Python functions rather than the bare _C ones: a nanobind function stored on a class is not
# a descriptor, so `x.exp()` would not receive x.
for _n in _UNARY:
    PUBLIC[_n] = METHODS[_n] = _unary_fn(_n)
for _n in _BINARY:
    PUBLIC[_n] = METHODS[_n] = _binary_fn(_n)

# Aliases with PyTorch / MindSpore names.
_ALIASES = {
    "negative": "neg", "absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2",
    "fix": "trunc", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
    "not_equal": "ne", "true_divide": "div", "multiply": "mul", "subtract": "sub",
    "special_erf": "erf",
}


@public(method=True)
def add(input, other, *, alpha: Number = 1) -> Tensor:
    """input + alpha * other, with broadcasting and type promotion."""
    return _C.add(input, other, alpha)


@public(method=True)
def sub(input, other, *, alpha: Number = 1) -> Tensor:
    """input - alpha * other."""
    return _C.sub(input, other, alpha)


@public(method=True)
def mul(input, other) -> Tensor:
    """Elementwise product."""
    return _C.mul(input, other)


@public(method=True)
def div(input, other, *, rounding_mode: Optional[str] = None) -> Tensor:
    """input / other; rounding_mode None (true division), 'trunc' or 'floor'."""
    return _C.div(input, other, rounding_mode)


@public(method=True)
def round(input, *, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    """Rounds half to even, optionally to `decimals` decimal places."""
    return _C.round(input, decimals)


@public(method=True)
def clamp(input, min=None, max=None) -> Tensor:  # noqa: A002
    """Limits values to [min, max]; either bound may be None, a number or a tensor."""
    return _C.clamp(input, min, max)


PUBLIC["clip"] = clamp
METHODS["clip"] = clamp


@public(method=True)
def leaky_relu(input, negative_slope: float = 0.01) -> Tensor:
    return _C.leaky_relu(input, negative_slope)


@public(method=True)
def elu(input, alpha: float = 1.0) -> Tensor:
    return _C.elu(input, alpha)


@public(method=True)
def celu(input, alpha: float = 1.0) -> Tensor:
    return _C.celu(input, alpha)


@public(method=True)
def gelu(input, approximate: str = "none") -> Tensor:
    """GELU; approximate='tanh' uses the tanh approximation."""
    return _C.gelu(input, approximate)


@public(method=True)
def softplus(input, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _C.softplus(input, beta, threshold)


@public(method=True)
def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _C.hardtanh(input, min_val, max_val)


@public(method=True)
def nan_to_num(input, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    return _C.nan_to_num(input, nan, posinf, neginf)


@public
def where(condition, input=None, other=None) -> Tensor:
    """Elementwise choice: input where condition else other. With one argument, the
    indices of non-zero elements (like nonzero(as_tuple=True))."""
    if input is None and other is None:
        return PUBLIC["nonzero"](condition, as_tuple=True)
    return _C.where(condition, input, other)


@method(name="where")
def _where_method(self, condition, other) -> Tensor:
    return _C.where(condition, self, other)


@public(method=True)
def lerp(input, end, weight) -> Tensor:
    return _C.lerp(input, end, weight)


@public(method=True)
def addcmul(input, tensor1, tensor2, *, value: Number = 1) -> Tensor:
    return _C.addcmul(input, tensor1, tensor2, value)


@public(method=True)
def addcdiv(input, tensor1, tensor2, *, value: Number = 1) -> Tensor:
    return _C.addcdiv(input, tensor1, tensor2, value)


@public(method=True)
def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    return _C.isclose(input, other, rtol, atol, equal_nan)


@public(method=True)
def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return _C.allclose(input, other, rtol, atol, equal_nan)


@public(method=True)
def equal(input, other) -> bool:
    """True when both tensors have the same shape and elements."""
    return _C.equal(input, other)


@public(method=True)
def float_power(input, exponent) -> Tensor:
    """pow computed in float64."""
    a = input if isinstance(input, Tensor) else _C.Tensor(input)
    return _C.pow(_C.to_dtype(a, _C.dtype.float64), exponent)


@public(method=True)
def square_(input) -> Tensor:
    return input._inplace_unary("square")


for _alias, _target in _ALIASES.items():
    PUBLIC[_alias] = PUBLIC[_target]
    METHODS[_alias] = PUBLIC[_target]

# In-place method forms: x.exp_(), x.add_(y, alpha=2), ...
_INPLACE_UNARY = """neg abs sign square floor ceil trunc frac relu sqrt rsqrt reciprocal exp
exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh sigmoid erf erfc
erfinv logical_not bitwise_not silu""".split()
for _n in _INPLACE_UNARY:
    METHODS[_n + "_"] = (lambda name: lambda self: self._inplace_unary(name))(_n)
_INPLACE_BINARY = """mul floor_divide remainder fmod pow atan2 maximum minimum bitwise_and
bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift logical_and logical_or
logical_xor eq ne lt le gt ge copysign hypot""".split()
for _n in _INPLACE_BINARY:
    METHODS[_n + "_"] = (lambda name: lambda self, other: self._inplace_binary(name, other))(_n)


@method(name="add_")
def _add_(self, other, *, alpha: Number = 1):
    return self._inplace_binary("add", other, alpha)


@method(name="sub_")
def _sub_(self, other, *, alpha: Number = 1):
    return self._inplace_binary("sub", other, alpha)


@method(name="div_")
def _div_(self, other, *, rounding_mode: Optional[str] = None):
    if rounding_mode is None:
        return self._inplace_binary("div", other)
    return self.copy_(div(self, other, rounding_mode=rounding_mode))


@method(name="clamp_")
def _clamp_(self, min=None, max=None):  # noqa: A002
    return self.copy_(clamp(self, min, max))


METHODS["clip_"] = _clamp_
