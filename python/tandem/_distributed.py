"""The one implementation of data-parallel communication (MPI, see
src/tandem/distributed). ``tandem.mint.distributed`` (PyTorch names) and
``tandem.communication`` (MindSpore names) are name maps over this module.

Processes are started by ``mpirun -n N python script.py`` (or ``python -m tandem.run``);
each calls ``init`` once. A process started without mpirun is a world of one rank.

Every collective takes ``pg``: None for the default (world) group, a ``_C.ProcessGroup``
made by ``new_group``, or ``NON_MEMBER`` on a rank outside that group (the collective is
skipped there, as in PyTorch). ``async_op=True`` returns a ``_C.Work`` handle; the
operation runs on the group's communication thread in program order with the others."""
from __future__ import annotations

import atexit
import datetime
import os
import sys
import warnings
from typing import Any, Iterable, Optional, Sequence, Union, cast

from . import _C
from ._C import Tensor

DEFAULT_TIMEOUT_S = 1800.0  # PyTorch's default for its CPU backends


class ReduceOp:
    """The reductions of ``all_reduce``: ``SUM``, ``AVG`` (mean, floating tensors only),
    ``MAX`` and ``MIN`` (``torch.distributed.ReduceOp``)."""

    SUM = _C.ReduceOp.SUM
    AVG = _C.ReduceOp.AVG
    MAX = _C.ReduceOp.MAX
    MIN = _C.ReduceOp.MIN


class Work:
    """The handle of an asynchronous collective (``async_op=True``): the operation runs on the
    group's communication thread, in order with the group's other operations.

    Args:
        work (tandem._C.Work): the handle the collective returned.
    """

    __slots__ = ("_work",)

    def __init__(self, work: _C.Work) -> None:
        self._work = work

    def wait(self, timeout: Any = None) -> bool:
        """Blocks until the operation has run and raises its error, if any.

        Args:
            timeout (timedelta or float, optional): bound on the wait; past it a
                RuntimeError names the operation (which stays queued). Default: ``None``.

        Returns:
            bool: True.
        """
        seconds = None if timeout is None else _timeout_seconds("Work.wait", timeout)
        return bool(self._work.wait(seconds))

    def is_completed(self) -> bool:
        """Whether the operation has run.

        Returns:
            bool: True once it has run (successfully or not).
        """
        return bool(self._work.is_completed())

    def source_rank(self) -> int:
        """For a receive: the rank the tensor came from.

        Returns:
            int: the sender's rank, -1 before completion.
        """
        return int(self._work.source_rank())

    def __repr__(self) -> str:
        return repr(self._work)


def _handle(work: object) -> Optional[Work]:
    return None if work is None else Work(cast(_C.Work, work))


class _NonMember:
    """Stands for a group this rank is not a member of (``GroupMember.NON_GROUP_MEMBER``)."""

    def __repr__(self) -> str:
        return "NON_GROUP_MEMBER"


NON_MEMBER = _NonMember()
Group = Union[_C.ProcessGroup, _NonMember, None]

_group: Optional[_C.ProcessGroup] = None
_previous_excepthook = None


def _no_mpi() -> RuntimeError:
    return RuntimeError(
        "tandem was built without MPI: install an MPI implementation (Debian: libopenmpi-dev "
        "openmpi-bin) and rebuild tandem to use distributed training")


def is_available() -> bool:
    """Whether this build of tandem has the MPI collectives."""
    return bool(_C.mpi_available())


def _timeout_seconds(op: str, timeout: Any) -> float:
    if timeout is None:
        env = os.environ.get("TANDEM_DIST_TIMEOUT")
        if not env:
            return DEFAULT_TIMEOUT_S
        try:
            timeout = float(env)
        except ValueError:
            raise ValueError(f"{op}: TANDEM_DIST_TIMEOUT={env!r} is not a number of "
                             "seconds") from None
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"{op}: timeout must be a positive timedelta or number of seconds, "
                         f"got {timeout!r}")
    return float(timeout)


def _abort_on_uncaught(exc_type: type, exc: BaseException, tb: Any) -> None:
    """An uncaught error on one rank ends the job: the other ranks would otherwise wait for
    it in their next collective (and MPI_Finalize would wait for them)."""
    (_previous_excepthook or sys.__excepthook__)(exc_type, exc, tb)
    g = _group
    if g is not None and g.size > 1:
        sys.stderr.write(f"tandem.distributed: rank {g.rank}: uncaught {exc_type.__name__}; "
                         "ending the job so the other ranks do not wait for this one\n")
        sys.stderr.flush()
        _C.mpi_abort(1)


