"""mindspore.dataset.vision: image transforms for (H, W, C) or (H, W) images, as MindSpore's.

Resize, Rescale, Normalize, HWC2CHW, ToTensor, CenterCrop, RandomCrop and
RandomHorizontalFlip run as C++ transforms inside the dataset's worker threads when used in
``Dataset.map``; the others are computed in numpy (see _image_ops; the random ones run on
the pipeline's consuming thread, seeded per row). Called directly a transform transforms
one numpy array or tensor (eager mode).
Resizing is bilinear with half-pixel centres (OpenCV's INTER_LINEAR geometry, computed in
float and rounded for uint8, so a uint8 result may differ from OpenCV's fixed-point one by 1).
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

from .. import _C
from .._data.common import TransformOp, pair, padding_arg, resize_args
from ._image_ops import (AutoContrast, Equalize, Inter, Invert, RandomAffine, RandomColor,
                         RandomColorAdjust, RandomPosterize, RandomRotation, RandomSharpness,
                         RandomSolarize, RandomVerticalFlip)
from ._pyops import RandomSelectSubpolicy

__all__ = ["Resize", "Rescale", "Normalize", "HWC2CHW", "ToTensor", "RandomCrop",
           "RandomHorizontalFlip", "CenterCrop", "Inter", "RandomVerticalFlip", "Invert",
           "Equalize", "AutoContrast", "RandomPosterize", "RandomSolarize", "RandomColor",
           "RandomSharpness", "RandomColorAdjust", "RandomRotation", "RandomAffine",
           "RandomSelectSubpolicy"]


class Resize(TransformOp):
    """Resizes an (H, W, C) or (H, W) image (bilinear).

    Args:
        size (Union[int, Sequence[int]]): (h, w), or an int the shorter edge is resized to
            (keeping the aspect ratio).
        interpolation (Inter): only ``Inter.BILINEAR`` / ``Inter.LINEAR``.
            Default: ``Inter.LINEAR`` .
    """

    def __init__(self, size: Union[int, Sequence[int]], interpolation: str = Inter.LINEAR) -> None:
        if interpolation != Inter.BILINEAR:
            raise NotImplementedError(f"Resize: only Inter.BILINEAR is implemented, "
                                      f"got {interpolation!r}")
        self.size = size
        self._hw = resize_args(size, "Resize")

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_resize(*self._hw, hwc=True)]


class Rescale(TransformOp):
    """x * rescale + shift, as float32 (e.g. ``Rescale(1 / 255, 0)`` maps uint8 to [0, 1]).

    Args:
        rescale (float): the scale factor.
        shift (float): the offset added after scaling.
    """

    def __init__(self, rescale: float, shift: float) -> None:
        self.rescale, self.shift = float(rescale), float(shift)

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_rescale(self.rescale, self.shift)]


class Normalize(TransformOp):
    """(x - mean[c]) / std[c] per channel, as float32.

    Args:
        mean (Sequence[float]): the mean of each channel.
        std (Sequence[float]): the standard deviation of each channel.
        is_hwc (bool): the channels are the last dim (HWC); ``False`` for CHW.
            Default: ``True`` .
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        self.mean, self.std, self.is_hwc = [float(m) for m in mean], [float(s) for s in std], is_hwc
        self._c = _C.t_normalize(self.mean, self.std, is_hwc)

    def _c_transforms(self) -> List[_C.Transform]:
        return [self._c]


class HWC2CHW(TransformOp):
    """Moves the channels first: (H, W, C) -> (C, H, W); (H, W) images pass unchanged."""

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_hwc2chw()]


class ToTensor(TransformOp):
    """Converts a uint8 (H, W, C) or (H, W) image to float32 (C, H, W) scaled to [0, 1]
    (other dtypes are only moved to channels-first), then casts it to `output_type`.

    Args:
        output_type (Union[mindspore.dtype, numpy.dtype, str], optional): the result's dtype
            (float32 when ``None``). Default: ``None`` .
    """

    def __init__(self, output_type: Optional[Any] = None) -> None:
        from .._data.common import to_dtype
        self.output_type = output_type
        self._dtype = None if output_type is None else to_dtype(output_type)

    def _c_transforms(self) -> List[_C.Transform]:
        out = [_C.t_to_tensor()]
        if self._dtype is not None and self._dtype != _C.dtype.float32:
            out.append(_C.t_type_cast(self._dtype))
        return out


class CenterCrop(TransformOp):
    """Crops the centre (offset floor((H - h) / 2)); smaller images are zero-padded first,
    the odd pixel on top / left, as MindSpore does.

    Args:
        size (Union[int, Sequence[int]]): (h, w) of the crop, or one int for a square.
    """

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        self.size = size
        self._hw = pair(size, "CenterCrop")

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_center_crop(*self._hw, hwc=True, mindspore_style=True)]


class RandomCrop(TransformOp):
    """Zero-pads, then crops at a uniformly random position.

    Args:
        size (Union[int, Sequence[int]]): (h, w) of the crop, or one int for a square.
        padding (Union[int, Sequence[int]], optional): zeros added first: an int for every
            side, (left/right, top/bottom) or (left, top, right, bottom). Default: ``None`` .
        pad_if_needed (bool): not supported (must be ``False``). Default: ``False`` .
        fill_value (int): the padding value; only 0. Default: ``0`` .
    """

    _random = True

    def __init__(self, size: Union[int, Sequence[int]],
                 padding: Optional[Union[int, Sequence[int]]] = None, pad_if_needed: bool = False,
                 fill_value: int = 0) -> None:
        if pad_if_needed or fill_value != 0:
            raise NotImplementedError("RandomCrop: pad_if_needed and a non-zero fill_value are "
                                      "not implemented; pass an explicit padding")
        self.size, self.padding = size, padding
        self._hw = pair(size, "RandomCrop")
        self._pad = padding_arg(padding, "RandomCrop")

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_random_crop(*self._hw, self._pad, hwc=True)]


class RandomHorizontalFlip(TransformOp):
    """Flips the width dim with probability `prob`.

    Args:
        prob (float): the probability of a flip. Default: ``0.5`` .
    """

    _random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = float(prob)
        self._c = _C.t_random_horizontal_flip(self.prob, hwc=True)

    def _c_transforms(self) -> List[_C.Transform]:
        return [self._c]
