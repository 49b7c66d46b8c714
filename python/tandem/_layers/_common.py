"""Helpers shared by the layer files: the generated op modules, argument tuples, and the
initialisations (from tandem._init) of PyTorch's and MindSpore's layers."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from .. import _C
from .._generated import functional_api as F  # noqa: F401 - re-exported to the layer files
from .._generated import torch_api as ops  # noqa: F401
from .cell import Cell  # noqa: F401 - re-exported to the layer files
from .parameter import Parameter
from ..autograd import no_grad  # noqa: F401 - re-exported to the layer files
from .. import _init
from .._impl.nn import maybe_inplace

Tensor = _C.Tensor

__all__ = ["F", "ops", "Cell", "Parameter", "no_grad", "Tensor", "tup", "new_param", "fans",
           "fan_in_bias_", "ms_init", "uniform_", "normal_", "fill_", "xavier_uniform_",
           "kaiming_uniform_", "inplace_result"]


def tup(v: Any, n: int, name: str = "argument") -> Tuple[int, ...]:
    """An int or a sequence of n ints as a tuple of n ints."""
    if isinstance(v, int):
        return (v,) * n
    t = tuple(int(a) for a in v)
    if len(t) == 1:
        return t * n
    if len(t) != n:
        raise ValueError(f"expected {name} to be an int or a sequence of {n} ints, got {t}")
    return t


def new_param(shape: Sequence[int], dtype: Optional[_C.dtype] = None,
              requires_grad: bool = True) -> Parameter:
    """An uninitialised Parameter of `shape` (the layers fill it right away)."""
    return Parameter(ops.empty(*shape, dtype=dtype), requires_grad=requires_grad)


# Initialisation: one implementation (tandem._init) for the layers of both faces.
fans = _init.fans
fan_in_bias_ = _init.fan_in_bias_
ms_init = _init.weight_init
uniform_ = _init.fills.uniform_
normal_ = _init.fills.normal_
fill_ = _init.fills.constant_
xavier_uniform_ = _init.fills.xavier_uniform_


kaiming_uniform_ = _init.fills.kaiming_uniform_


inplace_result = maybe_inplace  # the inplace=True forms of activation and dropout layers
