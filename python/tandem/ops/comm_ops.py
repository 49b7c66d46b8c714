"""MindSpore's communication primitives (``ops.AllReduce(ReduceOp.SUM)(x)``,
``ops.AllGather()(x)``, ``ops.Broadcast(0)((x,))``) over the ranks of the MPI job: each
returns new tensors and leaves its input unchanged (tandem/_collective_ops.py). Inside a
compiled graph (GRAPH_MODE, jit) they are graph nodes."""
from __future__ import annotations

from typing import Any, Tuple, Union

from .. import _collective_ops, _distributed
from .._C import Tensor
from .primitives import Primitive

ReduceOp = _distributed.ReduceOp

_NAMES = {"sum": ReduceOp.SUM, "max": ReduceOp.MAX, "min": ReduceOp.MIN}


def _group(op: str, group: str) -> None:
    if not isinstance(group, str):
        raise TypeError(f"{op}: group must be a group name (str), got {type(group).__name__}")


class AllReduce(Primitive):
    """Reduces a tensor over all ranks; every rank gets the result (a new tensor).

    Args:
        op (ReduceOp): ``ReduceOp.SUM``, ``MAX``, ``MIN`` (or ``'sum'``, ``'max'``,
            ``'min'``) or ``AVG`` (floating only). Default: ``ReduceOp.SUM`` .
        group (str): the communication group (``'world_group'`` or one made by
            ``communication.create_group``).
            Default: ``'world_group'`` .
    """

    def __init__(self, op: Any = ReduceOp.SUM, group: str = "world_group") -> None:
        _group("AllReduce", group)
        if isinstance(op, str):
            if op not in _NAMES:
                raise ValueError(f"AllReduce: op must be one of {sorted(_NAMES)} or a "
                                 f"ReduceOp, got {op!r} (PROD is not supported)")
            op = _NAMES[op]
        if not isinstance(op, type(ReduceOp.SUM)):
            raise TypeError(f"AllReduce: op must be a ReduceOp (SUM, MAX, MIN, AVG), got {op!r}")
        self.op, self.group = op, group

    def __call__(self, input_x: Tensor) -> Tensor:
        """Runs the reduction.

        Args:
            input_x (Tensor): float32/float64/int32/int64, the same shape on every rank.

        Returns:
            Tensor, the reduced tensor.
        """
        return _collective_ops.all_reduce("AllReduce", input_x, self.op, self.group)


class AllGather(Primitive):
    """Gathers a tensor from all ranks and concatenates them along dim 0 in rank order: an
    input of shape (x_1, ..., x_R) gives (N * x_1, ..., x_R) for N ranks.

    Args:
        group (str): the communication group (``'world_group'`` or one made by
            ``communication.create_group``).
            Default: ``'world_group'`` .
    """

    def __init__(self, group: str = "world_group") -> None:
        _group("AllGather", group)
        self.group = group

    def __call__(self, input_x: Tensor) -> Tensor:
        """Runs the gather.

        Args:
            input_x (Tensor): at least 1-d, the same shape and dtype on every rank.

        Returns:
            Tensor, the concatenation.
        """
        return _collective_ops.all_gather_concat("AllGather", input_x, self.group)


class Broadcast(Primitive):
    """Copies rank `root_rank`'s tensors to every rank (new tensors).

    Args:
        root_rank (int): the source rank.
        group (str): the communication group (``'world_group'`` or one made by
            ``communication.create_group``).
            Default: ``'world_group'`` .
    """

    def __init__(self, root_rank: int, group: str = "world_group") -> None:
        _group("Broadcast", group)
        if isinstance(root_rank, bool) or not isinstance(root_rank, int) or root_rank < 0:
            raise ValueError(f"Broadcast: root_rank must be a non-negative int, got "
                             f"{root_rank!r}")
        self.root_rank, self.group = root_rank, group

    def __call__(self, input_x: Union[Tensor, Tuple[Tensor, ...]]) -> Any:
        """Runs the broadcast.

        Args:
            input_x (Union[Tensor, tuple[Tensor]]): the tensors (MindSpore passes a tuple),
                the same shapes and dtypes on every rank.

        Returns:
            Union[Tensor, tuple[Tensor]], rank root_rank's tensors, in the input's structure.
        """
        if isinstance(input_x, (tuple, list)):
            return tuple(_collective_ops.broadcast("Broadcast", t, self.root_rank, self.group)
                         for t in input_x)
        return _collective_ops.broadcast("Broadcast", input_x, self.root_rank, self.group)


__all__ = ["ReduceOp", "AllReduce", "AllGather", "Broadcast"]
