"""Collectives that return new tensors instead of writing in place, for the MindSpore face
(``ops.AllReduce``, ``ops.AllGather``, ``ops.Broadcast``, ``nn.DistributedGradReducer``), over
the in-place ones of tandem/_distributed.py. A collective is a message exchange, not a graph
node: inside a trace (GRAPH_MODE, jit) it raises instead of being recorded."""
from __future__ import annotations

from typing import Any

from . import _C, _distributed
from ._C import Tensor


def check_eager(op: str) -> None:
    """Raises when a trace is recording: the exchange cannot be part of a compiled graph."""
    if _C.is_tracing():
        raise RuntimeError(
            f"{op}: collectives cannot be traced into a graph (GRAPH_MODE or jit); call it "
            "outside the compiled function or run in PYNATIVE_MODE "
            "(tandem.set_context(mode=tandem.PYNATIVE_MODE))")


def _tensor(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a tandem Tensor, got {type(x).__name__}")
    return x


def all_reduce(op: str, x: Tensor, reduce_op: Any) -> Tensor:
    """A new tensor: ``x`` reduced over the ranks."""
    return all_reduce_many(op, [x], reduce_op)[0]


def all_reduce_many(op: str, xs: Any, reduce_op: Any) -> list[Tensor]:
    """New tensors: each of ``xs`` reduced over the ranks. The reductions are queued
    together on the group's communication thread and waited on once."""
    check_eager(op)
    outs = [_tensor(op, x).detach().contiguous().clone() for x in xs]
    g = _distributed.group(op)
    works = [g.all_reduce(out, reduce_op, True) for out in outs]
    for w in works:
        w.wait()
    return outs


def all_gather_concat(op: str, x: Tensor) -> Tensor:
    """A new tensor: every rank's ``x`` concatenated along dim 0, in rank order."""
    check_eager(op)
    x = _tensor(op, x).detach().contiguous()
    if x.dim() == 0:
        raise ValueError(f"{op}: the input must have at least one dim (the results are "
                         "concatenated along dim 0), got a 0-d tensor")
    g = _distributed.group(op)
    outs = [x.clone() for _ in range(int(g.size))]
    g.all_gather(outs, x)
    from ._generated import ms_api
    return ms_api.concat(outs, 0)


def broadcast(op: str, x: Tensor, root: int) -> Tensor:
    """A new tensor holding rank ``root``'s ``x``."""
    check_eager(op)
    g = _distributed.group(op)
    if not 0 <= int(root) < int(g.size):
        raise ValueError(f"{op}: root_rank {root} is out of range for {int(g.size)} ranks")
    out = _tensor(op, x).detach().contiguous().clone()
    g.broadcast(out, int(root))
    return out
