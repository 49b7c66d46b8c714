"""Argument logic of the ``tandem.ops`` functions whose MindSpore signature or meaning differs
from PyTorch's under the same name (``ops.ones(shape, dtype)``, ``ops.select(cond, x, y)``,
``ops.transpose(x, perm)``, ``ops.gather(params, indices, axis)``, ...). The computations are
the shared ones; only the argument forms are MindSpore's."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from .. import _C

Tensor = _C.Tensor


def shape_arg(shape: Any, op: str) -> Tuple[int, ...]:
    """A MindSpore shape argument: an int, a tuple/list of ints or a 1-D int Tensor."""
    if isinstance(shape, Tensor):
        if shape.ndim > 1 or shape.dtype.is_floating_point:
            raise TypeError(f"ops.{op}: a shape Tensor must be 1-D with integer values, got "
                            f"shape {list(shape.shape)} and dtype {shape.dtype}")
        return tuple(int(v) for v in np.atleast_1d(shape.asnumpy()))
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (tuple, list)) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shape):
        return tuple(int(v) for v in shape)
    raise TypeError(f"ops.{op}: shape must be an int, a tuple or list of ints, or a Tensor, "
                    f"got {shape!r}")


def filled(op: str, shape: Any, value: Any, dtype: Optional[_C.dtype]) -> Tensor:
    """ops.ones / ops.zeros: MindSpore's default dtype is float32."""
    return _C.full(shape_arg(shape, op), value, _C.dtype.float32 if dtype is None else dtype)


def fill(type: Any, shape: Any, value: Any) -> Tensor:
    """ops.fill(type, shape, value)."""
    if type is None:
        from .creation import full
        return full(shape_arg(shape, "fill"), value, None)
    return _C.full(shape_arg(shape, "fill"), value, type)


def transpose(input: Tensor, input_perm: Any) -> Tensor:
    """ops.transpose(x, perm) is a permutation of all dims (PyTorch's permute)."""
    if not isinstance(input_perm, (tuple, list)):
        raise TypeError(f"ops.transpose: input_perm must be a tuple of ints (a permutation of "
                        f"all {input.ndim} dims), got {input_perm!r}; PyTorch's "
                        "transpose(x, dim0, dim1) is mint.transpose or ops.swapaxes")
    if len(input_perm) != input.ndim:
        raise ValueError(f"ops.transpose: input_perm {tuple(input_perm)} must have one entry "
                         f"per dim of the input (shape {list(input.shape)})")
    return _C.permute(input, [int(p) for p in input_perm])


def expand_dims(input_x: Tensor, axis: int) -> Tensor:
    """ops.expand_dims(x, axis): unsqueeze."""
    return _C.unsqueeze(input_x, int(axis))


def gather(input_params: Tensor, input_indices: Any, axis: int, batch_dims: int) -> Tensor:
    """ops.gather: slices of params along axis at indices of any shape; the result's shape
    is params.shape[:axis] + indices.shape + params.shape[axis + 1:]."""
    if batch_dims != 0:
        raise ValueError(f"ops.gather: batch_dims={batch_dims} is not supported (only 0); "
                         "gather per batch with ops.gather_elements")
    idx = input_indices if isinstance(input_indices, Tensor) else Tensor(input_indices)
    if idx.dtype.is_floating_point or idx.dtype == _C.dtype.bool:
        raise TypeError(f"ops.gather: input_indices must be an integer tensor, got {idx.dtype}")
    nd = input_params.ndim
    if not -nd <= int(axis) < nd:
        raise ValueError(f"ops.gather: axis {axis} is out of range for a {nd}-D input")
    ax = int(axis) % nd
    flat = _C.reshape(_C.to_dtype(idx, _C.dtype.int64), (-1,))
    picked = _C.index_select(input_params, ax, flat)
    shape = tuple(input_params.shape[:ax]) + tuple(idx.shape) + tuple(input_params.shape[ax + 1:])
    return _C.reshape(picked, shape)


