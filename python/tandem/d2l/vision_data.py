"""Data sets of chapter 13 (computer vision): the banana detection set, Pascal VOC 2012
semantic segmentation, and the folder reorganisation of the Kaggle CIFAR-10 / dog-breed
competitions.

Images are read with :func:`tandem.vision.io.read_image` as uint8 (C, H, W) tensors; the
archives come from the offline data hub. Directory listings are sorted, so the same files
give the same split on every machine."""
from __future__ import annotations

import collections
import csv
import math
import os
import shutil
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .. import mint
from ..utils.data import DataLoader, Dataset
from ..vision import transforms
from ..vision.io import ImageReadMode, read_image
from . import core, data_hub

# --- banana detection --------------------------------------------------------------------------
_BANANA_COLUMNS = ("label", "xmin", "ymin", "xmax", "ymax")


def read_data_bananas(is_train: bool = True) -> Tuple[List[Any], Any]:
    """The images and boxes of the banana detection set.

    ``bananas_train`` / ``bananas_val`` hold ``label.csv`` (columns img_name, label, xmin,
    ymin, xmax, ymax; one banana per image, pixel corners of a 256 x 256 image) and the
    images under ``images/``. As in the book, the whole target row, class included, is
    divided by 256, so the corners are fractions of the image size.

    Args:
        is_train (bool): the training part, else the validation part. Default: ``True``.

    Returns:
        tuple[list[Tensor], Tensor]: the uint8 (C, H, W) images, and float32 (n, 1, 5)
        targets (class, x1, y1, x2, y2) / 256.

    Raises:
        FileNotFoundError: the archive, label.csv or an image is missing.
        ValueError: label.csv lacks one of the columns.
    """
    part = os.path.join(data_hub.download_extract("banana-detection"),
                        "bananas_train" if is_train else "bananas_val")
    with open(os.path.join(part, "label.csv"), "r", newline="") as f:
        rows = list(csv.DictReader(f))
    missing = [c for c in ("img_name",) + _BANANA_COLUMNS if rows and c not in rows[0]]
    if missing:
        raise ValueError(f"read_data_bananas: {part}/label.csv has no column(s) {missing}")
    images = [read_image(os.path.join(part, "images", r["img_name"])) for r in rows]
    targets = np.array([[float(r[c]) for c in _BANANA_COLUMNS] for r in rows],
                       dtype=np.float32).reshape(len(rows), 1, len(_BANANA_COLUMNS))
    return images, mint.tensor(targets / 256)


class BananasDataset(Dataset):
    """The banana detection set: item i is (float32 (3, H, W) image in 0..255, (1, 5) target).

    Args:
        is_train (bool): the training part, else the validation part.
    """

    def __init__(self, is_train: bool) -> None:
        self.features, self.labels = read_data_bananas(is_train)
        kind = "training" if is_train else "validation"
        print(f"read {len(self.features)} {kind} examples")

    def __getitem__(self, idx: int) -> Tuple[Any, Any]:
        return self.features[idx].float(), self.labels[idx]

    def __len__(self) -> int:
        return len(self.features)


def load_data_bananas(batch_size: int) -> Tuple[DataLoader, DataLoader]:
    """Loaders of the banana detection set.

    Args:
        batch_size (int): images per batch.

    Returns:
        tuple[DataLoader, DataLoader]: the shuffled training loader and the validation
        loader, of (float32 (B, 3, H, W), float32 (B, 1, 5)) batches.
    """
    return (DataLoader(BananasDataset(is_train=True), batch_size, shuffle=True),
            DataLoader(BananasDataset(is_train=False), batch_size))


# --- Pascal VOC 2012 semantic segmentation -----------------------------------------------------
# The RGB colour of each class in the SegmentationClass images, indexed like VOC_CLASSES.
VOC_COLORMAP = [[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0],
                [0, 0, 128], [128, 0, 128], [0, 128, 128], [128, 128, 128],
                [64, 0, 0], [192, 0, 0], [64, 128, 0], [192, 128, 0],
                [64, 0, 128], [192, 0, 128], [64, 128, 128], [192, 128, 128],
                [0, 64, 0], [128, 64, 0], [0, 192, 0], [128, 192, 0],
                [0, 64, 128]]

VOC_CLASSES = ["background", "aeroplane", "bicycle", "bird", "boat",
               "bottle", "bus", "car", "cat", "chair", "cow",
               "diningtable", "dog", "horse", "motorbike", "person",
               "potted plant", "sheep", "sofa", "train", "tv/monitor"]

