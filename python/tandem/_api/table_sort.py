"""Op table: scans (cumsum, cummax, ...), sorting and selection (sort, topk, median, ...)
and counting (unique, bincount, histc, searchsorted). Ops along one dim also accept numpy's
and MindSpore's ``axis``; ops returning values and indices return a named tuple."""
from __future__ import annotations

from .rows import Op

_VI = "Tuple[Tensor, Tensor]"
_SCAN = "(input: Tensor, dim: Optional[int] = None, *, {dt}axis: Optional[int] = None) -> {ret}"


def _scan(name: str, doc: str, *, dtype: bool = False, pair: bool = False, **kw) -> Op:
    sig = _SCAN.format(dt="dtype: Optional[DType] = None, " if dtype else "",
                       ret=_VI if pair else "Tensor")
    call = f"_C.{name}(input, _impl.sort.required_dim({name!r}, dim, axis)" + \
        (", dtype)" if dtype else ")")
    if pair:
        call = f"_impl.sort.values_indices(*{call})"
    return Op(name, sig, call, doc, method=True,
              args={"dim": "the dim to scan along (required)."}, **kw)


_KEEP = "keepdim: bool = False, *, axis: Optional[int] = None, keepdims: bool = False"

ROWS = [
    _scan("cumsum", "The running sum along dim; integers and bool accumulate in int64 unless "
                    "dtype is given.", dtype=True),
    _scan("cumprod", "The running product along dim; integers and bool accumulate in int64 "
                     "unless dtype is given.", dtype=True),
    _scan("cummax", "The named tuple (values, indices) of the running maximum along dim.",
          pair=True),
    _scan("cummin", "The named tuple (values, indices) of the running minimum along dim.",
          pair=True),
    _scan("logcumsumexp", "log(cumsum(exp(input))) along dim, computed without overflow."),
    Op("sort", "(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, "
       f"*, axis: Optional[int] = None) -> {_VI}",
       "_impl.sort.values_indices(*_C.sort(input, _impl.sort.dim_or_last(dim, axis), "
       "bool(descending), bool(stable)))",
       "The named tuple (values, indices) of input sorted along dim; NaN sorts last (first "
       "when descending). The sort is always stable.", method=True,
       args={"dim": "the dim to sort along."}),
    Op("argsort", "(input: Tensor, dim: int = -1, descending: bool = False, "
       "stable: bool = False, *, axis: Optional[int] = None) -> Tensor",
       "_C.argsort(input, _impl.sort.dim_or_last(dim, axis), bool(descending), bool(stable))",
       "The indices that sort input along dim (stable).", method=True, grad=False,
       args={"dim": "the dim to sort along."}),
    Op("msort", "(input: Tensor) -> Tensor", "_C.msort(input)", "input sorted along dim 0.",
       method=True),
    Op("topk", "(input: Tensor, k: int, dim: Optional[int] = -1, largest: bool = True, "
       f"sorted: bool = True, *, axis: Optional[int] = None) -> {_VI}",
       "_impl.sort.values_indices(*_C.topk(input, int(k), _impl.sort.dim_or_last(dim, axis), "
       "bool(largest), bool(sorted)))",
       "The named tuple (values, indices) of the k largest elements (smallest with "
       "largest=False) along dim, best first; NaN counts as the largest value.", method=True,
       args={"k": "how many elements.", "dim": "the dim to select along.",
             "largest": "select the largest (True) or the smallest.",
             "sorted": "return the elements in order."}),
    Op("kthvalue", f"(input: Tensor, k: int, dim: Optional[int] = -1, {_KEEP}) -> {_VI}",
       "_impl.sort.values_indices(*_C.kthvalue(input, int(k), "
       "_impl.sort.dim_or_last(dim, axis), bool(keepdim or keepdims)))",
       "The named tuple (values, indices) of the k-th smallest element (1-based) along dim.",
       method=True, args={"k": "the rank, from 1.", "dim": "the dim to select along."}),
    Op("median", f"(input: Tensor, dim: Optional[int] = None, {_KEEP}) "
       f"-> Union[Tensor, {_VI}]",
       "_impl.sort.median('median', input, dim, keepdim or keepdims, axis)",
       "median(input) is the lower median of all elements (NaN if any is NaN); "
       "median(input, dim) is the named tuple (values, indices) along dim.", method=True,
       args={"dim": "the dim to reduce (all elements when None)."}),
    Op("nanmedian", f"(input: Tensor, dim: Optional[int] = None, {_KEEP}) "
       f"-> Union[Tensor, {_VI}]",
       "_impl.sort.median('nanmedian', input, dim, keepdim or keepdims, axis)",
       "median ignoring NaN (NaN only where every element is NaN).", method=True,
       args={"dim": "the dim to reduce (all elements when None)."}),
    Op("mode", f"(input: Tensor, dim: Optional[int] = -1, {_KEEP}) -> {_VI}",
       "_impl.sort.values_indices(*_C.mode(input, _impl.sort.dim_or_last(dim, axis), "
       "bool(keepdim or keepdims)))",
       "The named tuple (values, indices): the most frequent value along dim (the smallest "
       "on ties) and the index of its last occurrence.", method=True,
       args={"dim": "the dim to reduce."}),
    Op("unique", "(input: Tensor, sorted: bool = True, return_inverse: bool = False, "
       "return_counts: bool = False, dim: Optional[int] = None) "
       "-> Union[Tensor, Tuple[Tensor, ...]]",
       "_impl.sort.unique_result(_C.unique(input, bool(sorted), bool(return_inverse), "
       "bool(return_counts), None if dim is None else int(dim)), return_inverse, "
       "return_counts)",
       "The distinct elements (of the flattened input, or the distinct slices along dim), "
       "sorted; optionally the inverse indices and the counts. Eager only: the result's size "
       "depends on the data.", method=True, grad=False,
       args={"sorted": "return the values sorted (they always are).",
             "return_inverse": "also return where each element went.",
             "return_counts": "also return how often each value occurs.",
             "dim": "compare slices along this dim instead of elements."}),
    Op("unique_consecutive", "(input: Tensor, return_inverse: bool = False, "
       "return_counts: bool = False, dim: Optional[int] = None) "
       "-> Union[Tensor, Tuple[Tensor, ...]]",
       "_impl.sort.unique_result(_C.unique_consecutive(input, bool(return_inverse), "
       "bool(return_counts), None if dim is None else int(dim)), return_inverse, "
       "return_counts)",
       "Collapses runs of equal neighbours (elements, or slices along dim), keeping their "
       "order.", method=True, grad=False,
       args={"return_inverse": "also return where each element went.",
             "return_counts": "also return the length of each run.",
             "dim": "compare slices along this dim instead of elements."}),
    Op("bincount", "(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0)"
       " -> Tensor",
       "_C.bincount(input, weights, int(minlength))",
       "The count of each non-negative integer in the 1-D input (the summed weights when "
       "given).", method=True, grad=False,
       args={"weights": "a weight per element.", "minlength": "the least length of the "
                                                               "result."}),
    Op("histc", "(input: Tensor, bins: int = 100, min: Number = 0, max: Number = 0) -> Tensor",
       "_C.histc(input, int(bins), float(min), float(max))",
       "A histogram with bins equal bins over [min, max] (the data's range when min == max); "
       "values outside are ignored.", method=True, grad=False,
       args={"bins": "the number of bins.", "min": "the lower end of the range.",
             "max": "the upper end of the range."}),
    Op("searchsorted", "(sorted_sequence: Tensor, input: TensorLike, *, out_int32: bool = False,"
       " right: bool = False, side: Optional[str] = None, sorter: Optional[Tensor] = None)"
       " -> Tensor",
       "_C.searchsorted(sorted_sequence, input, bool(out_int32), bool(right), side, sorter)",
       "The indices where input would be inserted into the last dim of sorted_sequence to "
       "keep it sorted.", grad=False,
       args={"sorted_sequence": "sorted values along the last dim.",
             "input": "the values to insert.", "out_int32": "return int32 indices.",
             "right": "insert after equal elements.", "side": "'left' or 'right' (as right).",
             "sorter": "indices that sort sorted_sequence, if it is not sorted itself."}),
]
