"""mindspore.dataset.config: the pipeline seed, the default worker count and the sync_wait
timeout."""
from __future__ import annotations

import os
from typing import Optional

__all__ = ["set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers",
           "set_callback_timeout", "get_callback_timeout"]

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


_callback_timeout = 60


def set_callback_timeout(timeout: int) -> None:
    """Sets how long a sync_wait blocks for its sync_update before it warns and stops
    blocking.

    Args:
        timeout (int): seconds (> 0).
    """
    global _callback_timeout
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        raise ValueError(f"config.set_callback_timeout: timeout must be a positive int, got "
                         f"{timeout!r}")
    _callback_timeout = timeout


def get_callback_timeout() -> int:
    """How long a sync_wait blocks for its sync_update.

    Returns:
        int, seconds (60 unless set).
    """
    return _callback_timeout
