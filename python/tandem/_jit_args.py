"""How compiled functions see their arguments and results: nested tuple / list / dict values
flattened to their tensors and a hashable structure (the static part of the cache key),
numpy arrays as constants keyed by value, and MindSpore's mutable() marker."""
from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from . import _C

Tensor = _C.Tensor


def _flatten(obj, leaves):
    """Replaces tensors in a nested tuple/list/dict by their index in `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple, e.g. (values, indices)
        return ("namedtuple", (type(obj), [_flatten(o, leaves) for o in obj]))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, [_flatten(o, leaves) for o in obj])
    if isinstance(obj, dict):
        return ("dict", [(k, _flatten(v, leaves)) for k, v in obj.items()])
    return ("C", obj)  # a Python value computed at trace time


def _unflatten(spec, leaves):
    kind, val = spec
    if kind == "T":
        return leaves[val]
    if kind == "tuple":
        return tuple(_unflatten(s, leaves) for s in val)
    if kind == "list":
        return [_unflatten(s, leaves) for s in val]
    if kind == "namedtuple":
        cls, items = val
        return cls(*(_unflatten(s, leaves) for s in items))
    if kind == "dict":
        return {k: _unflatten(s, leaves) for k, s in val}
    return val


def _frozen(spec, where):
    """A hashable form of a _flatten spec (its Python values must be hashable)."""
    kind, val = spec
    if kind == "T":
        return spec
    if kind in ("tuple", "list"):
        return (kind, tuple(_frozen(s, where) for s in val))
    if kind == "namedtuple":
        return (kind, (val[0], tuple(_frozen(s, where) for s in val[1])))
    if kind == "dict":
        return (kind, tuple((_hashable(k, where), _frozen(s, where)) for k, s in val))
    return ("C", _hashable(val, where))


class _ArrayKey:
    """A numpy array argument as a static key: its dtype, shape and bytes (MindSpore takes
    numpy arguments of a compiled function as constants)."""

    __slots__ = ("key",)

    def __init__(self, a: np.ndarray) -> None:
        self.key = (a.dtype.str, a.shape, hashlib.sha1(np.ascontiguousarray(a).tobytes()).digest())

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ArrayKey) and other.key == self.key


def _hashable(v, where):
    if isinstance(v, np.ndarray):
        return _ArrayKey(v)
    try:
        hash(v)
        return v
    except TypeError:
        raise TypeError(f"jit: argument {where!r} of type {type(v).__name__} is not hashable; "
                        "pass tensors or hashable Python values (mark it static)") from None


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """Marks a value passed to a compiled function as a variable input, not a constant of the
    graph (MindSpore's mutable): a Python number becomes a 0-d tensor (int64, float32 or
    bool), so other values reuse the same graph; tensors stay as they are; a tuple, list or
    dict is marked element by element (tandem makes the tensors in containers graph inputs
    anyway).

    Args:
        input_data (Union[Tensor, int, float, bool, tuple, list, dict]): the value.
        dynamic_len (bool): MindSpore's variable-length sequences; the length of a sequence
            is part of the graph's signature in tandem. Default: ``False`` .

    Returns:
        The value with its numbers as tensors.
    """
    if not isinstance(dynamic_len, bool):
        raise TypeError(f"mutable: dynamic_len must be a bool, got {dynamic_len!r}")
    if dynamic_len and not isinstance(input_data, (list, tuple)):
        raise TypeError("mutable: dynamic_len=True needs a tuple or list, got "
                        f"{type(input_data).__name__}")
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, (bool, int, float)):
        return _scalar(input_data)
    if isinstance(input_data, tuple) and not hasattr(input_data, "_fields"):
        return tuple(mutable(v) for v in input_data)
    if isinstance(input_data, list):
        return [mutable(v) for v in input_data]
    if isinstance(input_data, dict):
        return {k: mutable(v) for k, v in input_data.items()}
    raise TypeError(f"mutable: input_data must be a Tensor, a number, or a tuple, list or dict "
                    f"of them, got {type(input_data).__name__}")


def _scalar(v: Any) -> Tensor:
    from . import mint
    dt = mint.bool if isinstance(v, bool) else mint.int64 if isinstance(v, int) else mint.float32
    return mint.tensor(v, dtype=dt)
