"""torchvision.io's image functions: files to (C, H, W) uint8 tensors and back.

Decoding and encoding go through Pillow (imported on first use; a clear error names the
package when it is missing). PNG, JPEG, GIF (the first frame), WebP, BMP and TIFF files
read; PNG and JPEG write. Images with more than 8 bits per channel raise instead of being
narrowed silently."""
from __future__ import annotations

import enum
import io as _pyio
import os
from typing import Any, Optional, Union

import numpy as np

from ... import _C
from ..._files import write_bytes_atomic

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_image", "decode_png",
           "decode_jpeg", "read_image", "encode_png", "encode_jpeg", "write_png", "write_jpeg"]


class ImageReadMode(enum.Enum):
    """How many channels a decoded image gets (torchvision.io.ImageReadMode).

    UNCHANGED keeps the file's channels (a palette image becomes RGB, or RGBA with
    transparency); the others convert to 1 (GRAY), 2 (GRAY_ALPHA), 3 (RGB) or 4 (RGB_ALPHA)
    channels.
    """

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = 4  # alias of RGB_ALPHA, as in torchvision


_PIL_MODE = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA",
             ImageReadMode.RGB: "RGB", ImageReadMode.RGB_ALPHA: "RGBA"}
# Pillow modes with 8 bits per channel, and the channel-preserving 8-bit mode of the others.
_UNCHANGED = {"L": "L", "LA": "LA", "RGB": "RGB", "RGBA": "RGBA", "1": "L", "La": "LA",
              "RGBa": "RGBA", "CMYK": "RGB", "YCbCr": "RGB", "LAB": "RGB", "HSV": "RGB"}


def _pil(fn: str) -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"tandem.vision.io.{fn}: decoding and encoding images needs Pillow "
                          "(pip install pillow)") from None
    return Image


def _mode(mode: Any, fn: str) -> ImageReadMode:
    if isinstance(mode, ImageReadMode):
        return mode
    if isinstance(mode, str) and mode.upper() in ImageReadMode.__members__:
        return ImageReadMode[mode.upper()]
    raise ValueError(f"tandem.vision.io.{fn}: mode must be an ImageReadMode or one of "
                     f"{', '.join(ImageReadMode.__members__)}, got {mode!r}")


def _as_uint8_numpy(t: Any, fn: str, what: str) -> np.ndarray:
    a = t.numpy() if hasattr(t, "numpy") and not isinstance(t, np.ndarray) else np.asarray(t)
    if a.dtype != np.uint8:
        raise TypeError(f"tandem.vision.io.{fn}: {what} must be a uint8 tensor, got {a.dtype}")
    return a


def hwc_to_chw(a: np.ndarray) -> Any:
    """An (H, W) or (H, W, C) image array (Pillow's layout) as a dense (C, H, W) tensor."""
    return _C.from_numpy(np.ascontiguousarray(a[None] if a.ndim == 2 else np.moveaxis(a, -1, 0)))


def read_file(path: Union[str, "os.PathLike[str]"]) -> Any:
    """Reads a file's bytes into a 1-D uint8 tensor.

    Args:
        path (str or os.PathLike): the file.

    Returns:
        Tensor: its bytes, uint8, shape (size,).
    """
    with open(os.fspath(path), "rb") as f:
        data = f.read()
    return _C.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


def write_file(filename: Union[str, "os.PathLike[str]"], data: Any) -> None:
    """Writes a 1-D uint8 tensor's bytes to a file (never half-written).

    Args:
        filename (str or os.PathLike): the file.
        data (Tensor): uint8, one dimension.
    """
    a = _as_uint8_numpy(data, "write_file", "data")
    if a.ndim != 1:
        raise ValueError(f"tandem.vision.io.write_file: data must be 1-D, got shape {a.shape}")
    write_bytes_atomic(filename, a.tobytes())


def _decode(data: bytes, mode: ImageReadMode, fn: str, apply_exif_orientation: bool) -> Any:
    Image = _pil(fn)
    try:
        img = Image.open(_pyio.BytesIO(data))
        img.load()
    except Exception as e:  # Pillow raises several types for damaged or unknown data
        raise RuntimeError(f"tandem.vision.io.{fn}: cannot decode the image ({len(data)} bytes): "
                           f"{e}") from None
    if apply_exif_orientation:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    if img.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        raise RuntimeError(f"tandem.vision.io.{fn}: the image has more than 8 bits per channel "
                           f"(Pillow mode {img.mode}); only 8-bit images decode to uint8")
    target: Optional[str]
    if mode is ImageReadMode.UNCHANGED:
        if img.mode == "P":
            target = "RGBA" if "transparency" in img.info else "RGB"
        elif img.mode == "PA":
            target = "RGBA"
        else:
            target = _UNCHANGED.get(img.mode)
            if target is None:
                raise RuntimeError(f"tandem.vision.io.{fn}: unsupported image mode {img.mode}")
    else:
        target = _PIL_MODE[mode]
    if img.mode != target:
        img = img.convert(target)
    return hwc_to_chw(np.asarray(img, dtype=np.uint8))


