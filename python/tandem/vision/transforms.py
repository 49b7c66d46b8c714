"""torchvision.transforms for tandem tensors: images are (C, H, W) or (H, W) tensors (uint8
or float); ToTensor turns a uint8 (H, W[, C]) image into float32 (C, H, W) in [0, 1].

Inside tandem.utils.data.DataLoader these run as C++ transforms on the worker threads;
called directly they transform one tensor or numpy array. Resize is bilinear without
antialiasing (torchvision's antialias=False; identical when enlarging); uint8 stays uint8.
"""
from __future__ import annotations

import sys as _sys
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from .. import _C
from .._data.common import Compose as _Compose, TransformOp, c_chain, pair, padding_arg, resize_args

from . import transforms_functional as functional
from ._augment import ColorJitter, RandomResizedCrop, RandomVerticalFlip

# `import tandem.vision.transforms.functional` works as torchvision's does.
_sys.modules[__name__ + ".functional"] = functional

__all__ = ["Compose", "Resize", "ToTensor", "Normalize", "RandomCrop", "RandomHorizontalFlip",
           "CenterCrop", "Lambda", "InterpolationMode", "RandomResizedCrop", "ColorJitter",
           "RandomVerticalFlip", "functional"]


def _is_pil(img: Any) -> bool:
    return type(img).__module__.startswith("PIL.")


class _PILAware:
    """Built-in transforms called on a PIL image (torchvision's usual input) work on it as a
    (C, H, W) uint8 tensor and give a PIL image back, as torchvision does."""

    def __call__(self, img: Any) -> Any:
        """Applies the transform to one image.

        Args:
            img (Tensor, numpy.ndarray or PIL.Image): the image (arrays channels first).

        Returns:
            Any: the transformed image, of img's kind.
        """
        if not _is_pil(img):
            return super().__call__(img)  # type: ignore[misc]
        import numpy as np
        from PIL import Image
        a = np.asarray(img)
        from .io.image import hwc_to_chw
        out = super().__call__(hwc_to_chw(a)).numpy()  # type: ignore[misc]
        if out.dtype != np.uint8:
            return out  # e.g. Normalize: no longer an 8-bit image
        out = out[0] if a.ndim == 2 else np.moveaxis(out, 0, -1)
        return Image.fromarray(np.ascontiguousarray(out))


class InterpolationMode:
    """Interpolation modes (torchvision's enum); only BILINEAR is implemented."""

    BILINEAR = "bilinear"


class Compose(_Compose):
    """Applies transforms in order (torchvision.transforms.Compose); built-in ones run as C++
    transforms in the DataLoader's workers, other callables among them through Python.

    Args:
        transforms (Sequence[Callable]): the transforms, applied in order (may be empty).
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        super().__init__(transforms, allow_empty=True)

    def __call__(self, img: Any) -> Any:
        """Applies the transforms in order to one image.

        Args:
            img (Tensor, numpy.ndarray or PIL.Image): the image.

        Returns:
            Any: the last transform's output.
        """
        if _is_pil(img):  # each step keeps PIL in, PIL out (ToTensor ends it)
            for t in self.transforms:
                img = t(img)
            return img
        return super().__call__(img)


class Lambda(TransformOp):
    """A user function as a transform (runs with the GIL held).

    Args:
        lambd (Callable): called with the image; returns the transformed image.
    """

    def __init__(self, lambd: Callable[[Any], Any]) -> None:
        if not callable(lambd):
            raise TypeError(f"Lambda: argument should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def _c_transforms(self) -> List[_C.Transform]:
        return c_chain([self.lambd])

    def __call__(self, img: Any) -> Any:
        """Calls the function on `img`.

        Args:
            img (Any): the image.

        Returns:
            Any: what the function returns.
        """
        return self.lambd(img)


class ToTensor(TransformOp):
    """Converts a uint8 image (H, W) or (H, W, C) -- a tensor, a numpy array or a PIL image --
    to a float32 (C, H, W) tensor scaled to [0, 1] (other dtypes are only moved to
    channels-first). Like torchvision's, it always returns a Tensor."""

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_to_tensor()]

    def __call__(self, pic: Any) -> Any:
        """Converts one image.

        Args:
            pic (Tensor, numpy.ndarray or PIL.Image): the image, channels last.

        Returns:
            Tensor: float32 (C, H, W).
        """
        import numpy as np
        if not isinstance(pic, _C.Tensor):
            a = np.asarray(pic)
            if not a.flags.writeable or not a.flags.c_contiguous:
                a = np.ascontiguousarray(a).copy()
            pic = _C.from_numpy(a)
        return super().__call__(pic)


