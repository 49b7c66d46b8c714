"""torchvision.datasets for tandem: FashionMNIST read from the local IDX files."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .. import _C
from .._data.common import c_chain, load_mnist
from ..utils.data.dataset import Dataset

from ._folders import CIFAR10, ImageFolder  # noqa: E402

__all__ = ["FashionMNIST", "ImageFolder", "CIFAR10"]

Tensor = _C.Tensor


def _target_wrapper(fn: Callable[[int], Any]) -> Callable[[Tensor], Any]:
    """Gives target_transform a Python int, as torchvision does, on the worker threads."""
    def call(t: Tensor) -> Any:
        return fn(int(t.item()))
    call.__name__ = getattr(fn, "__name__", "target_transform")
    return call


class FashionMNIST(Dataset[Tuple[Any, Any]]):
    """Fashion-MNIST as torchvision's: ``dataset[i]`` is (image, target) with image a uint8
    (28, 28) tensor (torchvision gives a PIL image) or transform(image), and target an int
    (or target_transform(target)). With ToTensor the image is float32 (1, 28, 28) in [0, 1];
    through tandem.utils.data.DataLoader the built-in transforms run in the C++ workers and
    batches are [float32 (B, 1, H, W), int64 (B,)].

    Args:
        root (str, optional): a directory holding the four IDX files (or
            root/FashionMNIST/raw holding them); ``None`` uses $TANDEM_FASHION_MNIST_DIR or
            /usr/share/datasets/fashion-mnist. Default: ``None``.
        train (bool): the 60000 training images, else the 10000 test images.
            Default: ``True``.
        transform (Callable, optional): applied to each image (built-in transforms run in
            C++). Default: ``None``.
        target_transform (Callable, optional): applied to each target (an int).
            Default: ``None``.
        download (bool): nothing is downloaded (no network): with ``True``, a root without
            the files falls back to the installed copy ($TANDEM_FASHION_MNIST_DIR or
            /usr/share/datasets/fashion-mnist), and a missing installation raises a
            RuntimeError saying so. Default: ``False``.
    """

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]

    def __init__(self, root: Optional[Union[str, "os.PathLike[str]"]] = None, train: bool = True,
                 transform: Optional[Callable[[Any], Any]] = None,
                 target_transform: Optional[Callable[[int], Any]] = None,
                 download: bool = False) -> None:
        directory = os.fspath(root) if root is not None else _C.fashion_mnist_dir("")
        raw = os.path.join(directory, "FashionMNIST", "raw")
        if os.path.isdir(raw):
            directory = raw
        self.root, self.train = directory, train
        self.transform, self.target_transform = transform, target_transform
        split = "train" if train else "test"
        try:
            self.data, self.targets = load_mnist(directory, split)
        except ValueError as e:
            installed = _C.fashion_mnist_dir("")
            if not download or root is None or os.path.abspath(installed) == os.path.abspath(directory):
                if download:
                    raise RuntimeError(f"FashionMNIST: download is not supported (no network); "
                                       f"install dataset-fashion-mnist or place the files: {e}") from e
                raise
            # download=True "downloads" from the local installation: the files are read
            # from there (nothing is copied or fetched from the network).
            try:
                self.data, self.targets = load_mnist(installed, split)
            except ValueError as e2:
                raise RuntimeError(f"FashionMNIST: {directory} has no Fashion-MNIST files and "
                                   f"download is not supported (no network); install "
                                   f"dataset-fashion-mnist or place the files: {e2}") from e
            self.root = installed

    def __len__(self) -> int:
        return self.data.shape[0]

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        img: Any = self.data[index]
        target: Any = int(self.targets[index].item())
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def _tandem_loader_spec(self) -> Tuple[List[Tensor], List[List[_C.Transform]]]:
        """Tensor columns and their C++ transform chains, for the DataLoader's fast path."""
        img = c_chain([self.transform]) if self.transform is not None else []
        tgt = (c_chain([_target_wrapper(self.target_transform)])
               if self.target_transform is not None else [])
        return [self.data, self.targets], [img, tgt]

    @property
    def class_to_idx(self) -> Dict[str, int]:
        """Class name -> label."""
        return {c: i for i, c in enumerate(self.classes)}

    def __repr__(self) -> str:
        split = "Train" if self.train else "Test"
        return (f"Dataset FashionMNIST\n    Number of datapoints: {len(self)}\n"
                f"    Root location: {self.root}\n    Split: {split}")
