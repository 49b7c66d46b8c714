"""Op table: elementwise math, activations, comparisons, logical and bitwise ops."""
from __future__ import annotations

from .rows import Op, binary, unary

_INPLACE_UNARY = """neg abs sign square floor ceil trunc frac relu sqrt rsqrt reciprocal exp
exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh sigmoid erf erfc
erfinv logical_not bitwise_not silu""".split()

_INPLACE_BINARY = """mul floor_divide remainder fmod pow atan2 maximum minimum bitwise_and
bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift logical_and logical_or
logical_xor eq ne lt le gt ge copysign hypot""".split()

_MATH = {
    "neg": "Returns -input.",
    "abs": "Returns the absolute value of each element.",
    "sign": "Returns -1, 0 or 1 by the sign of each element (0 for zeros).",
    "square": "Returns input * input.",
    "floor": "Rounds each element down to an integer value (integers are returned as they "
             "are).",
    "ceil": "Rounds each element up to an integer value.",
    "trunc": "Rounds each element towards zero.",
    "frac": "Returns the fractional part of each element: input - trunc(input).",
    "sqrt": "Returns the square root of each element.",
    "rsqrt": "Returns 1 / sqrt(input) for each element.",
    "reciprocal": "Returns 1 / input for each element (integers are promoted to float).",
    "exp": "Returns e raised to each element.",
    "exp2": "Returns 2 raised to each element.",
    "expm1": "Returns exp(input) - 1, accurate near zero.",
    "log": "Returns the natural logarithm of each element.",
    "log2": "Returns the base-2 logarithm of each element.",
    "log10": "Returns the base-10 logarithm of each element.",
    "log1p": "Returns log(1 + input), accurate near zero.",
    "sin": "Returns the sine of each element (radians).",
    "cos": "Returns the cosine of each element (radians).",
    "tan": "Returns the tangent of each element (radians).",
    "asin": "Returns the arcsine of each element.",
    "acos": "Returns the arccosine of each element.",
    "atan": "Returns the arctangent of each element.",
    "sinh": "Returns the hyperbolic sine of each element.",
    "cosh": "Returns the hyperbolic cosine of each element.",
    "tanh": "Returns the hyperbolic tangent of each element.",
    "asinh": "Returns the inverse hyperbolic sine of each element.",
    "acosh": "Returns the inverse hyperbolic cosine of each element.",
    "atanh": "Returns the inverse hyperbolic tangent of each element.",
    "erf": "Returns the Gauss error function of each element.",
    "erfc": "Returns the complementary error function 1 - erf(input), accurate for large "
            "inputs.",
    "erfinv": "Returns the inverse error function of each element (defined on (-1, 1)).",
}

_ACTIVATIONS = {
    "relu": "Applies the rectified linear unit max(0, x) elementwise (NaN stays NaN).",
    "sigmoid": "Applies the logistic sigmoid 1 / (1 + exp(-x)) elementwise.",
    "logsigmoid": "Applies log(sigmoid(x)) elementwise, computed stably.",
    "silu": "Applies the SiLU (swish) x * sigmoid(x) elementwise.",
    "mish": "Applies Mish x * tanh(softplus(x)) elementwise.",
    "hardsigmoid": "Applies the hard sigmoid relu6(x + 3) / 6 elementwise.",
    "hardswish": "Applies the hard swish x * relu6(x + 3) / 6 elementwise.",
    "selu": "Applies SELU: scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with PyTorch's "
            "constants.",
    "relu6": "Applies min(max(0, x), 6) elementwise.",
}

_PREDICATES = {
    "isnan": "Tests each element for NaN.",
    "isinf": "Tests each element for positive or negative infinity.",
    "isfinite": "Tests each element for being finite (not NaN, not infinite).",
    "isposinf": "Tests each element for positive infinity.",
    "isneginf": "Tests each element for negative infinity.",
    "signbit": "Tests the sign bit of each element (True for -0.0 and negative values).",
}

