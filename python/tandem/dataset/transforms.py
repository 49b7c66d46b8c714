"""mindspore.dataset.transforms: Compose and TypeCast."""
from __future__ import annotations

from typing import Sequence

from .. import _C
from ._common import TransformOp, c_chain, to_dtype

__all__ = ["Compose", "TypeCast"]


class Compose(TransformOp):
    """Applies transforms in order. Built-in ones stay C++ transforms inside the Loader;
    Python callables among them are called with the GIL held."""

    def __init__(self, transforms: Sequence):
        if callable(transforms) and not isinstance(transforms, (list, tuple)):
            transforms = [transforms]
        self.transforms = list(transforms)
        if not self.transforms:
            raise ValueError("Compose: needs at least one transform")
        c_chain(self.transforms)  # validates early

    @property
    def _random(self):
        return any(t._random for t in self.transforms if isinstance(t, TransformOp))

    def _c_transforms(self):
        return c_chain(self.transforms)

    def __call__(self, img):
        if all(isinstance(t, TransformOp) for t in self.transforms):
            return super().__call__(img)
        for t in self.transforms:  # mixed: let each step keep its own input/output kind
            img = t(img)
        return img


class TypeCast(TransformOp):
    """Casts to data_type (a tandem dtype, numpy dtype or name)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._dtype = to_dtype(data_type)

    def _c_transforms(self):
        return [_C.t_type_cast(self._dtype)]
