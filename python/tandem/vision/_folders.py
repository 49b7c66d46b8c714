"""torchvision's ImageFolder and CIFAR10 over local files (nothing is downloaded)."""
from __future__ import annotations

import os
import pickle
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..utils.data.dataset import Dataset

_IMG_EXT = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def _pil_rgb(path: str) -> Any:
    from PIL import Image
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


class ImageFolder(Dataset[Tuple[Any, int]]):
    """Images in ``root/<class>/<file>``: ``dataset[i]`` is (PIL RGB image or
    transform(image), class index), classes sorted by folder name.

    Args:
        root (str): the folder holding one sub-folder per class.
        transform (Callable, optional): applied to each image. Default: ``None``.
        target_transform (Callable, optional): applied to each class index. Default: ``None``.
        loader (Callable, optional): path -> image. Default: ``None`` (PIL, RGB).
        is_valid_file (Callable, optional): path -> keep it. Default: ``None`` (image
            extensions).
    """

    def __init__(self, root: str, transform: Optional[Callable[[Any], Any]] = None,
                 target_transform: Optional[Callable[[int], Any]] = None,
                 loader: Optional[Callable[[str], Any]] = None,
                 is_valid_file: Optional[Callable[[str], bool]] = None) -> None:
        root = os.fspath(root)
        if not os.path.isdir(root):
            raise FileNotFoundError(f"ImageFolder: {root} is not a directory")
        self.root, self.transform, self.target_transform = root, transform, target_transform
        self.loader = loader or _pil_rgb
        self.classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
        if not self.classes:
            raise FileNotFoundError(f"ImageFolder: no class folders in {root}")
        self.class_to_idx: Dict[str, int] = {c: i for i, c in enumerate(self.classes)}
        ok = is_valid_file or (lambda p: p.lower().endswith(_IMG_EXT))
        self.samples: List[Tuple[str, int]] = []
        for c in self.classes:
            for dirpath, _, files in sorted(os.walk(os.path.join(root, c))):
                for fn in sorted(files):
                    p = os.path.join(dirpath, fn)
                    if ok(p):
                        self.samples.append((p, self.class_to_idx[c]))
        if not self.samples:
            raise FileNotFoundError(f"ImageFolder: no image files under {root}")
        self.targets = [t for _, t in self.samples]
        self.imgs = self.samples

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        path, target = self.samples[index]
        img = self.loader(path)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class CIFAR10(Dataset[Tuple[Any, int]]):
    """CIFAR-10 from the python-pickle batches in ``root/cifar-10-batches-py``:
    ``dataset[i]`` is (PIL image 32x32 or transform(image), label).

    Args:
        root (str): the folder holding cifar-10-batches-py.
        train (bool): the 50000 training images, else the 10000 test images.
            Default: ``True``.
        transform (Callable, optional): applied to each image. Default: ``None``.
        target_transform (Callable, optional): applied to each label. Default: ``None``.
        download (bool): nothing is downloaded (no network); missing files raise a
            RuntimeError saying where they belong. Default: ``False``.
    """

    base_folder = "cifar-10-batches-py"
    classes = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
               "truck"]

    def __init__(self, root: str, train: bool = True,
                 transform: Optional[Callable[[Any], Any]] = None,
                 target_transform: Optional[Callable[[int], Any]] = None,
                 download: bool = False) -> None:
        self.root, self.train = os.fspath(root), train
        self.transform, self.target_transform = transform, target_transform
        folder = os.path.join(self.root, self.base_folder)
        names = [f"data_batch_{i}" for i in range(1, 6)] if train else ["test_batch"]
        missing = [n for n in names if not os.path.isfile(os.path.join(folder, n))]
        if missing:
            raise RuntimeError(f"CIFAR10: {missing[0]} not found in {folder}; tandem never "
                               f"downloads: extract cifar-10-python.tar.gz into {self.root}")
        data, labels = [], []
        for n in names:
            with open(os.path.join(folder, n), "rb") as f:
                entry = pickle.load(f, encoding="latin1")
            data.append(np.asarray(entry["data"], dtype=np.uint8))
            labels += list(entry.get("labels", entry.get("fine_labels", [])))
        self.data = np.concatenate(data).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy()
        self.targets = [int(t) for t in labels]

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img: Any = Image.fromarray(self.data[index])
        target: Any = self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
