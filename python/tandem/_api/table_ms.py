"""Op table: functions only MindSpore's face (``tandem.ops``) has, or where its signature or
meaning differs from PyTorch's under the same name (then this row shadows the torch row in
``tandem.ops``). docs/ms_vs_mint.md lists the names whose meaning differs."""
from __future__ import annotations

from .rows import Op

_T = "Optional[Tensor]"
_SHAPE = {"shape": "the shape: an int, a tuple or list of ints, or a 1-D int Tensor.",
          "dtype": "the data type (float32 when None, as in MindSpore)."}
_LOSS = {"input": "the predictions (logits for the *_with_logits and cross-entropy losses).",
         "target": "the targets.",
         "reduction": "'none', 'mean' or 'sum': how the per-element losses are reduced."}


def _ms(name: str, sig: str, call: str, doc: str, **kw) -> Op:
    return Op(name, sig, call, doc, ns="ms", **kw)


ROWS = [
    _ms("stop_gradient", "(x: Tensor) -> Tensor", "x.detach()",
        "x without gradient history: gradients do not flow through it.",
        args={"x": "the input tensor."}, grad=False),
    # ---- creation: MindSpore passes the shape as one argument, then the dtype
    _ms("ones", "(shape: Union[int, Sequence[int], Tensor], "
        "dtype: Optional[DType] = None) -> Tensor",
        "_impl.ms.filled('ones', shape, 1, dtype)",
        "A tensor of the given shape filled with 1 (MindSpore's ops.ones(shape, dtype)).",
        args=_SHAPE, grad=False),
    _ms("zeros", "(size: Union[int, Sequence[int], Tensor], "
        "dtype: Optional[DType] = None) -> Tensor",
        "_impl.ms.filled('zeros', size, 0, dtype)",
        "A tensor of the given shape filled with 0 (MindSpore's ops.zeros(size, dtype)).",
        args={"size": _SHAPE["shape"], "dtype": _SHAPE["dtype"]}, grad=False),
    _ms("arange", "(start: Number = 0, end: Optional[Number] = None, step: Number = 1, *, "
        "dtype: Optional[DType] = None, device: Optional[object] = None, "
        "requires_grad: bool = False) -> Tensor",
        "_impl.creation.check_device(device, 'arange')\n"
        "return _impl.creation.with_grad(_impl.creation.arange(start, end, step, dtype), "
        "requires_grad)",
        "Values from start to end (exclusive) in steps of step; end None (the default) takes "
        "start as the end: arange(n) counts 0..n-1. int64 when all arguments are ints, else "
        "the default float dtype.",
        args={"start": "the first value (or end, when end is None).",
              "end": "the bound, not included.", "step": "the difference between neighbours.",
              "device": "where the result lives: only the CPU exists.",
              "requires_grad": "whether autograd records operations on the result."}),
    _ms("fill", "(type: Optional[DType], shape: Union[int, Sequence[int], Tensor], "
        "value: Number) -> Tensor",
        "_impl.ms.fill(type, shape, value)",
        "A tensor of the given dtype and shape filled with value.",
        args={"type": "the data type (from value when None).", "shape": _SHAPE["shape"],
              "value": "the value of every element."}, grad=False),
    _ms("uniform", "(shape: Union[int, Sequence[int], Tensor], minval: TensorLike, "
        "maxval: TensorLike, seed: Optional[int] = None, "
        "dtype: Optional[DType] = None) -> Tensor",
        "_impl.ms.uniform(shape, minval, maxval, dtype)",
        "Uniform samples in [minval, maxval) (integers for an integer dtype).",
        args={"shape": _SHAPE["shape"], "minval": "the lower bound.",
              "maxval": "the upper bound (exclusive).",
              "seed": "unused; tandem's global generator (tandem.set_seed) draws them.",
              "dtype": "float32 when None."}, grad=False),
    _ms("normal", "(shape: Union[int, Sequence[int], Tensor], mean: TensorLike, "
        "stddev: TensorLike, seed: Optional[int] = None) -> Tensor",
        "_impl.ms.normal(shape, mean, stddev)",
        "Samples of a normal distribution N(mean, stddev^2) (float32).",
        args={"shape": _SHAPE["shape"], "mean": "the mean (broadcast).",
              "stddev": "the standard deviation (broadcast).",
              "seed": "unused; tandem's global generator (tandem.set_seed) draws them."},
        grad=False),
    # ---- selection and shape
    _ms("select", "(cond: Tensor, input: TensorLike, other: TensorLike) -> Tensor",
        "_C.where(cond, input, other)",
        "input where cond is True, else other, broadcast together (MindSpore's select is "
        "PyTorch's where; PyTorch's select(x, dim, index) is mint.select).",
        args={"cond": "the boolean condition.", "input": "the values where cond holds.",
              "other": "the values elsewhere."}),
    _ms("transpose", "(input: Tensor, input_perm: Sequence[int]) -> Tensor",
        "_impl.ms.transpose(input, input_perm)",
        "input with its dims permuted by input_perm (MindSpore's transpose is PyTorch's "
        "permute; swap two dims with ops.swapaxes).",
        args={"input_perm": "a permutation of all the dims."}),
    _ms("expand_dims", "(input_x: Tensor, axis: int) -> Tensor",
        "_impl.ms.expand_dims(input_x, axis)",
        "input_x with a new dim of size 1 at axis.",
        args={"input_x": "the input tensor.", "axis": "where the new dim goes."}),
    _ms("gather", "(input_params: Tensor, input_indices: Union[Tensor, Sequence[int]], "
        "axis: int, batch_dims: int = 0) -> Tensor",
        "_impl.ms.gather(input_params, input_indices, axis, batch_dims)",
        "The slices of input_params along axis at input_indices (any shape): the result has "
        "shape params.shape[:axis] + indices.shape + params.shape[axis + 1:]. PyTorch's "
        "gather(input, dim, index) is ops.gather_elements.",
        args={"input_params": "the tensor to take slices of.",
              "input_indices": "integer indices into axis.", "axis": "the axis to index.",
              "batch_dims": "leading batch dims (only 0 is supported)."}),
    _ms("gather_elements", "(input: Tensor, dim: int, index: Tensor) -> Tensor",
        "_C.gather(input, dim, _impl.index.as_long(index))",
        "The elements of input at index along dim (PyTorch's gather).",
        args={"dim": "the dim to index.", "index": "integer indices, of input's rank."}),
    _ms("flatten", "(input: Tensor, order: str = 'C', *, start_dim: int = 1, "
        "end_dim: int = -1) -> Tensor",
        "_impl.ms.flatten(input, order, start_dim, end_dim)",
        "input with dims start_dim..end_dim merged; MindSpore keeps dim 0 (the batch) by "
        "default, PyTorch's flatten starts at dim 0.",
        args={"order": "'C' (row-major) or 'F' (column-major).",
              "start_dim": "the first dim to merge.", "end_dim": "the last dim to merge."}),
    _ms("cast", "(input: Tensor, dtype: DType) -> Tensor", "_C.to_dtype(input, dtype)",
        "input converted to dtype.", args={"dtype": "the data type of the result."}),
    _ms("shape", "(input_x: Tensor) -> Tuple[int, ...]", "tuple(input_x.shape)",
        "The shape of input_x as a tuple.", args={"input_x": "the input tensor."},
        returns="tuple of int.", grad=False),
    _ms("rank", "(input_x: Tensor) -> int", "input_x.ndim",
        "The number of dims of input_x.", args={"input_x": "the input tensor."},
        returns="int.", grad=False),
    _ms("size", "(input_x: Tensor) -> int", "int(input_x.numel())",
        "The number of elements of input_x.", args={"input_x": "the input tensor."},
        returns="int.", grad=False),
    _ms("one_hot", "(indices: Tensor, depth: int, on_value: TensorLike = 1, "
        "off_value: TensorLike = 0, axis: int = -1) -> Tensor",
        "_impl.ms.one_hot(indices, depth, on_value, off_value, axis)",
        "on_value at each index's class and off_value elsewhere, the class dim at axis "
        "(the result's dtype is on_value's).",
        args={"indices": "integer class indices.", "depth": "the number of classes.",
              "on_value": "the value at the class.", "off_value": "the value elsewhere.",
              "axis": "where the class dim goes."}, grad=False),
    _ms("squeeze", "(input: Tensor, axis: Dim = None) -> Tensor", "_C.squeeze(input, axis)",
        "Removes size-1 axes: all of them, or those in axis.",
        args={"axis": "the axis or axes to remove if their size is 1 (all when None)."}),
    _ms("split", "(tensor: Tensor, split_size_or_sections: Union[int, Sequence[int]], "
        "axis: int = 0) -> Tuple[Tensor, ...]",
        "_impl.shape.split(tensor, split_size_or_sections, axis)",
        "Equal pieces (an int) or pieces of the given sizes (a list) along axis.",
        args={"tensor": "the input tensor.", "split_size_or_sections": "a piece size or sizes.",
              "axis": "the axis to split."}),
    _ms("chunk", "(input: Tensor, chunks: int, axis: int = 0) -> Tuple[Tensor, ...]",
        "tuple(_C.chunk(input, chunks, axis))",
        "chunks pieces of (nearly) equal size along axis.",
        args={"chunks": "the number of pieces.", "axis": "the axis to split."}),
    _ms("unstack", "(input_x: Tensor, axis: int = 0) -> Tuple[Tensor, ...]",
        "tuple(_C.unbind(input_x, axis))", "The slices along axis, each with axis removed.",
        args={"input_x": "the input tensor.", "axis": "the axis to remove."}),
    _ms("repeat_interleave", "(input: Tensor, repeats: Union[int, Sequence[int], Tensor], "
        "axis: Optional[int] = None) -> Tensor",
        "_impl.shape.repeat_interleave(input, repeats, axis, None)",
        "Repeats each element repeats times along axis (of the flattened input when None).",
        args={"repeats": "an int or one count per element along axis.",
              "axis": "the axis to repeat along."}),
    # ---- reductions with MindSpore's defaults
    _ms("mean", "(input: Tensor, axis: Dim = None, keep_dims: bool = False) -> Tensor",
        "_C.mean(input, _impl.reduce.all_if_empty(_impl.args.dims(axis)), keep_dims, None)",
        "The mean over axis (all elements when None).",
        args={"axis": "the axis or axes to reduce (all when None).",
              "keep_dims": "keep each reduced axis with size 1."}),
    _ms("max", "(input: Tensor, axis: Optional[int] = None, keepdims: bool = False, *, "
        "initial: Optional[Number] = None, where: Optional[Tensor] = None) "
        "-> Tuple[Tensor, Tensor]",
        "_impl.ms.max_min('max', input, axis, keepdims, initial, where)",
        "The maximum over axis and its index, always as a pair (MindSpore's ops.max); "
        "with axis None over every element, the index into the flattened input.",
        args={"axis": "the axis to reduce (every element when None).",
              "keepdims": "keep the reduced axis with size 1.",
              "initial": "a bound on the result, and the value of masked-out elements.",
              "where": "a boolean mask of the elements to consider (needs initial)."},
        returns="tuple(Tensor), (values, indices)."),
    _ms("min", "(input: Tensor, axis: Optional[int] = None, keepdims: bool = False, *, "
        "initial: Optional[Number] = None, where: Optional[Tensor] = None) "
        "-> Tuple[Tensor, Tensor]",
        "_impl.ms.max_min('min', input, axis, keepdims, initial, where)",
        "The minimum over axis and its index, always as a pair (MindSpore's ops.min); "
        "with axis None over every element, the index into the flattened input.",
        args={"axis": "the axis to reduce (every element when None).",
              "keepdims": "keep the reduced axis with size 1.",
              "initial": "a bound on the result, and the value of masked-out elements.",
              "where": "a boolean mask of the elements to consider (needs initial)."},
        returns="tuple(Tensor), (values, indices)."),
    _ms("var", "(input: Tensor, axis: Dim = None, ddof: Union[int, bool] = 0, "
        "keepdims: bool = False) -> Tensor",
        "_impl.ms.var_std(_C.var, input, axis, ddof, keepdims)",
        "The variance over axis with ddof degrees of freedom removed (0: the population "
        "variance, MindSpore's and numpy's default; PyTorch's default is 1).",
        args={"axis": "the axis or axes to reduce (all when None).",
              "ddof": "the delta degrees of freedom (True means 1).",
              "keepdims": "keep each reduced axis with size 1."}),
    _ms("std", "(input: Tensor, axis: Dim = None, ddof: Union[int, bool] = 0, "
        "keepdims: bool = False) -> Tensor",
        "_impl.ms.var_std(_C.std, input, axis, ddof, keepdims)",
        "The standard deviation over axis with ddof degrees of freedom removed (0 by "
        "default, as MindSpore and numpy; PyTorch's default is 1).",
        args={"axis": "the axis or axes to reduce (all when None).",
              "ddof": "the delta degrees of freedom (True means 1).",
              "keepdims": "keep each reduced axis with size 1."}),
    # ---- nn functions with MindSpore's argument order and defaults
    _ms("softmax", "(input: Tensor, axis: int = -1, *, dtype: Optional[DType] = None) -> Tensor",
        "_C.softmax(input, int(axis), dtype)",
        "exp(x) / sum(exp(x)) along axis (the last by default), computed stably.",
        args={"axis": "the axis to normalise along."}),
    _ms("log_softmax", "(logits: Tensor, axis: int = -1) -> Tensor",
        "_C.log_softmax(logits, int(axis), None)",
        "log(softmax(x)) along axis (the last by default), computed stably.",
        args={"logits": "the input tensor.", "axis": "the axis to normalise along."}),
    _ms("dropout", "(input: Tensor, p: float = 0.5, training: bool = True, "
        "seed: Optional[int] = None) -> Tensor",
        "_C.dropout(input, float(p), bool(training))",
        "Zeroes elements with probability p and scales the rest by 1 / (1 - p) while "
        "training; the identity otherwise.",
        args={"p": "the probability of zeroing an element.",
              "training": "apply dropout (else return input).",
              "seed": "unused; tandem's global generator (tandem.set_seed) draws the mask."}),
    _ms("dense", "(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor",
        "_impl.ms.dense(input, weight, bias)", "input @ weight.T + bias.",
        args={"weight": "the weight (out, in).", "bias": "the bias (out,) or None."}),
    _ms("binary_cross_entropy_with_logits", f"(input: Tensor, target: Tensor, "
        f"weight: {_T} = None, pos_weight: {_T} = None, reduction: str = 'mean') -> Tensor",
        "_C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)",
        "The binary cross entropy of logits, computed stably (MindSpore's argument order: "
        "weight, then pos_weight).",
        args={**_LOSS, "weight": "a weight per element (broadcast).",
              "pos_weight": "a weight of the positive examples, per class."}),
    _ms("cross_entropy", f"(input: Tensor, target: Tensor, weight: {_T} = None, "
        "ignore_index: int = -100, reduction: str = 'mean', "
        "label_smoothing: float = 0.0) -> Tensor",
        "_C.cross_entropy(input, target, weight, ignore_index, reduction, "
        "float(label_smoothing))",
        "The cross entropy of logits (N, C, ...) with class indices or class probabilities.",
        args={**_LOSS, "weight": "a weight per class.",
              "ignore_index": "a target class index that contributes nothing.",
              "label_smoothing": "the smoothing in [0, 1]."}),
    _ms("nll_loss", f"(inputs: Tensor, target: Tensor, weight: {_T} = None, "
        "ignore_index: int = -100, reduction: str = 'mean', "
        "label_smoothing: float = 0.0) -> Tensor",
        "_impl.ms.nll_loss(inputs, target, weight, ignore_index, reduction, label_smoothing)",
        "The negative log-likelihood of log-probabilities (N, C, ...) at class indices.",
        args={**_LOSS, "inputs": "the log-probabilities.", "weight": "a weight per class.",
              "ignore_index": "a target class index that contributes nothing.",
              "label_smoothing": "must be 0 (smoothing is not supported here)."}),
    _ms("mse_loss", "(input: Tensor, target: Tensor, reduction: str = 'mean') -> Tensor",
        "_C.mse_loss(input, target, reduction)", "The mean squared error.", args=_LOSS),
    _ms("l1_loss", "(input: Tensor, target: Tensor, reduction: str = 'mean') -> Tensor",
        "_C.l1_loss(input, target, reduction)", "The mean absolute error.", args=_LOSS),
    _ms("smooth_l1_loss", "(input: Tensor, target: Tensor, beta: float = 1.0, "
        "reduction: str = 'none') -> Tensor",
        "_C.smooth_l1_loss(input, target, reduction, float(beta))",
        "The smooth L1 loss (quadratic within beta); MindSpore's default reduction is "
        "'none'.", args={**_LOSS, "beta": "where the loss turns from quadratic to linear."}),
    # ---- convolution and pooling with MindSpore's defaults
    _ms("conv2d", f"(input: Tensor, weight: Tensor, bias: {_T} = None, stride: IntOrTuple = 1, "
        "pad_mode: str = 'valid', padding: IntOrTuple = 0, dilation: IntOrTuple = 1, "
        "groups: int = 1) -> Tensor",
        "_impl.ms.conv(2, input, weight, bias, stride, pad_mode, padding, dilation, groups)",
        "2-D convolution of (N, C_in, H, W) input; MindSpore's pad_mode decides the padding "
        "('valid' by default: none).",
        args={"weight": "(C_out, C_in / groups, kH, kW).", "bias": "(C_out,) or None.",
              "pad_mode": "'valid', 'same' (output = ceil(input / stride)) or 'pad'.",
              "padding": "with pad_mode='pad': an int, (pH, pW) or (top, bottom, left, right)."}),
    _ms("conv1d", f"(input: Tensor, weight: Tensor, bias: {_T} = None, stride: IntOrTuple = 1, "
        "pad_mode: str = 'valid', padding: IntOrTuple = 0, dilation: IntOrTuple = 1, "
        "groups: int = 1) -> Tensor",
        "_impl.ms.conv(1, input, weight, bias, stride, pad_mode, padding, dilation, groups)",
        "1-D convolution of (N, C_in, L) input with MindSpore's pad_mode ('valid' by default).",
        args={"weight": "(C_out, C_in / groups, k).", "bias": "(C_out,) or None.",
              "pad_mode": "'valid', 'same' (output = ceil(input / stride)) or 'pad'.",
              "padding": "with pad_mode='pad': an int or (left, right)."}),
    _ms("max_pool2d", "(x: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None, "
        "padding: IntOrTuple = 0, dilation: IntOrTuple = 1, return_indices: bool = False, "
        "ceil_mode: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]",
        "_impl.nn.max_pool(2, x, kernel_size, stride, padding, dilation, ceil_mode, "
        "return_indices)",
        "2-D max pooling (MindSpore's argument order: return_indices before ceil_mode).",
        args={"x": "(N, C, H, W) input.", "stride": "the stride (kernel_size when None).",
              "return_indices": "also return the flat H * W indices of the maxima."}),
    _ms("avg_pool2d", "(input_x: Tensor, kernel_size: IntOrTuple = 1, stride: IntOrTuple = 1, "
        "padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True, "
        "divisor_override: Optional[int] = None) -> Tensor",
        "_impl.nn.avg_pool(2, input_x, kernel_size, stride, padding, ceil_mode, "
        "count_include_pad, divisor_override)",
        "2-D average pooling; MindSpore's defaults are kernel_size 1 and stride 1 (PyTorch's "
        "stride defaults to the kernel size).",
        args={"input_x": "(N, C, H, W) input.", "stride": "the stride of the window.",
              "count_include_pad": "count the zero padding in the averages.",
              "divisor_override": "divide by this instead of the window size."}),
    _ms("interpolate", "(input: Tensor, size: Optional[IntOrTuple] = None, "
        "scale_factor: Union[float, Sequence[float], None] = None, mode: str = 'nearest', "
        "align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None) "
        "-> Tensor",
        "_impl.nn.interpolate(input, size, scale_factor, mode, align_corners, "
        "recompute_scale_factor, False)",
        "Resizes (N, C, H, W) or (N, C, L) input with 'nearest', 'bilinear' or 'linear'.",
        args={"size": "the output size.", "scale_factor": "the multiplier of the input size.",
              "mode": "'nearest', 'bilinear' (4-D) or 'linear' (3-D).",
              "align_corners": "align the corner pixels of input and output.",
              "recompute_scale_factor": "compute the scale from the rounded output size."}),
    _ms("leaky_relu", "(input: Tensor, alpha: float = 0.2) -> Tensor",
        "_C.leaky_relu(input, float(alpha))",
        "x for x >= 0 and alpha * x otherwise (MindSpore's default slope is 0.2; PyTorch's "
        "is 0.01).", args={"alpha": "the slope of the negative part."}),
    _ms("binary_cross_entropy", f"(logits: Tensor, labels: Tensor, weight: {_T} = None, "
        "reduction: str = 'mean') -> Tensor",
        "_C.binary_cross_entropy(logits, labels, weight, reduction)",
        "The binary cross entropy of probabilities in [0, 1] (logs clamped at -100).",
        args={"logits": "the probabilities.", "labels": "the targets in [0, 1].",
              "weight": "a weight per element.", "reduction": _LOSS["reduction"]}),
    _ms("kl_div", "(logits: Tensor, labels: Tensor, reduction: str = 'mean', "
        "log_target: bool = False) -> Tensor",
        "_C.kl_div(logits, labels, reduction, log_target)",
        "The Kullback-Leibler divergence with logits as log-probabilities ('batchmean' "
        "divides the sum by the batch size).",
        args={"logits": "the log-probabilities.", "labels": "the target distribution.",
              "reduction": "'none', 'mean', 'batchmean' or 'sum'.",
              "log_target": "labels are log-probabilities too."}),
    # ---- graph-mode helpers
    _ms("depend", "(value: object, expr: object) -> object", "_impl.ms.depend(value, expr)",
        "value; expr is evaluated first (tandem keeps program order, in graph mode too).",
        args={"value": "what to return.", "expr": "what must run before."},
        returns="value.", grad=False),
    _ms("assign", "(variable: Tensor, value: TensorLike) -> Tensor",
        "_impl.ms.assign(variable, value)",
        "Writes value into variable (a Parameter) in place and returns variable.",
        args={"variable": "the Parameter to write.", "value": "the new value."},
        grad=False),
    _ms("clip_by_value", "(x: Union[Tensor, Sequence[Tensor]], "
        "clip_value_min: Optional[TensorLike] = None, "
        "clip_value_max: Optional[TensorLike] = None) -> Union[Tensor, Sequence[Tensor]]",
        "_impl.ms.clip_by_value(x, clip_value_min, clip_value_max)",
        "x clamped into [clip_value_min, clip_value_max] (each tensor of a list).",
        args={"x": "a tensor or a list/tuple of tensors.",
              "clip_value_min": "the lower bound.", "clip_value_max": "the upper bound."}),
]
