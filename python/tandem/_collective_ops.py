"""Collectives that return new tensors instead of writing in place, for the MindSpore face
(``ops.AllReduce``, ``ops.AllGather``, ``ops.Broadcast``, ``nn.DistributedGradReducer``).
They are ops (src/tandem/distributed/collective_ops.cpp): eagerly they run at once, and
inside a trace (GRAPH_MODE, jit) they become graph nodes that run, in program order, every
time the compiled function does."""
from __future__ import annotations

from typing import Any

from . import _C, _distributed
from ._C import Tensor

WORLD = _distributed.WORLD_GROUP_NAME


def _tensor(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a tandem Tensor, got {type(x).__name__}")
    return x


def all_reduce(op: str, x: Tensor, reduce_op: Any, group: str = WORLD) -> Tensor:
    """A new tensor: ``x`` reduced over the ranks of ``group``."""
    return all_reduce_many(op, [x], reduce_op, group)[0]


def all_reduce_many(op: str, xs: Any, reduce_op: Any, group: str = WORLD) -> list[Tensor]:
    """New tensors: each of ``xs`` reduced over the ranks (differentiable for SUM and AVG)."""
    g = _distributed.named_group(op, group)
    return [_C.all_reduce_value(_tensor(op, x), reduce_op, g) for x in xs]


def all_gather_concat(op: str, x: Tensor, group: str = WORLD) -> Tensor:
    """A new tensor: every rank's ``x`` concatenated along dim 0, in rank order."""
    return _C.all_gather_value(_tensor(op, x), _distributed.named_group(op, group))


def broadcast(op: str, x: Tensor, root: int, group: str = WORLD) -> Tensor:
    """A new tensor holding (group) rank ``root``'s ``x``."""
    g = _distributed.named_group(op, group)
    if not 0 <= int(root) < int(g.size):
        raise ValueError(f"{op}: root_rank {root} is out of range for {int(g.size)} ranks")
    return _C.broadcast_value(_tensor(op, x), int(root), g)
