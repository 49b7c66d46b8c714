"""tandem.utils.data: torch.utils.data's names (Dataset, TensorDataset, DataLoader, ...) on
tandem's C++ Loader. FashionMNIST is re-exported from tandem.vision.datasets."""
from .dataloader import DataLoader, default_collate
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split


def __getattr__(name):
    # Imported lazily: tandem.vision.datasets itself imports this package.
    if name == "FashionMNIST":
        from ...vision.datasets import FashionMNIST
        return FashionMNIST
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DataLoader", "Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "default_collate", "FashionMNIST"]
