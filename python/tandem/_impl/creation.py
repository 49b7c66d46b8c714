"""Creation ops: the default float dtype, dtype inference from values, random draws with
tensor parameters."""
from __future__ import annotations

from typing import Any, Optional

from .. import _C
from . import args as _args

Tensor = _C.Tensor
_default_dtype = [_C.dtype.float32]


def get_default_dtype() -> _C.dtype:
    """The dtype of new floating-point tensors (those made from Python floats, and of
    ``randn``, ``zeros``, ... without a dtype).

    Returns:
        dtype: float32 unless :func:`set_default_dtype` changed it.
    """
    return _default_dtype[0]


def set_default_dtype(dtype: _C.dtype) -> None:
    """Sets the dtype of new floating-point tensors (and of Python floats in type
    promotion).

    Args:
        dtype (dtype): ``tandem.float32`` or ``tandem.float64``.
    """
    if dtype not in (_C.dtype.float32, _C.dtype.float64):
        raise TypeError(f"set_default_dtype: only float32 and float64 are supported, got {dtype}")
    _C._set_default_float_dtype(dtype)  # Python floats in promotion, int / int
    _default_dtype[0] = dtype


def float_dtype(dtype: Optional[_C.dtype]) -> _C.dtype:
    return _default_dtype[0] if dtype is None else dtype


def with_grad(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def as_tensor(data: Any, dtype: Optional[_C.dtype]) -> Tensor:
    import numpy as np
    if isinstance(data, Tensor):
        return data if dtype is None else _C.to_dtype(data, dtype)
    if isinstance(data, np.ndarray) and dtype is None:
        try:
            return _C.from_numpy(data)
        except TypeError:
            pass
    return _C.Tensor(data, dtype)


def full(size: Any, fill_value: Any, dtype: Optional[_C.dtype]) -> Tensor:
    if dtype is None and isinstance(fill_value, float):
        dtype = _default_dtype[0]
    return _C.full((size,) if isinstance(size, int) else tuple(size), fill_value, dtype)


def randint_like(input: Tensor, low: int, high: Optional[int], dtype: Any) -> Tensor:
    if high is None:
        low, high = 0, low
    return _C.randint(low, high, input.shape, input.dtype if dtype is None else dtype)


def arange(start: Any, end: Any, step: Any, dtype: Any) -> Tensor:
    """mint.arange (``...`` marks an omitted start or end) and ops.arange (end None: start
    is the end, MindSpore's form)."""
    if end is None or end is ...:
        if start is ...:
            raise TypeError("arange() missing 1 required positional argument: 'end' "
                            "(arange(end) or arange(start, end, step))")
        start, end = 0, start
    elif start is ...:
        start = 0
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None and any(isinstance(v, float) for v in vals):
        dtype = _default_dtype[0]
    return _C.arange(*vals, dtype)


def check_bounds(op: str, dtype: Any, steps: int, start: Any, end: Any) -> None:
    """linspace / logspace: the values torch converts with its overflow check must fit the
    result dtype: start and end for two or more steps, only the single value (start, or
    base ** start for logspace) for one step, nothing for an empty result."""
    steps = int(steps)
    values = [] if steps <= 0 else [start] if steps == 1 else [start, end]
    for v in values:
        _C._check_scalar_fits(v.item() if isinstance(v, Tensor) else v, dtype, op)


def linspace(start: Any, end: Any, steps: int, dtype: Any) -> Tensor:
    dt = float_dtype(dtype)
    check_bounds("linspace", dt, steps, start, end)
    return _C.linspace(float(start), float(end), int(steps), dt)


def logspace(start: Any, end: Any, steps: int, base: float, dtype: Any) -> Tensor:
    dt = float_dtype(dtype)
    x = _C.linspace(float(start), float(end), int(steps), _C.dtype.float64)
    y = _C.pow(float(base), x)
    check_bounds("logspace", dt, steps, y[0].item() if int(steps) == 1 else start, end)
    return _C.to_dtype(y, dt)


def meshgrid(tensors: tuple, indexing: Optional[str]) -> tuple:
    if indexing is None:  # PyTorch's default (it warns that 'ij' will stop being implied)
        indexing = "ij"
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise ValueError("meshgrid: expects a non-empty sequence of tensors, got none")
    dtypes = {t.dtype for t in tensors if isinstance(t, Tensor)}
    if len(dtypes) > 1:  # as in PyTorch: no promotion across the grids
        raise ValueError(f"meshgrid: expects all tensors to have the same dtype, got "
                         f"{sorted(str(d) for d in dtypes)}")
    return tuple(_C.meshgrid(list(tensors), indexing))


def randint(low: Any, high: Any, size: Any, dtype: Any) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    if size is None:
        raise TypeError("randint: missing the size argument")
    return _C.randint(int(low), int(high), (size,) if isinstance(size, int) else tuple(size),
                      _C.dtype.int64 if dtype is None else dtype)


def normal(mean: Any, std: Any, size: Any, dtype: Any) -> Tensor:
    """Normal samples; mean and std may be tensors (then size is their broadcast shape)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None or dtype is not None:  # torch's tensor overloads take neither
            raise TypeError("normal: with a tensor mean or std the result has their shape and "
                            "dtype; size= and dtype= need float mean and std")
        m = mean if isinstance(mean, Tensor) else None
        s = std if isinstance(std, Tensor) else None
        ref = m if m is not None else s
        if s is not None and s.numel() > 0 and not _C.is_tracing():
            lowest = _C.amin(s, None, False).item()
            if not lowest >= 0:  # NaN fails too, as in PyTorch
                raise ValueError(f"normal: expects all elements of std >= 0.0, got {lowest}")
        if s is None and not float(std) >= 0:  # a number std beside a tensor mean too
            raise ValueError(f"normal: expects std >= 0.0, got {std}")
        shape = ref.shape
        if m is not None and s is not None:
            shape = _C.broadcast_to(m, _C.add(m, s).shape).shape
        z = _C.randn(shape, ref.dtype)
        # a number mean or std is a float (torch's double), however large an int it is
        y = _C.add(_C.mul(z, std if s is not None else float(std)),
                   mean if m is not None else float(mean))
        # The result has mean's dtype (std's when mean is a number), as in torch: a float64
        # std does not widen float32 samples.
        return y if y.dtype == ref.dtype else _C.to_dtype(y, ref.dtype)
    return _C.normal(float(mean), float(std), _args.size_or_scalar(size), float_dtype(dtype))


def check_probability(p: float, op: str = "bernoulli") -> float:
    """p as a float, or ValueError when it is outside [0, 1] (NaN included), whatever the
    tensor's size (torch checks a scalar p before looking at the tensor)."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: p must be in [0, 1], got p={p}")
    return p


def bernoulli(input: Tensor, p: Optional[float]) -> Tensor:
    if p is not None:
        return _C.bernoulli(_C.full(input.shape, check_probability(p), input.dtype))
    return _C.bernoulli(input)


def check_device(device: Any, op: str) -> None:
    """Raises unless ``device`` is None or the CPU (tandem has no other device)."""
    if device is not None:
        from .._device import as_device
        as_device(device, op)


def tensor(data: Any, dtype: Optional[_C.dtype]) -> Tensor:
    """torch.tensor(data): a copy; sequences may hold 0-d / one-element tensors, as
    PyTorch allows (``tensor([t1, t2])`` with scalar tensors)."""
    try:
        return _C.Tensor(data, dtype)
    except (TypeError, ValueError):
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
            import numpy as np
            arr = np.array([x.detach().numpy() if isinstance(x, Tensor) else x for x in data])
            return _C.Tensor(arr, dtype)
        raise
