"""Containers: Sequential, ModuleList, ModuleDict, ParameterList (PyTorch) and MindSpore's
SequentialCell, CellList, CellDict."""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, Optional

from ._common import Cell, Parameter


class Sequential(Cell):
    """Calls its modules in order, each on the previous one's output. Built from modules
    (named '0', '1', ...) or one OrderedDict of name -> module."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (OrderedDict, dict)):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                args = tuple(args[0])
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def _key(self, idx: int) -> str:
        n = len(self._cells)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for {type(self).__name__} of length {n}")
        return list(self._cells)[idx % n]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._cells.items())[idx]))
        return self._cells[self._key(idx)]

    def __setitem__(self, idx: int, module: Cell) -> None:
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._cells)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for k in keys:
            del self._cells[k]
        # Renumber so indices and names stay in step, as PyTorch does.
        items = list(self._cells.items())
        self._cells.clear()
        for i, (k, m) in enumerate(items):
            self._cells[str(i) if k.isdigit() else k] = m

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __add__(self, other: "Sequential") -> "Sequential":
        return type(self)(*self, *other)

    def append(self, module: Cell) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Cell]) -> "Sequential":
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Cell) -> "Sequential":
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"index {index} is out of range for {type(self).__name__} of length {n}")
        mods = list(self._cells.values())
        mods.insert(index % (n + 1) if index < 0 else index, module)
        self._cells.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)
        return self

    def pop(self, index: int = -1) -> Cell:
        m = self[index]
        del self[index]
        return m

    def forward(self, input):
        for m in self._cells.values():
            input = m(input)
        return input


class ModuleList(Cell):
    """A list of modules whose parameters are registered (it has no forward)."""

    def __init__(self, modules: Optional[Iterable[Cell]] = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, idx: int) -> str:
        n = len(self._cells)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for {type(self).__name__} of length {n}")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._cells.values())[idx])
        return self._cells[self._key(idx)]

    def __setitem__(self, idx: int, module: Cell) -> None:
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx) -> None:
        mods = list(self._cells.values())
        del mods[idx]
        self._cells.clear()
        self.extend(mods)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __iadd__(self, modules: Iterable[Cell]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Cell]) -> "ModuleList":
        return type(self)(list(self) + list(other))

    def append(self, module: Cell) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Cell]) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Cell) -> None:
        mods = list(self._cells.values())
        mods.insert(index, module)
        self._cells.clear()
        self.extend(mods)

    def pop(self, index: int = -1) -> Cell:
        m = self[index]
        del self[index]
        return m


class ModuleDict(Cell):
    """A dict of name -> module whose parameters are registered."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, module: Cell) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key) -> bool:
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def items(self):
        return self._cells.items()

    def values(self):
        return self._cells.values()

    def clear(self) -> None:
        self._cells.clear()

    def pop(self, key: str) -> Cell:
        return self._cells.pop(key)

    def update(self, modules) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self.add_module(k, m)


class ParameterList(Cell):
    """A list of Parameters that registers them (names '0', '1', ...)."""

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def append(self, value) -> "ParameterList":
        if not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(str(len(self._params)), value)
        return self

    def extend(self, values) -> "ParameterList":
        for v in values:
            self.append(v)
        return self

    def __getitem__(self, idx: int) -> Parameter:
        return list(self._params.values())[idx]

    def __len__(self) -> int:
        return len(self._params)

    def __iter__(self):
        return iter(self._params.values())

    def extra_repr(self) -> str:
        return "\n".join(f"({k}): Parameter containing: [{p.dtype} of size {tuple(p.shape)}]"
                         for k, p in self._params.items())


# MindSpore names
class SequentialCell(Sequential):
    """MindSpore's SequentialCell(*cells) or SequentialCell([cells]) / (OrderedDict)."""


class CellList(ModuleList):
    """MindSpore's CellList: a list of Cells."""

    def __init__(self, args=None, **kwargs):
        super().__init__(args)


class CellDict(ModuleDict):
    """MindSpore's CellDict."""
