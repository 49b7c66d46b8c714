"""Known, deliberate differences between tandem.mint and PyTorch 2.13 (the differential
fuzzer's oracle), each with its reason. A mismatch the fuzzer finds is either fixed at its root
or listed here; anything not listed fails the CI budget (tests/python/test_differential.py).
"""
from __future__ import annotations

import math
import re
from typing import Callable, List, Optional, Tuple

try:
    from .known_predicates import (_CONTRACTIONS, _NORMS, _has_empty, _has_view,
                                   _int_beyond_sequence, _integer_operands, _max_finite_abs,
                                   _mixed_bounds, _no_degrees_of_freedom, _nonfinite_gradient,
                                   _nonfinite_value, _norm_order, _pool_window_in_padding,
                                   _torch_overflowed, _value_beyond_an_operand, _elements,
                                   _worst_below, _worst_extreme)
except ImportError:  # imported from the worker script's directory
    from known_predicates import (_CONTRACTIONS, _NORMS, _has_empty,  # type: ignore
                                  _has_view, _int_beyond_sequence, _integer_operands,
                                  _max_finite_abs, _mixed_bounds, _no_degrees_of_freedom,
                                  _nonfinite_gradient, _nonfinite_value, _norm_order,
                                  _pool_window_in_padding, _torch_overflowed,
                                  _value_beyond_an_operand, _elements, _worst_below,
                                  _worst_extreme)

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
                            "matrix_norm", "var", "std", "var_mean", "std_mean")}

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
    ("dropout", ".*", "tandem_accepts",
     r"missing \d required positional argument|unexpected keyword argument 'inplace'",
     "mint.dropout is F.dropout (defaults p=0.5, training=True, and inplace=); torch.dropout "
     "has no defaults and no inplace"),
    ("tensor|as_tensor", ".*", "tandem_accepts", r"takes 1 positional argument but 2",
     "dtype may be passed positionally, as MindSpore's Tensor(input_data, dtype) takes it"),
    ("argsort|sort", ".*", "tandem_accepts",
     r"takes from 2 to 1 positional|got \(Tensor, bool|missing 1 required positional "
     r"arguments: \"stable\"",
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
     r"Subtraction, the `-` operator, with (a bool tensor|two bool tensors)|"
     r"only supports floating-point dtypes|"
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
    ("isclose|allclose|lerp|linear|addmm|mm|matmul|bmm|baddbmm|addbmm|binary_cross_entropy|"
     "layer_norm",
     ".*", "tandem_accepts",
     r"did not match|expected dtype|must have the same dtype|Found dtype \w+ but expected|"
     r"Input dtypes must be the same|"
     r"mixed dtype \(CPU\)|expected scalar type \w+ but found",
     "mixed float dtypes are promoted instead of refused (a float64 weight with a float32 "
     "input, a bfloat16 target with a float16 input)"),
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
    ("index_put_?", ".*", "tandem_accepts", r"expected Tensor as element \d+ in argument \d+, "
     r"but got list",
     "index_put reads a list among its indices as an int64 index (the helper also serves "
     "x[idx] = v, where lists are indices); torch's index_put wants tensors there"),
    ("(new_)?full(_like)?|fill_?|masked_fill_?|index_fill_?|linspace|logspace", ".*",
     "tandem_rejects",
     r"cannot be converted to type ([Ff]|[Bb][Ff])loat16 without overflow",
     "a finite fill value beyond float16's (or bfloat16's) range always raises; torch's check depends on the "
     "path: full((2,), 70000.0) raises, but full((2,), -70000.0) and a one-element "
     "full((1,), 1e30) or linspace(1e30, 2, 1) store -inf / inf"),
    ("celu|elu", "backward", "tandem_accepts", r"cannot be converted to type float without overflow",
     "torch's elu backward converts alpha to float even for float64 inputs (celu(x, 1e300) "
     "runs forward and raises in backward); tandem computes the float64 gradient"),
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
    ("index_put|masked_fill|scatter|index_add|threshold", "forward|inplace", "tandem_rejects",
     r"more than one element of the written-to",
     "every in-place write into an expanded view is refused; torch's index_put_ and "
     "threshold(inplace=True) do not check"),
    ("cross_entropy", ".*", "tandem_rejects", r"label_smoothing must be in \[0, 1\]",
     "a negative label_smoothing is rejected (torch accepts it and computes nonsense)"),
    # --- graph mode ---
    ("unique|unique_consecutive|nonzero|argwhere|masked_select|where|bincount|equal|allclose|"
     "embedding|"
     "repeat_interleave|histc|index_put|masked_fill|multinomial",
     "jit", "jit_rejects", r"symbolic",
     "the result's shape or Python value depends on the data: graph mode needs static "
     "shapes, and says so with a clear error (as MindSpore's graph mode does)"),
    ("tensor|as_tensor", "jit", "jit_rejects", r"symbolic",
     "building a tensor from a nested list of traced tensors reads their values"),
    ("add|sub|mul|addcmul|addcdiv|fmod|remainder|floor_divide|div|pow|lerp|gt|lt|ge|le|eq|ne",
     "forward|inplace",
     "wrong",
     r"values differ",
     "half-precision results are computed from float32 reads of each operand; torch first "
     "rounds every operand (Python numbers too: 1e30 becomes inf in float16) to the common "
     "dtype, so overflow to inf and fmod's rounding differ"),
    ("softmax|log_softmax|dropout|dropout2d", "forward", "wrong", r"dtype",
     "empty or integer inputs: torch skips its kernel (and its dtype checks) for empty "
     "tensors and keeps integer dtypes through dropout; tandem returns the float type"),
    ("scatter_reduce|scatter", "backward", "tandem_rejects", r"backward is not implemented",
     "scatter's multiply/amax/amin reductions have no gradient rule yet (NotImplementedError)"),
    ("div|floor_divide|remainder|fmod", "forward|inplace", "crash", r"SIGFPE",
     "torch dies with SIGFPE dividing an integer type's minimum by -1 (x86 idiv overflows); "
     "run alone torch crashes the same way, tandem wraps to the minimum as two's complement"),
    ("adaptive_max_pool2d|max_pool2d|max_pool1d", "forward", "wrong",
     r"out\[1\].*non-finite inputs",
     "the index of a max-pool window holding several NaNs: both return NaN, torch the index of "
     "the last NaN, tandem of the first (in every kernel, the vectorised float32 ones too)"),
    ("avg_pool2d|avg_pool1d", "forward|backward", "crash", r"SIGFPE",
     "torch averages integer tensors and dies with SIGFPE dividing the type's minimum by a "
     "divisor_override of -1; run alone torch crashes the same way, tandem's pools take "
     "floating inputs only (TypeError)"),
    ("repeat_interleave", "forward", "crash", r"SIGSEGV",
     "torch's repeat_interleave segfaults for a negative repeat when output_size is given (it "
     "skips its check then); run alone torch crashes the same way, tandem raises ValueError "
     "(repeats must be non-negative)"),
    ("max_pool2d|max_pool1d", "backward", "crash",
     r"munmap_chunk|malloc|invalid pointer|invalid chunk|double free|free\(\)",
     "torch's max-pool backward corrupts its own heap (glibc aborts) when whole windows lie "
     "in the padding (dilation beyond the input); run alone, torch crashes the same way and "
     "tandem returns a zero gradient there"),
    ("group_norm", "backward", "tandem_accepts", r"tensor does not have a device",
     "torch's group_norm backward fails internally on an input with no elements (an "
     "undefined gradient tensor); tandem returns empty gradients"),
    (".*", "backward", "tandem_accepts", r"returned an invalid gradient at index",
     "torch's own backward returns a gradient of the wrong shape (scatter's src gradient "
     "with an index smaller than src: a torch bug); tandem's has src's shape"),
    (".*", ".*", "tandem_accepts", r"INTERNAL ASSERT FAILED",
     "torch fails an internal assert (a torch bug), tandem computes the result"),
    # --- torch fails in its own backward where its forward succeeded ---
    ("clamp|clip", "backward", "tandem_accepts", r"doesn't match the broadcast shape",
     "torch's clamp backward writes a tensor bound's gradient in place into input's shape and "
     "fails when the bound broadcasts the result beyond it (a torch bug); tandem reduces each "
     "gradient to its operand's shape"),
    ("addcdiv|addcmul", "backward", "tandem_accepts",
     r"cannot be converted to type \S+ without overflow",
     "torch's addcdiv / addcmul backward converts value to each operand's dtype (1e300 into a "
     "float16 tensor2's gradient raises); tandem checks value against the result's dtype, as "
     "the forward does, and computes the gradient"),
    ("linear", ".*", "tandem_accepts", r"expand\(.*the number of sizes provided",
     "torch's linear folds some contiguous 3-D inputs into rows before adding the bias, so a "
     "bias like [1, 2, 1] that broadcasts to the [1, 2, 2] output fails to expand to [2, 2] "
     "there (and works on its matmul path); tandem broadcasts the bias to the output's shape"),
    ("vector_norm|norm|linalg_norm", "backward", "tandem_accepts",
     r"cannot be converted to type \S+ without overflow",
     "torch's norm backward converts ord to a 16-bit input's dtype (2**31 into float16 "
     "raises); tandem keeps ord a float64 parameter, as the forward does"),
    ("pow", "backward", "wrong", r"input there: np\.float64\(-0\.0\)",
     "pow(x, 0.5) runs as sqrt, whose gradient at -0.0 is 1 / (2 * -0.0) = -inf, as torch's "
     "sqrt gives; torch's pow formula 0.5 * x ** -0.5 gives +inf there"),
    ("multinomial", "forward", "tandem_rejects", r"invalid distribution",
     "drawing without replacement past the categories of positive probability: tandem raises, "
     "torch returns a category of probability 0"),
    ("avg_pool2d|avg_pool1d|max_pool2d|max_pool1d", "backward", "tandem_accepts",
     r"cannot be converted to type int without overflow",
     "torch's pool backward converts kernel size and stride to 32-bit ints (a stride of 2**40 "
     "raises there, after its forward ran); tandem keeps them int64"),
    ("linear", ".*", "tandem_accepts", r"mat2 must be a matrix",
     "a 1-D weight with a bias: torch's addmm path (2-D inputs, and inputs of 4 or more dims) "
     "wants a matrix weight, its matmul path (1-D and 3-D inputs) does not; tandem refuses "
     "2-D inputs, as torch does, and computes the rest"),
    ("logsumexp", ".*", "tandem_accepts", r"doesn't match the broadcast shape",
     "torch's logsumexp fails for dim=() (every dim reduced, then an in-place write into the "
     "0-d result's shape: a torch bug, in the backward, and in the forward for 16-bit "
     "floats); tandem reduces every dim and its gradient is softmax"),
    ("adaptive_avg_pool1d|adaptive_avg_pool2d|adaptive_max_pool2d", "backward", "tandem_accepts",
     r"Expected grad_output to have non-zero size",
     "torch's adaptive pooling backward refuses an empty channel or output dim that its forward "
     "accepts; tandem returns the empty or zero gradient"),
    ("adaptive_avg_pool1d|adaptive_avg_pool2d", ".*", "tandem_rejects",
     r"expected a 3-D \(C, H, W\) or 4-D",
     "torch computes adaptive_avg_pool2d with output size 1 as a mean over the last two dims "
     "and skips its rank check then (a 2-D input gives a (1, 1) result); tandem checks the "
     "rank for every output size"),
    ("kl_div", "backward", "wrong", r"grad\[1\].*input there: np\.float64\((-?0\.0|-\d[^)]*)\)",
     "the target's gradient at target = 0, where the derivative of t log t is -inf: torch "
     "returns NaN (0 / 0 in xlogy's backward), tandem -input (the derivative of its "
     "0 log 0 = 0 convention); at a negative target (log is NaN) the two differ in whether "
     "an empty broadcast multiplies the NaN by zero. The target of a KL loss rarely requires "
     "grad"),
    ("interpolate|upsample", ".*", "tandem_accepts", r"can't allocate memory",
     "an absurd scale_factor on an empty batch: the result is empty, and tandem allocates "
     "nothing; torch allocates the non-batch size in its backward and runs out of memory"),
    ("layer_norm|group_norm|instance_norm|batch_norm|var|std|var_mean|std_mean|vector_norm|"
     "norm|matrix_norm|mode|mean|nanmean|sum|nansum|logsumexp|cumsum|softmax|log_softmax",
     "forward", "wrong", r"; (non-finite inputs|huge inputs|subnormal inputs)",
     "statistics of inputs holding +-inf or NaN, or values whose square overflows float32: "
     "tandem accumulates in float64 (finite where torch's float32 overflows to inf) and takes "
     "the mean directly (inf where torch's Welford update gives NaN)"),
    # --- torch quirks tandem does not copy ---
    ("signbit|copysign", "forward|inplace", "wrong", r"values differ",
     "the sign of NaN after a float32 -> bfloat16 conversion: torch's conversion makes "
     "negative quiet NaNs, tandem keeps the sign (numpy's nan is positive)"),
    ("binary_cross_entropy_with_logits", "forward", "wrong", r"dtype",
     "with pos_weight, torch accumulates in place into (1 - target), so its result has "
     "target's dtype even when input is wider; tandem promotes input and target"),
    ("unique_consecutive", "forward", "wrong", r"items vs|out\[1\]: (values differ|shape)|kind S vs T",
     "torch's boolean dispatch drops a positional return_inverse when return_counts is a "
     "keyword; tandem honours both"),
    ("cross", "forward|backward", "wrong", r"values differ",
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
    ("clamp|clip", "forward|inplace", "wrong", r"values differ",
     "a negative bound on an unsigned tensor: tandem compares values (3 >= -5 stays 3), torch "
     "first wraps the bound to the dtype (-5 becomes 251 for uint8)"),
    ("median|nanmedian", "backward", "wrong", r"values differ",
     "median() of all elements sends the gradient to the element the value came from; torch "
     "spreads it evenly over every element equal to the median (both are subgradients)"),
    ("einsum", ".*", "tandem_accepts", r"expected scalar type \w+ but found",
     "einsum promotes operands of mixed dtypes (torch does only when its contraction plan "
     "avoids bmm, so int64 with int32 works there and int16 with bool does not)"),
    ("cross_entropy", ".*", "tandem_accepts", r"expected scalar type \w+ but found Bool",
     "a bool target of the input's shape is read as 0/1 class probabilities (converted to the "
     "input's dtype); torch wants a float one"),
    ("nll_loss|cross_entropy", "forward|backward", "tandem_rejects", r"expected target of shape",
     "an unbatched (C,) input needs a 0-d target; torch also takes a one-element 1-D one"),
    ("conv1d|conv2d|conv_transpose2d|lerp|baddbmm|addbmm|addmm|bmm|mm|matmul|inner|dot|mv|"
     "outer|tensordot|einsum|linear", ".*", "tandem_rejects",
     r"must have the same floating dtype|expected floating point start|"
     r"not implemented for Bool",
     "convolutions and lerp are floating-point only, and matmul has no bool kernel; torch "
     "also runs int64 convolutions and bool / integer lerp and matmul"),
    ("randint", ".*", "tandem_accepts", r"missing \d required positional argument",
     "randint with one bound and size= reads it as high (randint(5, size=...) in torch); "
     "torch refuses low=5 without high, tandem samples [0, 5)"),
    ("normal", ".*", "tandem_accepts",
     r"must be float, not (Tensor|list)|unexpected keyword argument",
     "mint.normal takes requires_grad= (and size=/dtype=) whatever the mean and std are, and "
     "a nested list as a tensor; torch's tensor overloads take neither"),
    ("scatter", "backward", "tandem_accepts", r"derivative for aten::scatter is not implemented",
     "scatter with reduce='add' is differentiated (src's gradient gathered back, input's "
     "passed where not overwritten); torch has no derivative for the reduce= overload"),
    ("unique", "forward", "wrong", r"shape \(",
     "unique along a dim with NaN in the slices: torch's slice sort is not a total order with "
     "NaN, so equal slices separated by a NaN slice stay apart; tandem merges equal slices"),
    ("binary_cross_entropy_with_logits", "forward|backward", "wrong", r"values differ",
     "an integer pos_weight: torch computes pos_weight - 1 in its dtype (int8 -128 "
     "- 1 wraps to 127); tandem promotes to float first"),
    ("einsum", "forward", "wrong", r"dtype (u?int\d+|bool) vs int64",
     "einsum of integer tensors keeps their dtype (a matmul); torch's result is int64 when its "
     "plan sums over a dim (sum promotes), so the dtype depends on the shapes there"),
    ("select", ".*", "tandem_accepts", r"argument 'index' \(position \d\) must be int, not Tensor",
     "a one-element integer tensor is accepted as select's index (operator.index)"),
    ("instance_norm", ".*", "tandem_rejects", r"eps must be positive during training",
     "instance_norm with a negative eps is refused (batch_norm's rule, which it runs on); torch "
     "takes it and returns NaN where var + eps < 0"),
    ("binary_cross_entropy", "forward", "wrong", r"dtype",
     "mixed input / weight dtypes promote; torch's result keeps the input's dtype"),
    ("baddbmm|addbmm|addmm|addmv|addr", ".*", "tandem_rejects",
     r"alpha must not be a floating point|beta and alpha must not be floating point",
     "a float beta / alpha with integer tensors is refused, add's rule (PyTorch's alpha_check); "
     "torch's baddbmm truncates it"),
    ("histc", "forward", "wrong", r"values differ",
     "float16 / bfloat16 histc computes bin positions in float32; torch in the input's "
     "precision, so a value on a bin edge can land one bin over"),
    ("pow", "inplace", "tandem_rejects", r"not implemented for dtype Bool",
     "bool ** n in place is refused (pow has no bool kernel; bool ** 2 is int64 out of place, "
     "which cannot be written back); torch keeps a bool result"),
    (".*", ".*", "harness_error", r"MemoryError",
     "a result of gigabytes (repeat_interleave by 2**31) exceeds the fuzzer's address-space "
     "cap (TANDEM_FUZZ_MEM_GIB) when both frameworks' results are held and compared"),
    (".*", "jit", "jit_rejects", r"MemoryError",
     "a result of gigabytes computed a second time under @jit reaches the fuzzer's address-"
     "space cap (TANDEM_FUZZ_MEM_GIB)"),
    ("index_put", ".*", "tandem_rejects", r"need one index tensor per indexed dim",
     "index_put with no index tensors (x[()] = v) is refused; torch writes the whole tensor"),
    ("split|chunk|tensor_split", ".*", "tandem_rejects", r"must be a Tensor, not str",
     "torch.split is a Python function that calls .split on its argument, so torch.split('x', "
     "'x') is str.split; tandem wants a tensor"),
    ("inv|inverse", ".*", "tandem_accepts", r"input matrix is singular",
     "a matrix singular in exact arithmetic: LAPACK's float32 LU hit an exact zero pivot, "
     "tandem's float64 elimination a rounding residual, so it returns huge values (both test "
     "the pivot for exactly 0; which rounding reaches 0 differs)"),
    ("batch_norm", ".*", "tandem_accepts", r"TensorAccessor expected|select\(\): index 0 out of",
     "torch fails inside its own kernel (a torch bug); tandem normalises"),
    ("batch_norm", "backward", "tandem_accepts", r"not differentiable with respect to argument "
     r"'running_(mean|var)'",
     "running statistics are buffers: one that requires grad is accepted and gets no gradient"),
    ("scatter_reduce|scatter_add", "backward", "tandem_accepts", r"returned an invalid gradient",
     "torch's own ScatterReduce/ScatterAddBackward returns a wrongly shaped gradient for an "
     "empty index (a torch bug)"),
    ("norm", ".*", "tandem_accepts", r"argument 'out' must be Tensor",
     "mint.norm has no out= (tandem has no out arguments): its fifth positional is dtype"),
    ("view", ".*", "tandem_rejects", r"view\(dtype\) reinterpretation is not supported",
     "view(dtype) (reinterpreting the bytes) is not implemented; .to(dtype) converts"),
    ("nanmedian", "forward", "wrong", r"vs \[\s*-?\d\.\d+e-(3[89]|4\d)",
     "torch's nanmedian on an expanded (stride-0) input sometimes returns uninitialised "
     "memory (denormals); tandem's values are the medians"),
    ("nll_loss|cross_entropy", ".*", "tandem_accepts", r"expected target dtype to be Long",
     "class indices of any integer dtype are accepted (int32 too), as MindSpore takes them"),
    ("cross", "forward|backward", "tandem_accepts", r"no dimension of size 3",
     "mint.cross uses dim=-1 (linalg.cross's rule), torch.cross's deprecated first-dim-of-size-"
     "3 search has nothing to find"),
    ("instance_norm", ".*", "tandem_accepts", r"Number of dimensions of repeat dims",
     "torch fails inside its own repeat for a 2-D input without input statistics (a torch "
     "bug); tandem normalises with the running statistics"),
    ("broadcast_shapes", ".*", "tandem_rejects", r"'NoneType' object is not iterable",
     "broadcast_shapes(None) is a TypeError; torch reads None as an empty shape"),
    ("unfold|fold", ".*", "tandem_rejects", r"expected a floating input",
     "unfold/fold (im2col) compute in floating point; torch also copies bool and integer "
     "tensors"),
    ("normal", ".*", "tandem_rejects", r"with a tensor mean or std the result",
     "a 0-d tensor mean or std is a tensor argument (no size=/dtype=); torch's argument parser "
     "reads a 0-d tensor as a Python number there"),
    ("arange", "forward", "wrong", r"shape \(\d+,\) vs \(\d+,\)",
     "arange with float bounds and an integer dtype counts the float range (numpy's "
     "ceil((end - start) / step)); torch converts the bounds to the dtype first "
     "(arange(0.001, dtype=int64): tandem [0], torch [])"),
    ("linspace|logspace", "forward", "wrong", r"values differ",
     "integer linspace truncates the float64 points (numpy's result); torch converts start "
     "and end to the integer dtype first (linspace(0.5, 2, 4, dtype=int32): tandem and numpy "
     "[0, 1, 1, 2], torch [0, 0, 1, 2])"),
    ("huber_loss", "forward", "wrong", r"dtype",
     "mixed input/target dtypes promote, as mse_loss and l1_loss do in torch; torch's "
     "huber_loss alone returns the input's dtype"),
    ("celu|elu", "forward|backward", "wrong", r"nan",
     "elu / celu with alpha=NaN: which elements become NaN (torch keeps max(0, x) where "
     "x >= 0 and gives -0 at some negatives)"),
    ("norm|vector_norm|matrix_norm|linalg_norm|var|std|var_mean|std_mean", "backward",
     "wrong", r"input there: np\.float64\(-?\d(\.\d+)?e[+-](19|[2-9]\d|\d{3})\)",
     "norm and variance gradients at |x| > 1e19 or < 1e-19: tandem computes them in float64 "
     "(as torch's forward does), torch's backward in the input's dtype, where |x|^2 "
     "overflows or underflows float32 (the gradient becomes 0: norm(1e-40) has gradient 1, "
     "torch gives 0) or 1e30-sized deviations cancel catastrophically"),
    ("nll_loss|cross_entropy", "backward", "tandem_accepts",
     r"not differentiable with respect to argument 'weight'",
     "the class weight gets a gradient when it requires one; torch refuses"),
    ("inverse|inv", "forward|backward", "wrong", r"nan|inf",
     "inverse of a matrix holding NaN or inf: which entries become NaN depends on the "
     "elimination order (LAPACK's LU vs tandem's Gauss-Jordan); neither is a meaningful "
     "inverse"),
]

# Rules that hold only when some tensor argument is empty (a 0 in its shape): torch returns
# early for empty inputs without running its argument checks, tandem checks whatever the size.
EMPTY_RULES: List[Tuple[str, str, str, str, str]] = [
    ("batch_norm|instance_norm|group_norm|dropout|dropout2d|repeat|floor_divide|remainder|fmod|"
     "scatter_add|scatter|scatter_reduce|bincount|adaptive_max_pool2d|adaptive_avg_pool1d|"
     "adaptive_avg_pool2d|cdist|index_add|matmul|mm|bmm|baddbmm|conv1d|conv2d|cross_entropy|"
    "nll_loss|div|floor_divide|median|nanmedian|repeat_interleave|gather|einsum",
     ".*", "tandem_rejects|wrong",
     r"expected a floating-point|should contain \d+ elements|at least 2 dims|"
     r"leaf Variable that requires grad|repeats can't be negative|ZeroDivisionError|"
     r"index must be an int64|must have the same dtype|must have the same floating dtype|"
     r"floating-point logits|not implemented for Bool|the median of an empty tensor|"
     r"doesn't match the repeated size|must not exceed|"
     r"index tensor must have the same number of dimensions|"
     r"must not be larger than src|weights must be 1-D|output_size must be|"
     r"spatial size must be positive|weight must have shape|dtype",
     "an empty input: torch skips its checks (dtype, running-statistics size, negative "
     "repeats, a zero divisor, index vs src sizes) and its dtype promotion when there are no "
     "elements; tandem checks the arguments whatever the size"),
    (".*", ".*", "tandem_rejects",
     r"dimension out of range|split_size must be positive|out of bounds for dimension|"
     r"must be defined in evaluation mode|expected a 3-D \(C, H, W\) or 4-D|"
     r"repeats can't be negative|reduce must be one of|too many indices|"
     r"must either both be None|padding_idx must be within|expected a floating input",
     "an empty input: torch returns the empty result before it checks dims, split sizes, "
     "repeats, index bounds, reduce names or running statistics (cummin(x, dim=-3) of a 2-D "
     "empty tensor, cat of a legacy empty 1-D tensor along dim 1); tandem checks the "
     "arguments whatever the size"),
]

_COMPILED_EMPTY: Optional[List[Tuple[Callable, ...]]] = None


CASE_RULES: List[Tuple[Callable[[dict, str], bool], str, str]] = [
    (_nonfinite_gradient, "wrong",
     "gradients where an input holds +-inf or NaN, a value whose products (or reciprocals, for "
     "float32 subnormals) overflow float32, "
     "or a parameter is not finite (alpha=inf): the non-finite value spreads through sums, "
     "broadcasts and products, and which of NaN, +-inf, 0 or a large finite value comes out "
     "depends on each framework's formula (masks, where a scale is applied, accumulation "
     "width). tandem's formulas do not special-case non-finite values (torch's are not "
     "consistent either: its hardtanh backward gives 0 at NaN in its vector loop and the "
     "gradient in its scalar tail); mismatches at finite values stay findings"),
    (lambda c, d: c["op"] in _CONTRACTIONS and _nonfinite_value(d), "wrong",
     "products and sums of inputs holding +-inf or NaN (or values whose products overflow "
     "float32): which of NaN and +-inf a contraction gives depends on the order of its "
     "multiply-adds (inf - inf is NaN in one order, inf in another)"),
    (lambda c, d: c["op"] in ("var", "std", "var_mean", "std_mean")
     and c["mode"] == "backward" and _no_degrees_of_freedom(c), "wrong",
     "var / std with correction >= the number of elements (no degrees of freedom): the value "
     "is inf or NaN in both; torch's backward then divides by the negative n - correction and "
     "returns finite gradients of that infinite value, tandem's are NaN"),
    (lambda c, d: c["op"] in _NORMS and _norm_order(c) is not None
     and math.isnan(_norm_order(c) or 0.0), "wrong",
     "a p-norm with p = NaN is undefined: tandem returns NaN, torch a value of its generic "
     "path"),
    (lambda c, d: c["op"] == "pow" and c["mode"] == "backward" and any(
        isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a) >= 2 ** 24
        for a in list(c["args"][1:]) + list(c["kwargs"].values())), "wrong",
     "pow's gradient with an exponent beyond 2**24: torch computes exponent - 1 in float32, "
     "where 2**32 - 1 rounds to 2**32, so x ** (e - 1) of a negative x changes sign; tandem "
     "computes the exponent in float64"),
    (lambda c, d: c["op"] in ("addcdiv", "addcmul") and c["mode"] == "backward"
     and _value_beyond_an_operand(c), "wrong",
     "addcdiv / addcmul backward with a value beyond an operand's range: torch converts value "
     "to that operand's dtype there (2**31 becomes inf in float16, 1e300 in float32), tandem "
     "keeps it in the gradient's compute type"),
    (lambda c, d: c["op"] in ("std_mean", "var_mean", "std", "var") and c["mode"] == "backward"
     and (c["args"][1:2] == [[]] or c["kwargs"].get("dim", 0) == []), "wrong",
     "var / std with dim=(): both reduce every dim forward, but torch's backward treats () as "
     "no dims (one element per slice, so it divides by n - correction = 0 and returns inf); "
     "tandem's gradient is that of the all-dims reduction"),
    (lambda c, d: c["op"] == "layer_norm" and c["mode"] == "backward"
     and len(c["args"]) > 1 and _elements(c["args"][1]) == 2 and isinstance(c["args"][0], dict)
     and c["args"][0].get("T") in ("float16", "bfloat16"), "wrong",
     "layer_norm over 2 elements: each normalised value is -1 or 1 whatever the input, so the "
     "input's gradient is 0 in exact arithmetic; in 16-bit floats both return rounding noise "
     "(torch's up to 0.2, tandem's smaller, as it computes in float32)"),
    (lambda c, d: c["op"] in ("conv1d", "conv2d") and isinstance(c["args"][0], dict)
     and len(c["args"][0].get("shape", [])) >= 2 and c["args"][0]["shape"][1] == 0
     and "shape" in d, "wrong",
     "a convolution of an input with 0 channels: each output is the bias (0 without one) in "
     "tandem, with weight's out_channels; torch's empty-input shortcut returns 0 output "
     "channels whatever the weight"),
    (lambda c, d: c["op"] in ("layer_norm", "group_norm", "instance_norm")
     and c["mode"] == "backward" and _has_view(c, "expand") and _worst_below(d, 1e-3), "wrong",
     "normalising a slice whose values are equal (an expanded input): its gradient is 0 in "
     "exact arithmetic, and 1 / sqrt(eps) multiplies each framework's rounding noise "
     "differently (both stay below 1e-3)"),
    (lambda c, d: c["mode"] == "jit" and c["op"] in JIT_INEXACT and _worst_extreme(d),
     "wrong",
     "a reduction whose float32 sum overflows near the type's limit: the fused graph sums in "
     "another order than eager, so one of them reaches inf and the other stays finite"),
    (lambda c, d: c["op"] in ("isclose", "allclose") and _integer_operands(c), "wrong",
     "integer isclose: torch subtracts in the integer dtype, which wraps near the type's "
     "limits (-4 - 2**31 + 1 looks close to 2**31 - 1); tandem subtracts in float64"),
    (lambda c, d: c["op"] in _NORMS and abs(_norm_order(c) or 0.0) not in (0.0, float("inf"))
     and (abs(_norm_order(c) or 0.0) >= 1e9
          or abs(_norm_order(c) or 0.0) > 2 and _torch_overflowed(d)),
     "wrong",
     "p-norms with a large |p|: tandem scales by the largest |x| (the smallest for p < 0) "
     "before raising to p, so the result is finite and tends to the max / min |x|; torch "
     "raises |x| to p directly (|x|^p overflows to inf or 0, giving 0 or inf) or, for some "
     "shapes and |p| >= 1e30, returns 1"),
    (lambda c, d: c["op"] == "cdist" and (_norm_order(c) or 2.0) > 1 and _torch_overflowed(d),
     "wrong",
     "cdist between points ~1e30 apart: tandem's cdist is norm(x1 - x2), which accumulates "
     "|d|^p in float64, so the distance is finite; torch accumulates in float32, which "
     "overflows to inf"),
    (lambda c, d: c["op"] == "cdist" and c["mode"] == "backward"
     and (_norm_order(c) or 2.0) > 1 and _max_finite_abs(c) >= 1e19, "wrong",
     "cdist gradients where a distance is ~1e30: tandem's distance is finite (float64 "
     "accumulation), so its gradient is sign(d) (|d| / D)^(p-1); torch's distance overflowed "
     "to inf and its gradient for that pair is 0"),
    (lambda c, d: c["op"] in _NORMS and c["mode"] == "backward"
     and 0 < (_norm_order(c) or 1.0) < 0.01 and _torch_overflowed(d), "wrong",
     "p-norm gradients for a tiny p (0.001): norm ** (1 - p) overflows, and torch's 0 at a "
     "zero entry times that inf is NaN; tandem's gradient at zero entries is 0 (what torch's "
     "mask means)"),
    (lambda c, d: c["op"] == "cdist"
     and 0 < (_norm_order(c) if _norm_order(c) is not None else 2.0) < 1, "wrong",
     "cdist for p < 1 is ill-conditioned: (sum |d|^p)^(1/p) with 1/p = 1e5 at p = 1e-5 (and "
     "the gradient's (sum |d|^p)^(1/p-1)) amplifies the last-bit differences of the two ways "
     "of summing, to ~1e-2 relative in float32 and ~1e-6 in float64"),
    (lambda c, d: c["op"] in TIES and c["mode"] == "backward"
     and any(isinstance(a, dict) and a.get("fill") in ("special", "small_int")
             for a in c["args"]), "wrong",
     "tied values (small integers, +-0, infinities): the gradient goes to the index each side "
     "picked, and TIES lets those differ"),
    (lambda c, d: c["op"] == "topk" and (c["kwargs"].get("sorted") is False
                                          or len(c["args"]) > 4 and c["args"][4] is False),
     "wrong",
     "topk(sorted=False) returns the k values in an unspecified order (so do the gradients of "
     "a weighted sum of them)"),
    (lambda c, d: c["op"] == "kl_div" and _max_finite_abs(c, ints=True) >= 1e4, "wrong",
     "kl_div sums terms target * (log(target) - input) of size |target * input|: with inputs "
     "of 1e4 and more (int16 / int32 extremes) those terms cancel to a result far below their "
     "float32 rounding, so eager, compiled and torch, which round and sum them in different "
     "orders, agree only to the terms' precision"),
    (lambda c, d: c["op"] in ("clamp", "clip") and "dtype" in d and _mixed_bounds(c), "wrong",
     "clamp with one bound a Python number and the other a 0-d tensor: torch picks its "
     "Scalar overload and reads the 0-d tensor as a number, so that tensor's dtype takes no "
     "part in type promotion (int8 clamped by a bfloat16 0-d tensor gives float32); tandem "
     "promotes with the tensor's dtype"),
    (lambda c, d: c["op"] in ("max_pool2d", "max_pool1d") and c["mode"] == "backward"
     and _pool_window_in_padding(c), "crash",
     "max-pool windows wholly in the padding: torch's backward writes outside its buffers "
     "(run alone, torch crashes the same way); the corrupted heap ends the worker with "
     "SIGSEGV or SIGBUS as often as with the glibc aborts matched above"),
    (lambda c, d: c["op"] in ("max_pool2d", "max_pool1d") and c["mode"] == "backward"
     and _pool_window_in_padding(c), "wrong",
     "max-pool windows that lie wholly in the padding: tandem's gradient is 0 there; torch's "
     "backward writes outside its buffers for them (the same torch bug that crashes other "
     "cases), leaving arbitrary values"),
    (lambda c, d: c["op"] == "searchsorted" and _int_beyond_sequence(c), "wrong",
     "searchsorted of a Python int beyond the sequence's integer type: torch converts the "
     "number to that type first (2**32 becomes 0 in int32) and searches for the wrapped "
     "value; tandem compares the number itself"),
    (lambda c, d: c["op"] == "unique_consecutive" and _has_view(c, "expand"), "wrong",
     "torch's unique_consecutive on an expanded (stride-0) input returns a short inverse "
     "(a torch bug); tandem's has one entry per element or slice"),
    (lambda c, d: c["op"] in ("nanmedian", "median") and _has_view(c, "expand"), "wrong",
     "torch's nanmedian along a dim of an expanded (stride-0) input returns wrong values "
     "(numpy and tandem agree on the lower median; torch on the .contiguous() copy agrees "
     "too)"),
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
    for pred, st, reason in CASE_RULES:
        if re.fullmatch(st, status) and pred(case, detail):
            return reason
    if _has_empty(list(case["args"]) + list(case["kwargs"].values())):
        global _COMPILED_EMPTY
        if _COMPILED_EMPTY is None:
            _COMPILED_EMPTY = [(re.compile(o), re.compile(m), re.compile(s),
                                re.compile(d, re.S), r) for o, m, s, d, r in EMPTY_RULES]
        for o, m, s, d, reason in _COMPILED_EMPTY:
            if (o.fullmatch(case["op"]) and m.fullmatch(case["mode"]) and s.fullmatch(status)
                    and d.search(detail)):
                return reason
    return None
