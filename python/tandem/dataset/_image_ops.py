"""Image transforms of mindspore.dataset.vision computed in numpy (uint8 (H, W, C) RGB or
(H, W) images), with MindSpore's parameters and algorithms: the colour operations follow
its OpenCV / PIL based kernels (Equalize is OpenCV's equalizeHist, AutoContrast and
Sharpness PIL's), geometry maps every output pixel back through the inverse affine matrix
(nearest or bilinear, constant fill outside), as cv::warpAffine does. Rounding may differ
from OpenCV's fixed-point arithmetic by 1."""
from __future__ import annotations

import math
import numbers
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..vision._augment import _hsv_to_rgb, _rgb_to_hsv
from ._pyops import PyTransformOp, check_prob

_Range = Union[float, Sequence[float]]


class Inter:
    """Interpolation modes. Resize implements BILINEAR; RandomRotation and RandomAffine
    NEAREST and BILINEAR."""
    BILINEAR = LINEAR = "bilinear"
    NEAREST = "nearest"
    BICUBIC = CUBIC = "bicubic"
    AREA = "area"
    PILCUBIC = "pilcubic"
    ANTIALIAS = "antialias"


def _image(x: np.ndarray, name: str, rgb: bool = False) -> np.ndarray:
    if x.dtype != np.uint8:
        raise TypeError(f"{name}: expects a uint8 image, got dtype {x.dtype}")
    if x.ndim not in (2, 3) or (rgb and (x.ndim != 3 or x.shape[2] != 3)):
        raise ValueError(f"{name}: expects an {'(H, W, 3) RGB' if rgb else '(H, W) or (H, W, C)'}"
                         f" image, got shape {x.shape}")
    return x


def _to_u8(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(np.rint(x), 0, 255), dtype=np.uint8)


def _pair(v: Any, name: str, what: str, lo: float = -math.inf, hi: float = math.inf,
          sym: Optional[float] = None) -> Tuple[float, float]:
    """(min, max) from a sequence, or from a number v as (sym - v, sym + v) (clipped at lo)."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool) and sym is not None:
        if v < 0:
            raise ValueError(f"{name}: {what} must be non-negative, got {v}")
        r = (max(lo, sym - float(v)), sym + float(v))
    elif isinstance(v, (list, tuple)) and len(v) == 2 and \
            all(isinstance(e, numbers.Real) and not isinstance(e, bool) for e in v):
        r = (float(v[0]), float(v[1]))
    else:
        raise TypeError(f"{name}: {what} must be {'a number or ' if sym is not None else ''}"
                        f"a (min, max) pair, got {v!r}")
    if not lo <= r[0] <= r[1] <= hi:
        raise ValueError(f"{name}: {what} must satisfy {lo} <= min <= max <= {hi}, got {v!r}")
    return r


def _gray(img: np.ndarray) -> np.ndarray:
    """OpenCV's RGB -> gray (0.299 R + 0.587 G + 0.114 B, rounded)."""
    return np.asarray(np.rint(img[..., :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])))


def _blend(img: np.ndarray, other: np.ndarray, f: float) -> np.ndarray:
    """f * img + (1 - f) * other, saturated to uint8."""
    return _to_u8(img.astype(np.float64) * f + other * (1.0 - f))


def _per_channel(img: np.ndarray, fn: Any) -> np.ndarray:
    if img.ndim == 2:
        return np.asarray(fn(img))
    return np.stack([fn(img[..., c]) for c in range(img.shape[2])], axis=-1)


class RandomVerticalFlip(PyTransformOp):
    """Flips the image upside down with probability `prob`.

    Args:
        prob (float): the probability of a flip, in [0, 1]. Default: ``0.5`` .
    """

    _random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(prob, "RandomVerticalFlip")

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        return x[::-1].copy() if rng.random() < self.prob else x


class Invert(PyTransformOp):
    """Inverts a uint8 image: 255 - x."""

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        return 255 - _image(x, "Invert")


