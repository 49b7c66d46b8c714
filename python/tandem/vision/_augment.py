"""torchvision's random augmentations that tandem has no C++ transform for
(RandomResizedCrop, ColorJitter, RandomVerticalFlip), on numpy: they accept a (C, H, W) /
(H, W) tensor or numpy array, or a PIL image, and return the same kind. Inside a DataLoader
they run through the Python transform wrapper. Their randomness comes from a seed drawn from
tandem's global generator, so tandem.manual_seed repeats them."""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _C
from .._data.common import TransformOp, c_chain, draw_seed, pair


def _is_pil(img: Any) -> bool:
    return type(img).__module__.startswith("PIL.")


def _to_hwc(img: Any) -> Tuple[np.ndarray, str]:
    """img as a float array (H, W, C) and how to give it back."""
    if _is_pil(img):
        a = np.asarray(img)
        kind = "pil"
    elif isinstance(img, _C.Tensor):
        a, kind = img.numpy(), "tensor"
    else:
        a, kind = np.asarray(img), "numpy"
    if kind == "pil":
        return (a[..., None] if a.ndim == 2 else a), kind + ("2" if a.ndim == 2 else "")
    if a.ndim == 2:
        return a[..., None], kind + "2"
    return np.moveaxis(a, 0, -1), kind  # (C, H, W) -> (H, W, C)


def _back(a: np.ndarray, kind: str, like: Any) -> Any:
    if kind.startswith("pil"):
        from PIL import Image
        a = a[..., 0] if kind == "pil2" else a
        return Image.fromarray(np.ascontiguousarray(a).astype(np.uint8), mode=None)
    a = a[..., 0] if kind.endswith("2") else np.moveaxis(a, -1, 0)
    a = np.ascontiguousarray(a)
    return _C.from_numpy(a) if kind.startswith("tensor") else a


def _size_hw(img: Any) -> Tuple[int, int]:
    if _is_pil(img):
        return img.size[1], img.size[0]
    shape = img.shape
    return int(shape[-2]), int(shape[-1])


