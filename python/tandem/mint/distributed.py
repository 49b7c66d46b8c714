"""``mint.distributed``: PyTorch's ``torch.distributed`` names over tandem's MPI collectives
(tandem/_distributed.py). Start the ranks with ``mpirun -n N python train.py`` (or
``python -m tandem.run -n N train.py``); each calls ``init_process_group(backend='mpi')``.
Collectives work in place on contiguous CPU tensors (reductions: float32, float64, bfloat16,
float16, int32, int64; broadcast, all_gather, send and recv: any dtype); ``async_op=True``
returns a ``Work`` whose ``wait()`` blocks until the operation has run."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import _distributed as _impl
from .._C import Tensor

__all__ = ["ReduceOp", "Work", "GroupMember", "is_available", "init_process_group",
           "is_initialized", "is_mpi_available", "destroy_process_group", "new_group",
           "get_rank", "get_world_size", "get_backend", "all_reduce", "broadcast",
           "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor",
           "send", "recv", "isend", "irecv", "barrier"]

ReduceOp = _impl.ReduceOp
Work = _impl.Work


class GroupMember:
    """``GroupMember.WORLD`` (the default group, None) and ``NON_GROUP_MEMBER`` (what
    ``new_group`` returns on a rank outside the group)."""

    WORLD = None
    NON_GROUP_MEMBER = _impl.NON_MEMBER


def is_available() -> bool:
    """Whether the distributed package is available (tandem was built with MPI).

    Returns:
        bool: True when the collectives can be used.
    """
    return _impl.is_available()


def is_mpi_available() -> bool:
    """Whether the MPI backend is available.

    Returns:
        bool: True when tandem was built with MPI.
    """
    return _impl.is_available()


def init_process_group(backend: Optional[str] = "mpi", timeout: Any = None,
                       **kwargs: Any) -> None:
    """Initializes the default process group: every rank of the ``mpirun`` job.

    Args:
        backend (str, optional): ``'mpi'`` (the only backend). Default: ``'mpi'``.
        timeout (timedelta, optional): how long one operation may take before the job is
            ended with a message naming it (another rank died, hangs or diverged).
            Default: ``TANDEM_DIST_TIMEOUT`` seconds, else 30 minutes.
        **kwargs: PyTorch's ``init_method``, ``world_size``, ``rank``; with MPI the job
            defines the world, so world_size and rank must agree with it if given.
    """
    _impl.init(backend or "mpi", timeout)
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
    """Destroys the default process group (a sub-group is released when it is dropped).

    Args:
        group (optional): None (the default group). Default: ``None``.
    """
    if group is not None:
        raise ValueError("destroy_process_group: pass None (the default group); a group "
                         "from new_group is released when the last reference to it goes")
    _impl.destroy()


def new_group(ranks: Optional[Sequence[int]] = None, timeout: Any = None,
              backend: Optional[str] = None, **kwargs: Any) -> Any:
    """Creates a group of the given ranks. Every rank calls it with the same ranks; a rank
    outside the group gets ``GroupMember.NON_GROUP_MEMBER`` (collectives on it do nothing).

    Args:
        ranks (list[int], optional): the world ranks of the group; None for all.
            Default: ``None``.
        timeout (optional): must be None (the group uses the default group's timeout).
            Default: ``None``.
        backend (str, optional): ``'mpi'`` or None. Default: ``None``.
        **kwargs: PyTorch's ``pg_options`` and ``use_local_synchronization`` (ignored).

    Returns:
        ProcessGroup: the group, or ``GroupMember.NON_GROUP_MEMBER``.
    """
    if backend not in (None, "mpi"):
        raise ValueError(f"new_group: backend {backend!r} is not supported; use 'mpi'")
    return _impl.new_group(ranks, timeout)


def get_rank(group: Any = None) -> int:
    """The rank of this process in the group.

    Args:
        group (optional): a group from new_group, or None for the default group.
            Default: ``None``.

    Returns:
        int: the rank, in ``[0, get_world_size(group))``; -1 outside the group.
    """
    return _impl.get_rank(group)


def get_world_size(group: Any = None) -> int:
    """The number of processes in the group.

    Args:
        group (optional): a group from new_group, or None for the default group.
            Default: ``None``.

    Returns:
        int: the group size; -1 outside the group.
    """
    return _impl.get_world_size(group)


def get_backend(group: Any = None) -> str:
    """The backend of the group.

    Args:
        group (optional): a group, or None for the default group. Default: ``None``.

    Returns:
        str: ``'mpi'``.
    """
    _impl.resolve("get_backend", group)
    return "mpi"


def all_reduce(tensor: Tensor, op: Any = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Optional[Work]:
    """Reduces ``tensor`` across the group's ranks in place; every rank gets the result.

    Args:
        tensor (Tensor): contiguous float32/float64/bfloat16/float16/int32/int64 tensor, the
            same shape on every rank.
        op (ReduceOp): SUM, AVG (floating only), MAX or MIN. Default: ``ReduceOp.SUM``.
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    return _impl.all_reduce(tensor, op, group, async_op)


def broadcast(tensor: Tensor, src: int, group: Any = None,
              async_op: bool = False) -> Optional[Work]:
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank of the group.

    Args:
        tensor (Tensor): contiguous tensor, the same shape and dtype on every rank.
        src (int): the source rank (its rank in ``group``).
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    return _impl.broadcast(tensor, src, group, async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Optional[Work]:
    """Gathers ``tensor`` from every rank: ``tensor_list[r]`` receives rank r's.

    Args:
        tensor_list (list[Tensor]): group-size contiguous tensors of tensor's shape and dtype.
        tensor (Tensor): this rank's contiguous tensor.
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    return _impl.all_gather(tensor_list, tensor, group, async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Optional[Work]:
    """Gathers ``input_tensor`` from every rank into ``output_tensor``, rank after rank
    along dim 0.

    Args:
        output_tensor (Tensor): contiguous, group-size times input's elements.
        input_tensor (Tensor): this rank's contiguous tensor.
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    size = get_world_size(group)
    if size < 0:
        return _impl.all_gather([], input_tensor, group, async_op)
    n = int(input_tensor.numel())
    if int(output_tensor.numel()) != n * size or output_tensor.dtype != input_tensor.dtype:
        raise ValueError(f"all_gather_into_tensor: output of shape {tuple(output_tensor.shape)} "
                         f"must hold {size} x {n} elements of {input_tensor.dtype}")
    if not output_tensor.is_contiguous():
        raise ValueError("all_gather_into_tensor: output_tensor must be contiguous")
    flat = output_tensor.view(-1)
    outs = [flat[r * n:(r + 1) * n].view(tuple(input_tensor.shape)) for r in range(size)]
    return _impl.all_gather(outs, input_tensor, group, async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: Any = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Optional[Work]:
    """``output`` receives the reduction over ranks of ``input_list[rank]``.

    Args:
        output (Tensor): contiguous tensor of each input's shape.
        input_list (list[Tensor]): group-size tensors of output's shape and dtype.
        op (ReduceOp): the reduction. Default: ``ReduceOp.SUM``.
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    from .. import mint
    if not isinstance(input_list, (list, tuple)) or not input_list:
        raise TypeError("reduce_scatter: input_list must be a non-empty list of tensors")
    for t in input_list:
        if not isinstance(t, Tensor) or tuple(t.shape) != tuple(output.shape):
            raise ValueError("reduce_scatter: every tensor of input_list must be a tensor of "
                             f"the output's shape {tuple(output.shape)}")
    flat = mint.cat([t.reshape(-1) for t in input_list])
    return _impl.reduce_scatter(output, flat, op, group, async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: Any = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Optional[Work]:
    """``output`` receives the reduction over ranks of block ``rank`` of ``input`` (input
    holds group-size output-sized blocks along dim 0).

    Args:
        output (Tensor): contiguous output tensor.
        input (Tensor): contiguous tensor of group-size times output's elements.
        op (ReduceOp): the reduction. Default: ``ReduceOp.SUM``.
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    return _impl.reduce_scatter(output, input, op, group, async_op)


def send(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> None:
    """Sends ``tensor`` to rank ``dst``; returns when the tensor may be reused.

    Args:
        tensor (Tensor): contiguous tensor.
        dst (int): the destination rank.
        group (optional): the group; None for the default group. Default: ``None``.
        tag (int): matches the receiver's tag, in [0, 32767]. Default: ``0``.
    """
    _impl.send(tensor, dst, group, tag, False)


def recv(tensor: Tensor, src: Optional[int] = None, group: Any = None, tag: int = 0) -> int:
    """Receives into ``tensor`` from rank ``src`` (None: any rank).

    Args:
        tensor (Tensor): contiguous tensor of the sent tensor's size and dtype.
        src (int, optional): the source rank; None for any. Default: ``None``.
        group (optional): the group; None for the default group. Default: ``None``.
        tag (int): matches the sender's tag. Default: ``0``.

    Returns:
        int: the sender's rank (-1 outside the group).
    """
    r = _impl.recv(tensor, src, group, tag, False)
    return r if isinstance(r, int) else -1


def isend(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> Optional[Work]:
    """Sends ``tensor`` to rank ``dst`` asynchronously.

    Args:
        tensor (Tensor): contiguous tensor (do not modify it before ``wait()``).
        dst (int): the destination rank.
        group (optional): the group; None for the default group. Default: ``None``.
        tag (int): matches the receiver's tag. Default: ``0``.

    Returns:
        Work: the handle.
    """
    return _impl.send(tensor, dst, group, tag, True)


def irecv(tensor: Tensor, src: Optional[int] = None, group: Any = None,
          tag: int = 0) -> Optional[Work]:
    """Receives into ``tensor`` asynchronously; ``Work.source_rank()`` names the sender.

    Args:
        tensor (Tensor): contiguous tensor of the sent tensor's size and dtype.
        src (int, optional): the source rank; None for any. Default: ``None``.
        group (optional): the group; None for the default group. Default: ``None``.
        tag (int): matches the sender's tag. Default: ``0``.

    Returns:
        Work: the handle.
    """
    r = _impl.recv(tensor, src, group, tag, True)
    return r if isinstance(r, Work) else None


def barrier(group: Any = None, async_op: bool = False) -> Optional[Work]:
    """Blocks until every rank of the group has entered the barrier.

    Args:
        group (optional): the group; None for the default group. Default: ``None``.
        async_op (bool): return a Work handle instead of waiting. Default: ``False``.

    Returns:
        Work or None: the handle when ``async_op``.
    """
    return _impl.barrier(group, async_op)
