"""torch.utils.data datasets: Dataset, TensorDataset, Subset, ConcatDataset, random_split."""
from __future__ import annotations

import bisect
import math
from typing import List, Sequence

import numpy as np

from ... import _C
from ..._data.common import as_tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"]


class Dataset:
    """Map-style dataset: subclasses define __getitem__ (a sample: tensor, array, number, or a
    tuple / list / dict of them) and __len__."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are (t[i] for t in tensors); the DataLoader gathers its batches in C++."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: needs at least one tensor")
        self.tensors = tuple(as_tensor(t) for t in tensors)
        for t in self.tensors:
            if t.dim() == 0:
                raise ValueError("TensorDataset: tensors need a sample dim, got a 0-d tensor")
        n = {t.shape[0] for t in self.tensors}
        if len(n) != 1:
            raise ValueError(f"TensorDataset: size mismatch between tensors: "
                             f"{[t.shape[0] for t in self.tensors]} samples")

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of dataset at indices."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise IndexError(f"ConcatDataset: index {idx} out of range for {len(self)} samples")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        if d >= len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} out of range for {len(self)} samples")
        start = 0 if d == 0 else int(self.cumulative_sizes[d - 1])
        return self.datasets[d][idx - start]


def random_split(dataset: Dataset, lengths: Sequence, generator=None) -> List[Subset]:
    """Random non-overlapping Subsets of the given lengths (ints summing to len(dataset), or
    fractions summing to 1, remainders spread round-robin as PyTorch does); the permutation
    comes from tandem's global generator."""
    if generator is not None:
        raise NotImplementedError("random_split: generator is not supported; seed with "
                                  "tandem.manual_seed")
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("random_split: sum of input lengths does not equal the length of the "
                         f"input dataset ({sum(lengths)} vs {n})")
    perm = _C.randperm(n, _C.dtype.int64).numpy().tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length]))
        start += length
    return out