_LOGICAL = {
    "logical_not": "Returns the logical NOT of each element (non-zero is True), as bool.",
    "bitwise_not": "Returns the bitwise NOT of each element of an integer or bool tensor.",
}

_BINARY_MATH = {
    "floor_divide": "Divides input by other and rounds the quotient down (Python's //).",
    "remainder": "Returns the remainder of input / other with the sign of other (Python's "
                 "%).",
    "fmod": "Returns the remainder of input / other with the sign of input (C's fmod).",
    "pow": "Raises input to the power other, elementwise.",
    "atan2": "Returns the arctangent of input / other, using both signs to choose the "
             "quadrant.",
    "maximum": "Returns the elementwise maximum of input and other (NaN propagates).",
    "minimum": "Returns the elementwise minimum of input and other (NaN propagates).",
    "fmax": "Returns the elementwise maximum, ignoring NaN where one operand is a number.",
    "fmin": "Returns the elementwise minimum, ignoring NaN where one operand is a number.",
    "hypot": "Returns sqrt(input^2 + other^2) elementwise, without overflow.",
    "copysign": "Returns the magnitude of input with the sign of other.",
    "logaddexp": "Returns log(exp(input) + exp(other)), computed stably.",
}

_COMPARE = {
    "eq": "Tests input == other elementwise.",
    "ne": "Tests input != other elementwise.",
    "lt": "Tests input < other elementwise.",
    "le": "Tests input <= other elementwise.",
    "gt": "Tests input > other elementwise.",
    "ge": "Tests input >= other elementwise.",
    "logical_and": "Returns the logical AND of input and other (non-zero is True).",
    "logical_or": "Returns the logical OR of input and other (non-zero is True).",
    "logical_xor": "Returns the logical XOR of input and other (non-zero is True).",
}

_BITWISE = {
    "bitwise_and": "Returns the bitwise AND of two integer or bool tensors.",
    "bitwise_or": "Returns the bitwise OR of two integer or bool tensors.",
    "bitwise_xor": "Returns the bitwise XOR of two integer or bool tensors.",
    "bitwise_left_shift": "Shifts the bits of input left by other.",
    "bitwise_right_shift": "Shifts the bits of input right by other (arithmetic for signed "
                           "types).",
}

