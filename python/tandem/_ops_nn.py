"""Neural-network functional ops (``tandem.mint.nn.functional``): convolutions and
activations; pooling, normalization, softmax and losses join as they land."""
from __future__ import annotations

from typing import Optional, Sequence, Union

from . import _C

Tensor = _C.Tensor
IntOrPair = Union[int, Sequence[int]]

FUNCTIONAL = {}


def functional(fn):
    FUNCTIONAL[fn.__name__] = fn
    return fn


def _pair(v, n: int = 2, name: str = "argument"):
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"expected {name} to be an int or a sequence of {n} ints, got {v}")
    return v


def _conv_padding(padding, kernel, dilation, stride, n):
    """Per-side padding (first all lows, then all highs) from PyTorch's padding forms."""
    if isinstance(padding, str):
        if padding == "valid":
            return [0] * (2 * n)
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            lo = [d * (k - 1) // 2 for k, d in zip(kernel, dilation)]
            hi = [d * (k - 1) - l for k, d, l in zip(kernel, dilation, lo)]
            return lo + hi
        raise ValueError(f"invalid padding string {padding!r}; use 'same', 'valid' or ints")
    p = _pair(padding, n, "padding")
    return p + p


@functional
def conv2d(input, weight, bias=None, stride: IntOrPair = 1, padding="0", dilation: IntOrPair = 1,
           groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) or (C, H, W) input; weight (O, C/groups, kH, kW)."""
    if padding == "0":
        padding = 0
    s, d = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    p = _conv_padding(padding, list(weight.shape[2:]), d, s, 2)
    return _C.conv2d(input, weight, bias, s, [p[0], p[1], p[2], p[3]], d, groups)


@functional
def conv1d(input, weight, bias=None, stride: IntOrPair = 1, padding="0", dilation: IntOrPair = 1,
           groups: int = 1) -> Tensor:
    """1-D convolution over (N, C, L) or (C, L) input; weight (O, C/groups, k)."""
    if padding == "0":
        padding = 0
    s, d = _pair(stride, 1, "stride")[0], _pair(dilation, 1, "dilation")[0]
    p = _conv_padding(padding, [weight.shape[2]], [d], [s], 1)
    return _C.conv1d(input, weight, bias, s, p, d, groups)


@functional
def conv_transpose2d(input, weight, bias=None, stride: IntOrPair = 1, padding: IntOrPair = 0,
                     output_padding: IntOrPair = 0, groups: int = 1,
                     dilation: IntOrPair = 1) -> Tensor:
    """Transposed 2-D convolution; weight (C_in, C_out/groups, kH, kW)."""
    return _C.conv_transpose2d(input, weight, bias, _pair(stride), _pair(padding),
                               _pair(output_padding), groups, _pair(dilation))


@functional
def linear(input, weight, bias=None) -> Tensor:
    """input @ weight.T + bias."""
    return _C.linear(input, weight, bias)


@functional
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    """Batch normalization over (N, C, *) input. In training, normalises with the batch
    statistics and updates running_mean / running_var in place (running_var with the unbiased
    variance); in eval, normalises with the running statistics."""
    return _C.batch_norm(input, running_mean, running_var, weight, bias, bool(training),
                         float(momentum), float(eps))


@functional
def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05) -> Tensor:
    """Layer normalization over the trailing dims given by normalized_shape (int or sequence)."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return _C.layer_norm(input, list(normalized_shape), weight, bias, float(eps))


@functional
def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05) -> Tensor:
    """Group normalization of (N, C, *) input: C channels split into num_groups groups."""
    return _C.group_norm(input, num_groups, weight, bias, float(eps))


@functional
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1,
                  eps: float = 1e-05) -> Tensor:
    """Instance normalization: each (sample, channel) of (N, C, *) input normalised over its
    spatial elements; running stats (if given) are updated in place when use_input_stats."""
    return _C.instance_norm(input, running_mean, running_var, weight, bias, bool(use_input_stats),
                            float(momentum), float(eps))