_VOC_MEAN, _VOC_STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def read_voc_images(voc_dir: str, is_train: bool = True) -> Tuple[List[Any], List[Any]]:
    """The images and colour label maps of a VOC segmentation split.

    The names come from ``ImageSets/Segmentation/train.txt`` (or ``val.txt``); each name has
    ``JPEGImages/<name>.jpg`` and ``SegmentationClass/<name>.png``.

    Args:
        voc_dir (str): the ``VOCdevkit/VOC2012`` folder.
        is_train (bool): the train list, else the val list. Default: ``True``.

    Returns:
        tuple[list[Tensor], list[Tensor]]: uint8 (C, H, W) images and uint8 (3, H, W) RGB
        label images.

    Raises:
        FileNotFoundError: the list or one of its files is missing.
    """
    listing = os.path.join(voc_dir, "ImageSets", "Segmentation",
                           "train.txt" if is_train else "val.txt")
    with open(listing, "r") as f:
        names = f.read().split()
    features = [read_image(os.path.join(voc_dir, "JPEGImages", f"{n}.jpg")) for n in names]
    labels = [read_image(os.path.join(voc_dir, "SegmentationClass", f"{n}.png"),
                         ImageReadMode.RGB) for n in names]
    return features, labels


def _rgb_key(r: Any, g: Any, b: Any) -> Any:
    # one integer per colour, so a flat table maps a pixel to its class
    return (r * 256 + g) * 256 + b


def voc_colormap2label() -> Any:
    """A lookup table from packed RGB colour ((r * 256 + g) * 256 + b) to VOC class index;
    colours of no class (the 'void' border, 224 224 192) map to 0, the background.

    Returns:
        Tensor: int64 (256 ** 3,).
    """
    table = np.zeros(256 ** 3, dtype=np.int64)
    for cls, (r, g, b) in enumerate(VOC_COLORMAP):
        table[_rgb_key(r, g, b)] = cls
    return mint.from_numpy(table)


def voc_label_indices(colormap: Any, colormap2label: Any) -> Any:
    """The class index of every pixel of an RGB label image.

    Args:
        colormap (Tensor): (3, H, W) RGB label image.
        colormap2label (Tensor): the table of :func:`voc_colormap2label`.

    Returns:
        Tensor: int64 (H, W) class indices.
    """
    rgb = colormap.numpy().astype(np.int64)
    if rgb.ndim != 3 or rgb.shape[0] != 3:
        raise ValueError(f"voc_label_indices: expected a (3, H, W) RGB image, got shape "
                         f"{tuple(rgb.shape)}")
    keys = _rgb_key(rgb[0], rgb[1], rgb[2])
    return colormap2label[mint.from_numpy(keys)]


def voc_rand_crop(feature: Any, label: Any, height: int, width: int) -> Tuple[Any, Any]:
    """Crops an image and its label map at the same uniformly random position.

    The offset is drawn from tandem's global generator (``tandem.manual_seed`` fixes it).

    Args:
        feature (Tensor): (C, H, W) image.
        label (Tensor): (C', H, W) label image of the same size.
        height (int): crop height.
        width (int): crop width.

    Returns:
        tuple[Tensor, Tensor]: the (C, height, width) and (C', height, width) crops.

    Raises:
        ValueError: the crop is larger than the image.
    """
    rect = transforms.RandomCrop.get_params(feature, (height, width))
    return transforms.functional.crop(feature, *rect), transforms.functional.crop(label, *rect)


class VOCSegDataset(Dataset):
    """VOC segmentation examples of at least ``crop_size``: item i is a random crop of image
    i, normalized with the ImageNet mean/std, and the crop's int64 (h, w) class indices.

    Args:
        is_train (bool): the train list, else the val list.
        crop_size (tuple[int, int]): (height, width) of the crops; smaller images are dropped.
        voc_dir (str): the ``VOCdevkit/VOC2012`` folder.
    """

    def __init__(self, is_train: bool, crop_size: Sequence[int], voc_dir: str) -> None:
        self.transform = transforms.Normalize(mean=_VOC_MEAN, std=_VOC_STD)
        self.crop_size = tuple(crop_size)
        features, labels = read_voc_images(voc_dir, is_train=is_train)
        self.features = [self.normalize_image(f) for f in self.filter(features)]
        self.labels = self.filter(labels)
        self.colormap2label = voc_colormap2label()
        print(f"read {len(self.features)} examples")

    def normalize_image(self, img: Any) -> Any:
        """A uint8 image as float32 in [0, 1], normalized per channel.

        Args:
            img (Tensor): uint8 (3, H, W).

        Returns:
            Tensor: float32 (3, H, W).
        """
        return self.transform(img.float() / 255)

    def filter(self, imgs: Sequence[Any]) -> List[Any]:
        """The images at least as large as the crop in both dims.

        Args:
            imgs (list[Tensor]): (C, H, W) images.

        Returns:
            list[Tensor]: those kept.
        """
        ch, cw = self.crop_size
        return [im for im in imgs if im.shape[1] >= ch and im.shape[2] >= cw]

    def __getitem__(self, idx: int) -> Tuple[Any, Any]:
        feature, label = voc_rand_crop(self.features[idx], self.labels[idx], *self.crop_size)
        return feature, voc_label_indices(label, self.colormap2label)

    def __len__(self) -> int:
        return len(self.features)


