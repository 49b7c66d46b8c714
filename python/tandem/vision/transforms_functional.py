"""torchvision.transforms.functional for tandem (``tandem.vision.transforms.functional``):
the deterministic image operations that the random transforms draw parameters for, as the
D2L book calls them (``RandomCrop.get_params`` then ``functional.crop`` on an image and its
label map with the same rectangle).

Tensors are (..., H, W) (any leading dims: (C, H, W), a batch); PIL images stay PIL images."""
from __future__ import annotations

from typing import Any, Sequence, Union

from .. import _C

__all__ = ["crop", "center_crop", "hflip", "vflip", "normalize", "get_image_size"]


def _is_pil(img: Any) -> bool:
    return type(img).__module__.startswith("PIL.")


def _tensor(op: str, img: Any) -> _C.Tensor:
    if not isinstance(img, _C.Tensor):
        raise TypeError(f"{op}: img must be a tandem Tensor or a PIL image, got "
                        f"{type(img).__name__}")
    if img.dim() < 2:
        raise ValueError(f"{op}: img must have at least 2 dims (..., H, W), got shape "
                         f"{tuple(img.shape)}")
    return img


def get_image_size(img: Any) -> list[int]:
    """[width, height] of the image (torchvision's order).

    Args:
        img (Tensor or PIL.Image): (..., H, W) tensor or PIL image.

    Returns:
        list[int]: [W, H].
    """
    if _is_pil(img):
        return [int(img.size[0]), int(img.size[1])]
    t = _tensor("get_image_size", img)
    return [int(t.shape[-1]), int(t.shape[-2])]


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    """The rectangle of ``height`` x ``width`` whose corner is (``top``, ``left``); parts
    outside the image are zeros, as torchvision pads them.

    Args:
        img (Tensor or PIL.Image): (..., H, W) tensor or PIL image.
        top (int): first row (may be negative).
        left (int): first column (may be negative).
        height (int): rows of the result (> 0).
        width (int): columns of the result (> 0).

    Returns:
        Tensor or PIL.Image: (..., height, width), of img's kind.
    """
    top, left, height, width = int(top), int(left), int(height), int(width)
    if height <= 0 or width <= 0:
        raise ValueError(f"crop: height and width must be positive, got {height} x {width}")
    if _is_pil(img):
        return img.crop((left, top, left + width, top + height))
    t = _tensor("crop", img)
    H, W = int(t.shape[-2]), int(t.shape[-1])
    r0, r1 = max(top, 0), min(top + height, H)
    c0, c1 = max(left, 0), min(left + width, W)
    inside = t[..., r0:max(r1, r0), c0:max(c1, c0)]
    if (r0, r1, c0, c1) == (top, top + height, left, left + width):
        return inside
    from .. import mint
    pad = [c0 - left, left + width - max(c1, c0), r0 - top, top + height - max(r1, r0)]
    return mint.nn.functional.pad(inside, pad)


def center_crop(img: Any, output_size: Union[int, Sequence[int]]) -> Any:
    """The centred ``output_size`` rectangle (zeros where it is larger than the image).

    Args:
        img (Tensor or PIL.Image): (..., H, W) tensor or PIL image.
        output_size (int or Sequence[int]): (h, w), or one int for a square.

    Returns:
        Tensor or PIL.Image: the crop, of img's kind.
    """
    if isinstance(output_size, int):
        h = w = output_size
    elif len(output_size) == 1:
        h = w = int(output_size[0])
    else:
        h, w = int(output_size[0]), int(output_size[1])
    W, H = get_image_size(img)
    return crop(img, int(round((H - h) / 2.0)), int(round((W - w) / 2.0)), h, w)


def hflip(img: Any) -> Any:
    """The image mirrored left to right.

    Args:
        img (Tensor or PIL.Image): (..., H, W) tensor or PIL image.

    Returns:
        Tensor or PIL.Image: of img's kind.
    """
    if _is_pil(img):
        from PIL import Image
        return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    from .. import mint
    return mint.flip(_tensor("hflip", img), [-1])


def vflip(img: Any) -> Any:
    """The image mirrored top to bottom.

    Args:
        img (Tensor or PIL.Image): (..., H, W) tensor or PIL image.

    Returns:
        Tensor or PIL.Image: of img's kind.
    """
    if _is_pil(img):
        from PIL import Image
        return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    from .. import mint
    return mint.flip(_tensor("vflip", img), [-2])


def normalize(tensor: _C.Tensor, mean: Sequence[float], std: Sequence[float],
              inplace: bool = False) -> _C.Tensor:
    """(tensor - mean) / std per channel (dim -3).

    Args:
        tensor (Tensor): floating (..., C, H, W).
        mean (Sequence[float]): one value per channel.
        std (Sequence[float]): one non-zero value per channel.
        inplace (bool): write the result into ``tensor``. Default: ``False``.

    Returns:
        Tensor: the normalised tensor.
    """
    from .. import mint
    t = _tensor("normalize", tensor)
    if not t.is_floating_point():
        raise TypeError(f"normalize: the tensor must be floating, got {t.dtype}; convert it "
                        "first (e.g. ToTensor or .float() / 255)")
    if t.dim() < 3:
        raise ValueError(f"normalize: expected a (..., C, H, W) tensor, got shape "
                         f"{tuple(t.shape)}")
    m = mint.tensor(list(mean), dtype=t.dtype).reshape(-1, 1, 1)
    s = mint.tensor(list(std), dtype=t.dtype).reshape(-1, 1, 1)
    if bool((s == 0).any()):
        raise ValueError(f"normalize: std {list(std)} has a zero, which would divide by zero")
    out = (t - m) / s
    if inplace:
        t.copy_(out)
        return t
    return out