def _act(name, fn=None):
    FUNCTIONAL[name] = fn or getattr(_C, name)


for _n in ("relu", "relu6", "sigmoid", "tanh", "silu", "mish", "selu", "hardsigmoid", "hardswish",
           "logsigmoid"):
    _act(_n)
FUNCTIONAL["leaky_relu"] = lambda input, negative_slope=0.01, inplace=False: _C.leaky_relu(input, negative_slope)
FUNCTIONAL["elu"] = lambda input, alpha=1.0, inplace=False: _C.elu(input, alpha)
FUNCTIONAL["celu"] = lambda input, alpha=1.0, inplace=False: _C.celu(input, alpha)
FUNCTIONAL["gelu"] = lambda input, approximate="none": _C.gelu(input, approximate)
FUNCTIONAL["softplus"] = lambda input, beta=1.0, threshold=20.0: _C.softplus(input, beta, threshold)
FUNCTIONAL["hardtanh"] = (lambda input, min_val=-1.0, max_val=1.0, inplace=False:
                          _C.hardtanh(input, min_val, max_val))


# --- pooling -----------------------------------------------------------------------------------

def _pool_stride(stride, kernel, n):
    return kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _pair(stride, n, "stride")


@functional
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """2-D max pooling; with return_indices also the flat H*W indices of the maxima."""
    k = _pair(kernel_size, 2, "kernel_size")
    y, idx = _C.max_pool2d(input, k, _pool_stride(stride, k, 2), _pair(padding, 2, "padding"),
                           _pair(dilation, 2, "dilation"), ceil_mode)
    return (y, idx) if return_indices else y


@functional
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """1-D max pooling over (N, C, L) or (C, L)."""
    k = _pair(kernel_size, 1, "kernel_size")[0]
    s = _pool_stride(stride, [k], 1)[0]
    y, idx = _C.max_pool2d(input.unsqueeze(-2), [1, k], [1, s], [0, _pair(padding, 1)[0]],
                           [1, _pair(dilation, 1)[0]], ceil_mode)
    y, idx = y.squeeze(-2), idx.squeeze(-2)
    return (y, idx) if return_indices else y


@functional
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None):
    """2-D average pooling."""
    k = _pair(kernel_size, 2, "kernel_size")
    return _C.avg_pool2d(input, k, _pool_stride(stride, k, 2), _pair(padding, 2, "padding"),
                         ceil_mode, count_include_pad, divisor_override or 0)


@functional
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """1-D average pooling over (N, C, L) or (C, L)."""
    k = _pair(kernel_size, 1, "kernel_size")[0]
    s = _pool_stride(stride, [k], 1)[0]
    y = _C.avg_pool2d(input.unsqueeze(-2), [1, k], [1, s], [0, _pair(padding, 1)[0]], ceil_mode,
                      count_include_pad, 0)
    return y.squeeze(-2)


def _adaptive_size(output_size, input, n):
    size = _pair(output_size, n, "output_size")
    spatial = input.shape[-n:]
    return [spatial[i] if s is None else s for i, s in enumerate(size)]


@functional
def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Average pooling to a fixed output size (None keeps that input dim)."""
    return _C.adaptive_avg_pool2d(input, _adaptive_size(output_size, input, 2))


@functional
def adaptive_avg_pool1d(input, output_size) -> Tensor:
    size = _adaptive_size(output_size, input, 1)
    return _C.adaptive_avg_pool2d(input.unsqueeze(-2), [1, size[0]]).squeeze(-2)


@functional
def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    y, idx = _C.adaptive_max_pool2d(input, _adaptive_size(output_size, input, 2))
    return (y, idx) if return_indices else y


# --- softmax, dropout, embedding ---------------------------------------------------------------

def _softmax_dim(dim, ndim):
    if dim is None:  # PyTorch's legacy implicit choice
        return 0 if ndim in (0, 1, 3) else 1
    return dim


@functional
def softmax(input, dim=None, dtype=None, *, axis=None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim, computed stably."""
    d = axis if axis is not None else dim
    return _C.softmax(input, _softmax_dim(d, input.ndim), dtype)


