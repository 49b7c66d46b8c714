"""tandem.vision.transforms.functional and RandomCrop.get_params (the book's semantic
segmentation crops an image and its label map with one rectangle), plus RNN
flatten_parameters; numpy is the oracle (torchvision does not import against torch 2.13
on this machine)."""
import numpy as np
import pytest

import tandem
from tandem import mint
from tandem.vision import transforms


def test_functional_is_importable_both_ways():
    import tandem.vision.transforms.functional as F
    assert F is transforms.functional
    assert callable(F.crop) and callable(transforms.functional.hflip)


def test_crop_inside_and_outside_the_image():
    F = transforms.functional
    a = np.arange(2 * 5 * 6, dtype=np.float32).reshape(2, 5, 6)
    t = mint.tensor(a)
    np.testing.assert_array_equal(F.crop(t, 1, 2, 3, 4).numpy(), a[:, 1:4, 2:6])
    # torchvision pads the part outside the image with zeros
    padded = np.zeros((2, 5, 6), np.float32)
    padded[:, :3, 2:] = a[:, 2:5, :4]
    np.testing.assert_array_equal(F.crop(t, 2, -2, 5, 6).numpy(), padded)
    # any leading dims, integer images
    u8 = mint.tensor(np.arange(2 * 3 * 4 * 4, dtype=np.uint8).reshape(2, 3, 4, 4))
    assert F.crop(u8, 0, 0, 2, 3).shape == (2, 3, 2, 3) and F.crop(u8, 0, 0, 2, 3).dtype == mint.uint8
    with pytest.raises(ValueError, match="positive"):
        F.crop(t, 0, 0, 0, 2)
    with pytest.raises(TypeError, match="Tensor or a PIL image"):
        F.crop(a, 0, 0, 1, 1)


def test_center_crop_flips_and_normalize():
    F = transforms.functional
    a = np.arange(3 * 6 * 7, dtype=np.float32).reshape(3, 6, 7)
    t = mint.tensor(a)
    np.testing.assert_array_equal(F.center_crop(t, [2, 3]).numpy(), a[:, 2:4, 2:5])
    np.testing.assert_array_equal(F.center_crop(t, 4).numpy(), a[:, 1:5, 2:6])
    np.testing.assert_array_equal(F.hflip(t).numpy(), a[..., ::-1])
    np.testing.assert_array_equal(F.vflip(t).numpy(), a[:, ::-1, :])
    mean, std = [1.0, 2.0, 3.0], [0.5, 2.0, 4.0]
    want = (a - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    np.testing.assert_allclose(F.normalize(t, mean, std).numpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="zero"):
        F.normalize(t, mean, [1.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="floating"):
        F.normalize(mint.tensor(a.astype(np.uint8)), mean, std)
    assert F.get_image_size(t) == [7, 6]


def test_pil_images_stay_pil():
    Image = pytest.importorskip("PIL.Image")
    F = transforms.functional
    a = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)
    img = Image.fromarray(a)
    np.testing.assert_array_equal(np.asarray(F.crop(img, 1, 2, 3, 4)), a[1:4, 2:6])
    np.testing.assert_array_equal(np.asarray(F.hflip(img)), a[:, ::-1])
    assert transforms.RandomCrop.get_params(img, (5, 6)) == (0, 0, 5, 6)


def test_random_crop_get_params_covers_every_offset_and_crops_pairs_alike():
    img = mint.tensor(np.arange(3 * 6 * 5, dtype=np.float32).reshape(3, 6, 5))
    label = mint.tensor(np.arange(6 * 5, dtype=np.int64).reshape(6, 5))
    seen = set()
    mint.manual_seed(0)
    for _ in range(300):
        i, j, h, w = transforms.RandomCrop.get_params(img, (4, 2))
        assert (h, w) == (4, 2) and 0 <= i <= 2 and 0 <= j <= 3
        seen.add((i, j))
        a = transforms.functional.crop(img, i, j, h, w).numpy()
        b = transforms.functional.crop(label, i, j, h, w).numpy()
        np.testing.assert_array_equal(a[0], b.astype(np.float32))  # same rectangle
    assert seen == {(i, j) for i in range(3) for j in range(4)}
    mint.manual_seed(3)
    first = [transforms.RandomCrop.get_params(img, (2, 2)) for _ in range(5)]
    mint.manual_seed(3)
    assert first == [transforms.RandomCrop.get_params(img, (2, 2)) for _ in range(5)]
    with pytest.raises(ValueError, match="larger than the image"):
        transforms.RandomCrop.get_params(img, (7, 2))


def test_rnn_flatten_parameters_changes_nothing():
    lstm = mint.nn.LSTM(3, 4, num_layers=2)
    x = mint.randn(5, 2, 3)
    before = lstm(x)[0].detach().numpy()
    assert lstm.flatten_parameters() is None
    np.testing.assert_array_equal(lstm(x)[0].detach().numpy(), before)
    mint.nn.GRU(3, 4).flatten_parameters()
    tandem.nn.LSTM(3, 4).flatten_parameters()
