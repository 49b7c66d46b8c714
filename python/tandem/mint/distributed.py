"""``mint.distributed``: PyTorch's ``torch.distributed`` names over tandem's MPI collectives
(tandem/_distributed.py). Start the ranks with ``mpirun -n N python train.py``; each calls
``init_process_group(backend='mpi')``. Collectives work in place on contiguous CPU tensors
of float32, float64, int32 or int64 (broadcast and all_gather: any dtype)."""
from __future__ import annotations

from typing import Any, Optional

from .. import _distributed as _impl
from .._C import Tensor

__all__ = ["ReduceOp", "is_available", "init_process_group", "is_initialized",
           "destroy_process_group", "get_rank", "get_world_size", "get_backend", "all_reduce",
           "broadcast", "all_gather", "barrier"]

ReduceOp = _impl.ReduceOp


def is_available() -> bool:
    """Whether the distributed package is available (tandem was built with MPI).

    Returns:
        bool: True when the collectives can be used.
    """
    return _impl.is_available()


def init_process_group(backend: Optional[str] = "mpi", **kwargs: Any) -> None:
    """Initializes the default process group: every rank of the ``mpirun`` job.

    Args:
        backend (str, optional): ``'mpi'`` (the only backend). Default: ``'mpi'``.
        **kwargs: PyTorch's ``init_method``, ``world_size``, ``rank``, ``timeout``; with MPI
            the job defines the world, so world_size and rank must agree with it if given.
    """
    _impl.init(backend or "mpi")
    for key in ("world_size", "rank"):
        want = kwargs.get(key)
        have = get_world_size() if key == "world_size" else get_rank()
        if want is not None and want != -1 and int(want) != have:
            raise ValueError(f"init_process_group: {key}={want} but the MPI job has "
                             f"{key}={have}; launch with mpirun -n <world_size>")


def is_initialized() -> bool:
    """Whether the default process group has been initialized.

    Returns:
        bool: True after init_process_group and before destroy_process_group.
    """
    return _impl.is_initialized()


def destroy_process_group(group: Any = None) -> None:
    """Destroys the default process group.

    Args:
        group (optional): must be None (the default group). Default: ``None``.
    """
    if group is not None:
        raise ValueError("destroy_process_group: only the default group (None) exists")
    _impl.destroy()


def get_rank(group: Any = None) -> int:
    """The rank of this process.

    Args:
        group (optional): must be None (the default group). Default: ``None``.

    Returns:
        int: the rank, in ``[0, get_world_size())``.
    """
    _only_default(group, "get_rank")
    return _impl.get_rank()


def get_world_size(group: Any = None) -> int:
    """The number of processes in the group.

    Args:
        group (optional): must be None (the default group). Default: ``None``.

    Returns:
        int: the world size.
    """
    _only_default(group, "get_world_size")
    return _impl.get_world_size()


def get_backend(group: Any = None) -> str:
    """The backend of the group.

    Args:
        group (optional): must be None (the default group). Default: ``None``.

    Returns:
        str: ``'mpi'``.
    """
    _only_default(group, "get_backend")
    _impl.group("get_backend")
    return "mpi"


def all_reduce(tensor: Tensor, op: Any = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> None:
    """Reduces ``tensor`` across all ranks in place; every rank gets the result.

    Args:
        tensor (Tensor): contiguous float32/float64/int32/int64 tensor, the same shape on
            every rank.
        op (ReduceOp): SUM, AVG (floating only), MAX or MIN. Default: ``ReduceOp.SUM``.
        group (optional): must be None (the default group). Default: ``None``.
        async_op (bool): must be False (collectives are synchronous). Default: ``False``.
    """
    _only_default(group, "all_reduce", async_op)
    _impl.all_reduce(tensor, op)


def broadcast(tensor: Tensor, src: int, group: Any = None, async_op: bool = False) -> None:
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank.

    Args:
        tensor (Tensor): contiguous tensor, the same shape and dtype on every rank.
        src (int): the source rank.
        group (optional): must be None (the default group). Default: ``None``.
        async_op (bool): must be False. Default: ``False``.
    """
    _only_default(group, "broadcast", async_op)
    _impl.broadcast(tensor, src)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None,
               async_op: bool = False) -> None:
    """Gathers ``tensor`` from every rank: ``tensor_list[r]`` receives rank r's.

    Args:
        tensor_list (list[Tensor]): world-size contiguous tensors of tensor's shape and dtype.
        tensor (Tensor): this rank's contiguous tensor.
        group (optional): must be None (the default group). Default: ``None``.
        async_op (bool): must be False. Default: ``False``.
    """
    _only_default(group, "all_gather", async_op)
    _impl.all_gather(tensor_list, tensor)


def barrier(group: Any = None, async_op: bool = False) -> None:
    """Blocks until every rank has entered the barrier.

    Args:
        group (optional): must be None (the default group). Default: ``None``.
        async_op (bool): must be False. Default: ``False``.
    """
    _only_default(group, "barrier", async_op)
    _impl.barrier()


def _only_default(group: Any, op: str, async_op: bool = False) -> None:
    if group is not None:
        raise ValueError(f"mint.distributed.{op}: only the default group (group=None) exists")
    if async_op:
        raise NotImplementedError(f"mint.distributed.{op}: async_op=True is not supported; "
                                  "collectives are synchronous")