def init(backend: Optional[str] = "mpi", timeout: Any = None) -> None:
    """Joins the job's process group (all ranks of the mpirun job). A second call is a no-op.

    ``timeout`` (timedelta or seconds; default ``TANDEM_DIST_TIMEOUT`` or 1800 s) bounds
    each operation: one that has not completed by then (another rank died, hangs, or runs a
    different collective) ends the job with a message naming it."""
    global _group, _previous_excepthook
    if backend not in ("mpi", None):
        raise ValueError(f"init_process_group: backend {backend!r} is not supported; tandem "
                         "communicates over MPI, use backend='mpi'")
    seconds = _timeout_seconds("init_process_group", timeout)
    if not is_available():
        raise _no_mpi()
    if _group is None:
        _group = _C.ProcessGroup.world(seconds)
        if _group.size > 1 and sys.excepthook is not _abort_on_uncaught:
            _previous_excepthook = sys.excepthook
            sys.excepthook = _abort_on_uncaught


def is_initialized() -> bool:
    """Whether init has been called (and destroy has not)."""
    return _group is not None


def group(op: str) -> _C.ProcessGroup:
    """The default group; RuntimeError naming ``op`` before init."""
    if _group is None:
        if not is_available():
            raise _no_mpi()
        raise RuntimeError(f"{op}: the default process group is not initialized; call "
                           "init_process_group(backend='mpi') first")
    return _group


def resolve(op: str, pg: Group) -> Optional[_C.ProcessGroup]:
    """The group a collective runs on; None (with a warning, as PyTorch) on a non-member."""
    if pg is None:
        return group(op)
    if pg is NON_MEMBER:
        warnings.warn(f"{op}: this rank is not a member of the given group; the call does "
                      "nothing here", stacklevel=3)
        return None
    if not isinstance(pg, _C.ProcessGroup):
        raise TypeError(f"{op}: group must be a process group from new_group or None, got "
                        f"{type(pg).__name__}")
    group(op)
    return pg


def destroy() -> None:
    """Releases the group's communicator (MPI itself stays up until the process exits)."""
    global _group
    _group = None
    _named.clear()
    if is_available():
        _C.release_collective_groups()


def new_group(ranks: Optional[Sequence[int]] = None, timeout: Any = None) -> Group:
    """A group of the given world ranks (all ranks when None). Every rank may call it; a
    rank outside ``ranks`` gets ``NON_MEMBER``."""
    world = group("new_group")
    if ranks is None:
        return world
    try:
        members = sorted({int(r) for r in ranks})
    except (TypeError, ValueError):
        raise TypeError(f"new_group: ranks must be a list of ints, got {ranks!r}") from None
    if not members:
        raise ValueError("new_group: ranks is empty")
    bad = [r for r in members if not 0 <= r < world.size]
    if bad:
        raise ValueError(f"new_group: ranks {bad} are not ranks of the world (size "
                         f"{world.size})")
    if timeout is not None:
        raise NotImplementedError("new_group: a per-group timeout is not supported; the "
                                  "group inherits init_process_group's timeout")
    if world.rank not in members:
        return NON_MEMBER
    return world.subgroup(members)


WORLD_GROUP_NAME = "world_group"  # MindSpore's GlobalComm.WORLD_COMM_GROUP
_named: dict[str, _C.ProcessGroup] = {}


def named_group(op: str, name: str) -> _C.ProcessGroup:
    """The group MindSpore code names ``name`` (``'world_group'`` or one from
    ``create_named_group``)."""
    if not isinstance(name, str):
        raise TypeError(f"{op}: group must be a group name (str), got {type(name).__name__}")
    if name == WORLD_GROUP_NAME:
        return group(op)
    group(op)
    if name not in _named:
        raise ValueError(f"{op}: group {name!r} does not exist on this rank; create it with "
                         "create_group(name, rank_ids) on every rank it contains")
    return _named[name]


def create_named_group(op: str, name: str, rank_ids: Sequence[int]) -> _C.ProcessGroup:
    """Creates group ``name`` of the given world ranks; this rank must be one of them and
    every member calls it (MindSpore's ``create_group``)."""
    world = group(op)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{op}: the group name must be a non-empty str, got {name!r}")
    if name == WORLD_GROUP_NAME or name in _named:
        raise ValueError(f"{op}: group {name!r} already exists")
    if not isinstance(rank_ids, (list, tuple)) or not all(
            isinstance(r, int) and not isinstance(r, bool) for r in rank_ids):
        raise TypeError(f"{op}: rank_ids must be a list of ints, got {rank_ids!r}")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"{op}: rank_ids {list(rank_ids)} has repeated ranks")
    if world.rank not in rank_ids:
        raise ValueError(f"{op}: this rank ({world.rank}) is not in rank_ids {list(rank_ids)}; "
                         "only the group's members create it")
    pg = new_group(rank_ids)
    assert isinstance(pg, _C.ProcessGroup)
    _named[name] = pg
    return pg


