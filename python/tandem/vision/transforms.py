"""torchvision.transforms for tandem tensors: images are (C, H, W) or (H, W) tensors (uint8
or float); ToTensor turns a uint8 (H, W[, C]) image into float32 (C, H, W) in [0, 1].

Inside tandem.utils.data.DataLoader these run as C++ transforms on the worker threads;
called directly they transform one tensor or numpy array. Resize is bilinear without
antialiasing (torchvision's antialias=False; identical when enlarging); uint8 stays uint8.
"""
from __future__ import annotations

from typing import Callable, Sequence, Union

from .. import _C
from .._data.common import Compose as _Compose, TransformOp, c_chain, pair, padding_arg, resize_args

__all__ = ["Compose", "Resize", "ToTensor", "Normalize", "RandomCrop", "RandomHorizontalFlip",
           "CenterCrop", "Lambda", "InterpolationMode"]


class InterpolationMode:
    BILINEAR = "bilinear"


class Compose(_Compose):
    """Applies transforms in order (torchvision.transforms.Compose); other callables among
    them run through Python."""

    def __init__(self, transforms: Sequence[Callable]):
        super().__init__(transforms, allow_empty=True)


class Lambda(TransformOp):
    """A user function as a transform (runs with the GIL held)."""

    def __init__(self, lambd: Callable):
        if not callable(lambd):
            raise TypeError(f"Lambda: argument should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def _c_transforms(self):
        return c_chain([self.lambd])

    def __call__(self, img):
        return self.lambd(img)


class ToTensor(TransformOp):
    """uint8 (H, W) or (H, W, C) -> float32 (C, H, W) / 255 (other dtypes: converted only)."""

    def _c_transforms(self):
        return [_C.t_to_tensor()]


class Resize(TransformOp):
    """Resizes the last two dims to size (h, w); an int matches the shorter edge to it."""

    def __init__(self, size: Union[int, Sequence[int]], interpolation=InterpolationMode.BILINEAR,
                 max_size=None, antialias=None):
        if interpolation != InterpolationMode.BILINEAR:
            raise NotImplementedError(f"Resize: only bilinear interpolation is implemented, "
                                      f"got {interpolation!r}")
        if max_size is not None:
            raise NotImplementedError("Resize: max_size is not implemented")
        self.size = size
        self._hw = resize_args(size, "Resize")

    def _c_transforms(self):
        return [_C.t_resize(*self._hw, hwc=False)]


class Normalize(TransformOp):
    """(x - mean[c]) / std[c] over the channel dim of a (C, H, W) float tensor."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False):
        self.mean, self.std = [float(m) for m in mean], [float(s) for s in std]
        self._c = _C.t_normalize(self.mean, self.std, hwc=False)

    def _c_transforms(self):
        return [self._c]


class CenterCrop(TransformOp):
    """Crops size at the centre (offset round((H - h) / 2)); smaller images are zero-padded."""

    def __init__(self, size: Union[int, Sequence[int]]):
        self.size = size
        self._hw = pair(size, "CenterCrop")

    def _c_transforms(self):
        return [_C.t_center_crop(*self._hw, hwc=False, mindspore_style=False)]


class RandomCrop(TransformOp):
    """Zero-pads by padding (int, (left/right, top/bottom) or (left, top, right, bottom)), then
    crops size at a uniformly random position."""

    _random = True

    def __init__(self, size: Union[int, Sequence[int]], padding=None, pad_if_needed: bool = False,
                 fill=0, padding_mode: str = "constant"):
        if pad_if_needed or fill != 0 or padding_mode != "constant":
            raise NotImplementedError("RandomCrop: only constant zero padding given by padding "
                                      "is implemented")
        self.size, self.padding = size, padding
        self._hw = pair(size, "RandomCrop")
        self._pad = padding_arg(padding, "RandomCrop")

    def _c_transforms(self):
        return [_C.t_random_crop(*self._hw, self._pad, hwc=False)]


class RandomHorizontalFlip(TransformOp):
    """Flips the last dim with probability p."""

    _random = True

    def __init__(self, p: float = 0.5):
        self.p = float(p)
        self._c = _C.t_random_horizontal_flip(self.p, hwc=False)

    def _c_transforms(self):
        return [self._c]