ROWS = [
    *unary(_MATH, inplace=_INPLACE_UNARY),
    *unary(_ACTIVATIONS, inplace=_INPLACE_UNARY),
    *unary(_PREDICATES, grad=False, returns="a bool tensor of input's shape."),
    *unary(_LOGICAL, inplace=_INPLACE_UNARY, grad=False),
    *binary(_BINARY_MATH, inplace=_INPLACE_BINARY),
    *binary(_COMPARE, inplace=_INPLACE_BINARY, grad=False,
            returns="a bool tensor of the broadcast shape."),
    *binary(_BITWISE, inplace=_INPLACE_BINARY, grad=False),
    Op("add", "(input: TensorLike, other: TensorLike, *, alpha: Number = 1) -> Tensor",
       "_C.add(input, other, alpha)",
       "Adds other, scaled by alpha, to input: input + alpha * other, with broadcasting and "
       "type promotion.",
       method=True, inplace="self._inplace_binary('add', other, alpha)"),
    Op("sub", "(input: TensorLike, other: TensorLike, *, alpha: Number = 1) -> Tensor",
       "_C.sub(input, other, alpha)",
       "Subtracts other, scaled by alpha, from input: input - alpha * other.",
       method=True, inplace="self._inplace_binary('sub', other, alpha)", aliases="subtract",
       args={"alpha": "the multiplier for other."}),
    Op("mul", "(input: TensorLike, other: TensorLike) -> Tensor", "_C.mul(input, other)",
       "Multiplies input by other elementwise.", method=True,
       inplace="self._inplace_binary('mul', other)", aliases="multiply"),
    Op("div", "(input: TensorLike, other: TensorLike, *, rounding_mode: Optional[str] = None)"
       " -> Tensor",
       "_C.div(input, other, rounding_mode)",
       "Divides input by other elementwise. Integer inputs give a float result unless "
       "rounding_mode is set.",
       method=True, aliases="true_divide",
       args={"rounding_mode": "None (true division), 'trunc' (round towards zero) or 'floor' "
                              "(round down)."},
       inplace="self._inplace_binary('div', other) if rounding_mode is None else "
               "_impl.args.write_back('div', self, _C.div(self, other, rounding_mode))"),
    Op("round", "(input: Tensor, *, decimals: int = 0) -> Tensor", "_C.round(input, decimals)",
       "Rounds each element to the nearest integer, halves to even; with decimals, to that "
       "many decimal places.", method=True,
       args={"decimals": "the number of decimal places (negative rounds to tens, hundreds, "
                         "...)."}),
    Op("clamp", "(input: Tensor, min: Optional[TensorLike] = None, "
       "max: Optional[TensorLike] = None) -> Tensor",
       "_C.clamp(input, min, max)",
       "Limits each element to [min, max]; either bound may be None, a number or a tensor.",
       method=True, aliases="clip",
       inplace="_impl.args.write_back('clamp', self, _C.clamp(self, min, max))",
       args={"min": "the lower bound (None: no lower bound).",
             "max": "the upper bound (None: no upper bound)."}),
    Op("leaky_relu", "(input: Tensor, negative_slope: Number = 0.01) -> Tensor",
       "_C.leaky_relu(input, negative_slope)",
       "Applies x for x >= 0 and negative_slope * x otherwise, elementwise.", method=True,
       args={"negative_slope": "the slope for negative inputs."}),
    Op("elu", "(input: Tensor, alpha: Number = 1.0) -> Tensor", "_C.elu(input, alpha)",
       "Applies ELU: x for x > 0 and alpha * (exp(x) - 1) otherwise.", method=True,
       args={"alpha": "the value ELU approaches for very negative inputs."}),
    Op("celu", "(input: Tensor, alpha: Number = 1.0) -> Tensor", "_C.celu(input, alpha)",
       "Applies CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).", method=True,
       args={"alpha": "the scale of the negative part."}),
    Op("gelu", "(input: Tensor, approximate: str = 'none') -> Tensor",
       "_C.gelu(input, approximate)",
       "Applies GELU x * Phi(x), Phi the standard normal CDF.", method=True,
       args={"approximate": "'none' (exact, with erf) or 'tanh' (the tanh approximation)."}),
    Op("softplus", "(input: Tensor, beta: Number = 1.0, threshold: Number = 20.0) -> Tensor",
       "_C.softplus(input, beta, threshold)",
       "Applies log(1 + exp(beta * x)) / beta elementwise; linear above threshold.",
       method=True,
       args={"beta": "the sharpness of the curve.",
             "threshold": "beta * x above which the result is x itself."}),
    Op("hardtanh", "(input: Tensor, min_val: Number = -1.0, max_val: Number = 1.0) -> Tensor",
       "_C.hardtanh(input, min_val, max_val)",
       "Clamps each element to [min_val, max_val].", method=True,
       args={"min_val": "the lower bound.", "max_val": "the upper bound."}),
    Op("nan_to_num", "(input: Tensor, nan: float = 0.0, posinf: Optional[float] = None, "
       "neginf: Optional[float] = None) -> Tensor",
       "_C.nan_to_num(input, nan, posinf, neginf)",
       "Replaces NaN, positive and negative infinity with finite values.", method=True,
       args={"nan": "the value for NaN.",
             "posinf": "the value for +inf (the dtype's largest value when None).",
             "neginf": "the value for -inf (the dtype's lowest value when None)."}),
    Op("where", "(condition: Tensor, input: Optional[TensorLike] = None, "
       "other: Optional[TensorLike] = None) -> Union[Tensor, Tuple[Tensor, ...]]",
       "_impl.elementwise.where(condition, input, other)",
       "Chooses input where condition is True and other elsewhere, with broadcasting. With "
       "only condition, returns the indices of its non-zero elements "
       "(nonzero(condition, as_tuple=True)).",
       method=True, method_sig="(self, condition: Tensor, other: TensorLike) -> Tensor",
       method_call="_C.where(condition, self, other)",
       args={"condition": "a bool tensor choosing between input and other.",
             "input": "the values where condition is True.",
             "other": "the values where condition is False."}),
    Op("lerp", "(input: Tensor, end: TensorLike, weight: TensorLike) -> Tensor",
       "_C.lerp(input, end, weight)",
       "Linear interpolation: input + weight * (end - input).", method=True,
       args={"end": "the end points.", "weight": "the interpolation weight (number or "
                                                  "tensor)."}),
    Op("addcmul", "(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1)"
       " -> Tensor",
       "_C.addcmul(input, tensor1, tensor2, value)",
       "Returns input + value * tensor1 * tensor2.", method=True,
       args={"tensor1": "the first factor.", "tensor2": "the second factor.",
             "value": "the multiplier of the product."}),
    Op("addcdiv", "(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1)"
       " -> Tensor",
       "_C.addcdiv(input, tensor1, tensor2, value)",
       "Returns input + value * tensor1 / tensor2.", method=True,
       args={"tensor1": "the numerator.", "tensor2": "the denominator.",
             "value": "the multiplier of the quotient."}),
    Op("isclose", "(input: Tensor, other: TensorLike, rtol: float = 1e-05, "
       "atol: float = 1e-08, equal_nan: bool = False) -> Tensor",
       "_C.isclose(input, other, rtol, atol, equal_nan)",
       "Tests |input - other| <= atol + rtol * |other| elementwise.", method=True,
       grad=False,
       args={"rtol": "the relative tolerance.", "atol": "the absolute tolerance.",
             "equal_nan": "count two NaNs as equal."}, returns="a bool tensor."),
    Op("allclose", "(input: Tensor, other: TensorLike, rtol: float = 1e-05, "
       "atol: float = 1e-08, equal_nan: bool = False) -> bool",
       "_C.allclose(input, other, rtol, atol, equal_nan)",
       "True when isclose holds for every element.", method=True, grad=False,
       args={"rtol": "the relative tolerance.", "atol": "the absolute tolerance.",
             "equal_nan": "count two NaNs as equal."}),
    Op("equal", "(input: Tensor, other: Tensor) -> bool", "_C.equal(input, other)",
       "True when both tensors have the same shape and the same elements.", method=True,
       grad=False),
    Op("float_power", "(input: TensorLike, exponent: TensorLike) -> Tensor",
       "_impl.elementwise.float_power(input, exponent)",
       "Raises input to the power exponent, computed in float64.", method=True,
       args={"exponent": "the exponent (tensor or number)."}),
    Op("square_", "(input: Tensor) -> Tensor", "input._inplace_unary('square')",
       "Squares input in place and returns it.", method=True),
]

#: Other names of rows above (PyTorch's and numpy's), exported wherever the row is.
ALIASES = {
    "neg": "negative", "abs": "absolute", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2",
    "trunc": "fix", "gt": "greater", "ge": "greater_equal", "lt": "less", "le": "less_equal",
    "ne": "not_equal", "erf": "special_erf",
}
for _row in ROWS:
    if _row.name in ALIASES:
        _row.aliases = _row.aliases + (ALIASES[_row.name],)

#: Rows that mint.nn.functional exports too (PyTorch has them in both namespaces, without an
#: inplace flag; the activations with one have their own rows in table_nn).
ALSO_FUNCTIONAL = {"sigmoid", "tanh", "logsigmoid", "gelu", "softplus"}
for _row in ROWS:
    if _row.name in ALSO_FUNCTIONAL:
        _row.also = _row.also + ("F",)
