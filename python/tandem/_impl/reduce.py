"""Reductions with overloads or legacy argument forms."""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Callable, Optional

from .. import _C
from . import args as _args

Tensor = _C.Tensor

values_indices = namedtuple("values_indices", ["values", "indices"])
_aminmax = namedtuple("aminmax", ["min", "max"])


def all_if_empty(d: Any) -> Any:
    """Reductions reduce every dim for dim=() as PyTorch (and MindSpore's axis=()) do."""
    return None if d == [] else d


def max_min(name: str, input: Tensor, dim: Any, keepdim: bool, other: Any, axis: Any) -> Any:
    """max/min: a Tensor in the dim slot (0-d included) is `other` (PyTorch's overload
    order); no dim reduces everything; one dim gives (values, indices)."""
    if isinstance(dim, Tensor) and other is None:
        other, dim = dim, None
    if other is not None:
        if dim is not None or axis is not None:
            raise TypeError(f"{name}: the elementwise form {name}(input, other) takes no dim "
                            f"(got dim={dim!r}, axis={axis!r})")
        return (_C.maximum if name == "max" else _C.minimum)(input, other)
    d = _args.dims(dim, axis)
    if d is None:
        return (_C.amax if name == "max" else _C.amin)(input, None, False)
    if isinstance(d, list):
        raise TypeError(f"{name}: dim must be a single int, got {d}; use a{name} for several dims")
    v, i = (_C.max_dim if name == "max" else _C.min_dim)(input, d, bool(keepdim))
    return values_indices(v, i)


def _correction(correction: Any, unbiased: Any, ddof: Any) -> float:
    if correction is not None:
        return float(correction)
    if ddof is not None:
        return float(ddof)
    if unbiased is not None:
        return 1.0 if unbiased else 0.0
    return 1.0


def var_std(fn: Callable, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
            correction: Any, axis: Any, ddof: Any, legacy_dim: bool = False) -> Any:
    """var / std / var_mean / std_mean; legacy_dim accepts var(x, dim) written positionally
    where unbiased stands. A bool in dim's place is torch's var(input, unbiased) overload."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{fn.__name__}: dim must be an int or a tuple of ints, not bool "
                            f"(var(input, unbiased) takes the bool alone)")
        dim, unbiased = None, dim
    if legacy_dim and isinstance(unbiased, (int, list, tuple)) and not isinstance(unbiased, bool):
        dim, unbiased = unbiased, None
    return fn(input, all_if_empty(_args.dims(dim, axis)), _correction(correction, unbiased, ddof), bool(keepdim))


def norm(input: Tensor, p: Any, dim: Any, keepdim: bool, dtype: Any) -> Tensor:
    """Vector p-norm ('fro' and None mean 2)."""
    if p == "fro" and isinstance(dim, (list, tuple)) and len(dim) > 2:
        # torch.norm takes 'fro' over more than two dims as a matrix norm, which needs two
        raise ValueError(f"norm: p='fro' (the default) over {len(dim)} dims is a matrix norm, "
                         f"which needs exactly 2 dims; pass p=2 for the vector 2-norm")
    if p is None or p == "fro":
        p = 2.0
    elif p == "nuc":
        raise NotImplementedError("norm: the nuclear norm needs an SVD, which tandem lacks yet")
    elif isinstance(p, str):
        raise ValueError(f"norm: unsupported p={p!r}; use a number, inf, 'fro'")
    x = input if dtype is None else _C.to_dtype(input, dtype)
    return _C.norm(x, float(p), all_if_empty(_args.dims(dim, None)), keepdim)


def aminmax(input: Tensor, dim: Optional[int], keepdim: bool) -> Any:
    d = _args.dims(dim, None)
    return _aminmax(_C.amin(input, all_if_empty(d), bool(keepdim)),
                    _C.amax(input, all_if_empty(d), bool(keepdim)))