class _NumpyTransform(TransformOp):
    _random = True

    def _c_transforms(self) -> List[_C.Transform]:
        return c_chain([self._apply_seeded])

    def _apply_seeded(self, img: Any) -> Any:
        return self._apply(img, np.random.default_rng(draw_seed()))

    def _apply(self, img: Any, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def __call__(self, img: Any) -> Any:
        """Applies the transform to one image.

        Args:
            img (Tensor, numpy.ndarray or PIL.Image): the image, channels first for arrays.

        Returns:
            Tensor, numpy.ndarray or PIL.Image: the transformed image, of img's kind.
        """
        return self._apply_seeded(img)


class RandomVerticalFlip(_NumpyTransform):
    """Flips the image upside down with probability p.

    Args:
        p (float): the probability of a flip. Default: ``0.5``.
    """

    def __init__(self, p: float = 0.5) -> None:
        self.p = float(p)

    def _apply(self, img: Any, rng: np.random.Generator) -> Any:
        if rng.random() >= self.p:
            return img
        a, kind = _to_hwc(img)
        return _back(a[::-1], kind, img)


def _resize_hwc(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resize (half-pixel centres, as torchvision without antialiasing)."""
    H, W = a.shape[:2]
    if (H, W) == (h, w):
        return a
    ys = np.clip((np.arange(h) + 0.5) * H / h - 0.5, 0, H - 1)
    xs = np.clip((np.arange(w) + 0.5) * W / w - 0.5, 0, W - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    wy, wx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    f = a.astype(np.float64)
    top = f[y0][:, x0] * (1 - wx) + f[y0][:, x1] * wx
    bot = f[y1][:, x0] * (1 - wx) + f[y1][:, x1] * wx
    out = top * (1 - wy) + bot * wy
    res: np.ndarray = (np.clip(np.rint(out), 0, 255).astype(np.uint8) if a.dtype == np.uint8
                       else out.astype(a.dtype))
    return res


class RandomResizedCrop(_NumpyTransform):
    """Crops a random region (area fraction in ``scale``, aspect ratio in ``ratio``), then
    resizes it to ``size`` (bilinear), as torchvision's RandomResizedCrop.

    Args:
        size (int or Sequence[int]): (h, w) of the output, or one int for a square.
        scale (tuple[float, float]): range of the crop's area fraction. Default: ``(0.08, 1.0)``.
        ratio (tuple[float, float]): range of the crop's aspect ratio w / h.
            Default: ``(3/4, 4/3)``.
        interpolation (str): only 'bilinear'. Default: ``'bilinear'``.
        antialias (bool, optional): accepted (no antialiasing). Default: ``True``.
    """

    def __init__(self, size: Union[int, Sequence[int]], scale: Tuple[float, float] = (0.08, 1.0),
                 ratio: Tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
                 interpolation: str = "bilinear", antialias: Optional[bool] = True) -> None:
        if interpolation != "bilinear":
            raise NotImplementedError(f"RandomResizedCrop: only bilinear interpolation is "
                                      f"implemented, got {interpolation!r}")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError(f"RandomResizedCrop: scale and ratio must be (min, max), got "
                             f"scale={scale}, ratio={ratio}")
        self.size, self.scale, self.ratio = size, tuple(scale), tuple(ratio)
        self._hw = pair(size, "RandomResizedCrop")

    def _box(self, H: int, W: int, rng: np.random.Generator) -> Tuple[int, int, int, int]:
        area = H * W
        log_r = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            target = area * rng.uniform(self.scale[0], self.scale[1])
            ar = math.exp(rng.uniform(*log_r))
            w = int(round(math.sqrt(target * ar)))
            h = int(round(math.sqrt(target / ar)))
            if 0 < w <= W and 0 < h <= H:
                i = int(rng.integers(0, H - h + 1))
                j = int(rng.integers(0, W - w + 1))
                return i, j, h, w
        in_ratio = W / H  # fallback: the central crop with the closest allowed ratio
        if in_ratio < self.ratio[0]:
            w, h = W, int(round(W / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            h, w = H, int(round(H * self.ratio[1]))
        else:
            w, h = W, H
        return (H - h) // 2, (W - w) // 2, h, w

    def _apply(self, img: Any, rng: np.random.Generator) -> Any:
        a, kind = _to_hwc(img)
        i, j, h, w = self._box(a.shape[0], a.shape[1], rng)
        out = _resize_hwc(a[i:i + h, j:j + w], *self._hw)
        return _back(out, kind, img)


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx, mn = rgb.max(-1), rgb.min(-1)
    d = mx - mn
    h = np.zeros_like(mx)
    safe = np.where(d == 0, 1, d)
    h = np.where(mx == r, ((g - b) / safe) % 6, h)
    h = np.where(mx == g, (b - r) / safe + 2, h)
    h = np.where(mx == b, (r - g) / safe + 4, h)
    h = np.where(d == 0, 0, h) / 6.0
    s = np.where(mx == 0, 0, d / np.where(mx == 0, 1, mx))
    return np.stack([h % 1.0, s, mx], -1)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    conds = [i == k for k in range(6)]
    r = np.select(conds, [v, q, p, p, t, v])
    g = np.select(conds, [t, v, v, q, p, p])
    b = np.select(conds, [p, p, t, v, v, q])
    return np.stack([r, g, b], -1)


def _factor(value: Any, name: str, center: float = 1.0, bound: Tuple[float, float] = (0, math.inf)) -> Optional[Tuple[float, float]]:
    if value is None:
        return None
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"ColorJitter: {name} must be non-negative, got {value}")
        lo, hi = center - value, center + value
        lo = max(lo, bound[0]) if center == 1.0 else lo
    else:
        lo, hi = float(value[0]), float(value[1])
    if not (bound[0] <= lo <= hi <= bound[1]):
        raise ValueError(f"ColorJitter: {name} range {(lo, hi)} is outside {bound}")
    return None if lo == hi == center else (lo, hi)


class ColorJitter(_NumpyTransform):
    """Randomly changes brightness, contrast, saturation and hue, in a random order, as
    torchvision's ColorJitter (images are RGB; float images in [0, 1], uint8 in [0, 255]).

    Args:
        brightness (float or tuple): factor range [max(0, 1 - b), 1 + b] (or (min, max)).
            Default: ``0``.
        contrast (float or tuple): as brightness. Default: ``0``.
        saturation (float or tuple): as brightness. Default: ``0``.
        hue (float or tuple): shift range [-h, h] of the hue, with h <= 0.5. Default: ``0``.
    """

    def __init__(self, brightness: Any = 0, contrast: Any = 0, saturation: Any = 0,
                 hue: Any = 0) -> None:
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._b = _factor(brightness, "brightness")
        self._c = _factor(contrast, "contrast")
        self._s = _factor(saturation, "saturation")
        self._h = _factor(hue, "hue", center=0.0, bound=(-0.5, 0.5))

    def _apply(self, img: Any, rng: np.random.Generator) -> Any:
        a, kind = _to_hwc(img)
        uint8 = a.dtype == np.uint8
        x = a.astype(np.float64) / 255.0 if uint8 else a.astype(np.float64)
        for k in rng.permutation(4):
            rng_ = (self._b, self._c, self._s, self._h)[k]
            if rng_ is None:
                continue
            f = rng.uniform(*rng_)
            gray = (0.299 * x[..., 0] + 0.587 * x[..., 1] + 0.114 * x[..., 2])[..., None] \
                if x.shape[-1] == 3 else x
            if k == 0:
                x = np.clip(x * f, 0, 1)
            elif k == 1:
                x = np.clip(f * x + (1 - f) * gray.mean(), 0, 1)
            elif k == 2:
                x = np.clip(f * x + (1 - f) * gray, 0, 1)
            elif x.shape[-1] == 3:
                hsv = _rgb_to_hsv(x)
                hsv[..., 0] = (hsv[..., 0] + f) % 1.0
                x = _hsv_to_rgb(hsv)
        out = np.clip(np.rint(x * 255), 0, 255).astype(np.uint8) if uint8 else x.astype(a.dtype)
        return _back(out, kind, img)
