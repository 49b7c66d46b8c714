"""The traversal half of Cell / Module: the cell tree's modules, children, parameters and
buffers, under PyTorch's names and MindSpore's (a base class of Cell, in its own file)."""
from __future__ import annotations

from collections import OrderedDict
from typing import (TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple,
                    cast)

from .. import _C
from .parameter import Parameter

if TYPE_CHECKING:
    from .cell import Cell

Tensor = _C.Tensor


class CellTree:
    """The traversal methods of :class:`Cell` (its base class; not used on its own)."""

    # Created by Cell.__init__ (declared for type checkers).
    _params: "OrderedDict[str, Optional[Parameter]]"
    _buffers: "OrderedDict[str, Optional[Tensor]]"
    _cells: "OrderedDict[str, Optional[Cell]]"

    def named_modules(self, memo: Optional[Set[int]] = None,
                      prefix: str = "") -> Iterator[Tuple[str, "Cell"]]:
        """Every cell in the tree (this one first, then depth-first), each once.

        Args:
            memo (set, optional): ids of cells already visited (skipped). Default: ``None``.
            prefix (str): prepended to every name. Default: ``''``.

        Returns:
            Iterator[Tuple[str, Cell]]: (dotted name, cell) pairs; this cell's name is
            `prefix`.
        """
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, cast("Cell", self)
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["Cell"]:
        """Every cell in the tree, this one first.

        Returns:
            Iterator[Cell]: the cells.
        """
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[Tuple[str, "Cell"]]:
        """The direct sub-cells.

        Returns:
            Iterator[Tuple[str, Cell]]: (attribute name, cell) pairs.
        """
        seen = set()
        for name, cell in self._cells.items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                yield name, cell

    def children(self) -> Iterator["Cell"]:
        """The direct sub-cells.

        Returns:
            Iterator[Cell]: the cells.
        """
        for _, c in self.named_children():
            yield c

    def cells_and_names(self, cells: Optional[Any] = None,
                        name_prefix: str = "") -> Iterator[Tuple[str, "Cell"]]:
        """MindSpore's name for ``named_modules()``.

        Args:
            cells (Any, optional): ignored (MindSpore's cache of visited cells).
            name_prefix (str): prepended to every name. Default: ``''``.

        Returns:
            Iterator[Tuple[str, Cell]]: (dotted name, cell) pairs.
        """
        return self.named_modules(prefix=name_prefix)

    def cells(self) -> Iterator["Cell"]:
        """MindSpore's name for ``children()``.

        Returns:
            Iterator[Cell]: the direct sub-cells.
        """
        return self.children()

    def name_cells(self) -> Dict[str, "Cell"]:
        """The direct sub-cells by attribute name (MindSpore).

        Returns:
            Dict[str, Cell]: an ordered dict name -> cell.
        """
        return OrderedDict(self.named_children())

    def _named(self, store: str, prefix: str, recurse: bool) -> Iterator[Tuple[str, Any]]:
        seen = set()
        mods: Iterable[Tuple[str, Cell]] = (self.named_modules(prefix=prefix) if recurse
                                             else [(prefix, cast("Cell", self))])
        for mprefix, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix: str = "",
                         recurse: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """(name, Parameter) pairs; a parameter shared by two layers appears once. A
        parameter without a name gets its dotted name here.

        Args:
            prefix (str): prepended to every name. Default: ``''``.
            recurse (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            Iterator[Tuple[str, Parameter]]: (dotted name, parameter) pairs.
        """
        for name, p in self._named("_params", prefix, recurse):
            if getattr(p, "name", None) is None:
                p.name = name
            yield name, p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters (to hand to an optimizer).

        Args:
            recurse (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            Iterator[Parameter]: each parameter once.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "",
                      recurse: bool = True) -> Iterator[Tuple[str, Tensor]]:
        """(name, buffer) pairs of the registered buffers that hold a tensor.

        Args:
            prefix (str): prepended to every name. Default: ``''``.
            recurse (bool): include the sub-cells' buffers. Default: ``True``.

        Returns:
            Iterator[Tuple[str, Tensor]]: (dotted name, buffer) pairs.
        """
        return self._named("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The registered buffers that hold a tensor.

        Args:
            recurse (bool): include the sub-cells' buffers. Default: ``True``.

        Returns:
            Iterator[Tensor]: the buffers.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # MindSpore names
    def parameters_and_names(self, name_prefix: str = "",
                             expand: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """MindSpore's name for ``named_parameters()``.

        Args:
            name_prefix (str): prepended to every name. Default: ``''``.
            expand (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            Iterator[Tuple[str, Parameter]]: (dotted name, parameter) pairs.
        """
        return self.named_parameters(prefix=name_prefix, recurse=expand)

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        """MindSpore's name for ``parameters()``.

        Args:
            expand (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            Iterator[Parameter]: each parameter once.
        """
        return self.parameters(recurse=expand)

    def trainable_params(self, recurse: bool = True) -> List[Parameter]:
        """The parameters that require grad (MindSpore).

        Args:
            recurse (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            List[Parameter]: the trainable parameters, in registration order.
        """
        return [p for p in self.parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> List[Parameter]:
        """The parameters that do not require grad (MindSpore).

        Args:
            recurse (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            List[Parameter]: the frozen parameters, in registration order.
        """
        return [p for p in self.parameters(recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> Dict[str, Parameter]:
        """The parameters by dotted name (MindSpore).

        Args:
            recurse (bool): include the sub-cells' parameters. Default: ``True``.

        Returns:
            Dict[str, Parameter]: an ordered dict name -> parameter.
        """
        return OrderedDict(self.named_parameters(recurse=recurse))