@functional
def log_softmax(input, dim=None, dtype=None, *, axis=None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    d = axis if axis is not None else dim
    return _C.log_softmax(input, _softmax_dim(d, input.ndim), dtype)


@functional
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes elements with probability p (scaling the rest by 1/(1-p)) when training."""
    y = _C.dropout(input, float(p), bool(training))
    return input.copy_(y) if inplace and training else y


@functional
def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels with probability p when training."""
    y = _C.dropout2d(input, float(p), bool(training))
    return input.copy_(y) if inplace and training else y


@functional
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of weight at the integer indices in input."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not supported")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return _C.embedding(input, weight, -1 if padding_idx is None else padding_idx)


from ._registry import PUBLIC as _PUBLIC, METHODS as _METHODS  # noqa: E402

for _n in ("softmax", "log_softmax", "dropout"):
    _PUBLIC[_n] = FUNCTIONAL[_n]
_METHODS["softmax"] = lambda self, dim=None, dtype=None: softmax(self, dim, dtype)
_METHODS["log_softmax"] = lambda self, dim=None, dtype=None: log_softmax(self, dim, dtype)


# --- losses --------------------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction):
    """PyTorch's legacy size_average / reduce flags folded into `reduction`."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


@functional
def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits (N, C, ...) with class indices or class probabilities."""
    return _C.cross_entropy(input, target, weight, ignore_index,
                            _reduction(size_average, reduce, reduction), float(label_smoothing))


@functional
def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices."""
    return _C.nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


@functional
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    return _C.mse_loss(input, target, _reduction(size_average, reduce, reduction))


@functional
def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    return _C.l1_loss(input, target, _reduction(size_average, reduce, reduction))


@functional
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    return _C.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


@functional
def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    return _C.huber_loss(input, target, reduction, delta)


@functional
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """BCE of probabilities in [0, 1] (logs clamped at -100)."""
    return _C.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


@functional
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None) -> Tensor:
    """BCE of logits, computed stably; pos_weight weighs positive examples."""
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                               _reduction(size_average, reduce, reduction))


@functional
def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """KL divergence with input as log-probabilities ('batchmean' divides by the batch)."""
    return _C.kl_div(input, target, _reduction(size_average, reduce, reduction), log_target)


# --- resampling and im2col -------------------------------------------------------------------

@functional
def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resizes (N, C, H, W) or (N, C, L) input with 'nearest', 'bilinear' or 'linear'."""
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    one_d = input.ndim == 3
    if mode == "linear":
        if not one_d:
            raise ValueError("interpolate: mode 'linear' needs a 3-D input (N, C, L)")
        mode = "bilinear"
    x = input.unsqueeze(2) if one_d else input
    if x.ndim != 4:
        raise ValueError(f"interpolate: expected a 3-D or 4-D input, got {input.ndim}-D")
    n = 1 if one_d else 2
    spatial = list(x.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: pass exactly one of size or scale_factor")
    scales = []
    if size is not None:
        out = _pair(size, n, "size")
    else:
        sf = [float(v) for v in (_pair(scale_factor, n, "scale_factor") if not isinstance(scale_factor, float)
                                 else [scale_factor] * n)]
        out = [int(s * f) for s, f in zip(spatial[-n:], sf)]
        if not recompute_scale_factor:
            scales = sf
    if one_d:
        out = [1] + out
        scales = [1.0] + scales if scales else []
    y = _C.interpolate(x, out, mode, bool(align_corners), scales)
    return y.squeeze(2) if one_d else y


@functional
def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L)."""
    return _C.unfold(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


@functional
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """col2im: (N, C * kH * kW, L) -> (N, C, H, W), summing overlapping values."""
    return _C.fold(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                   _pair(stride))


FUNCTIONAL["upsample"] = interpolate
