"""Op table: the neural-network functions of ``mint.nn.functional`` (convolution, pooling,
normalization, activations with ``inplace``, softmax, dropout, embedding, losses,
resampling) and the few that ``tandem`` / ``mint`` export too."""
from __future__ import annotations

from .rows import Op

_T = "Optional[Tensor]"
_CONV = {"weight": "the filters, (out_channels, in_channels / groups, *kernel).",
         "bias": "the optional bias, (out_channels,).",
         "padding": "an int or one per spatial dim, or 'same' / 'valid'."}
_LEGACY = "size_average: Optional[bool] = None, reduce: Optional[bool] = None"
_LOSS = {"input": "the predictions.", "target": "the targets."}


def _inplace_act(name: str, doc: str, params: str = "", call_args: str = "",
                 args: dict = None) -> Op:
    """An F activation with PyTorch's inplace flag (the result is written into input)."""
    call = f"_C.{name}(input{call_args})"
    return Op(name, f"(input: Tensor{params}, inplace: bool = False) -> Tensor",
              f"_impl.nn.maybe_inplace(input, {call}, inplace)", doc, ns="F", args=args or {})


def _loss(name: str, doc: str, sig: str, call: str, **kw) -> Op:
    return Op(name, f"(input: Tensor, target: Tensor{sig}) -> Tensor", call, doc, ns="F",
              args={**_LOSS, **kw.pop("args", {})}, **kw)


_RED = "_impl.nn.reduction(size_average, reduce, reduction)"