class Equalize(PyTransformOp):
    """Equalizes the histogram of each channel of a uint8 image (OpenCV's equalizeHist)."""

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        def eq(ch: np.ndarray) -> np.ndarray:
            h = np.bincount(ch.ravel(), minlength=256)
            first = int(np.flatnonzero(h)[0])
            if h[first] == ch.size:
                return np.full_like(ch, first)
            lut = np.rint((np.cumsum(h) - h[first]) * (255.0 / (ch.size - h[first])))
            lut[:first] = 0
            return np.asarray(lut.clip(0, 255).astype(np.uint8)[ch])
        return _per_channel(_image(x, "Equalize"), eq)


class AutoContrast(PyTransformOp):
    """Stretches each channel of a uint8 image to [0, 255] after cutting `cutoff` percent of
    the pixels off both ends of its histogram (PIL's autocontrast).

    Args:
        cutoff (float): the percent cut from each end, in [0, 50). Default: ``0.0`` .
        ignore (Union[int, Sequence[int]], optional): pixel values left out of the histogram.
            Default: ``None`` .
    """

    def __init__(self, cutoff: float = 0.0,
                 ignore: Optional[Union[int, Sequence[int]]] = None) -> None:
        if isinstance(cutoff, bool) or not isinstance(cutoff, numbers.Real) \
                or not 0 <= cutoff < 50:
            raise ValueError(f"AutoContrast: cutoff must be a number in [0, 50), got {cutoff!r}")
        ig = [] if ignore is None else [ignore] if isinstance(ignore, int) else list(ignore)
        if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= 255 for i in ig):
            raise ValueError(f"AutoContrast: ignore must be ints in [0, 255], got {ignore!r}")
        self.cutoff: float = float(cutoff)
        self.ignore = ignore
        self._ignore: List[int] = ig

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        def stretch(ch: np.ndarray) -> np.ndarray:
            h = np.bincount(ch.ravel(), minlength=256).astype(np.int64)
            h[self._ignore] = 0
            if self.cutoff:
                cut = int(h.sum() * self.cutoff // 100)
                for idx in (range(256), range(255, -1, -1)):
                    c = cut
                    for i in idx:
                        take = min(c, int(h[i]))
                        h[i] -= take
                        c -= take
                        if c <= 0:
                            break
            nz = np.flatnonzero(h)
            if not len(nz) or nz[-1] <= nz[0]:
                return ch
            lo, hi = int(nz[0]), int(nz[-1])
            scale = 255.0 / (hi - lo)
            lut = np.trunc(np.arange(256) * scale - lo * scale).clip(0, 255).astype(np.uint8)
            return np.asarray(lut[ch])
        return _per_channel(_image(x, "AutoContrast"), stretch)


class RandomPosterize(PyTransformOp):
    """Keeps the top `bits` bits of every uint8 pixel, bits drawn uniformly from the range.

    Args:
        bits (Union[int, Sequence[int]]): the bits kept, in [1, 8]: an int, or a (min, max)
            range. Default: ``(8, 8)`` .
    """

    _random = True

    def __init__(self, bits: Union[int, Sequence[int]] = (8, 8)) -> None:
        b = [bits] * 2 if isinstance(bits, int) and not isinstance(bits, bool) else bits
        if not isinstance(b, (list, tuple)) or len(b) != 2 or \
                any(isinstance(v, bool) or not isinstance(v, int) for v in b):
            raise TypeError(f"RandomPosterize: bits must be an int or a (min, max) pair of ints, "
                            f"got {bits!r}")
        if not 1 <= b[0] <= b[1] <= 8:
            raise ValueError(f"RandomPosterize: bits must satisfy 1 <= min <= max <= 8, got "
                             f"{bits!r}")
        self.bits = bits
        self._range = (int(b[0]), int(b[1]))

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        bits = int(rng.integers(self._range[0], self._range[1] + 1))
        return _image(x, "RandomPosterize") & np.uint8((0xFF << (8 - bits)) & 0xFF)


class RandomSolarize(PyTransformOp):
    """Inverts (255 - x) the pixels in a random [t1, t2] sub-range of `threshold` (both
    drawn uniformly; equal ones invert every pixel >= t1).

    Args:
        threshold (Sequence[int]): the (min, max) range, in [0, 255]. Default: ``(0, 255)`` .
    """

    _random = True

    def __init__(self, threshold: Sequence[int] = (0, 255)) -> None:
        lo, hi = _pair(threshold, "RandomSolarize", "threshold", 0, 255)
        self.threshold = threshold
        self._range = (int(lo), int(hi))

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        t1, t2 = sorted(int(v) for v in rng.integers(self._range[0], self._range[1] + 1, 2))
        x = _image(x, "RandomSolarize")
        mask = x >= t1 if t1 == t2 else (x >= t1) & (x <= t2)
        return np.where(mask, 255 - x, x).astype(np.uint8)


class RandomColor(PyTransformOp):
    """Blends an RGB image with its grayscale version: gray + f * (img - gray), f drawn
    uniformly from `degrees` (0 is gray, 1 the image).

    Args:
        degrees (Sequence[float]): the (min, max) range of f, non-negative.
            Default: ``(0.1, 1.9)`` .
    """

    _random = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = degrees
        self._range = _pair(degrees, "RandomColor", "degrees", 0)

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        x = _image(x, "RandomColor", rgb=True)
        return _blend(x, _gray(x)[..., None], rng.uniform(*self._range))


class RandomSharpness(PyTransformOp):
    """Blends a uint8 image with its smoothed version (3x3 kernel 1 1 1 / 1 5 1 / 1 1 1,
    borders kept): smooth + f * (img - smooth), f drawn uniformly from `degrees`.

    Args:
        degrees (Sequence[float]): the (min, max) range of f, non-negative.
            Default: ``(0.1, 1.9)`` .
    """

    _random = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = degrees
        self._range = _pair(degrees, "RandomSharpness", "degrees", 0)

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        x = _image(x, "RandomSharpness")
        f = rng.uniform(*self._range)
        smooth = x.astype(np.float64)
        if x.shape[0] > 2 and x.shape[1] > 2:
            a = smooth
            s = sum(a[1 + dy:a.shape[0] - 1 + dy, 1 + dx:a.shape[1] - 1 + dx]
                    for dy in (-1, 0, 1) for dx in (-1, 0, 1)) + 4 * a[1:-1, 1:-1]
            smooth = a.copy()
            smooth[1:-1, 1:-1] = np.rint(s / 13.0)
        return _blend(x, smooth, f)


class RandomColorAdjust(PyTransformOp):
    """Randomly changes brightness, contrast, saturation and hue, in a random order, each
    by a factor drawn uniformly from its range: brightness multiplies, contrast blends with
    the grayscale mean, saturation with the grayscale image, hue shifts the HSV hue by a
    fraction of the colour circle.

    Args:
        brightness (Union[float, Sequence[float]]): b (>= 0) for [max(0, 1 - b), 1 + b], or
            a (min, max) range. Default: ``(1, 1)`` .
        contrast (Union[float, Sequence[float]]): as brightness. Default: ``(1, 1)`` .
        saturation (Union[float, Sequence[float]]): as brightness. Default: ``(1, 1)`` .
        hue (Union[float, Sequence[float]]): h in [0, 0.5] for [-h, h], or a (min, max)
            range in [-0.5, 0.5]. Default: ``(0, 0)`` .
    """

    _random = True

    def __init__(self, brightness: _Range = (1, 1), contrast: _Range = (1, 1),
                 saturation: _Range = (1, 1), hue: _Range = (0, 0)) -> None:
        n = "RandomColorAdjust"
        self.brightness, self.contrast, self.saturation, self.hue = (brightness, contrast,
                                                                     saturation, hue)
        self._ranges = [_pair(brightness, n, "brightness", 0, sym=1.0),
                        _pair(contrast, n, "contrast", 0, sym=1.0),
                        _pair(saturation, n, "saturation", 0, sym=1.0),
                        _pair(hue, n, "hue", -0.5, 0.5, sym=0.0)]

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        x = _image(x, "RandomColorAdjust")
        rgb = x.ndim == 3 and x.shape[2] == 3
        for k in rng.permutation(4):
            lo, hi = self._ranges[k]
            if lo == hi == (0.0 if k == 3 else 1.0):
                continue
            f = rng.uniform(lo, hi)
            if k == 0:
                x = _to_u8(x * f)
            elif k == 1:
                mean = float(_gray(x).mean()) if rgb else float(np.rint(x).mean())
                x = _blend(x, np.full(x.shape, mean), f)
            elif not rgb:
                raise ValueError(f"RandomColorAdjust: saturation and hue need an (H, W, 3) RGB "
                                 f"image, got shape {x.shape}")
            elif k == 2:
                x = _blend(x, _gray(x)[..., None], f)
            else:
                hsv = _rgb_to_hsv(x.astype(np.float64) / 255.0)
                hsv[..., 0] = (hsv[..., 0] + f) % 1.0
                x = _to_u8(_hsv_to_rgb(hsv) * 255.0)
        return x


def _fill(fill_value: Union[int, Sequence[int]], name: str) -> Tuple[int, ...]:
    fv = (fill_value,) if isinstance(fill_value, int) else tuple(fill_value)
    if len(fv) not in (1, 3) or any(isinstance(v, bool) or not isinstance(v, int)
                                    or not 0 <= v <= 255 for v in fv):
        raise ValueError(f"{name}: fill_value must be an int or 3 ints in [0, 255], got "
                         f"{fill_value!r}")
    return fv


def _resample(resample: str, name: str) -> str:
    if resample not in (Inter.NEAREST, Inter.BILINEAR):
        raise NotImplementedError(f"{name}: only Inter.NEAREST and Inter.BILINEAR are "
                                  f"implemented, got {resample!r}")
    return resample


def _invert(m: np.ndarray) -> np.ndarray:
    """The inverse of a 2x3 affine matrix."""
    full = np.vstack([m, [0.0, 0.0, 1.0]])
    return np.linalg.inv(full)[:2]


def warp(img: np.ndarray, inv: np.ndarray, out_hw: Tuple[int, int], resample: str,
         fill: Tuple[int, ...]) -> np.ndarray:
    """Output pixel (x, y) samples the input at inv @ (x, y, 1); outside it is `fill`."""
    h, w = img.shape[:2]
    src = img if img.ndim == 3 else img[..., None]
    fillv = np.broadcast_to(np.asarray(fill, np.float64), (src.shape[2],))
    ys, xs = np.mgrid[0:out_hw[0], 0:out_hw[1]].astype(np.float64)
    sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]

    def gather(ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
        ok = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        vals = src[iy.clip(0, h - 1), ix.clip(0, w - 1)].astype(np.float64)
        return np.where(ok[..., None], vals, fillv)

    if resample == Inter.NEAREST:
        out = gather(np.floor(sx + 0.5).astype(np.int64), np.floor(sy + 0.5).astype(np.int64))
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        out = ((gather(x0, y0) * (1 - fx) + gather(x0 + 1, y0) * fx) * (1 - fy)
               + (gather(x0, y0 + 1) * (1 - fx) + gather(x0 + 1, y0 + 1) * fx) * fy)
    out = _to_u8(out) if img.dtype == np.uint8 else out.astype(img.dtype)
    return out if img.ndim == 3 else out[..., 0]


def _degrees(degrees: Any, name: str) -> Tuple[float, float]:
    return _pair(degrees, name, "degrees", sym=0.0)


class RandomRotation(PyTransformOp):
    """Rotates the image counter-clockwise by an angle drawn uniformly from `degrees`.

    Args:
        degrees (Union[float, Sequence[float]]): d (>= 0) for [-d, d], or a (min, max)
            range.
        resample (str): ``Inter.NEAREST`` or ``Inter.BILINEAR``. Default: ``Inter.NEAREST`` .
        expand (bool): enlarge the output to hold the whole rotated image (about its
            centre). Default: ``False`` .
        center (Sequence[float], optional): the (x, y) centre of rotation (the image's centre
            when ``None``). Default: ``None`` .
        fill_value (Union[int, Sequence[int]]): the value of pixels outside the input: an
            int, or one per RGB channel. Default: ``0`` .
    """

    _random = True

    def __init__(self, degrees: _Range, resample: str = Inter.NEAREST, expand: bool = False,
                 center: Optional[Sequence[float]] = None,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        n = "RandomRotation"
        self._range = _degrees(degrees, n)
        self.degrees, self.resample = degrees, _resample(resample, n)
        if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
            raise TypeError(f"{n}: center must be an (x, y) pair, got {center!r}")
        self.expand, self.center = bool(expand), center
        self.fill_value = fill_value
        self._fill = _fill(fill_value, n)

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        h, w = x.shape[:2]
        angle = math.radians(rng.uniform(*self._range))
        cx, cy = self.center if self.center is not None else ((w - 1) / 2.0, (h - 1) / 2.0)
        a, b = math.cos(angle), math.sin(angle)
        m = np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])
        out_hw = (h, w)
        if self.expand:
            bw, bh = abs(w * a) + abs(h * b), abs(w * b) + abs(h * a)
            m[0, 2] += bw / 2.0 - w / 2.0
            m[1, 2] += bh / 2.0 - h / 2.0
            out_hw = (int(round(bh)), int(round(bw)))
        return warp(x, _invert(m), out_hw, self.resample, self._fill)


