"""Padding layers: ZeroPad1d/2d, ConstantPad1d/2d, ReflectionPad1d/2d, ReplicationPad1d/2d."""
from __future__ import annotations

from .. import _C
from .._typing import IntOrTuple
from ._common import Cell, ops, tup

Tensor = _C.Tensor

__all__ = ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d"]

_PAD1 = """

    Args:
        padding (int or tuple): the padding of the last dim: one int for both sides, or
            (left, right)."""
_PAD2 = """

    Args:
        padding (int or tuple): the padding of the last two dims: one int for every side, or
            (left, right, top, bottom)."""
_VALUE = """
        value (float): the fill value. Default: ``0.0``.
"""


class _PadNd(Cell):
    _n = 1
    _mode = "constant"

    def __init__(self, padding: IntOrTuple, value: float = 0.0) -> None:
        super().__init__()
        self.padding = tup(padding, 2 * self._n, "padding")
        self.value = float(value)

    def forward(self, input: Tensor) -> Tensor:
        """Pads `input`.

        Args:
            input (Tensor): the input; its last one (1d) or two (2d) dims are padded.

        Returns:
            Tensor: the padded tensor.
        """
        if self._mode == "constant":
            return ops.pad(input, list(self.padding), value=self.value)
        return ops.pad(input, list(self.padding), mode=self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}" + (f", value={self.value}" if self._mode == "constant" else "")


class _FixedPad(_PadNd):
    """A padding layer without a fill value (zeros, or a mode that copies the input)."""

    def __init__(self, padding: IntOrTuple) -> None:
        super().__init__(padding, 0.0)


class ZeroPad1d(_FixedPad):
    __doc__ = "Pads the last dim with zeros." + _PAD1 + "\n"
    _n, _mode = 1, "constant"


class ZeroPad2d(_FixedPad):
    __doc__ = "Pads the last two dims (H, W) with zeros." + _PAD2 + "\n"
    _n, _mode = 2, "constant"


class ConstantPad1d(_PadNd):
    __doc__ = "Pads the last dim with a constant." + _PAD1 + _VALUE
    _n, _mode = 1, "constant"


class ConstantPad2d(_PadNd):
    __doc__ = "Pads the last two dims (H, W) with a constant." + _PAD2 + _VALUE
    _n, _mode = 2, "constant"


class ReflectionPad1d(_FixedPad):
    __doc__ = ("Pads the last dim with its mirror image (without repeating the edge)."
               + _PAD1 + "\n")
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_FixedPad):
    __doc__ = ("Pads the last two dims (H, W) with their mirror image (without repeating the "
               "edge)." + _PAD2 + "\n")
    _n, _mode = 2, "reflect"


class ReplicationPad1d(_FixedPad):
    __doc__ = "Pads the last dim by repeating its edge values." + _PAD1 + "\n"
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_FixedPad):
    __doc__ = "Pads the last two dims (H, W) by repeating their edge values." + _PAD2 + "\n"
    _n, _mode = 2, "replicate"
