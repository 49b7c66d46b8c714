"""``mint.cuda``: PyTorch's CUDA queries, answered for a machine without a GPU backend
(tandem computes on the CPU). ``is_available()`` is False and ``device_count()`` 0, so code
that picks its device the PyTorch way (D2L's ``try_gpu()``) runs on the CPU; asking for a
CUDA device itself raises."""
from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "is_initialized", "current_device",
           "get_device_name", "synchronize", "manual_seed", "manual_seed_all", "empty_cache",
           "memory_allocated"]


def _no_cuda(op: str) -> RuntimeError:
    return RuntimeError(f"mint.cuda.{op}: tandem has no CUDA backend (is_available() is "
                        f"False); run on the CPU")


def is_available() -> bool:
    """Whether a CUDA device can be used.

    Returns:
        bool: always False.
    """
    return False


def device_count() -> int:
    """The number of CUDA devices.

    Returns:
        int: always 0.
    """
    return 0


def is_initialized() -> bool:
    """Whether CUDA was initialized.

    Returns:
        bool: always False.
    """
    return False


def current_device() -> int:
    """The current CUDA device index (raises: there is none).

    Returns:
        int: never returns.
    """
    raise _no_cuda("current_device")


def get_device_name(device: Any = None) -> str:
    """The name of a CUDA device (raises: there is none).

    Args:
        device: the device asked about.

    Returns:
        str: never returns.
    """
    raise _no_cuda("get_device_name")


def synchronize(device: Any = None) -> None:
    """Waits for CUDA work (raises: there is no CUDA backend, as in a CPU-only PyTorch).

    Args:
        device: the device to wait for.

    Returns:
        None
    """
    raise _no_cuda("synchronize")


def manual_seed(seed: int) -> None:
    """Seeds the CUDA generators: nothing to seed here (PyTorch also ignores it without CUDA).

    Args:
        seed (int): the seed.

    Returns:
        None
    """
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds every CUDA generator: nothing to seed here (as manual_seed).

    Args:
        seed (int): the seed.

    Returns:
        None
    """
    int(seed)


def empty_cache() -> None:
    """Frees cached CUDA memory: there is none.

    Returns:
        None
    """


def memory_allocated(device: Any = None) -> int:
    """CUDA memory held by tensors.

    Args:
        device: the device asked about.

    Returns:
        int: always 0.
    """
    return 0
