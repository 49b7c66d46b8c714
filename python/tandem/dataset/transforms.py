"""mindspore.dataset.transforms: Compose and TypeCast."""
from __future__ import annotations

from typing import Sequence

from .. import _C
from .._data.common import Compose as _Compose, TransformOp, to_dtype

__all__ = ["Compose", "TypeCast"]


class Compose(_Compose):
    """Applies transforms in order (mindspore.dataset.transforms.Compose): a list of
    transforms, or one callable; at least one."""

    def __init__(self, transforms: Sequence):
        super().__init__(transforms, allow_empty=False)


class TypeCast(TransformOp):
    """Casts to data_type (a tandem dtype, numpy dtype or name)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._dtype = to_dtype(data_type)

    def _c_transforms(self):
        return [_C.t_type_cast(self._dtype)]
