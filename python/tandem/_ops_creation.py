"""Creation and random ops."""
from __future__ import annotations

from typing import Optional, Sequence

from . import _C
from ._registry import public

Tensor = _C.Tensor
_default_dtype = [_C.dtype.float32]


def _grad_option(fn):
    """Adds PyTorch's requires_grad= keyword to a creation function."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, requires_grad: bool = False, **kwargs):
        t = fn(*args, **kwargs)
        return t.requires_grad_(True) if requires_grad else t
    return wrapper


def get_default_dtype():
    """The dtype of new floating-point tensors (float32)."""
    return _default_dtype[0]


def set_default_dtype(dtype) -> None:
    if dtype not in (_C.dtype.float32, _C.dtype.float64):
        raise TypeError(f"set_default_dtype: only float32 and float64 are supported, got {dtype}")
    _C._set_default_float_dtype(dtype)  # Python floats in promotion, int / int
    _default_dtype[0] = dtype


def _size(size):
    if len(size) == 1 and not isinstance(size[0], int):
        return tuple(size[0])
    return tuple(size)


def _fdt(dtype):
    return _default_dtype[0] if dtype is None else dtype


@public
@_grad_option
def tensor(data, dtype=None) -> Tensor:
    """A new tensor copied from a number, nested sequence, numpy array or tensor."""
    return _C.Tensor(data, dtype)


@public
def as_tensor(data, dtype=None) -> Tensor:
    """Like tensor(), but shares memory with a tensor or numpy array when possible."""
    import numpy as np
    if isinstance(data, Tensor):
        return data if dtype is None else _C.to_dtype(data, dtype)
    if isinstance(data, np.ndarray) and dtype is None:
        try:
            return _C.from_numpy(data)
        except TypeError:
            pass
    return _C.Tensor(data, dtype)


@public
def from_numpy(array) -> Tensor:
    """A tensor sharing memory with the numpy array."""
    return _C.from_numpy(array)


@public
@_grad_option
def zeros(*size, dtype=None) -> Tensor:
    return _C.full(_size(size), 0, _fdt(dtype))


@public
@_grad_option
def ones(*size, dtype=None) -> Tensor:
    return _C.full(_size(size), 1, _fdt(dtype))


@public
@_grad_option
def empty(*size, dtype=None) -> Tensor:
    return _C.empty(_size(size), _fdt(dtype))


@public
@_grad_option
def full(size, fill_value, *, dtype=None) -> Tensor:
    """A tensor of `size` filled with `fill_value` (dtype inferred from the value)."""
    if dtype is None and isinstance(fill_value, float):
        dtype = _default_dtype[0]
    return _C.full((size,) if isinstance(size, int) else tuple(size), fill_value, dtype)


def _like_dtype(input, dtype):
    return input.dtype if dtype is None else dtype


@public
@_grad_option
def zeros_like(input, *, dtype=None) -> Tensor:
    return _C.full(input.shape, 0, _like_dtype(input, dtype))


@public
@_grad_option
def ones_like(input, *, dtype=None) -> Tensor:
    return _C.full(input.shape, 1, _like_dtype(input, dtype))


@public
@_grad_option
def empty_like(input, *, dtype=None) -> Tensor:
    return _C.empty(input.shape, _like_dtype(input, dtype))


@public
@_grad_option
def full_like(input, fill_value, *, dtype=None) -> Tensor:
    return _C.full(input.shape, fill_value, _like_dtype(input, dtype))


@public
@_grad_option
def rand_like(input, *, dtype=None) -> Tensor:
    return _C.rand(input.shape, _like_dtype(input, dtype))


@public
@_grad_option
def randn_like(input, *, dtype=None) -> Tensor:
    return _C.randn(input.shape, _like_dtype(input, dtype))


@public
def randint_like(input, low: int = 0, high: Optional[int] = None, *, dtype=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return _C.randint(low, high, input.shape, _like_dtype(input, dtype))


@public
@_grad_option
def arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """Values from start to end (exclusive) by step; int64 when all are ints."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None and any(isinstance(v, float) for v in vals):
        dtype = _default_dtype[0]
    return _C.arange(*vals, dtype)


