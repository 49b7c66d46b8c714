"""Known, deliberate differences between tandem.mint and PyTorch 2.13 (the differential
fuzzer's oracle), each with its reason. A mismatch the fuzzer finds is either fixed at its root
or listed here; anything not listed fails the CI budget (tests/python/test_differential.py).
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Tuple

#: Ops the fuzzer does not run: stateful or without a value to compare.
SKIP = {
    "manual_seed": "sets the global generator: not a function of its arguments",
    "set_seed": "MindSpore name of manual_seed; sets global state",
    "initial_seed": "reads global generator state",
    "get_rng_state": "tandem's state is (seed, offset), PyTorch's a ByteTensor: different by "
                     "design",
    "set_rng_state": "takes the state get_rng_state returns, which differs by design",
    "from_numpy": "takes a numpy array; the fuzzer's tensors are not arrays",
    "uniform": "MindSpore-style sampler without a torch function of that name",
}

#: Ops whose values are not compared (shape and dtype are).
SHAPE_ONLY = {
    "empty": "uninitialized memory", "empty_like": "uninitialized memory",
    "rand": "random", "randn": "random", "randint": "random", "rand_like": "random",
    "randn_like": "random", "randint_like": "random", "normal": "random",
    "bernoulli": "random", "randperm": "random", "multinomial": "random",
    "dropout": "random", "dropout2d": "random",
}

#: Ops returning (values, indices) where several indices are right for tied values: the
#: values are compared, the indices only when they agree.
TIES = {"sort", "argsort", "topk", "kthvalue", "max", "min", "median", "nanmedian", "mode",
        "cummax", "cummin", "argmax", "argmin", "unique"}

#: Ops not run under @jit by the fuzzer.
NO_JIT = {name: "random: eager and graph draw different numbers" for name in SHAPE_ONLY
          if name not in ("empty", "empty_like")}

#: Ops whose graph-mode values may differ from eager in the last bits (others must be
#: bit-identical).
JIT_INEXACT = {name: "a reduction over a fused elementwise producer: the fused graph sums in "
               "another order than eager (last-bit differences)"
               for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
                            "binary_cross_entropy_with_logits", "binary_cross_entropy",
                            "cross_entropy", "nll_loss", "norm", "vector_norm",
                            "matrix_norm")}

# (op regex, mode regex, status regex, detail regex, reason). The first match classifies a
# mismatch as known.
_NUM = r"(int|float|bool)"
RULES: List[Tuple[str, str, str, str, str]] = [
    # --- tandem accepts more than torch, on purpose (each is declared in the op table) ---
    (".*", ".*", "tandem_accepts",
     rf"must be Tensor, not {_NUM}\b|got \({_NUM}, |got \(Tensor, {_NUM}[,)]|"
     rf"'(other|input|values|end|weight)' \(position \d\) must be Tensor, not {_NUM}",
     "a Python number is accepted for any TensorLike operand (op table: TensorLike), as a "
     "weak scalar in type promotion; torch's maximum/atan2/hypot/lt/... functions want a "
     "Tensor there"),
    (".*", ".*", "tandem_accepts",
     r"unexpected keyword argument '(axis|keepdims|ddof)'|\b(axis|keepdims|ddof)=",
     "numpy / MindSpore keyword aliases (axis, keepdims, ddof) are part of the mint "
     "signatures (op table) so code written for either reads the same"),
    (".*", ".*", "tandem_accepts", r"must be tuple of ints, not int|got \(Tensor, int, list\)",
     "an int where torch wants a tuple of ints (flip, tile, movedim) is taken as a "
     "one-element tuple"),
    ("softmax|log_softmax", ".*", "tandem_accepts",
     r"missing 1 required positional arguments: \"dim\"|'dim' .*must be int, not NoneType",
     "dim=None is F.softmax's legacy implicit dim (mint.softmax is F.softmax); "
     "torch.softmax itself requires dim"),
    ("dropout", ".*", "tandem_accepts", r"missing \d required positional argument",
     "mint.dropout has F.dropout's defaults (p=0.5, training=True); torch.dropout has none"),
    ("tensor|as_tensor", ".*", "tandem_accepts", r"takes 1 positional argument but 2",
     "dtype may be passed positionally, as MindSpore's Tensor(input_data, dtype) takes it"),
    ("argsort|sort", ".*", "tandem_accepts",
     r"takes from 2 to 1 positional|got \(Tensor, bool",
     "stable (and descending) may be passed positionally"),
    ("normal", ".*", "tandem_accepts", r"normal\(\) received an invalid combination",
     "mint.normal takes mean, std and size together (MindSpore's ops.normal(shape, mean, "
     "stddev) form); torch splits them across overloads"),
    ("floor_divide|remainder|fmod", "backward", "tandem_accepts",
     r"derivative for aten::\w+ is not implemented",
     "tandem differentiates floor_divide (gradient 0) and remainder/fmod (gradient 1 wrt "
     "input) like MindSpore's FloorDiv/FloorMod bprops; torch raises"),
    ("mode|median|nanmedian|kthvalue", ".*", "tandem_accepts",
     r"'dim' must be int, not NoneType",
     "dim=None reduces over the flattened input (as median() without dim does in torch)"),
    (".*", "inplace", "tandem_accepts", r"'Tensor' object has no attribute '\w+_'",
     "the op table gives maximum/minimum (and a few others) in-place methods torch lacks"),
    (".*", ".*", "tandem_accepts",
     r"not implemented for '(Long|Int|Short|Char|Byte|Bool)'|Integral inputs not supported|"
     r"Subtraction, the `-` operator, with a bool tensor|only supports floating-point dtypes|"
     r"result type (Float|Double) can't be cast to the desired output type "
     r"(Long|Int|Short|Char|Byte|Bool)",
     "integer and bool inputs to ops with a float result (losses, softmax, logcumsumexp, "
     "logaddexp, ...) are promoted to the default float dtype, tandem's rule for float ops; "
     "torch has no integer kernel there (the activations torch rejects, tandem rejects too)"),
    (".*", ".*", "tandem_accepts",
     r"must be int, not bool|must be tuple of ints, not bool|found element of type bool",
     "a bool where an int is expected is accepted (bool is an int in Python)"),
    (".*", ".*", "tandem_accepts", r"must be (int|bool|tuple of ints), not NoneType",
     "an explicit None for an optional int/bool argument (dim, return_inverse) means its "
     "default; the mint signatures declare them Optional"),
    (".*", ".*", "tandem_accepts",
     r"missing 1 required positional arguments: \"(dim|size|end)\"|"
     r"got multiple values for argument 'dim'|"
     r"received an invalid combination of arguments|takes from \d to \d positional",
     "one Python signature per op (op table) instead of torch's overloads: argument "
     "combinations torch's overload resolution rejects (dim with axis, unbiased with "
     "correction, size omitted) resolve to the documented defaults"),
    ("take", ".*", "tandem_accepts", r"Expected a long tensor for index",
     "take accepts any integer index dtype (index_select does in torch too)"),
    ("index_put|masked_fill", ".*", "tandem_accepts", r"dtypes match",
     "values are cast to the destination's dtype, as Tensor.__setitem__ does in torch"),
    ("isclose|allclose|lerp|linear|addmm|mm|matmul|bmm", ".*", "tandem_accepts",
     r"did not match|expected dtype|must have the same dtype",
     "mixed float dtypes are promoted instead of refused"),
    ("where", ".*", "tandem_accepts", r"where\(\) received",
     "where(condition, None, None) is where(condition), the one-argument form"),
    ("binary_cross_entropy|binary_cross_entropy_with_logits", "backward", "tandem_accepts",
     r"not differentiable with respect to argument '(pos_)?weight'",
     "the gradient wrt weight is computed; torch refuses to"),
    ("addcdiv", ".*", "tandem_accepts", r"Integer division with addcdiv",
     "addcdiv of integer tensors is a true division promoted to float (the behaviour torch "
     "announces for the future)"),
    ("square|square_|abs", "forward|inplace", "tandem_accepts",
     r"can't be cast to the desired|abs_cpu",
     "square/abs of a bool tensor stays bool (logical identity)"),
    ("broadcast_shapes", ".*", "tandem_accepts", r"negative length",
     "-1 in a shape given to broadcast_shapes: checked as non-negative only for ints"),
    ("vector_norm|norm|matrix_norm", ".*", "tandem_accepts",
     r"Expected a floating point or complex tensor|convertible without narrowing",
     "with dtype= the input is converted first, so an integer input with a float dtype works"),
    ("max|min", ".*", "tandem_accepts", r"unexpected keyword argument 'other'",
     "max/min(input, other=...) is the elementwise maximum/minimum (MindSpore's form)"),
    (".*", ".*", "tandem_accepts", r"must be int, not list",
     "several dims are accepted where torch takes one (prod, cumsum-like reductions)"),
    ("huber_loss|binary_cross_entropy|binary_cross_entropy_with_logits|smooth_l1_loss",
     "backward", "tandem_accepts", r"Found dtype \w+ but expected \w+",
     "torch's own backward fails on mixed input/target dtypes (a torch bug); tandem's works"),
    ("mean|sum|cumsum|cumprod|prod", ".*", "tandem_accepts",
     r"could not infer output dtype|Autograd not support dtype",
     "mean of a bool tensor is a float mean; an integer dtype= result just carries no grad"),
    ("cross|cdist|inverse|inv", ".*", "tandem_accepts",
     r"expected scalar type|same number of dimensions|not implemented for '(BFloat16|Half)'|"
     r"only supports floating-point|Low precision dtypes",
     "cross/cdist/inverse broadcast and promote their inputs (bfloat16 is computed in "
     "float32)"),
    (".*", ".*", "tandem_accepts", r"must be Tensor, not list",
     "OPEN: a nested list is converted to a tensor for TensorLike operands (the op table "
     "declares Tensor or a number)"),
    ("arange|meshgrid|flatten|log_softmax|softmax", ".*", "tandem_accepts",
     r"must be Number, not NoneType|non-empty TensorList|Dimension out of range|"
     r"must be int, not torch\.dtype",
     "OPEN: arange(end=None), meshgrid() of nothing, flatten of a 0-d tensor with "
     "start_dim=1, and a dtype passed as softmax's dim are accepted"),
    # --- open: torch raises, tandem does not yet (listed so they stay visible) ---
    (".*", ".*", "tandem_accepts", r"cannot be converted to type [\w:]+ without overflow",
     "OPEN: Python-number attributes (alpha, value, celu's alpha) are not range-checked "
     "against the tensor dtype (W7 covers fill/full/tensor only)"),
    (".*", ".*", "tandem_accepts",
     r"tensordot expects dims >= 0|linalg\.(matrix_)?norm: (If dim|dim must be)|"
     r"OverflowError|can't convert negative int|more than one element of the written-to|"
     r"appears multiple times",
     "OPEN: argument checks torch has and tandem lacks (tensordot negative dims, norm dim "
     "rules, out-of-range ints in some positions, writes through overlapping non-expanded views)"),
    (".*", ".*", "tandem_accepts",
     r"mat2 must be a matrix|index -?\d+ is out of bounds|target should be between 0 and 1|"
     r"0 sized dimensions|ignore_index is not supported for floating point target|"
     r"must be int, not (float|object)|out of bounds for \w+ int|"
     r"reduce argument must be either add or multiply|non-zero size for non-batch|"
     r"Expected 3D or 4D|expected condition to be a boolean|Expected weight to be a vector|"
     r"expanded size of the tensor|missing 1 required positional arguments: \"(repeats|mean)\"|"
     r"takes \d positional arguments but \d were given|unsigned type with negative limits|"
     r"must be Number, not NoneType|Expected self.dtype to be equal to src.dtype|"
     r"can't be cast to the desired output type|must have at least 2 dimensions|"
     r"must have length 3|It is expected dilation|Padding_idx must be within|"
     r"Integers to negative integer powers|index out of range in self|"
     r"output with shape \[.*\] doesn't match the broadcast shape|"
     r"output_size(\.size\(\))? must be 2",
     "OPEN: argument checks torch has and tandem lacks: a 1-D linear weight, negative gather "
     "indices (tandem wraps them), binary_cross_entropy targets outside [0, 1], unique over "
     "0-sized dims, ignore_index with float targets, integral floats for int parameters, "
     "scatter's extra reduce modes, empty non-batch dims in pooling, float where() "
     "conditions, weight/bias shape checks, broadcasting in addmm/linear/cross, omitted "
     "arguments that default, in-place results that cannot be cast back"),
    (".*", ".*", "tandem_accepts", r"bernoulli_ expects p|p_in >= 0",
     "OPEN: bernoulli's p checked in [0, 1] for tensors only"),
    # --- tandem rejects what torch accepts, on purpose ---
    (".*", ".*", "tandem_rejects", r"is out of the int64 range",
     "a Python int in [2**63, 2**64) is a ValueError; torch reads it as a uint64 scalar, "
     "which wraps silently against integer tensors (tandem does not wrap)"),
    ("dropout2d", ".*", "tandem_rejects", r"expected a 3-D \(C, H, W\) or 4-D",
     "dropout2d needs (C, H, W) or (N, C, H, W); torch warns and drops along dim 1 anyway"),
    ("unfold|fold", ".*", "tandem_rejects", r"expected a 4-D input|expected a 3-D input",
     "unbatched (C, H, W) input to unfold / (C*k, L) to fold is not supported (batch it)"),
    ("matrix_norm|norm", ".*", "tandem_rejects", r"needs an SVD",
     "nuclear and spectral norms need an SVD, which tandem does not have"),
    ("einsum", ".*", "tandem_rejects", r"ellipsis",
     "einsum's '...' subscripts are not supported; name the dims"),
    ("embedding", ".*", "tandem_rejects", r"max_norm, scale_grad_by_freq and sparse",
     "embedding's max_norm / scale_grad_by_freq / sparse options are not supported"),
    (".*", ".*", "tandem_rejects", r"pass either dim or axis, not both",
     "dim and its alias axis together are ambiguous: tandem raises, torch (which has no "
     "axis on these ops) reports a different error or none"),
    (".*", ".*", "tandem_rejects",
     r"expected a floating point dtype|expected a floating point input",
     "torch skips its dtype checks when the result is empty (randn(0, dtype=int64)); tandem "
     "checks the dtype whatever the size"),
    ("index_put|masked_fill|scatter|index_add", "forward|inplace", "tandem_rejects",
     r"more than one element of the written-to",
     "every in-place write into an expanded view is refused; torch's index_put_ does not check"),
    ("cross_entropy", ".*", "tandem_rejects", r"label_smoothing must be in \[0, 1\]",
     "a negative label_smoothing is rejected (torch accepts it and computes nonsense)"),
    ("adaptive_avg_pool1d|adaptive_avg_pool2d|split|tensordot|adjoint|roll|gather|batch_norm|"
     "tile|addmm|as_tensor|index_put|"
     "cummax|cummin|cat|concat|concatenate|stack|cross|index_add|scatter_add|scatter_reduce",
     ".*", "tandem_rejects",
     r"output_size must be|split_size must be positive|contracted dims differ|"
     r"dimension out of range|index must be an int64|must be defined in evaluation mode|"
     r"must have size 3|too many indices|index tensor must have the same number|"
     r"reduce must be one of|expected a 3-D \(C, H, W\) or 4-D|repeats can't be negative|"
     r"alpha must not be a floating point|could not infer dtype|out of bounds for dimension",
     "OPEN: corner cases torch accepts and tandem refuses (empty results: output_size 0, "
     "split_size 0 of an empty dim, a float index into an empty tensor; size-1 contracted "
     "dims that torch broadcasts; adjoint/roll of low-rank inputs)"),
    ("hardtanh|relu|relu6|elu|leaky_relu|celu|selu|silu|hardsigmoid|hardswish|mish|dropout",
     "jit", "jit_accepts", r"more than one element of the written-to",
     "OPEN: an in-place (inplace=True) write into an expanded argument is refused eagerly "
     "but not under @jit (the graph writes back into the base)"),
    # --- graph mode ---
    ("unique|unique_consecutive|nonzero|argwhere|masked_select|where|bincount|equal|allclose|"
     "embedding|"
     "repeat_interleave|histc|index_put|masked_fill|multinomial",
     "jit", "jit_rejects", r"symbolic",
     "the result's shape or Python value depends on the data: graph mode needs static "
     "shapes, and says so with a clear error (as MindSpore's graph mode does)"),
    ("tensor|as_tensor", "jit", "jit_rejects", r"symbolic",
     "building a tensor from a nested list of traced tensors reads their values"),
    ("binary_cross_entropy", "jit", "jit_accepts", r"should be between 0 and 1",
     "OPEN: checks that read tensor values (binary_cross_entropy's [0, 1] range) do not run "
     "inside @jit"),
    # --- open: silent differences at non-finite values or absurd parameters ---
    (".*", "backward", "wrong", r"(nan|inf)",
     "OPEN: gradients where an input is +-inf or NaN (or a parameter is: slope=inf, p=1e300) "
     "differ in which of NaN, inf and 0 comes out"),
    ("layer_norm|var_mean|std_mean|vector_norm|norm", "forward", "wrong", r"(nan|inf|1\.\] vs)",
     "OPEN: statistics of inputs holding +-inf, and p-norms with a huge finite p (torch "
     "rescales by the max first; tandem overflows |x|^p)"),
    ("addcmul|addcdiv|fmod|remainder|lerp|gt|lt|ge|le|eq|ne", "forward|inplace", "wrong",
     r"values differ",
     "half-precision results are computed from float32 reads of each operand; torch first "
     "rounds every operand (Python numbers too: 1e30 becomes inf in float16) to the common "
     "dtype, so overflow to inf and fmod's rounding differ"),
    ("as_strided", "backward", "wrong", r"values differ",
     "OPEN: as_strided with overlapping windows: the gradient is not summed per storage element"),
    ("softmax|log_softmax|dropout|dropout2d", "forward", "wrong", r"dtype",
     "empty or integer inputs: torch skips its kernel (and its dtype checks) for empty "
     "tensors and keeps integer dtypes through dropout; tandem returns the float type"),
    ("clamp|clip|hardtanh", "backward", "wrong", r"values differ",
     "OPEN: clamp/hardtanh gradients at NaN inputs or NaN bounds (torch passes the "
     "gradient at a NaN input and drops it at a NaN bound; tandem does the reverse)"),
    ("scatter_reduce|scatter", "backward", "tandem_rejects", r"backward is not implemented",
     "scatter's multiply/amax/amin reductions have no gradient rule yet (NotImplementedError)"),
    (".*", ".*", "tandem_accepts", r"INTERNAL ASSERT FAILED",
     "torch fails an internal assert (a torch bug), tandem computes the result"),
    ("kl_div|searchsorted", "forward|backward", "wrong", r"values differ",
     "OPEN, not analysed yet: kl_div gradients at some non-positive targets; searchsorted "
     "with NaN or unsorted sequences"),
    # --- torch quirks tandem does not copy ---
    ("signbit", "forward", "wrong", r"values differ",
     "the sign of NaN after a float32 -> bfloat16 conversion: torch's conversion makes "
     "negative quiet NaNs, tandem keeps the sign (numpy's nan is positive)"),
    ("binary_cross_entropy_with_logits", "forward", "wrong", r"dtype",
     "with pos_weight, torch accumulates in place into (1 - target), so its result has "
     "target's dtype even when input is wider; tandem promotes input and target"),
    ("unique_consecutive", "forward", "wrong", r"items vs|out\[1\]: values differ",
     "torch's boolean dispatch drops a positional return_inverse when return_counts is a "
     "keyword; tandem honours both"),
    ("cross", "forward", "wrong", r"values differ",
     "torch.cross without dim takes the first dimension of size 3 (deprecated); mint.cross "
     "uses dim=-1, as torch.linalg.cross does"),
    ("pow", "forward|inplace", "tandem_rejects", r"negative integer powers",
     "integer ** negative integer is an error for tensor exponents too (torch raises only "
     "for a scalar exponent and returns 0/+-1 for tensors); eager and @jit agree"),
    (".*", ".*", "tandem_rejects", r"argument '\w+' must be bool, not",
     "bool parameters must be bools (op table); torch's Python-level F functions take any "
     "truthy value for inplace="),
    ("hardtanh", ".*", "tandem_rejects", r"must not exceed max_val",
     "a NaN or inverted bound is rejected"),
    ("norm|linalg_norm", ".*", "tandem_rejects", r"need an SVD|is not supported",
     "nuclear and spectral norms need an SVD, which tandem does not have"),
    ("unique_consecutive", "forward", "wrong", r"shape \(.*\) vs \(0,\)",
     "torch returns an empty inverse for expanded (stride-0) inputs with dim=None; tandem returns "
     "the inverse of every element (what the docs say)"),
    ("all|any", "forward|inplace", "wrong", r"dtype bool vs uint8",
     "all/any of a uint8 tensor is uint8 in torch (a legacy quirk); tandem, numpy and "
     "MindSpore return bool"),
    ("index_put", "forward|inplace", "wrong", r"values differ",
     "duplicate indices with accumulate=False: torch documents the winner as undefined"),
]

_COMPILED: Optional[List[Tuple[Callable, ...]]] = None


def match(case: dict, status: str, detail: str) -> Optional[str]:
    """The reason a mismatch is deliberate, or None when it is a finding."""
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = [(re.compile(o), re.compile(m), re.compile(s), re.compile(d, re.S), r)
                     for o, m, s, d, r in RULES]
    for o, m, s, d, reason in _COMPILED:
        if (o.fullmatch(case["op"]) and m.fullmatch(case["mode"]) and s.fullmatch(status)
                and d.search(detail)):
            return reason
    return None
