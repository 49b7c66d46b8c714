"""mindspore.dataset.vision: image transforms for (H, W, C) or (H, W) images, as MindSpore's.

Each runs as a C++ transform inside the dataset's worker threads when used in
``Dataset.map``; called directly it transforms one numpy array or tensor (eager mode).
Resizing is bilinear with half-pixel centres (OpenCV's INTER_LINEAR geometry, computed in
float and rounded for uint8, so a uint8 result may differ from OpenCV's fixed-point one by 1).
"""
from __future__ import annotations

from typing import Sequence, Union

from .. import _C
from .._data.common import TransformOp, pair, padding_arg, resize_args

__all__ = ["Resize", "Rescale", "Normalize", "HWC2CHW", "ToTensor", "RandomCrop",
           "RandomHorizontalFlip", "CenterCrop", "Inter"]


class Inter:
    """Interpolation modes; only BILINEAR is implemented."""
    BILINEAR = LINEAR = "bilinear"


class Resize(TransformOp):
    """Resizes to size (h, w); an int resizes the shorter edge keeping the aspect ratio."""

    def __init__(self, size: Union[int, Sequence[int]], interpolation=Inter.LINEAR):
        if interpolation != Inter.BILINEAR:
            raise NotImplementedError(f"Resize: only Inter.BILINEAR is implemented, "
                                      f"got {interpolation!r}")
        self.size = size
        self._hw = resize_args(size, "Resize")

    def _c_transforms(self):
        return [_C.t_resize(*self._hw, hwc=True)]


class Rescale(TransformOp):
    """x * rescale + shift, as float32."""

    def __init__(self, rescale: float, shift: float):
        self.rescale, self.shift = float(rescale), float(shift)

    def _c_transforms(self):
        return [_C.t_rescale(self.rescale, self.shift)]


class Normalize(TransformOp):
    """(x - mean[c]) / std[c] per channel, as float32; channels last unless is_hwc=False."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True):
        self.mean, self.std, self.is_hwc = [float(m) for m in mean], [float(s) for s in std], is_hwc
        self._c = _C.t_normalize(self.mean, self.std, is_hwc)

    def _c_transforms(self):
        return [self._c]


class HWC2CHW(TransformOp):
    """(H, W, C) -> (C, H, W); (H, W) images pass unchanged."""

    def _c_transforms(self):
        return [_C.t_hwc2chw()]


class ToTensor(TransformOp):
    """uint8 (H, W, C) or (H, W) -> float32 (C, H, W) scaled to [0, 1] (other dtypes are only
    converted), then cast to output_type."""

    def __init__(self, output_type=None):
        from .._data.common import to_dtype
        self.output_type = output_type
        self._dtype = None if output_type is None else to_dtype(output_type)

    def _c_transforms(self):
        out = [_C.t_to_tensor()]
        if self._dtype is not None and self._dtype != _C.dtype.float32:
            out.append(_C.t_type_cast(self._dtype))
        return out


class CenterCrop(TransformOp):
    """Crops size at the centre (offset floor((H - h) / 2)); smaller images are zero-padded
    first, the odd pixel on top/left, as MindSpore does."""

    def __init__(self, size: Union[int, Sequence[int]]):
        self.size = size
        self._hw = pair(size, "CenterCrop")

    def _c_transforms(self):
        return [_C.t_center_crop(*self._hw, hwc=True, mindspore_style=True)]


class RandomCrop(TransformOp):
    """Zero-pads by padding (int, (left/right, top/bottom) or (left, top, right, bottom)), then
    crops size at a uniformly random position."""

    _random = True

    def __init__(self, size: Union[int, Sequence[int]], padding=None, pad_if_needed: bool = False,
                 fill_value: int = 0):
        if pad_if_needed or fill_value != 0:
            raise NotImplementedError("RandomCrop: pad_if_needed and a non-zero fill_value are "
                                      "not implemented; pass an explicit padding")
        self.size, self.padding = size, padding
        self._hw = pair(size, "RandomCrop")
        self._pad = padding_arg(padding, "RandomCrop")

    def _c_transforms(self):
        return [_C.t_random_crop(*self._hw, self._pad, hwc=True)]


class RandomHorizontalFlip(TransformOp):
    """Flips the width dim with probability prob."""

    _random = True

    def __init__(self, prob: float = 0.5):
        self.prob = float(prob)
        self._c = _C.t_random_horizontal_flip(self.prob, hwc=True)

    def _c_transforms(self):
        return [self._c]