def flatten(input: Tensor, order: str, start_dim: int, end_dim: int) -> Tensor:
    """ops.flatten keeps dim 0 by default (start_dim=1); order 'F' flattens column-major."""
    if order not in ("C", "F"):
        raise ValueError(f"ops.flatten: order must be 'C' or 'F', got {order!r}")
    if input.ndim == 0:
        return _C.reshape(input, (1,))
    if order == "F":
        input = _C.permute(input, list(range(input.ndim))[::-1])
    return _C.flatten(input, start_dim, end_dim) if input.ndim > 1 else input


def one_hot(indices: Tensor, depth: int, on_value: Any, off_value: Any, axis: int) -> Tensor:
    """ops.one_hot: on_value where the class is, off_value elsewhere, the new dim at axis."""
    if not isinstance(depth, (int, np.integer)) or depth < 0:
        raise ValueError(f"ops.one_hot: depth must be a non-negative int, got {depth!r}")
    oh = _C.one_hot(_C.to_dtype(indices, _C.dtype.int64), int(depth))
    on = on_value if isinstance(on_value, Tensor) else Tensor(on_value)
    off = off_value if isinstance(off_value, Tensor) else Tensor(off_value)
    out = _C.where(_C.to_dtype(oh, _C.dtype.bool), on, off)
    if axis != -1:
        out = _C.permute(out, _axis_perm(out.ndim, int(axis)))
    return out


def _axis_perm(ndim: int, axis: int) -> list:
    axis = axis % ndim
    dims = list(range(ndim - 1))
    dims.insert(axis, ndim - 1)
    return dims


def var_std(fn: Any, input: Tensor, axis: Any, ddof: Any, keepdims: bool) -> Tensor:
    """ops.var / ops.std: ddof=0 (the population statistic) by default, as numpy."""
    from .reduce import var_std as shared
    if isinstance(ddof, bool):  # MindSpore also takes unbiased as a bool here
        ddof = 1 if ddof else 0
    return shared(fn, input, axis, None, keepdims, None, None, ddof)


def depend(value: Any, expr: Any) -> Any:
    """ops.depend(value, expr): value (the ordering it expresses holds in tandem anyway:
    graph mode keeps program order for side effects)."""
    return value


def assign(variable: Tensor, value: Any) -> Tensor:
    """ops.assign: writes value into variable (a Parameter) and returns it."""
    from ..autograd import no_grad
    v = value if isinstance(value, Tensor) else Tensor(value, variable.dtype)
    with no_grad():
        variable.copy_(v)
    return variable


def clip_by_value(x: Any, clip_value_min: Any, clip_value_max: Any) -> Any:
    """ops.clip_by_value on a tensor or a list/tuple of tensors."""
    if isinstance(x, (list, tuple)):
        return type(x)(_C.clamp(t, clip_value_min, clip_value_max) for t in x)
    return _C.clamp(x, clip_value_min, clip_value_max)


