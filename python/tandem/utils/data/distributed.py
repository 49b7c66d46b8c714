"""``tandem.utils.data.distributed`` (``torch.utils.data.distributed``): the sampler that gives
each rank of a data-parallel job its own share of a dataset."""
from __future__ import annotations

from typing import Any, Iterator, List, Optional

import numpy as np

__all__ = ["DistributedSampler"]


class DistributedSampler:
    """Restricts a DataLoader to this rank's share of a map-style dataset, for data-parallel
    training (``DataLoader(dataset, sampler=DistributedSampler(dataset))``).

    The dataset's indices (shuffled when `shuffle`) are padded by repeating them from the
    start until their number divides by `num_replicas` (or, with `drop_last`, cut to the
    largest multiple); rank r then takes every num_replicas-th index from position r, so
    every rank draws the same number of samples and, without padding, the ranks' shares are
    disjoint and cover the dataset. The shuffle depends only on ``seed + epoch``, so it is
    the same on every rank; call ``set_epoch(epoch)`` before each epoch for a new order.
    The permutation itself is numpy's, so it differs from PyTorch's for the same seed.

    Args:
        dataset (Dataset): a map-style dataset (only ``len`` is used).
        num_replicas (int, optional): the number of ranks; the world size of the initialized
            process group when None. Default: ``None``.
        rank (int, optional): this process's rank in ``[0, num_replicas)``; the group's rank
            when None. Default: ``None``.
        shuffle (bool, optional): shuffle the indices. Default: ``True``.
        seed (int, optional): the shuffle seed; must be the same on every rank. Default: ``0``.
        drop_last (bool, optional): drop the tail instead of padding. Default: ``False``.
    """

    def __init__(self, dataset: Any, num_replicas: Optional[int] = None,
                 rank: Optional[int] = None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        from ... import _distributed
        if num_replicas is None:
            num_replicas = _distributed.get_world_size()
        if rank is None:
            rank = _distributed.get_rank()
        num_replicas, rank = int(num_replicas), int(rank)
        if num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be >= 1, got "
                             f"{num_replicas}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: invalid rank {rank}, rank should be in the "
                             f"interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas, self.rank = num_replicas, rank
        self.shuffle, self.seed, self.drop_last = bool(shuffle), int(seed), bool(drop_last)
        self.epoch = 0
        n = len(dataset)
        if self.drop_last:
            self.num_samples = n // num_replicas
        else:
            self.num_samples = -(-n // num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        """This rank's indices for the current epoch.

        Returns:
            Iterator[int]: ``len(self)`` dataset indices.
        """
        n = len(self.dataset)
        if self.shuffle:
            order = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            order = np.arange(n)
        if self.total_size > n:  # pad by repeating from the start (n may be < the padding)
            order = np.resize(order, self.total_size)
        else:
            order = order[:self.total_size]
        mine: List[int] = order[self.rank::self.num_replicas].tolist()
        return iter(mine)

    def __len__(self) -> int:
        """The number of indices this rank draws per epoch.

        Returns:
            int: ``num_samples``.
        """
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which seeds the shuffle (with `seed`): call it before each epoch so
        that every rank uses the same new order.

        Args:
            epoch (int): the epoch number.
        """
        self.epoch = int(epoch)