def destroy_named_group(op: str, name: str) -> None:
    """Forgets group ``name`` (its communicator is freed when nothing uses it any more)."""
    named_group(op, name)
    if name == WORLD_GROUP_NAME:
        raise ValueError(f"{op}: the world group cannot be destroyed; use release()")
    del _named[name]


def _check_tensor(op: str, tensor: object, arg: str = "tensor") -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: {arg} must be a tandem Tensor, got {type(tensor).__name__}")
    return tensor


def _check_op(name: str, op: object) -> _C.ReduceOp:
    if not isinstance(op, _C.ReduceOp):
        raise TypeError(f"{name}: op must be a ReduceOp (SUM, AVG, MAX, MIN), got {op!r}")
    return op


def _traced_write(op: str, pairs: Iterable[tuple[Tensor, Tensor]],
                  async_op: bool) -> Optional[Work]:
    """Inside a trace (jit, GRAPH_MODE): the in-place collective becomes its value op (a
    graph node that runs on every call, in program order on every rank) and a copy into each
    destination, so the compiled graph writes the tensors as the eager call does. The handle
    of an async call has completed: the graph runs the node where the trace put it."""
    from . import mint
    with mint.no_grad():
        for dst, value in pairs:
            dst.copy_(value.view(tuple(dst.shape)))
    return Work(_C.Work.completed(f"{op} (traced)")) if async_op else None


def all_reduce(tensor: Tensor, op: _C.ReduceOp = ReduceOp.SUM, pg: Group = None,
               async_op: bool = False) -> Optional[Work]:
    """Reduces ``tensor`` over the group's ranks in place."""
    g = _group
    if (pg is None and g is not None and not async_op and type(tensor) is Tensor
            and type(op) is _C.ReduceOp and not _C.is_tracing()):
        # The common call, checked here in one step: a small all_reduce costs little more
        # than its MPI round trip, so each Python call on the way shows in its latency.
        g.all_reduce(tensor, op)
        return None
    _check_op("all_reduce", op)
    g = resolve("all_reduce", pg)
    if g is None:
        return None
    tensor = _check_tensor("all_reduce", tensor)
    if _C.is_tracing():
        return _traced_write("all_reduce", [(tensor, _C.all_reduce_value(tensor, op, g))],
                             async_op)
    return _handle(g.all_reduce(tensor, op, bool(async_op)))


def broadcast(tensor: Tensor, src: int = 0, pg: Group = None,
              async_op: bool = False) -> Optional[Work]:
    """Copies the ``tensor`` of group rank ``src`` into ``tensor`` on every rank."""
    g = resolve("broadcast", pg)
    if g is None:
        return None
    tensor = _check_tensor("broadcast", tensor)
    if _C.is_tracing():
        if not 0 <= int(src) < int(g.size):
            raise ValueError(f"broadcast (rank {g.rank}): src {src} is not a rank of the group "
                             f"(group size {g.size})")
        return _traced_write("broadcast", [(tensor, _C.broadcast_value(tensor, int(src), g))],
                             async_op)
    return _handle(g.broadcast(tensor, int(src), bool(async_op)))


def all_gather(tensor_list: list[Tensor], tensor: Tensor, pg: Group = None,
               async_op: bool = False) -> Optional[Work]:
    """``tensor_list[r]`` receives group rank r's ``tensor``."""
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError("all_gather: tensor_list must be a list of tensors, got "
                        f"{type(tensor_list).__name__}")
    outs = [_check_tensor("all_gather", t, "tensor_list[i]") for t in tensor_list]
    g = resolve("all_gather", pg)
    if g is None:
        return None
    tensor = _check_tensor("all_gather", tensor)
    if _C.is_tracing():
        _check_gather_outputs(g, outs, tensor)
        rows = _C.all_gather_value(tensor.reshape(1, -1), g)
        return _traced_write("all_gather", [(o, rows[r]) for r, o in enumerate(outs)], async_op)
    return _handle(g.all_gather(outs, tensor, bool(async_op)))