def dense(input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    """ops.dense: input @ weight.T + bias."""
    return _C.linear(input, weight, bias)


def uniform(shape: Any, minval: Any, maxval: Any, dtype: Any) -> Tensor:
    """ops.uniform(shape, minval, maxval): uniform samples in [minval, maxval)."""
    lo = float(minval.item() if isinstance(minval, Tensor) else minval)
    hi = float(maxval.item() if isinstance(maxval, Tensor) else maxval)
    if not lo < hi:
        raise ValueError(f"ops.uniform: minval must be < maxval, got {lo} and {hi}")
    d = dtype or _C.dtype.float32
    if not d.is_floating_point:
        lo_i, hi_i = int(lo), int(hi)
        return _C.randint(lo_i, hi_i, shape_arg(shape, "uniform"), d)
    return _C.uniform_(_C.empty(shape_arg(shape, "uniform"), d), lo, hi)


def normal(shape: Any, mean: Any, stddev: Any) -> Tensor:
    """ops.normal(shape, mean, stddev): samples of N(mean, stddev^2), broadcast to shape."""
    z = _C.randn(shape_arg(shape, "normal"), _C.dtype.float32)
    return _C.add(_C.mul(z, stddev), mean)



def nll_loss(inputs: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int,
             reduction: str, label_smoothing: float) -> Tensor:
    """ops.nll_loss; label smoothing is refused rather than ignored."""
    if label_smoothing:
        raise ValueError(f"ops.nll_loss: label_smoothing={label_smoothing} is not supported; "
                         "use ops.cross_entropy(logits, target, label_smoothing=...)")
    return _C.nll_loss(inputs, target, weight, ignore_index, reduction)


def conv(n: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
         pad_mode: str, padding: Any, dilation: Any, groups: int) -> Tensor:
    """ops.conv1d / ops.conv2d with MindSpore's pad_mode: 'valid' (no padding, the
    default), 'same' (output = ceil(input / stride), TensorFlow's split, strides allowed)
    or 'pad' (explicit padding: an int, one per dim, or 2 per dim (low, high))."""
    from .args import pair
    from .nn import tf_same_padding
    op = f"ops.conv{n}d"
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    s, d = pair(stride, n, "stride"), pair(dilation, n, "dilation")
    if pad_mode != "pad" and padding not in (0, (0,) * n, [0] * n, (0,) * (2 * n)):
        raise ValueError(f"{op}: padding must be 0 unless pad_mode='pad', got {padding!r}")
    if pad_mode == "same":
        lo, hi = tf_same_padding(list(input.shape[-n:]), list(weight.shape[2:]), s, d)
    elif pad_mode == "valid":
        lo, hi = [0] * n, [0] * n
    else:
        p = [padding] * n if isinstance(padding, int) else list(padding)
        if len(p) == n:
            lo, hi = p, p
        elif len(p) == 2 * n:
            lo, hi = p[0::2], p[1::2]
        else:
            raise ValueError(f"{op}: padding must be an int or {n} or {2 * n} ints, got {padding!r}")
    if n == 1:
        return _C.conv1d(input, weight, bias, s[0], [lo[0], hi[0]], d[0], groups)
    return _C.conv2d(input, weight, bias, s, [lo[0], lo[1], hi[0], hi[1]], d, groups)


def max_min(name: str, input: Tensor, axis: Any, keepdims: bool, initial: Any,
            where: Any) -> Tuple[Tensor, Tensor]:
    """ops.max / ops.min: always (values, indices); axis None reduces every element (the
    index is then into the flattened input). `where` masks elements out (they count as
    `initial`, which must then be given); `initial` also bounds the result."""
    op = f"ops.{name}"
    if where is not None:
        if initial is None:
            raise ValueError(f"{op}: where= needs initial= (the value of masked-out elements)")
        input = _C.where(where if isinstance(where, Tensor) else Tensor(where), input,
                         Tensor(initial, input.dtype))
    if axis is None:
        flat = _C.reshape(input, (-1,))
        if flat.numel() == 0:
            if initial is None:
                raise ValueError(f"{op}: an empty input needs initial=")
            return Tensor(initial, input.dtype), Tensor(0)
        idx = _C.argmax(flat, 0, False) if name == "max" else _C.argmin(flat, 0, False)
        values = _C.index_select(flat, 0, _C.reshape(idx, (1,)))[0]
        if keepdims:
            values = _C.reshape(values, (1,) * input.ndim)
            idx = _C.reshape(idx, (1,) * input.ndim)
    else:
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{op}: axis must be an int or None, got {axis!r}")
        values, idx = (_C.max_dim if name == "max" else _C.min_dim)(input, int(axis), keepdims)
    if initial is not None:
        bound = Tensor(initial, values.dtype)
        values = _C.maximum(values, bound) if name == "max" else _C.minimum(values, bound)
    return values, idx
