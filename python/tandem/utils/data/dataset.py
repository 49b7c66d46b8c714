"""torch.utils.data datasets: Dataset, TensorDataset, Subset, ConcatDataset, random_split."""
from __future__ import annotations

import bisect
import math
from typing import Any, Generic, Iterable, List, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np

from ... import _C
from ..._data.common import as_tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"]

Tensor = _C.Tensor
#: The type of a dataset's samples.
T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (a sample: tensor, array,
    number, or a tuple / list / dict of them) and ``__len__``. ``Dataset[T]`` is the type of
    a dataset whose samples are ``T``."""

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: "Dataset[T_co]") -> "ConcatDataset[T_co]":
        return ConcatDataset([self, other])


class TensorDataset(Dataset[Tuple[Tensor, ...]]):
    """Samples are ``tuple(t[i] for t in tensors)``; the DataLoader gathers its batches in
    C++, without Python per sample.

    Args:
        *tensors (Tensor or array_like): tensors with the same size in dim 0 (the samples);
            other array-likes are converted.
    """

    def __init__(self, *tensors: Any) -> None:
        if not tensors:
            raise ValueError("TensorDataset: needs at least one tensor")
        self.tensors: Tuple[Tensor, ...] = tuple(as_tensor(t) for t in tensors)
        for t in self.tensors:
            if t.dim() == 0:
                raise ValueError("TensorDataset: tensors need a sample dim, got a 0-d tensor")
        n = {t.shape[0] for t in self.tensors}
        if len(n) != 1:
            raise ValueError(f"TensorDataset: size mismatch between tensors: "
                             f"{[t.shape[0] for t in self.tensors]} samples")

    def __getitem__(self, index: Any) -> Tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, in that order.

    Args:
        dataset (Dataset): the whole dataset.
        indices (Sequence[int]): the indices of the samples to keep.
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, idx: Union[int, List[int]]) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]  # type: ignore[index]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[T_co]):
    """The datasets one after the other.

    Args:
        datasets (Iterable[Dataset]): the datasets (at least one); each needs ``__len__``.
    """

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets: List[Dataset[T_co]] = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        sizes = [len(d) for d in self.datasets]  # type: ignore[arg-type]  # sized datasets
        self.cumulative_sizes = list(np.cumsum(sizes))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise IndexError(f"ConcatDataset: index {idx} out of range for {len(self)} samples")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        if d >= len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} out of range for {len(self)} samples")
        start = 0 if d == 0 else int(self.cumulative_sizes[d - 1])
        return self.datasets[d][idx - start]


def random_split(dataset: Dataset[T_co], lengths: Sequence[Union[int, float]],
                 generator: Optional[object] = None) -> List[Subset[T_co]]:
    """Random non-overlapping Subsets of the given lengths; the permutation comes from
    tandem's global generator (``tandem.manual_seed`` fixes it).

    Args:
        dataset (Dataset): the dataset to split (it needs ``__len__``).
        lengths (Sequence[int or float]): ints summing to ``len(dataset)``, or fractions
            summing to 1 (the remainders are spread round-robin, as PyTorch does).
        generator (mint.Generator, optional): draw the permutation from this generator
            instead of the global one. Default: ``None``.

    Returns:
        List[Subset]: one Subset per length.
    """
    import contextlib
    from ...mint._compat import Generator
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"random_split: generator must be a mint.Generator, got "
                        f"{type(generator).__name__}")
    n = len(dataset)  # type: ignore[arg-type]
    sizes: List[Any] = list(lengths)
    if math.isclose(sum(sizes), 1) and sum(sizes) <= 1:
        counts = [int(math.floor(n * f)) for f in sizes]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        sizes = counts
    if sum(sizes) != n:
        raise ValueError("random_split: sum of input lengths does not equal the length of the "
                         f"input dataset ({sum(sizes)} vs {n})")
    with generator if generator is not None else contextlib.nullcontext():
        perm = _C.randperm(n, _C.dtype.int64).numpy().tolist()
    out: List[Subset[T_co]] = []
    start = 0
    for length in sizes:
        out.append(Subset(dataset, perm[start:start + length]))
        start += length
    return out