class RandomAffine(PyTransformOp):
    """A random affine transformation about the image centre: rotation (degrees, clockwise),
    translation (fractions of the width / height), scale and shear (degrees), each drawn
    uniformly from its range.

    Args:
        degrees (Union[float, Sequence[float]]): d (>= 0) for [-d, d], or a (min, max)
            range.
        translate (Sequence[float], optional): (tx_min, tx_max) or (tx_min, tx_max, ty_min,
            ty_max), in [-1, 1]. Default: ``None`` .
        scale (Sequence[float], optional): the (min, max) scale, positive. Default: ``None`` .
        shear (Union[float, Sequence[float]], optional): s for an x shear in [-s, s],
            (min, max) for x, or (x_min, x_max, y_min, y_max). Default: ``None`` .
        resample (str): ``Inter.NEAREST`` or ``Inter.BILINEAR``. Default: ``Inter.NEAREST`` .
        fill_value (Union[int, Sequence[int]]): the value of pixels outside the input.
            Default: ``0`` .
    """

    _random = True

    def __init__(self, degrees: _Range, translate: Optional[Sequence[float]] = None,
                 scale: Optional[Sequence[float]] = None,
                 shear: Optional[_Range] = None, resample: str = Inter.NEAREST,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        n = "RandomAffine"
        self._deg = _degrees(degrees, n)
        self._tr = self._ranges(translate, n, "translate", -1.0, 1.0)
        self._scale = (1.0, 1.0) if scale is None else _pair(scale, n, "scale", 0.0)
        if self._scale[0] <= 0:
            raise ValueError(f"{n}: scale must be positive, got {scale!r}")
        if isinstance(shear, numbers.Real) and not isinstance(shear, bool):
            shear = [-float(shear), float(shear)]
        self._shear = self._ranges(shear, n, "shear", -180.0, 180.0)
        self.degrees, self.translate, self.scale, self.shear = degrees, translate, scale, shear
        self.resample = _resample(resample, n)
        self.fill_value = fill_value
        self._fill = _fill(fill_value, n)

    @staticmethod
    def _ranges(v: Any, n: str, what: str, lo: float, hi: float) -> List[Tuple[float, float]]:
        if v is None:
            return [(0.0, 0.0), (0.0, 0.0)]
        if not isinstance(v, (list, tuple)) or len(v) not in (2, 4):
            raise TypeError(f"{n}: {what} must be a sequence of 2 or 4 numbers, got {v!r}")
        x = _pair(list(v[:2]), n, what, lo, hi)
        return [x, _pair(list(v[2:]), n, what, lo, hi) if len(v) == 4 else (0.0, 0.0)]

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        h, w = x.shape[:2]
        angle = math.radians(rng.uniform(*self._deg))
        tx = round(rng.uniform(*self._tr[0]) * w)
        ty = round(rng.uniform(*self._tr[1]) * h)
        s = rng.uniform(*self._scale)
        sx, sy = (math.radians(rng.uniform(*r)) for r in self._shear)
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        # torchvision's inverse affine matrix: (T C R S Sh C^-1)^-1
        a = math.cos(angle - sy) / math.cos(sy)
        b = -math.cos(angle - sy) * math.tan(sx) / math.cos(sy) - math.sin(angle)
        c = math.sin(angle - sy) / math.cos(sy)
        d = -math.sin(angle - sy) * math.tan(sx) / math.cos(sy) + math.cos(angle)
        m = np.array([[d, -b, 0.0], [-c, a, 0.0]]) / s
        m[0, 2] = m[0, 0] * (-cx - tx) + m[0, 1] * (-cy - ty) + cx
        m[1, 2] = m[1, 0] * (-cx - tx) + m[1, 1] * (-cy - ty) + cy
        return warp(x, m, (h, w), self.resample, self._fill)
