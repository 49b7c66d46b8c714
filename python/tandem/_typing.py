"""Type aliases of the public API (used by the generated op functions and the stubs)."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from ._C import Tensor, dtype

DType = dtype
#: A Python number where an op accepts a scalar.
Number = Union[int, float, bool]
#: An operand: a tensor or a Python number (wrapped as a 0-d tensor of the other operand's kind).
TensorLike = Union[Tensor, int, float, bool]
#: A dimension argument: one dim, several dims, or None for all.
Dim = Optional[Union[int, Sequence[int]]]
#: A shape: one int or a sequence of ints.
Size = Union[int, Sequence[int]]
#: A kernel size, stride, padding or dilation: one int for every spatial dim, or one per dim.
IntOrTuple = Union[int, Sequence[int]]

__all__ = ["Tensor", "DType", "Number", "TensorLike", "Dim", "Size", "IntOrTuple", "Optional",
           "Sequence", "Tuple", "Union"]
