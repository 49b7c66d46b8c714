"""tandem.utils.data: torch.utils.data's names (Dataset, TensorDataset, DataLoader, ...) on
tandem's C++ Loader. FashionMNIST is re-exported from tandem.vision.datasets."""
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

from .dataloader import DataLoader, default_collate
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from . import distributed
from .distributed import DistributedSampler

if _TYPE_CHECKING:
    from ...vision.datasets import FashionMNIST


def __getattr__(name: str) -> _Any:
    # Imported lazily: tandem.vision.datasets itself imports this package.
    if name == "FashionMNIST":
        from ...vision.datasets import FashionMNIST
        return FashionMNIST
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DataLoader", "Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "default_collate", "FashionMNIST", "distributed", "DistributedSampler"]