ROWS = [
    Op("conv2d", "(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, "
       "stride: IntOrTuple = 1, padding: Union[IntOrTuple, str] = 0, "
       "dilation: IntOrTuple = 1, groups: int = 1) -> Tensor",
       "_impl.nn.conv(2, input, weight, bias, stride, padding, dilation, groups)",
       "2-D convolution over (N, C, H, W) or (C, H, W) input.", ns="F", args=_CONV),
    Op("conv1d", "(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, "
       "stride: IntOrTuple = 1, padding: Union[IntOrTuple, str] = 0, "
       "dilation: IntOrTuple = 1, groups: int = 1) -> Tensor",
       "_impl.nn.conv(1, input, weight, bias, stride, padding, dilation, groups)",
       "1-D convolution over (N, C, L) or (C, L) input.", ns="F", args=_CONV),
    Op("conv_transpose2d", "(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, "
       "stride: IntOrTuple = 1, padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, "
       "groups: int = 1, dilation: IntOrTuple = 1) -> Tensor",
       "_impl.nn.conv_transpose2d(input, weight, bias, stride, padding, output_padding, "
       "groups, dilation)",
       "Transposed 2-D convolution (the gradient of conv2d with respect to its input).",
       ns="F", args={"weight": "the filters, (in_channels, out_channels / groups, kH, kW).",
                     "output_padding": "extra size added to one side of the output."}),
    Op("linear", "(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor",
       "_C.linear(input, weight, bias)", "input @ weight.T + bias.", ns="F",
       args={"weight": "(out_features, in_features).", "bias": "(out_features,)."}),
    Op("batch_norm", f"(input: Tensor, running_mean: {_T}, running_var: {_T}, "
       f"weight: {_T} = None, bias: {_T} = None, training: bool = False, "
       "momentum: float = 0.1, eps: float = 1e-05) -> Tensor",
       "_C.batch_norm(input, running_mean, running_var, weight, bias, bool(training), "
       "float(momentum), float(eps))",
       "Batch normalization over (N, C, *) input. In training it normalises with the batch "
       "statistics and updates running_mean / running_var in place (running_var with the "
       "unbiased variance); in eval it normalises with the running statistics.", ns="F", also=("ms",),
       args={"running_mean": "the per-channel running mean (updated in training).",
             "running_var": "the per-channel running variance (updated in training).",
             "weight": "the per-channel scale.", "bias": "the per-channel shift."}),
    Op("layer_norm", f"(input: Tensor, normalized_shape: Size, weight: {_T} = None, "
       f"bias: {_T} = None, eps: float = 1e-05) -> Tensor",
       "_C.layer_norm(input, _impl.args.ints(normalized_shape, 'layer_norm', "
       "'normalized_shape'), weight, bias, float(eps))",
       "Layer normalization over the trailing dims given by normalized_shape.", ns="F", also=("ms",),
       args={"normalized_shape": "the trailing shape to normalise over.",
             "weight": "the elementwise scale.", "bias": "the elementwise shift."}),
    Op("group_norm", f"(input: Tensor, num_groups: int, weight: {_T} = None, "
       f"bias: {_T} = None, eps: float = 1e-05) -> Tensor",
       "_C.group_norm(input, num_groups, weight, bias, float(eps))",
       "Group normalization of (N, C, *) input with the C channels split into num_groups "
       "groups.", ns="F", also=("ms",),
       args={"num_groups": "the number of groups.", "weight": "the per-channel scale.",
             "bias": "the per-channel shift."}),
    Op("instance_norm", f"(input: Tensor, running_mean: {_T} = None, running_var: {_T} = None,"
       f" weight: {_T} = None, bias: {_T} = None, use_input_stats: bool = True, "
       "momentum: float = 0.1, eps: float = 1e-05) -> Tensor",
       "_C.instance_norm(input, running_mean, running_var, weight, bias, "
       "bool(use_input_stats), float(momentum), float(eps))",
       "Instance normalization: each (sample, channel) of (N, C, *) input normalised over its "
       "spatial elements; running statistics, if given, are updated in place.", ns="F",
       args={"running_mean": "the optional per-channel running mean.",
             "running_var": "the optional per-channel running variance.",
             "use_input_stats": "normalise with each instance's own statistics.",
             "weight": "the per-channel scale.", "bias": "the per-channel shift."}),
    _inplace_act("relu", "Applies max(0, x) elementwise (NaN stays NaN)."),
    _inplace_act("relu6", "Applies min(max(0, x), 6) elementwise."),
    _inplace_act("silu", "Applies x * sigmoid(x) elementwise."),
    _inplace_act("mish", "Applies x * tanh(softplus(x)) elementwise."),
    _inplace_act("selu", "Applies SELU elementwise, with PyTorch's constants."),
    _inplace_act("hardsigmoid", "Applies relu6(x + 3) / 6 elementwise."),
    _inplace_act("hardswish", "Applies x * relu6(x + 3) / 6 elementwise."),
    _inplace_act("leaky_relu", "Applies x for x >= 0 and negative_slope * x otherwise.",
                 ", negative_slope: Number = 0.01", ", negative_slope",
                 {"negative_slope": "the slope for negative inputs."}),
    _inplace_act("elu", "Applies x for x > 0 and alpha * (exp(x) - 1) otherwise.",
                 ", alpha: Number = 1.0", ", alpha",
                 {"alpha": "the value ELU approaches for very negative inputs."}),
    _inplace_act("celu", "Applies max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).",
                 ", alpha: Number = 1.0", ", alpha", {"alpha": "the scale of the negative part."}),
    Op("threshold", "(input: Tensor, threshold: Number, value: Number, inplace: bool = False) "
       "-> Tensor",
       "_impl.nn.maybe_inplace(input, _impl.nn.threshold(input, threshold, value), inplace)",
       "Replaces the elements at or below threshold with value (NaN stays NaN).", ns="F",
       args={"threshold": "the threshold.", "value": "what replaces the elements at or below "
             "it."}),
    _inplace_act("hardtanh", "Clamps each element to [min_val, max_val].",
                 ", min_val: Number = -1.0, max_val: Number = 1.0", ", min_val, max_val",
                 {"min_val": "the lower bound.", "max_val": "the upper bound."}),
    Op("max_pool2d", "(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,"
       " padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False, "
       "return_indices: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]",
       "_impl.nn.max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, "
       "return_indices)",
       "2-D max pooling; with return_indices also the flat H * W indices of the maxima.",
       ns="F", args={"stride": "the stride of the window (kernel_size when None)."}),
    Op("max_pool1d", "(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,"
       " padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False, "
       "return_indices: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]",
       "_impl.nn.max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, "
       "return_indices)",
       "1-D max pooling over (N, C, L) or (C, L) input.", ns="F",
       args={"stride": "the stride of the window (kernel_size when None)."}),
    Op("avg_pool2d", "(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,"
       " padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True, "
       "divisor_override: Optional[int] = None) -> Tensor",
       "_impl.nn.avg_pool(2, input, kernel_size, stride, padding, ceil_mode, "
       "count_include_pad, divisor_override)",
       "2-D average pooling.", ns="F",
       args={"stride": "the stride of the window (kernel_size when None).",
             "count_include_pad": "count the zero padding in the averages.",
             "divisor_override": "divide by this instead of the window size."}),
    Op("avg_pool1d", "(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,"
       " padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True)"
       " -> Tensor",
       "_impl.nn.avg_pool(1, input, kernel_size, stride, padding, ceil_mode, "
       "count_include_pad, None)",
       "1-D average pooling over (N, C, L) or (C, L) input.", ns="F",
       args={"stride": "the stride of the window (kernel_size when None).",
             "count_include_pad": "count the zero padding in the averages."}),
    Op("adaptive_avg_pool2d", "(input: Tensor, output_size: Union[int, Sequence[Optional[int]]])"
       " -> Tensor",
       "_C.adaptive_avg_pool2d(input, _impl.nn.adaptive_size(output_size, input, 2))",
       "Average pooling to a fixed output size.", ns="F", also=("ms",)),
    Op("adaptive_avg_pool1d", "(input: Tensor, output_size: Union[int, Sequence[Optional[int]]])"
       " -> Tensor",
       "_impl.nn.adaptive_avg_pool1d(input, output_size)",
       "Average pooling of (N, C, L) input to a fixed length.", ns="F", also=("ms",)),
    Op("adaptive_max_pool2d", "(input: Tensor, output_size: Union[int, Sequence[Optional[int]]], "
       "return_indices: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]",
       "_impl.nn.adaptive_max_pool2d(input, output_size, return_indices)",
       "Max pooling to a fixed output size.", ns="F", also=("ms",)),
    Op("softmax", "(input: Tensor, dim: Optional[int] = None, dtype: Optional[DType] = None, *, "
       "axis: Optional[int] = None) -> Tensor",
       "_C.softmax(input, _impl.nn.softmax_dim(_impl.args.one_dim(dim, axis, None), input.ndim), "
       "dtype)",
       "exp(x) / sum(exp(x)) along dim, computed stably.", also=("F",), method=True,
       method_sig="(self, dim: Optional[int] = None, dtype: Optional[DType] = None) -> Tensor",
       method_call="_C.softmax(self, _impl.nn.softmax_dim(dim, self.ndim), dtype)",
       args={"dim": "the dim to normalise along (PyTorch's legacy choice when None)."}),
    Op("log_softmax", "(input: Tensor, dim: Optional[int] = None, "
       "dtype: Optional[DType] = None, *, axis: Optional[int] = None) -> Tensor",
       "_C.log_softmax(input, _impl.nn.softmax_dim(_impl.args.one_dim(dim, axis, None), "
       "input.ndim), dtype)",
       "log(softmax(x)) along dim, computed stably.", also=("F",), method=True,
       method_sig="(self, dim: Optional[int] = None, dtype: Optional[DType] = None) -> Tensor",
       method_call="_C.log_softmax(self, _impl.nn.softmax_dim(dim, self.ndim), dtype)",
       args={"dim": "the dim to normalise along (PyTorch's legacy choice when None)."}),
    Op("dropout", "(input: Tensor, p: float = 0.5, training: bool = True, "
       "inplace: bool = False) -> Tensor",
       "_impl.nn.maybe_inplace(input, _C.dropout(input, float(p), bool(training)), "
       "inplace and training and p > 0)",
       "Zeroes each element with probability p and scales the rest by 1 / (1 - p), when "
       "training.", ns="F", args={"p": "the probability of zeroing an element."}),
    # torch.dropout is the ATen function: three arguments, all required, `train` not
    # `training`, and no inplace (torch.dropout_ is the in-place form).
    Op("dropout", "(input: Tensor, p: float, train: bool) -> Tensor",
       "_C.dropout(input, float(p), bool(train))",
       "Zeroes each element with probability p and scales the rest by 1 / (1 - p), when "
       "train is true.", args={"p": "the probability of zeroing an element.",
                               "train": "apply dropout (else return input)."}),
    Op("dropout2d", "(input: Tensor, p: float = 0.5, training: bool = True, "
       "inplace: bool = False) -> Tensor",
       "_impl.nn.maybe_inplace(input, _C.dropout2d(input, float(p), bool(training)), "
       "inplace and training and p > 0)",
       "Zeroes whole channels with probability p (scaling the rest), when training.", ns="F", also=("ms",),
       args={"p": "the probability of zeroing a channel."}),
    Op("embedding", "(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None, "
       "max_norm: Optional[float] = None, norm_type: float = 2.0, "
       "scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor",
       "_impl.nn.embedding(input, weight, padding_idx, max_norm, scale_grad_by_freq, sparse)",
       "The rows of weight at the integer indices in input.", ns="F", also=("ms",),
       args={"input": "the indices.", "weight": "the embedding matrix (num, dim).",
             "padding_idx": "an index whose row gets no gradient.",
             "max_norm": "not supported (raises).", "norm_type": "unused without max_norm.",
             "scale_grad_by_freq": "not supported (raises).",
             "sparse": "not supported (raises)."}),
    _loss("cross_entropy", "The cross entropy of logits (N, C, ...) with class indices or "
          "class probabilities.",
          f", weight: {_T} = None, size_average: Optional[bool] = None, "
          "ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = 'mean', "
          "label_smoothing: float = 0.0",
          "_C.cross_entropy(input, target, weight, "
          f"_impl.nn.class_index_only('cross_entropy', target, ignore_index), {_RED}, "
          "float(label_smoothing))",
          args={"input": "the logits.", "weight": "a weight per class.",
                "ignore_index": "a target class index that contributes nothing.",
                "label_smoothing": "the smoothing in [0, 1]."}),
    _loss("nll_loss", "The negative log-likelihood of log-probabilities (N, C, ...) at class "
          "indices.",
          f", weight: {_T} = None, size_average: Optional[bool] = None, "
          "ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = 'mean'",
          f"_C.nll_loss(input, target, weight, ignore_index, {_RED})",
          args={"input": "the log-probabilities.", "weight": "a weight per class.",
                "ignore_index": "a target class index that contributes nothing."}),
    _loss("mse_loss", "The mean squared error (input - target)^2.", f", {_LEGACY}, "
          "reduction: str = 'mean'", f"_C.mse_loss(input, target, {_RED})"),
    _loss("l1_loss", "The mean absolute error |input - target|.", f", {_LEGACY}, "
          "reduction: str = 'mean'", f"_C.l1_loss(input, target, {_RED})"),
    _loss("smooth_l1_loss", "The L1 loss with a quadratic zone of width beta around zero.",
          f", {_LEGACY}, reduction: str = 'mean', beta: float = 1.0",
          f"_C.smooth_l1_loss(input, target, {_RED}, beta)",
          args={"beta": "where the loss turns from quadratic to linear."}),
    _loss("huber_loss", "The Huber loss: quadratic within delta, linear beyond.",
          ", reduction: str = 'mean', delta: float = 1.0",
          "_C.huber_loss(input, target, reduction, delta)",
          also=("ms",), args={"delta": "where the loss turns from quadratic to linear."}),
    _loss("binary_cross_entropy", "The binary cross entropy of probabilities in [0, 1] (logs "
          "clamped at -100).",
          f", weight: {_T} = None, {_LEGACY}, reduction: str = 'mean'",
          f"_C.binary_cross_entropy(input, target, weight, {_RED})",
          args={"input": "the probabilities.", "weight": "a weight per element."}),
    _loss("binary_cross_entropy_with_logits", "The binary cross entropy of logits, computed "
          "stably.",
          f", weight: {_T} = None, {_LEGACY}, reduction: str = 'mean', "
          f"pos_weight: {_T} = None",
          f"_C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, {_RED})",
          args={"input": "the logits.", "weight": "a weight per element.",
                "pos_weight": "a weight of the positive examples, per class."}),
    _loss("kl_div", "The Kullback-Leibler divergence with input as log-probabilities "
          "('batchmean' divides the sum by the batch size).",
          f", {_LEGACY}, reduction: str = 'mean', log_target: bool = False",
          "_impl.nn.kl_div(input, target, size_average, reduce, reduction, log_target)",
          args={"input": "the log-probabilities.",
                "log_target": "the target is given as log-probabilities too."}),
    Op("interpolate", "(input: Tensor, size: Optional[IntOrTuple] = None, "
       "scale_factor: Union[float, Sequence[float], None] = None, mode: str = 'nearest', "
       "align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None, "
       "antialias: bool = False) -> Tensor",
       "_impl.nn.interpolate(input, size, scale_factor, mode, align_corners, "
       "recompute_scale_factor, antialias)",
       "Resizes (N, C, H, W) or (N, C, L) input with 'nearest', 'bilinear' or 'linear'.",
       ns="F", aliases="upsample",
       args={"size": "the output size.", "scale_factor": "the multiplier of the input size.",
             "mode": "'nearest', 'bilinear' (4-D) or 'linear' (3-D).",
             "align_corners": "align the corner pixels of input and output.",
             "recompute_scale_factor": "compute the scale from the rounded output size.",
             "antialias": "not supported (raises)."}),
    Op("unfold", "(input: Tensor, kernel_size: IntOrTuple, dilation: IntOrTuple = 1, "
       "padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor",
       "_impl.nn.unfold(input, kernel_size, dilation, padding, stride)",
       "im2col: (N, C, H, W) to (N, C * kH * kW, L) sliding blocks.", ns="F", also=("ms",)),
    Op("fold", "(input: Tensor, output_size: IntOrTuple, kernel_size: IntOrTuple, "
       "dilation: IntOrTuple = 1, padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor",
       "_impl.nn.fold(input, output_size, kernel_size, dilation, padding, stride)",
       "col2im: (N, C * kH * kW, L) blocks back to (N, C, H, W), summing overlaps.", ns="F", also=("ms",),
       args={"output_size": "the spatial size (H, W) of the result."}),
]