def _check_gather_outputs(g: _C.ProcessGroup, outs: list[Tensor], tensor: Tensor) -> None:
    if len(outs) != int(g.size):
        raise ValueError(f"all_gather (rank {g.rank}): tensor_list has {len(outs)} tensors, the "
                         f"group size is {g.size}; pass one output tensor per rank")
    for r, o in enumerate(outs):
        if tuple(o.shape) != tuple(tensor.shape) or o.dtype != tensor.dtype:
            raise ValueError(f"all_gather (rank {g.rank}): tensor_list[{r}] has shape "
                             f"{tuple(o.shape)} and dtype {o.dtype}, the input has shape "
                             f"{tuple(tensor.shape)} and dtype {tensor.dtype}; outputs must "
                             "match the input")


def reduce_scatter(output: Tensor, input: Tensor, op: _C.ReduceOp = ReduceOp.SUM,
                   pg: Group = None, async_op: bool = False) -> Optional[Work]:
    """``output`` receives the reduction over ranks of block ``rank`` of ``input`` (which
    holds one output-sized block per rank, in rank order)."""
    _check_op("reduce_scatter", op)
    g = resolve("reduce_scatter", pg)
    if g is None:
        return None
    output = _check_tensor("reduce_scatter", output, "output")
    input = _check_tensor("reduce_scatter", input, "input")
    if _C.is_tracing():
        # No reduce-scatter node: the whole reduction, then this rank's block.
        n = int(output.numel())
        if input.dtype != output.dtype or int(input.numel()) != n * int(g.size):
            raise ValueError(f"reduce_scatter (rank {g.rank}): input of shape "
                             f"{tuple(input.shape)} ({input.dtype}) must hold {g.size} blocks "
                             f"of the output's {n} elements ({output.dtype}), one per rank")
        whole = _C.all_reduce_value(input.reshape(-1), op, g)
        return _traced_write("reduce_scatter", [(output, whole[g.rank * n:(g.rank + 1) * n])],
                             async_op)
    return _handle(g.reduce_scatter(output, input, op, bool(async_op)))


def _untraceable(op: str) -> None:
    if _C.is_tracing():
        raise RuntimeError(f"{op}: point-to-point messages cannot be recorded into a compiled "
                           "graph (jit / GRAPH_MODE); call it outside the compiled function")


def send(tensor: Tensor, dst: int, pg: Group = None, tag: int = 0,
         async_op: bool = False) -> Optional[Work]:
    """Sends ``tensor`` to group rank ``dst``."""
    _untraceable("send")
    g = resolve("send", pg)
    if g is None:
        return None
    return _handle(g.send(_check_tensor("send", tensor), int(dst), int(tag), bool(async_op)))


def recv(tensor: Tensor, src: Optional[int] = None, pg: Group = None, tag: int = 0,
         async_op: bool = False) -> Union[int, Work, None]:
    """Fills ``tensor`` from group rank ``src`` (None: any); returns the sender's rank (or
    the handle when async)."""
    _untraceable("recv")
    g = resolve("recv", pg)
    if g is None:
        return None
    r = g.recv(_check_tensor("recv", tensor), -1 if src is None else int(src), int(tag),
               bool(async_op))
    return _handle(r) if async_op else int(cast(int, r))


def barrier(pg: Group = None, async_op: bool = False) -> Optional[Work]:
    """Blocks until every rank of the group reaches the barrier."""
    g = resolve("barrier", pg)
    if g is None:
        return None
    if _C.is_tracing():  # a node every rank must reach: a one-element all_reduce
        from . import mint
        _C.all_reduce_value(mint.zeros(1), ReduceOp.SUM, g)
        return Work(_C.Work.completed("barrier (traced)")) if async_op else None
    return _handle(g.barrier(bool(async_op)))


def get_rank(pg: Group = None) -> int:
    """This process's rank in the group (-1 on a non-member, as PyTorch)."""
    if pg is NON_MEMBER:
        return -1
    g = resolve("get_rank", pg)
    return -1 if g is None else int(g.rank)


def get_world_size(pg: Group = None) -> int:
    """The number of ranks of the group (-1 on a non-member, as PyTorch)."""
    if pg is NON_MEMBER:
        return -1
    g = resolve("get_world_size", pg)
    return -1 if g is None else int(g.size)


def broadcast_tensors(tensors: Iterable[Tensor], src: int = 0, pg: Group = None) -> None:
    """Broadcasts each tensor from rank ``src`` in place (parameters, buffers): every rank
    starts from the same weights. The broadcasts are queued together and waited on once."""
    g = resolve("broadcast_tensors", pg)
    if g is None:
        return
    if _C.is_tracing():
        for t in tensors:
            broadcast(t, src, pg)
        return
    works = [cast(_C.Work, g.broadcast(t, src, True)) for t in tensors]
    for w in works:
        w.wait()


def _finalize() -> None:
    destroy()
    if is_available():
        _C.mpi_finalize()


atexit.register(_finalize)
