"""Op table: reductions. Each accepts PyTorch's dim/keepdim and numpy's / MindSpore's
axis/keepdims spellings; dim may be an int, a list or a tuple."""
from __future__ import annotations

from .rows import Op

_DIMS = "dim: Dim = None, keepdim: bool = False"
_AXIS = "axis: Dim = None, keepdims: bool = False"
_D = "_impl.args.dims(dim, axis), keepdim or keepdims"
# sum / mean / var / count_nonzero / logsumexp / norms reduce every dim for dim=[] as PyTorch
# does (all / any keep [] as no dims).
_DA = "_impl.reduce.all_if_empty(_impl.args.dims(dim, axis)), keepdim or keepdims"


def _reduce(name: str, doc: str, *, dtype: bool = False, empty_all: bool = True, **kw) -> Op:
    kwargs = ("*, dtype: Optional[DType] = None, " if dtype else "*, ") + _AXIS
    call = f"_C.{name}(input, {_DA if empty_all else _D}" + (", dtype)" if dtype else ")")
    return Op(name, f"(input: Tensor, {_DIMS}, {kwargs}) -> Tensor", call, doc, method=True, **kw)


_VAR = ("(input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None, "
        "keepdim: bool = False, *, correction: Optional[Number] = None, axis: Dim = None, "
        "keepdims: bool = False{ddof})")
_VAR_ARGS = {"unbiased": "Bessel's correction on (True) or off (False); legacy form of "
                         "correction.",
             "correction": "the difference between the sample size and the degrees of freedom "
                           "(1: unbiased, 0: population).",
             "ddof": "numpy's name for correction."}

ROWS = [
    _reduce("sum", "Sums the elements over dim (all dims when None). Integers and bool "
                   "accumulate in int64.", dtype=True),
    _reduce("mean", "The arithmetic mean over dim; input must be floating point unless dtype "
                    "is given.", dtype=True),
    _reduce("prod", "The product of the elements over dim.", dtype=True),
    Op("amax", f"(input: Tensor, {_DIMS}, *, {_AXIS}) -> Tensor",
       "_C.amax(input, _impl.reduce.all_if_empty(_impl.args.dims(dim, axis)), "
       "keepdim or keepdims)",
       "The maximum over dim (all dims when None or ()); NaN propagates.", method=True),
    Op("amin", f"(input: Tensor, {_DIMS}, *, {_AXIS}) -> Tensor",
       "_C.amin(input, _impl.reduce.all_if_empty(_impl.args.dims(dim, axis)), "
       "keepdim or keepdims)",
       "The minimum over dim (all dims when None or ()); NaN propagates.", method=True),
    Op("max", "(input: Tensor, dim: Union[int, Tensor, None] = None, keepdim: bool = False, *, "
       "other: Optional[Tensor] = None, axis: Optional[int] = None, keepdims: bool = False)"
       " -> Union[Tensor, Tuple[Tensor, Tensor]]",
       "_impl.reduce.max_min('max', input, dim, keepdim or keepdims, other, axis)",
       "max(input) returns the largest element; max(input, dim) returns the named tuple "
       "(values, indices) of the maxima along dim; max(input, other) is the elementwise "
       "maximum.", method=True,
       args={"dim": "the dimension to reduce, or a tensor: then max(input, other).",
             "other": "the second operand of the elementwise form."}),
    Op("min", "(input: Tensor, dim: Union[int, Tensor, None] = None, keepdim: bool = False, *, "
       "other: Optional[Tensor] = None, axis: Optional[int] = None, keepdims: bool = False)"
       " -> Union[Tensor, Tuple[Tensor, Tensor]]",
       "_impl.reduce.max_min('min', input, dim, keepdim or keepdims, other, axis)",
       "min(input) returns the smallest element; min(input, dim) returns the named tuple "
       "(values, indices) of the minima along dim; min(input, other) is the elementwise "
       "minimum.", method=True,
       args={"dim": "the dimension to reduce, or a tensor: then min(input, other).",
             "other": "the second operand of the elementwise form."}),
    Op("argmax", "(input: Tensor, dim: Optional[int] = None, keepdim: bool = False, *, "
       "axis: Optional[int] = None, keepdims: bool = False) -> Tensor",
       f"_C.argmax(input, {_D})",
       "The index of the first maximum along dim (of the flattened tensor when None).",
       method=True, grad=False),
    Op("argmin", "(input: Tensor, dim: Optional[int] = None, keepdim: bool = False, *, "
       "axis: Optional[int] = None, keepdims: bool = False) -> Tensor",
       f"_C.argmin(input, {_D})",
       "The index of the first minimum along dim (of the flattened tensor when None).",
       method=True, grad=False),
    _reduce("all", "True where every element along dim is non-zero.", grad=False,
            empty_all=False),
    _reduce("any", "True where some element along dim is non-zero.", grad=False,
            empty_all=False),
    Op("var", _VAR.format(ddof=", ddof: Optional[float] = None") + " -> Tensor",
       "_impl.reduce.var_std(_C.var, input, dim, unbiased, keepdim or keepdims, correction, "
       "axis, ddof, True)",
       "The variance over dim, with Bessel's correction by default.", method=True,
       args=_VAR_ARGS),
    Op("std", _VAR.format(ddof=", ddof: Optional[float] = None") + " -> Tensor",
       "_impl.reduce.var_std(_C.std, input, dim, unbiased, keepdim or keepdims, correction, "
       "axis, ddof)",
       "The standard deviation over dim, with Bessel's correction by default.", method=True,
       args=_VAR_ARGS),
    Op("var_mean", _VAR.format(ddof="") + " -> Tuple[Tensor, Tensor]",
       "_impl.reduce.var_std(_C.var_mean, input, dim, unbiased, keepdim or keepdims, "
       "correction, axis, None)",
       "The variance and the mean over dim in one pass.", args=_VAR_ARGS,
       returns="(variance, mean)."),
    Op("std_mean", _VAR.format(ddof="") + " -> Tuple[Tensor, Tensor]",
       "_impl.reduce.var_std(_C.std_mean, input, dim, unbiased, keepdim or keepdims, "
       "correction, axis, None)",
       "The standard deviation and the mean over dim in one pass.", args=_VAR_ARGS, returns="(standard deviation, mean)."),
    Op("logsumexp", f"(input: Tensor, dim: Dim, keepdim: bool = False, *, {_AXIS}) -> Tensor",
       f"_C.logsumexp(input, {_DA})",
       "log(sum(exp(input))) over dim, computed without overflow.", method=True),
    Op("norm", "(input: Tensor, p: Union[Number, str, None] = 'fro', dim: Dim = None, "
       "keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor",
       "_impl.reduce.norm(input, p, dim, keepdim, dtype)",
       "The vector p-norm over dim ('fro' and None mean 2; inf and -inf the largest and "
       "smallest absolute value).", method=True,
       args={"p": "the order of the norm."}),
    Op("count_nonzero", "(input: Tensor, dim: Dim = None, *, axis: Dim = None) -> Tensor",
       "_C.count_nonzero(input, _impl.reduce.all_if_empty(_impl.args.dims(dim, axis)))",
       "The number of non-zero elements along dim.", method=True, grad=False),
    Op("aminmax", "(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False)"
       " -> Tuple[Tensor, Tensor]",
       "_impl.reduce.aminmax(input, dim, keepdim)",
       "The minimum and the maximum over dim in one call, as the named tuple (min, max).",
       method=True),
]
