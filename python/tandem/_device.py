"""Devices the PyTorch way. tandem computes on the CPU only: ``device('cpu')`` is accepted
everywhere a device is; a CUDA (or other accelerator) device can be *named*, as PyTorch
allows without a GPU, but putting a tensor or module on it raises a clear error."""
from __future__ import annotations

from typing import Any, Optional, Union

_KNOWN = ("cpu", "cuda", "mps", "xpu", "meta", "npu", "ascend")


class device:  # noqa: N801 - PyTorch's name
    """A device: ``device('cpu')``, ``device('cuda:0')``, ``device('cuda', 0)``.

    Args:
        type (str or device): 'cpu', 'cuda', ... optionally with ':index'.
        index (int, optional): the device index. Default: ``None``.
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type: Union[str, "device"], index: Optional[int] = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self._type, self._index = type._type, type._index
            return
        if not isinstance(type, str):
            raise TypeError(f"device: expected a string like 'cpu' or 'cuda:0', got "
                            f"{type!r} ({type.__class__.__name__})")
        name, sep, idx = type.partition(":")
        if name not in _KNOWN:
            raise RuntimeError(f"device: expected one of {', '.join(_KNOWN)} device type at "
                               f"start of device string: {type!r}")
        if sep:
            if index is not None:
                raise RuntimeError(f"device: type {type!r} already names an index; "
                                   f"drop index={index}")
            if not idx.isdigit():
                raise RuntimeError(f"device: invalid device string {type!r}")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError(f"device: index must be non-negative, got {index}")
        self._type, self._index = name, index

    @property
    def type(self) -> str:  # noqa: A003
        """The device type ('cpu', 'cuda', ...)."""
        return self._type

    @property
    def index(self) -> Optional[int]:
        """The device index, or None."""
        return self._index

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __eq__(self, other: Any) -> bool:
        # A device never equals a string, as in PyTorch (compare str(d) or d.type).
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type, self._index))


CPU = device("cpu")


def as_device(d: Any, op: str) -> device:
    """``d`` (None, a string, an int or a device) as the CPU device; anything else raises.

    Args:
        d: the requested device.
        op (str): the calling op, for the error message.

    Returns:
        device: the CPU device.
    """
    if d is None:
        return CPU
    if isinstance(d, int) and not isinstance(d, bool):
        d = device("cuda", d)  # PyTorch reads an int as a CUDA ordinal
    elif not isinstance(d, device):
        if not isinstance(d, str):
            raise TypeError(f"{op}: device must be a string, an int or a mint.device, got "
                            f"{d.__class__.__name__}")
        d = device(d)
    if d.type != "cpu":
        raise RuntimeError(f"{op}: device {str(d)!r} is not available: tandem runs on the CPU "
                           f"only (mint.cuda.is_available() is False); use device='cpu' or "
                           f"pick the device with mint.cuda.is_available()")
    return CPU


def is_device_like(x: Any) -> bool:
    """Whether ``x`` names a device (a device, or a string that parses as one).

    Args:
        x: anything.

    Returns:
        bool: True for devices and device strings.
    """
    if isinstance(x, device):
        return True
    if isinstance(x, str):
        try:
            device(x)
            return True
        except RuntimeError:
            return False
    return False