def decode_image(input: Any, mode: Any = ImageReadMode.UNCHANGED,
                 apply_exif_orientation: bool = False) -> Any:
    """Decodes an encoded image into a (C, H, W) uint8 tensor.

    Args:
        input (Tensor or str): the file's bytes as a 1-D uint8 tensor, or a path.
        mode (ImageReadMode): the channels wanted. Default: ``ImageReadMode.UNCHANGED``.
        apply_exif_orientation (bool): rotate as the EXIF orientation tag says. Default: False.

    Returns:
        Tensor: uint8, (C, H, W).
    """
    m = _mode(mode, "decode_image")
    if isinstance(input, (str, os.PathLike)):
        with open(os.fspath(input), "rb") as f:
            return _decode(f.read(), m, "decode_image", apply_exif_orientation)
    a = _as_uint8_numpy(input, "decode_image", "input")
    if a.ndim != 1:
        raise ValueError("tandem.vision.io.decode_image: input must be a 1-D uint8 tensor of "
                         f"the encoded bytes (read_file gives one), got shape {a.shape}")
    return _decode(a.tobytes(), m, "decode_image", apply_exif_orientation)


def decode_png(input: Any, mode: Any = ImageReadMode.UNCHANGED,
               apply_exif_orientation: bool = False) -> Any:
    """Decodes PNG bytes (a 1-D uint8 tensor) into a (C, H, W) uint8 tensor; see decode_image."""
    return decode_image(input, mode, apply_exif_orientation)


def decode_jpeg(input: Any, mode: Any = ImageReadMode.UNCHANGED,
                apply_exif_orientation: bool = False) -> Any:
    """Decodes JPEG bytes (a 1-D uint8 tensor) into a (C, H, W) uint8 tensor; see decode_image."""
    return decode_image(input, mode, apply_exif_orientation)


def read_image(path: Union[str, "os.PathLike[str]"], mode: Any = ImageReadMode.UNCHANGED,
               apply_exif_orientation: bool = False) -> Any:
    """Reads an image file into a (C, H, W) uint8 tensor (torchvision.io.read_image).

    Args:
        path (str or os.PathLike): a PNG, JPEG, GIF, WebP, BMP or TIFF file.
        mode (ImageReadMode): the channels wanted. Default: ``ImageReadMode.UNCHANGED``.
        apply_exif_orientation (bool): rotate as the EXIF orientation tag says. Default: False.

    Returns:
        Tensor: uint8, (C, H, W).

    Examples:
        >>> from tandem.vision.io import read_image, ImageReadMode
        >>> x = read_image("banana.jpg", ImageReadMode.RGB)  # (3, H, W) uint8
    """
    with open(os.fspath(path), "rb") as f:
        return _decode(f.read(), _mode(mode, "read_image"), "read_image", apply_exif_orientation)


def _encode(input: Any, fn: str, fmt: str, **kw: Any) -> Any:
    a = _as_uint8_numpy(input, fn, "input")
    if a.ndim != 3 or a.shape[0] not in ((1, 3) if fmt == "JPEG" else (1, 2, 3, 4)):
        allowed = "1 or 3" if fmt == "JPEG" else "1 to 4"
        raise ValueError(f"tandem.vision.io.{fn}: input must be (C, H, W) with C {allowed}, "
                         f"got shape {tuple(a.shape)}")
    Image = _pil(fn)
    hwc = np.ascontiguousarray(a[0] if a.shape[0] == 1 else np.moveaxis(a, 0, -1))
    buf = _pyio.BytesIO()
    Image.fromarray(hwc).save(buf, format=fmt, **kw)
    return _C.from_numpy(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def encode_png(input: Any, compression_level: int = 6) -> Any:
    """Encodes a (C, H, W) uint8 tensor (C in 1..4) as PNG bytes.

    Args:
        input (Tensor): the image.
        compression_level (int): zlib level 0-9. Default: 6.

    Returns:
        Tensor: the PNG file's bytes, uint8, 1-D.
    """
    if not (isinstance(compression_level, int) and 0 <= compression_level <= 9):
        raise ValueError("tandem.vision.io.encode_png: compression_level must be an int in "
                         f"0..9, got {compression_level!r}")
    return _encode(input, "encode_png", "PNG", compress_level=compression_level)


def encode_jpeg(input: Any, quality: int = 75) -> Any:
    """Encodes a (C, H, W) uint8 tensor (C 1 or 3) as JPEG bytes.

    Args:
        input (Tensor): the image.
        quality (int): 1-100. Default: 75.

    Returns:
        Tensor: the JPEG file's bytes, uint8, 1-D.
    """
    if not (isinstance(quality, int) and 1 <= quality <= 100):
        raise ValueError(f"tandem.vision.io.encode_jpeg: quality must be an int in 1..100, "
                         f"got {quality!r}")
    return _encode(input, "encode_jpeg", "JPEG", quality=quality)


def write_png(input: Any, filename: Union[str, "os.PathLike[str]"], compression_level: int = 6) -> None:
    """Writes a (C, H, W) uint8 tensor as a PNG file (never half-written); see encode_png."""
    write_file(filename, encode_png(input, compression_level))


def write_jpeg(input: Any, filename: Union[str, "os.PathLike[str]"], quality: int = 75) -> None:
    """Writes a (C, H, W) uint8 tensor as a JPEG file (never half-written); see encode_jpeg."""
    write_file(filename, encode_jpeg(input, quality))
