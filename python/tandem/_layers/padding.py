"""Padding layers: ZeroPad1d/2d, ConstantPad1d/2d, ReflectionPad1d/2d, ReplicationPad1d/2d."""
from __future__ import annotations

from ._common import Cell, ops, tup


class _PadNd(Cell):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        self.padding = tup(padding, 2 * self._n, "padding")
        self.value = float(value)

    def forward(self, input):
        if self._mode == "constant":
            return ops.pad(input, list(self.padding), value=self.value)
        return ops.pad(input, list(self.padding), mode=self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}" + (f", value={self.value}" if self._mode == "constant" else "")


def _pad_class(name, n, mode, doc):
    attrs = {"_n": n, "_mode": mode, "__doc__": doc}
    if mode == "constant" and name.startswith("Zero"):
        attrs["__init__"] = lambda self, padding: _PadNd.__init__(self, padding, 0.0)
    elif mode != "constant":
        attrs["__init__"] = lambda self, padding: _PadNd.__init__(self, padding)
    return type(name, (_PadNd,), attrs)


ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", "Pads the last dim with zeros (left, right).")
ZeroPad2d = _pad_class("ZeroPad2d", 2, "constant", "Pads H, W with zeros (left, right, top, bottom).")
ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "Pads the last dim with a value.")
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "Pads H, W with a value.")
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "Mirrors the last dim.")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", "Mirrors H, W.")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "Repeats the last dim's edges.")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", "Repeats the edges of H, W.")
