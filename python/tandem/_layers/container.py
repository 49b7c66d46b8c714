"""Containers: Sequential, ModuleList, ModuleDict, ParameterList (PyTorch) and MindSpore's
SequentialCell, CellList, CellDict."""
from __future__ import annotations

from collections import OrderedDict
from typing import (Any, ItemsView, Iterable, Iterator, KeysView, List, Mapping, Optional, Tuple,
                    TypeVar, Union, ValuesView, cast, overload)

from ._common import Cell, Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "SequentialCell",
           "CellList", "CellDict"]

_S = TypeVar("_S", bound="Sequential")
_L = TypeVar("_L", bound="ModuleList")


class Sequential(Cell):
    """Calls its modules in order, each on the previous one's output.

    Args:
        *args (Cell): the modules (named ``'0'``, ``'1'``, ...), one list or tuple of them,
            or one (Ordered)dict name -> module.
    """

    def __init__(self, *args: Any) -> None:
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

    @overload
    def __getitem__(self: _S, idx: slice) -> _S: ...

    @overload
    def __getitem__(self, idx: int) -> Cell: ...

    def __getitem__(self, idx: Union[int, slice]) -> Cell:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._cells.items())[idx]))
        return cast(Cell, self._cells[self._key(idx)])  # a slot may hold None

    def __setitem__(self, idx: int, module: Cell) -> None:
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
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

    def __iter__(self) -> Iterator[Cell]:
        return iter(cast("ValuesView[Cell]", self._cells.values()))

    def __add__(self: _S, other: "Sequential") -> _S:
        return type(self)(*self, *other)

    def append(self: _S, module: Cell) -> _S:
        """Adds a module at the end.

        Args:
            module (Cell): the module.

        Returns:
            Sequential: this container.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self: _S, modules: Iterable[Cell]) -> _S:
        """Adds modules at the end.

        Args:
            modules (Iterable[Cell]): the modules, in order.

        Returns:
            Sequential: this container.
        """
        for m in modules:
            self.append(m)
        return self

    def insert(self: _S, index: int, module: Cell) -> _S:
        """Inserts a module before position `index` (the modules are renumbered).

        Args:
            index (int): the position, from ``-len`` to ``len``.
            module (Cell): the module.

        Returns:
            Sequential: this container.
        """
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
        """Removes a module and returns it.

        Args:
            index (int): its position. Default: ``-1``.

        Returns:
            Cell: the removed module.
        """
        m = self[index]
        del self[index]
        return m

    def forward(self, input: Any) -> Any:
        """Runs the modules in order.

        Args:
            input (Any): the first module's input (usually a Tensor).

        Returns:
            Any: the last module's output (a Tensor for layers that return one; typed
            ``Any`` because a module may return a tuple).
        """
        for m in cast("ValuesView[Cell]", self._cells.values()):
            input = m(input)
        return input


class ModuleList(Cell):
    """A list of modules whose parameters are registered (it has no forward).

    Args:
        modules (Iterable[Cell], optional): the initial modules. Default: ``None``.
    """

    def __init__(self, modules: Optional[Iterable[Cell]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, idx: int) -> str:
        n = len(self._cells)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for {type(self).__name__} of length {n}")
        return str(idx % n)

    @overload
    def __getitem__(self: _L, idx: slice) -> _L: ...

    @overload
    def __getitem__(self, idx: int) -> Cell: ...

    def __getitem__(self, idx: Union[int, slice]) -> Cell:
        if isinstance(idx, slice):
            return type(self)(cast("List[Cell]", list(self._cells.values())[idx]))
        return cast(Cell, self._cells[self._key(idx)])

    def __setitem__(self, idx: int, module: Cell) -> None:
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        mods = cast("List[Cell]", list(self._cells.values()))
        del mods[idx]
        self._cells.clear()
        self.extend(mods)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(cast("ValuesView[Cell]", self._cells.values()))

    def __iadd__(self: _L, modules: Iterable[Cell]) -> _L:
        return self.extend(modules)

    def __add__(self: _L, other: Iterable[Cell]) -> _L:
        return type(self)(list(self) + list(other))

    def append(self: _L, module: Cell) -> _L:
        """Adds a module at the end.

        Args:
            module (Cell): the module.

        Returns:
            ModuleList: this list.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self: _L, modules: Iterable[Cell]) -> _L:
        """Adds modules at the end.

        Args:
            modules (Iterable[Cell]): the modules, in order.

        Returns:
            ModuleList: this list.
        """
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Cell) -> None:
        """Inserts a module before position `index` (the modules are renumbered).

        Args:
            index (int): the position (as ``list.insert``).
            module (Cell): the module.
        """
        mods = cast("List[Cell]", list(self._cells.values()))
        mods.insert(index, module)
        self._cells.clear()
        self.extend(mods)

    def pop(self, index: int = -1) -> Cell:
        """Removes a module and returns it.

        Args:
            index (int): its position. Default: ``-1``.

        Returns:
            Cell: the removed module.
        """
        m = self[index]
        del self[index]
        return m


