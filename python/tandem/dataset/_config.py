"""mindspore.dataset.config: the pipeline seed and default worker count."""
from __future__ import annotations

import os
from typing import Optional

__all__ = ["set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers"]

_seed: Optional[int] = None
_workers = min(8, os.cpu_count() or 1)


def set_seed(seed: int) -> None:
    """Seeds every pipeline created afterwards (instead of tandem's global generator).

    Args:
        seed (int): the seed, in [0, 2**64).
    """
    global _seed
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"config.set_seed: seed must be an int in [0, 2**64), got {seed!r}")
    _seed = seed


def get_seed() -> Optional[int]:
    """The seed set by :func:`set_seed`.

    Returns:
        int, the seed, or ``None`` when pipelines draw their seeds from tandem's generator.
    """
    return _seed


def set_num_parallel_workers(num: int) -> None:
    """Sets the default number of worker threads per pipeline.

    Args:
        num (int): the number of threads (>= 1).
    """
    global _workers
    if not isinstance(num, int) or num < 1:
        raise ValueError(f"config.set_num_parallel_workers: num must be a positive int, "
                         f"got {num!r}")
    _workers = num


def get_num_parallel_workers() -> int:
    """The default number of worker threads per pipeline.

    Returns:
        int, the number of threads (min(8, CPU count) unless set).
    """
    return _workers
