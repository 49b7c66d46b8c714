"""Neural-network functions with argument logic: convolution padding forms, pooling shapes,
softmax's legacy dim, PyTorch's legacy loss flags, interpolate's size rules."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from .. import _C
from .args import pair

Tensor = _C.Tensor


def maybe_inplace(input: Tensor, y: Tensor, inplace: bool) -> Tensor:
    """The inplace=True forms of activations and dropout write y into input."""
    return input.copy_(y) if inplace else y


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """torch's threshold: `value` where input <= threshold, input elsewhere (NaN stays NaN and
    passes its gradient); the result keeps input's dtype, into which threshold and value are
    converted (with torch's overflow check)."""
    dt = input.dtype
    # threshold is converted to the type torch compares in (the input's own dtype, float32
    # for 16-bit floats), value to the result's dtype, each with torch's overflow check. For
    # an integer input -3.25 is -3, so -3 is at the threshold.
    ct = _C.dtype.float32 if dt in (_C.dtype.float16, _C.dtype.bfloat16) else dt
    _C._check_scalar_fits(threshold, ct, "threshold")
    _C._check_scalar_fits(value, dt, "threshold")
    th = int(threshold) if not ct.is_floating_point and ct != _C.dtype.bool else threshold
    y = _C.where(_C.le(input, _C.full((), th, ct)), _C.full((), value, ct), input)
    return y if y.dtype == dt else _C.to_dtype(y, dt, False)  # a 0-d 16-bit input


def conv_padding(padding: Any, kernel: List[int], dilation: List[int], stride: List[int],
                 n: int) -> List[int]:
    """Per-side padding (first all lows, then all highs) from PyTorch's padding forms; the
    one place 'same' and 'valid' are resolved (the layers of both faces call this)."""
    if isinstance(padding, str):
        if padding == "valid":
            return [0] * (2 * n)
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            lo = [d * (k - 1) // 2 for k, d in zip(kernel, dilation)]
            hi = [d * (k - 1) - low for k, d, low in zip(kernel, dilation, lo)]
            return lo + hi
        raise ValueError(f"invalid padding string {padding!r}; use 'same', 'valid' or ints")
    p = pair(padding, n, "padding")
    return p + p


def tf_same_padding(in_sizes: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                    dilation: Sequence[int]) -> Tuple[List[int], List[int]]:
    """(lows, highs) of MindSpore's / TensorFlow's pad_mode='same' (output = ceil(in /
    stride), strides allowed; the odd pixel goes to the high side)."""
    lo: List[int] = []
    hi: List[int] = []
    for size, k, s, d in zip(in_sizes, kernel, stride, dilation):
        out = -(-size // s)
        total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
        lo.append(total // 2)
        hi.append(total - total // 2)
    return lo, hi


def conv(n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
         padding: Any, dilation: Any, groups: int) -> Tensor:
    """conv1d (n=1) and conv2d (n=2)."""
    s, d = pair(stride, n, "stride"), pair(dilation, n, "dilation")
    p = conv_padding(padding, list(weight.shape[2:]), d, s, n)
    if n == 1:
        return _C.conv1d(input, weight, bias, s[0], p, d[0], groups)
    return _C.conv2d(input, weight, bias, s, p, d, groups)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
                     padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    return _C.conv_transpose2d(input, weight, bias, pair(stride), pair(padding),
                               pair(output_padding), groups, pair(dilation))


def _pool_stride(stride: Any, kernel: List[int], n: int) -> List[int]:
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return kernel
    return pair(stride, n, "stride")


def max_pool(n: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
             ceil_mode: bool, return_indices: bool) -> Any:
    """max_pool1d runs as a 2-D pool over a unit height."""
    k = pair(kernel_size, n, "kernel_size")
    s = _pool_stride(stride, k, n)
    p, d = pair(padding, n, "padding"), pair(dilation, n, "dilation")
    if n == 1:
        y, idx = _C.max_pool2d(input.unsqueeze(-2), [1, k[0]], [1, s[0]], [0, p[0]],
                               [1, d[0]], ceil_mode)
        y, idx = y.squeeze(-2), idx.squeeze(-2)
    else:
        y, idx = _C.max_pool2d(input, k, s, p, d, ceil_mode)
    return (y, idx) if return_indices else y


def avg_pool(n: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
             ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> Tensor:
    k = pair(kernel_size, n, "kernel_size")
    s = _pool_stride(stride, k, n)
    p = pair(padding, n, "padding")
    if divisor_override is not None and divisor_override == 0:  # None means the window size
        raise ValueError(f"avg_pool{n}d: divisor_override must be non-zero, got 0")
    if n == 1:
        y = _C.avg_pool2d(input.unsqueeze(-2), [1, k[0]], [1, s[0]], [0, p[0]], ceil_mode,
                          count_include_pad, 0)
        return y.squeeze(-2)
    return _C.avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override or 0)


def _im2col_params(names: Sequence[str], values: Sequence[Any]) -> List[List[int]]:
    # exactly two values each (or one int), as PyTorch's im2col/col2im check
    return [pair(v, 2, name, one=False) for name, v in zip(names, values)]


def unfold(input: Tensor, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Tensor:
    """F.unfold (im2col)."""
    return _C.unfold(input, *_im2col_params(("kernel_size", "dilation", "padding", "stride"),
                                            (kernel_size, dilation, padding, stride)))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any, padding: Any,
         stride: Any) -> Tensor:
    """F.fold (col2im)."""
    return _C.fold(input, *_im2col_params(
        ("output_size", "kernel_size", "dilation", "padding", "stride"),
        (output_size, kernel_size, dilation, padding, stride)))


def adaptive_size(output_size: Any, input: Tensor, n: int) -> List[int]:
    # torch wants exactly n sizes here ([3] is an error for a 2-d pool), or one int.
    size = pair(output_size, n, "output_size", one=False)
    spatial = input.shape[-n:]
    return [spatial[i] if s is None else s for i, s in enumerate(size)]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    size = adaptive_size(output_size, input, 1)
    return _C.adaptive_avg_pool2d(input.unsqueeze(-2), [1, size[0]]).squeeze(-2)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool) -> Any:
    y, idx = _C.adaptive_max_pool2d(input, adaptive_size(output_size, input, 2))
    return (y, idx) if return_indices else y


def softmax_dim(dim: Optional[int], ndim: int) -> int:
    if dim is None:  # PyTorch's legacy implicit choice
        return 0 if ndim in (0, 1, 3) else 1
    return dim


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int], max_norm: Any,
              scale_grad_by_freq: bool, sparse: bool) -> Tensor:
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not "
                                  "supported")
    if padding_idx is not None:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise ValueError(f"embedding: padding_idx must be within num_embeddings: "
                             f"{padding_idx} is not in [-{n}, {n})")
        if padding_idx < 0:
            padding_idx += n
    return _C.embedding(input, weight, -1 if padding_idx is None else padding_idx)


def class_index_only(op: str, target: Any, ignore_index: int) -> int:
    """ignore_index names a class index, so PyTorch refuses a non-negative one (a class that
    exists) with class-probability (floating point) targets; returns ignore_index."""
    if ignore_index >= 0 and target.dtype.is_floating_point:
        raise ValueError(f"{op}: ignore_index ({ignore_index}) is not supported for floating "
                         "point (class-probability) targets; leave it at -100 or pass class "
                         "indices")
    return ignore_index


def reduction(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> str:
    """PyTorch's legacy size_average / reduce flags folded into `reduction`."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def kl_div(input: Tensor, target: Tensor, size_average: Any, reduce: Any, mode: str,
           log_target: bool) -> Tensor:
    """F.kl_div: the legacy flags, when given, decide the reduction, and 'batchmean' still
    divides that result by the batch size afterwards (PyTorch's order: with reduce=False the
    per-element losses are divided, with size_average=True the mean is)."""
    legacy = size_average is not None or reduce is not None
    out = _C.kl_div(input, target, reduction(size_average, reduce, mode), log_target)
    if legacy and mode == "batchmean" and input.ndim != 0:
        out = out / input.shape[0]
    return out


def interpolate(input: Tensor, size: Any, scale_factor: Any, mode: str, align_corners: Any,
                recompute_scale_factor: Any, antialias: bool) -> Tensor:
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if align_corners is not None and mode not in ("linear", "bilinear", "bicubic", "trilinear"):
        raise ValueError("interpolate: align_corners option can only be set with the "
                         f"interpolating modes linear | bilinear | bicubic, not {mode!r}; "
                         "leave it None")
    one_d = input.ndim == 3
    if input.ndim >= 3 and 0 in tuple(input.shape[1:]):  # as in PyTorch: only N may be 0
        raise ValueError(f"interpolate: expected non-zero channel and spatial sizes, got shape "
                         f"{list(input.shape)}")
    if mode == "linear":
        if not one_d:
            raise ValueError("interpolate: mode 'linear' needs a 3-D input (N, C, L)")
        mode = "bilinear"
    elif mode in ("bilinear", "bicubic") and one_d:  # as in PyTorch, not a silent 'linear'
        raise NotImplementedError(f"interpolate: got a 3-D input, but {mode} mode needs a 4-D "
                                  "input (N, C, H, W); use mode='linear' for (N, C, L)")
    x = input.unsqueeze(2) if one_d else input
    if x.ndim != 4:
        raise ValueError(f"interpolate: expected a 3-D or 4-D input, got {input.ndim}-D")
    n = 1 if one_d else 2
    spatial = list(x.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: pass exactly one of size or scale_factor")
    scales: List[float] = []
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("interpolate: recompute_scale_factor is not meaningful with an "
                             "explicit size; pass scale_factor instead")
        out = pair(size, n, "size", one=False)  # as in PyTorch: one value per spatial dim
    else:
        sf = ([float(v) for v in pair(scale_factor, n, "scale_factor", one=False)]
              if not isinstance(scale_factor, float) else [scale_factor] * n)
        out = [int(s * f) for s, f in zip(spatial[-n:], sf)]
        if not recompute_scale_factor:
            scales = sf
    if one_d:
        out = [1] + out
        scales = [1.0] + scales if scales else []
    if mode in ("nearest", "nearest-exact") and x.dtype == _C.dtype.uint8:
        # nearest only copies elements, so uint8 images resize exactly through float32, as
        # torch resizes them directly (its other integer types are errors, as here)
        y = _C.to_dtype(_C.interpolate(_C.to_dtype(x, _C.dtype.float32), out, mode,
                                       bool(align_corners), scales), x.dtype)
    else:
        y = _C.interpolate(x, out, mode, bool(align_corners), scales)
    return y.squeeze(2) if one_d else y