class ModuleDict(Cell):
    """A dict of name -> module whose parameters are registered.

    Args:
        modules (Mapping[str, Cell] or Iterable[Tuple[str, Cell]], optional): the initial
            modules. Default: ``None``.
    """

    def __init__(self, modules: Union[Mapping[str, Cell], Iterable[Tuple[str, Cell]],
                                      None] = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Cell:
        return cast(Cell, self._cells[key])

    def __setitem__(self, key: str, module: Cell) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(self._cells)

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def keys(self) -> KeysView[str]:
        """The names.

        Returns:
            KeysView[str]: a view of the names, in insertion order.
        """
        return self._cells.keys()

    def items(self) -> ItemsView[str, Optional[Cell]]:
        """The (name, module) pairs.

        Returns:
            ItemsView[str, Cell]: a view of the pairs, in insertion order.
        """
        return self._cells.items()

    def values(self) -> ValuesView[Optional[Cell]]:
        """The modules.

        Returns:
            ValuesView[Cell]: a view of the modules, in insertion order.
        """
        return self._cells.values()

    def clear(self) -> None:
        """Removes every module."""
        self._cells.clear()

    def pop(self, key: str) -> Optional[Cell]:
        """Removes a module and returns it.

        Args:
            key (str): its name.

        Returns:
            Cell: the removed module.
        """
        return self._cells.pop(key)

    def update(self, modules: Union[Mapping[str, Cell], Iterable[Tuple[str, Cell]]]) -> None:
        """Adds (or replaces) modules.

        Args:
            modules (Mapping[str, Cell] or Iterable[Tuple[str, Cell]]): name -> module, or
                (name, module) pairs.
        """
        items: Iterable[Tuple[str, Cell]] = (modules.items() if hasattr(modules, "items")
                                             else modules)
        for k, m in items:
            self.add_module(k, m)


class ParameterList(Cell):
    """A list of Parameters that registers them (names ``'0'``, ``'1'``, ...).

    Args:
        values (Iterable, optional): the initial values (tensors are wrapped in Parameters).
            Default: ``None``.
    """

    def __init__(self, values: Optional[Iterable[Any]] = None) -> None:
        super().__init__()
        for v in values or ():
            self.append(v)

    def append(self, value: Any) -> "ParameterList":
        """Adds a parameter at the end.

        Args:
            value (Parameter or Tensor): the parameter (a tensor is wrapped in one).

        Returns:
            ParameterList: this list.
        """
        if not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(str(len(self._params)), value)
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Adds parameters at the end.

        Args:
            values (Iterable): the parameters (tensors are wrapped).

        Returns:
            ParameterList: this list.
        """
        for v in values:
            self.append(v)
        return self

    def __getitem__(self, idx: int) -> Parameter:
        return cast(Parameter, list(self._params.values())[idx])

    def __len__(self) -> int:
        return len(self._params)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(cast("ValuesView[Parameter]", self._params.values()))

    def extra_repr(self) -> str:
        return "\n".join(f"({k}): Parameter containing: [{p.dtype} of size {tuple(p.shape)}]"
                         for k, p in cast("ItemsView[str, Parameter]", self._params.items()))


# MindSpore names
class SequentialCell(Sequential):
    """MindSpore's SequentialCell: runs its cells in order, each on the previous one's
    output.

    Args:
        *args (Cell): the cells, one list of them, or one OrderedDict name -> cell.
    """


class CellList(ModuleList):
    """MindSpore's CellList: a list of Cells whose parameters are registered.

    Args:
        args (list, optional): the initial cells. Default: ``None`` .
        **kwargs: accepted for compatibility and ignored.
    """

    def __init__(self, args: Optional[Iterable[Cell]] = None, **kwargs: Any) -> None:
        super().__init__(args)


class CellDict(ModuleDict):
    """MindSpore's CellDict: a dict of name -> Cell whose parameters are registered.

    Args:
        modules (Mapping[str, Cell], optional): the initial cells. Default: ``None`` .
    """