class Resize(_PILAware, TransformOp):
    """Resizes the last two dims (bilinear, without antialiasing).

    Args:
        size (int or Sequence[int]): (h, w), or an int the shorter edge is matched to
            (keeping the aspect ratio).
        interpolation (str): only ``InterpolationMode.BILINEAR``.
            Default: ``InterpolationMode.BILINEAR``.
        max_size (None): not supported (must be ``None``). Default: ``None``.
        antialias (bool, optional): accepted; resizing never antialiases (torchvision's
            ``antialias=False``). Default: ``None``.
    """

    def __init__(self, size: Union[int, Sequence[int]],
                 interpolation: str = InterpolationMode.BILINEAR,
                 max_size: Optional[int] = None, antialias: Optional[bool] = None) -> None:
        if interpolation != InterpolationMode.BILINEAR:
            raise NotImplementedError(f"Resize: only bilinear interpolation is implemented, "
                                      f"got {interpolation!r}")
        if max_size is not None:
            raise NotImplementedError("Resize: max_size is not implemented")
        self.size = size
        self._hw = resize_args(size, "Resize")

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_resize(*self._hw, hwc=False)]


class Normalize(TransformOp):
    """(x - mean[c]) / std[c] over the channel dim of a (C, H, W) float tensor.

    Args:
        mean (Sequence[float]): the mean of each channel.
        std (Sequence[float]): the standard deviation of each channel.
        inplace (bool): accepted for torchvision code (the result is a new tensor).
            Default: ``False``.
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        self.mean, self.std = [float(m) for m in mean], [float(s) for s in std]
        self._c = _C.t_normalize(self.mean, self.std, hwc=False)

    def _c_transforms(self) -> List[_C.Transform]:
        return [self._c]


class CenterCrop(_PILAware, TransformOp):
    """Crops the centre (offset round((H - h) / 2)); smaller images are zero-padded.

    Args:
        size (int or Sequence[int]): (h, w) of the crop, or one int for a square.
    """

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        self.size = size
        self._hw = pair(size, "CenterCrop")

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_center_crop(*self._hw, hwc=False, mindspore_style=False)]


class RandomCrop(_PILAware, TransformOp):
    """Zero-pads, then crops at a uniformly random position.

    Args:
        size (int or Sequence[int]): (h, w) of the crop, or one int for a square.
        padding (int or Sequence[int], optional): zeros added first: an int for every side,
            (left/right, top/bottom) or (left, top, right, bottom). Default: ``None``.
        pad_if_needed (bool): not supported (must be ``False``). Default: ``False``.
        fill (int): the padding value; only 0. Default: ``0``.
        padding_mode (str): only 'constant'. Default: ``'constant'``.
    """

    _random = True

    def __init__(self, size: Union[int, Sequence[int]],
                 padding: Optional[Union[int, Sequence[int]]] = None, pad_if_needed: bool = False,
                 fill: int = 0, padding_mode: str = "constant") -> None:
        if pad_if_needed or fill != 0 or padding_mode != "constant":
            raise NotImplementedError("RandomCrop: only constant zero padding given by padding "
                                      "is implemented")
        self.size, self.padding = size, padding
        self._hw = pair(size, "RandomCrop")
        self._pad = padding_arg(padding, "RandomCrop")

    @staticmethod
    def get_params(img: Any, output_size: Sequence[int]) -> Tuple[int, int, int, int]:
        """A random crop's rectangle, for ``functional.crop`` (to crop an image and its
        label map alike).

        Args:
            img (Tensor or PIL.Image): the image ((..., H, W) tensor or PIL image).
            output_size (Sequence[int]): (h, w) of the crop.

        Returns:
            tuple: (top, left, h, w).
        """
        W, H = functional.get_image_size(img)
        th, tw = int(output_size[0]), int(output_size[1])
        if H < th or W < tw:
            raise ValueError(f"RandomCrop.get_params: the crop {th} x {tw} is larger than "
                             f"the image, {H} x {W}")
        if (H, W) == (th, tw):
            return 0, 0, H, W
        from .. import mint
        i = int(mint.randint(0, H - th + 1, (1,)).item())
        j = int(mint.randint(0, W - tw + 1, (1,)).item())
        return i, j, th, tw

    def _c_transforms(self) -> List[_C.Transform]:
        return [_C.t_random_crop(*self._hw, self._pad, hwc=False)]


class RandomHorizontalFlip(_PILAware, TransformOp):
    """Flips the last dim (the width) with probability p.

    Args:
        p (float): the probability of a flip. Default: ``0.5``.
    """

    _random = True

    def __init__(self, p: float = 0.5) -> None:
        self.p = float(p)
        self._c = _C.t_random_horizontal_flip(self.p, hwc=False)

    def _c_transforms(self) -> List[_C.Transform]:
        return [self._c]
