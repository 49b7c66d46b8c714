"""mindspore.dataset.transforms: Compose, TypeCast, RandomApply, RandomChoice, Fill and
OneHot."""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Union

from .. import _C
from .._data.common import Compose as _Compose, TransformOp, to_dtype
from ._pyops import Fill, OneHot, RandomApply, RandomChoice

__all__ = ["Compose", "TypeCast", "RandomApply", "RandomChoice", "Fill", "OneHot"]


class Compose(_Compose):
    """Applies transforms in order (mindspore.dataset.transforms.Compose).

    Args:
        transforms (Union[list, Callable]): a list of transforms (at least one), or one
            callable.
    """

    def __init__(self, transforms: Union[Sequence[Callable[..., Any]], Callable[..., Any]]) -> None:
        super().__init__(transforms, allow_empty=False)


class TypeCast(TransformOp):
    """Casts each value to a dtype.

    Args:
        data_type (Union[mindspore.dtype, numpy.dtype, str]): the target: a tandem dtype, a
            numpy dtype or type, or a name such as ``'float32'``.
    """

    def __init__(self, data_type: Any) -> None:
        self.data_type = data_type
        self._dtype = to_dtype(data_type)

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_type_cast(self._dtype)]
