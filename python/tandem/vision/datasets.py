"""torchvision.datasets for tandem: FashionMNIST read from the local IDX files."""
from __future__ import annotations

import os
from typing import Callable, Optional

from .. import _C
from .._data.common import c_chain, load_mnist
from ..utils.data.dataset import Dataset

__all__ = ["FashionMNIST"]


def _target_wrapper(fn: Callable):
    """Gives target_transform a Python int, as torchvision does, on the worker threads."""
    def call(t):
        return fn(int(t.item()))
    call.__name__ = getattr(fn, "__name__", "target_transform")
    return call


class FashionMNIST(Dataset):
    """Fashion-MNIST as torchvision's: ``dataset[i]`` is (image, target) with image a uint8
    (28, 28) tensor (torchvision gives a PIL image) or transform(image), and target an int.
    With ToTensor the image is float32 (1, 28, 28) in [0, 1]; through
    tandem.utils.data.DataLoader the built-in transforms run in the C++ workers and batches
    are [float32 (B, 1, H, W), int64 (B,)].

    root: a directory holding the four IDX files (or root/FashionMNIST/raw holding them);
    None uses $TANDEM_FASHION_MNIST_DIR or /usr/share/datasets/fashion-mnist. Nothing is
    downloaded: download=True only checks that the files are there.
    """

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]

    def __init__(self, root: Optional[str] = None, train: bool = True,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False):
        root = os.fspath(root) if root is not None else _C.fashion_mnist_dir("")
        raw = os.path.join(root, "FashionMNIST", "raw")
        if os.path.isdir(raw):
            root = raw
        self.root, self.train = root, train
        self.transform, self.target_transform = transform, target_transform
        try:
            self.data, self.targets = load_mnist(root, "train" if train else "test")
        except ValueError as e:
            if download:
                raise RuntimeError(f"FashionMNIST: download is not supported (no network); "
                                   f"install dataset-fashion-mnist or place the files: {e}") from e
            raise

    def __len__(self) -> int:
        return self.data.shape[0]

    def __getitem__(self, index: int):
        img, target = self.data[index], int(self.targets[index].item())
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def _tandem_loader_spec(self):
        """Tensor columns and their C++ transform chains, for the DataLoader's fast path."""
        img = c_chain([self.transform]) if self.transform is not None else []
        tgt = (c_chain([_target_wrapper(self.target_transform)])
               if self.target_transform is not None else [])
        return [self.data, self.targets], [img, tgt]

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __repr__(self) -> str:
        split = "Train" if self.train else "Test"
        return (f"Dataset FashionMNIST\n    Number of datapoints: {len(self)}\n"
                f"    Root location: {self.root}\n    Split: {split}")
