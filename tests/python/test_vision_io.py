"""tandem.vision.io (torchvision.io's image functions): decoded pixels checked against Pillow
decoding the same file, channel conversions, round trips, and the errors of bad input."""
import os

import numpy as np
import pytest

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

from tandem import mint  # noqa: E402
from tandem.vision import io as vio  # noqa: E402
import tandem.vision as vision  # noqa: E402


def _img(mode, h=5, w=7, seed=0):
    rng = np.random.default_rng(seed)
    c = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}[mode]
    a = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    return Image.fromarray(a[..., 0] if c == 1 else a, mode)


@pytest.mark.parametrize("mode,channels", [("L", 1), ("LA", 2), ("RGB", 3), ("RGBA", 4)])
def test_read_png_unchanged_keeps_channels_and_pixels(tmp_path, mode, channels):
    img = _img(mode)
    p = tmp_path / "x.png"
    img.save(p)
    t = vio.read_image(str(p))
    assert t.dtype == mint.uint8 and tuple(t.shape) == (channels, 5, 7)
    ref = np.asarray(img)
    ref = ref[None] if ref.ndim == 2 else np.moveaxis(ref, -1, 0)
    np.testing.assert_array_equal(t.numpy(), ref)


@pytest.mark.parametrize("mode,pil_mode,channels", [
    (vio.ImageReadMode.GRAY, "L", 1), (vio.ImageReadMode.GRAY_ALPHA, "LA", 2),
    (vio.ImageReadMode.RGB, "RGB", 3), (vio.ImageReadMode.RGB_ALPHA, "RGBA", 4),
    ("RGB", "RGB", 3)])
def test_read_modes_convert_like_pillow(tmp_path, mode, pil_mode, channels):
    img = _img("RGBA", seed=1)
    p = tmp_path / "x.png"
    img.save(p)
    t = vio.read_image(p, mode)  # a PathLike works too
    ref = np.asarray(img.convert(pil_mode))
    ref = ref[None] if ref.ndim == 2 else np.moveaxis(ref, -1, 0)
    assert tuple(t.shape) == (channels, 5, 7)
    np.testing.assert_array_equal(t.numpy(), ref)


def test_palette_png_unchanged_is_rgb_and_rgba_with_transparency(tmp_path):
    rgb = _img("RGB", seed=2)
    pal = rgb.convert("P", palette=Image.ADAPTIVE, colors=8)
    pal.save(tmp_path / "p.png")
    t = vio.read_image(str(tmp_path / "p.png"))
    np.testing.assert_array_equal(t.numpy(), np.moveaxis(np.asarray(pal.convert("RGB")), -1, 0))
    pal.save(tmp_path / "pt.png", transparency=0)
    assert vio.read_image(str(tmp_path / "pt.png")).shape[0] == 4


def test_jpeg_read_and_the_book_usage(tmp_path):
    img = _img("RGB", 16, 16, seed=3)
    img.save(tmp_path / "b.jpg", quality=90)
    t = vio.read_image(str(tmp_path / "b.jpg"))
    ref = np.moveaxis(np.asarray(Image.open(tmp_path / "b.jpg").convert("RGB")), -1, 0)
    np.testing.assert_array_equal(t.numpy(), ref)  # the same decoder, bit-exact
    # the detection chapters: read_image(...).unsqueeze(0).float(); the book's other spelling
    X = vision.io.read_image(str(tmp_path / "b.jpg")).unsqueeze(0).float()
    assert X.dtype == mint.float32 and tuple(X.shape) == (1, 3, 16, 16)
    assert vision.io.image.ImageReadMode.RGB is vio.ImageReadMode.RGB


def test_read_file_decode_image_and_round_trips(tmp_path):
    img = _img("RGB", seed=4)
    img.save(tmp_path / "x.png")
    data = vio.read_file(str(tmp_path / "x.png"))
    assert data.dtype == mint.uint8 and data.ndim == 1
    assert data.shape[0] == os.path.getsize(tmp_path / "x.png")
    t = vio.decode_image(data)
    np.testing.assert_array_equal(t.numpy(), vio.read_image(str(tmp_path / "x.png")).numpy())
    np.testing.assert_array_equal(vio.decode_png(data, vio.ImageReadMode.GRAY).numpy(),
                                  np.asarray(img.convert("L"))[None])
    vio.write_png(t, str(tmp_path / "y.png"))
    np.testing.assert_array_equal(vio.read_image(str(tmp_path / "y.png")).numpy(), t.numpy())
    vio.write_file(str(tmp_path / "z.png"), vio.encode_png(t, compression_level=0))
    np.testing.assert_array_equal(vio.read_image(str(tmp_path / "z.png")).numpy(), t.numpy())
    vio.write_jpeg(t, str(tmp_path / "y.jpg"), quality=95)
    img.save(tmp_path / "ref.jpg", quality=95)  # the same encoder: the same bytes
    assert (tmp_path / "y.jpg").read_bytes() == (tmp_path / "ref.jpg").read_bytes()
    gray = vio.decode_jpeg(vio.encode_jpeg(t[:1]))
    assert tuple(gray.shape) == (1, 5, 7)


def test_errors_name_the_function_and_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError):
        vio.read_image(str(tmp_path / "missing.png"))
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(RuntimeError, match="read_image: cannot decode"):
        vio.read_image(str(tmp_path / "bad.png"))
    with pytest.raises(RuntimeError, match="cannot decode"):
        vio.decode_image(mint.zeros(0, dtype=mint.uint8))
    with pytest.raises(ValueError, match="ImageReadMode"):
        vio.read_image(str(tmp_path / "bad.png"), mode="CMYK")
    with pytest.raises(TypeError, match="uint8"):
        vio.decode_image(mint.zeros(4))
    with pytest.raises(ValueError, match="1-D"):
        vio.decode_image(mint.zeros(2, 2, dtype=mint.uint8))
    with pytest.raises(ValueError, match=r"\(C, H, W\)"):
        vio.encode_png(mint.zeros(5, 4, 4, dtype=mint.uint8))
    with pytest.raises(ValueError, match=r"C 1 or 3"):
        vio.encode_jpeg(mint.zeros(4, 4, 4, dtype=mint.uint8))
    with pytest.raises(ValueError, match="compression_level"):
        vio.encode_png(mint.zeros(1, 2, 2, dtype=mint.uint8), compression_level=10)
    with pytest.raises(ValueError, match="quality"):
        vio.encode_jpeg(mint.zeros(1, 2, 2, dtype=mint.uint8), quality=0)
    Image.fromarray(np.arange(12, dtype=np.uint16).reshape(3, 4) * 5000).save(tmp_path / "d.png")
    with pytest.raises(RuntimeError, match="more than 8 bits"):
        vio.read_image(str(tmp_path / "d.png"))


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    import tandem._files as files
    target = tmp_path / "out.png"

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(files.os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        vio.write_png(mint.zeros(1, 2, 2, dtype=mint.uint8), str(target))
    assert os.listdir(tmp_path) == []