@public
@_grad_option
def linspace(start, end, steps: int, *, dtype=None) -> Tensor:
    """`steps` evenly spaced values from start to end inclusive."""
    return _C.linspace(float(start), float(end), int(steps), _fdt(dtype))


@public
@_grad_option
def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None) -> Tensor:
    x = _C.linspace(float(start), float(end), int(steps), _C.dtype.float64)
    return _C.to_dtype(_C.pow(float(base), x), _fdt(dtype))


@public
@_grad_option
def eye(n: int, m: Optional[int] = None, *, dtype=None) -> Tensor:
    """An n x m identity matrix."""
    return _C.eye(n, m, _fdt(dtype))


@public
def meshgrid(*tensors, indexing: str = "ij"):
    """Coordinate grids; indexing 'ij' (matrix) or 'xy' (Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(_C.meshgrid(list(tensors), indexing))


# --- random ---------------------------------------------------------------------------------

@public
def manual_seed(seed: int):
    """Seeds the global generator: later random ops repeat exactly."""
    _C.manual_seed(int(seed) & 0xFFFFFFFFFFFFFFFF)


@public
def set_seed(seed: int):
    """MindSpore's name for manual_seed."""
    manual_seed(seed)


@public
def initial_seed() -> int:
    return _C.initial_seed()


@public
def get_rng_state():
    return _C.get_rng_state()


@public
def set_rng_state(state) -> None:
    _C.set_rng_state(*state)


@public
@_grad_option
def rand(*size, dtype=None) -> Tensor:
    """Uniform samples in [0, 1)."""
    return _C.rand(_size(size), _fdt(dtype))


@public
@_grad_option
def randn(*size, dtype=None) -> Tensor:
    """Standard normal samples."""
    return _C.randn(_size(size), _fdt(dtype))


@public
def randint(low=0, high=None, size=None, *, dtype=None) -> Tensor:
    """Integers in [low, high)."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint: missing the size argument")
    return _C.randint(int(low), int(high), (size,) if isinstance(size, int) else tuple(size),
                      _C.dtype.int64 if dtype is None else dtype)


@public
@_grad_option
def normal(mean=0.0, std=1.0, size=None, *, dtype=None) -> Tensor:
    """Normal samples; mean and std may be tensors (then size is their broadcast shape)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean if isinstance(mean, Tensor) else None
        s = std if isinstance(std, Tensor) else None
        shape = (m if m is not None else s).shape
        if m is not None and s is not None:
            shape = _C.broadcast_to(m, _C.add(m, s).shape).shape
        z = _C.randn(shape, (m if m is not None else s).dtype)
        return _C.add(_C.mul(z, std), mean)
    if size is None:
        size = ()
    return _C.normal(float(mean), float(std), (size,) if isinstance(size, int) else tuple(size),
                     _fdt(dtype))


@public
@_grad_option
def uniform(low=0.0, high=1.0, size=None, *, dtype=None) -> Tensor:
    return _C.uniform(float(low), float(high), (size,) if isinstance(size, int) else tuple(size or ()),
                      _fdt(dtype))


@public(method=True)
def bernoulli(input, p: Optional[float] = None) -> Tensor:
    """0/1 draws with probability `input` (or p, with input's shape)."""
    if p is not None:
        return _C.bernoulli(_C.full(input.shape, float(p), input.dtype))
    return _C.bernoulli(input)


@public
def randperm(n: int, *, dtype=None) -> Tensor:
    """A random permutation of 0..n-1."""
    return _C.randperm(int(n), _C.dtype.int64 if dtype is None else dtype)


@public(method=True)
def multinomial(input, num_samples: int, replacement: bool = False) -> Tensor:
    """Category indices drawn with weights from each row of input."""
    return _C.multinomial(input, num_samples, replacement)
