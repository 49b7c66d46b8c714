"""Parameter initialisation, once for both faces: the PyTorch-named fills (``fills``, over
the C++ fills in tandem._C.init), MindSpore's Initializer classes (``initializers``), and what
the layers of both faces use for their default and ``weight_init=`` initialisation."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np

from .. import _C
from . import fills, initializers

Tensor = _C.Tensor
_T = TypeVar("_T", bound=Tensor)

#: What a MindSpore ``weight_init=`` / ``bias_init=`` accepts: an initializer name, a number,
#: an Initializer, a Tensor or array of the right shape, or a callable filling a tensor.
InitSpec = Union[str, int, float, "initializers.Initializer", Tensor, np.ndarray,
                 Callable[[Tensor], Any]]


def fans(shape: Sequence[int]) -> Tuple[int, int]:
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel)."""
    return initializers._fans(tuple(shape))


def fan_in_bias_(bias: _T, fan_in: int) -> _T:
    """PyTorch's (and MindSpore's) bias default: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    return fills.uniform_(bias, -bound, bound)


def weight_init(init: InitSpec, shape: Sequence[int], dtype: Optional[_C.dtype] = None) -> Tensor:
    """A tensor of `shape` from a MindSpore-style ``weight_init`` / ``bias_init``: an
    initializer name ('zeros', 'ones', 'normal', 'uniform', 'he_uniform', 'he_normal',
    'xavier_uniform', 'truncatedNormal', ... as ``initializer()`` knows them), a number, an
    Initializer, a Tensor / array of that shape, or a callable that fills a tensor."""
    shape = tuple(int(s) for s in shape)
    if isinstance(init, Tensor) or hasattr(init, "__array__"):
        t: Tensor = init if isinstance(init, Tensor) else _C.Tensor(init, None)
        if tuple(t.shape) != shape:
            raise ValueError(f"initializer tensor has shape {tuple(t.shape)}, expected {shape}")
        return t.to(dtype) if dtype is not None else t.clone()
    if isinstance(init, (str, initializers.Initializer)) or (
            isinstance(init, (int, float)) and not isinstance(init, bool)):
        return initializers.initializer(init, shape, dtype)
    if callable(init):
        from ..autograd import no_grad
        t = _C.empty(shape, _C.dtype.float32 if dtype is None else dtype)
        with no_grad():
            init(t)
        return t
    raise TypeError(f"unsupported initializer {init!r}: use a name, a number or a Tensor")