def load_data_voc(batch_size: int, crop_size: Sequence[int]) -> Tuple[DataLoader, DataLoader]:
    """Loaders of VOC 2012 segmentation crops (incomplete last batches dropped).

    Args:
        batch_size (int): crops per batch.
        crop_size (tuple[int, int]): (height, width) of the crops.

    Returns:
        tuple[DataLoader, DataLoader]: the shuffled train loader and the val loader, of
        (float32 (B, 3, h, w), int64 (B, h, w)) batches.
    """
    voc_dir = data_hub.download_extract("voc2012", os.path.join("VOCdevkit", "VOC2012"))
    workers = core.get_dataloader_workers()
    train_iter = DataLoader(VOCSegDataset(True, crop_size, voc_dir), batch_size, shuffle=True,
                            drop_last=True, num_workers=workers)
    test_iter = DataLoader(VOCSegDataset(False, crop_size, voc_dir), batch_size,
                           drop_last=True, num_workers=workers)
    return train_iter, test_iter


# --- Kaggle competitions: CIFAR-10 and dog breeds ----------------------------------------------
def read_csv_labels(fname: str) -> Dict[str, str]:
    """The file-name -> label map of a Kaggle label CSV (a header line, then ``name,label``
    rows).

    Args:
        fname (str): the CSV file (e.g. ``trainLabels.csv``).

    Returns:
        dict[str, str]: image name (without extension) -> label.

    Raises:
        ValueError: a row does not have exactly two fields.
    """
    with open(fname, "r", newline="") as f:
        rows = list(csv.reader(f))[1:]
    out: Dict[str, str] = {}
    for i, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != 2:
            raise ValueError(f"read_csv_labels: {fname} line {i} has {len(row)} fields, "
                             f"expected name,label")
        out[row[0]] = row[1]
    return out


def copyfile(filename: str, target_dir: str) -> None:
    """Copies a file into a directory, creating the directory if needed.

    Args:
        filename (str): the file.
        target_dir (str): the destination directory.

    Returns:
        None
    """
    os.makedirs(target_dir, exist_ok=True)
    shutil.copy(filename, target_dir)


def reorg_train_valid(data_dir: str, labels: Dict[str, str], valid_ratio: float) -> int:
    """Sorts ``data_dir/train`` into class folders under ``data_dir/train_valid_test``:
    every image goes to ``train_valid/<label>``; per class, the first
    max(1, floor(n * valid_ratio)) images (n: the size of the smallest class; files in
    name order) also go to ``valid/<label>``, the rest to ``train/<label>``.

    Args:
        data_dir (str): the competition folder (holding ``train``).
        labels (dict[str, str]): image name (without extension) -> label.
        valid_ratio (float): fraction of the smallest class held out per class.

    Returns:
        int: the number of validation images per class.

    Raises:
        KeyError: an image in ``train`` has no label.
    """
    smallest = min(collections.Counter(labels.values()).values())
    n_valid = max(1, math.floor(smallest * valid_ratio))
    out = os.path.join(data_dir, "train_valid_test")
    taken: Dict[str, int] = collections.defaultdict(int)
    train_dir = os.path.join(data_dir, "train")
    for name in sorted(os.listdir(train_dir)):
        label = labels[name.split(".")[0]]
        src = os.path.join(train_dir, name)
        copyfile(src, os.path.join(out, "train_valid", label))
        part = "valid" if taken[label] < n_valid else "train"
        taken[label] += part == "valid"
        copyfile(src, os.path.join(out, part, label))
    return n_valid


def reorg_test(data_dir: str) -> None:
    """Copies ``data_dir/test`` into ``train_valid_test/test/unknown``, one class folder,
    so an ImageFolder can read it.

    Args:
        data_dir (str): the competition folder (holding ``test``).

    Returns:
        None
    """
    dest = os.path.join(data_dir, "train_valid_test", "test", "unknown")
    test_dir = os.path.join(data_dir, "test")
    for name in sorted(os.listdir(test_dir)):
        copyfile(os.path.join(test_dir, name), dest)
