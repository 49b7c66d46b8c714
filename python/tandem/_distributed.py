"""The one implementation of data-parallel communication (MPI, see
src/tandem/distributed). ``tandem.mint.distributed`` (PyTorch names) and
``tandem.communication`` (MindSpore names) are name maps over this module.

Processes are started by ``mpirun -n N python script.py``; each calls
``init_process_group`` once. A process started without mpirun is a world of one rank."""
from __future__ import annotations

import atexit
from typing import Iterable, Optional

from . import _C
from ._C import Tensor



class ReduceOp:
    """The reductions of ``all_reduce``: ``SUM``, ``AVG`` (mean, floating tensors only),
    ``MAX`` and ``MIN`` (``torch.distributed.ReduceOp``)."""

    SUM = _C.ReduceOp.SUM
    AVG = _C.ReduceOp.AVG
    MAX = _C.ReduceOp.MAX
    MIN = _C.ReduceOp.MIN


_group: Optional[_C.ProcessGroup] = None


def _no_mpi() -> RuntimeError:
    return RuntimeError(
        "tandem was built without MPI: install an MPI implementation (Debian: libopenmpi-dev "
        "openmpi-bin) and rebuild tandem to use distributed training")


def is_available() -> bool:
    """Whether this build of tandem has the MPI collectives."""
    return bool(_C.mpi_available())


def init(backend: str = "mpi") -> None:
    """Joins the job's process group (all ranks of the mpirun job). A second call is a no-op."""
    global _group
    if backend not in ("mpi", None):
        raise ValueError(f"init_process_group: backend {backend!r} is not supported; tandem "
                         "communicates over MPI, use backend='mpi'")
    if not is_available():
        raise _no_mpi()
    if _group is None:
        _group = _C.ProcessGroup.world()


def is_initialized() -> bool:
    """Whether init has been called (and destroy has not)."""
    return _group is not None


def group(op: str) -> _C.ProcessGroup:
    """The current group; RuntimeError naming ``op`` before init."""
    if _group is None:
        if not is_available():
            raise _no_mpi()
        raise RuntimeError(f"{op}: the default process group is not initialized; call "
                           "init_process_group(backend='mpi') first")
    return _group


def destroy() -> None:
    """Releases the group's communicator (MPI itself stays up until the process exits)."""
    global _group
    _group = None


def _check_tensor(op: str, tensor: object, arg: str = "tensor") -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: {arg} must be a tandem Tensor, got {type(tensor).__name__}")
    return tensor


def all_reduce(tensor: Tensor, op: _C.ReduceOp = ReduceOp.SUM) -> None:
    """Reduces ``tensor`` over all ranks in place."""
    if not isinstance(op, _C.ReduceOp):
        raise TypeError(f"all_reduce: op must be a ReduceOp (SUM, AVG, MAX, MIN), got {op!r}")
    group("all_reduce").all_reduce(_check_tensor("all_reduce", tensor), op)


def broadcast(tensor: Tensor, src: int = 0) -> None:
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    group("broadcast").broadcast(_check_tensor("broadcast", tensor), int(src))


def all_gather(tensor_list: list[Tensor], tensor: Tensor) -> None:
    """``tensor_list[r]`` receives rank r's ``tensor``."""
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError("all_gather: tensor_list must be a list of tensors, got "
                        f"{type(tensor_list).__name__}")
    outs = [_check_tensor("all_gather", t, "tensor_list[i]") for t in tensor_list]
    group("all_gather").all_gather(outs, _check_tensor("all_gather", tensor))


def barrier() -> None:
    """Blocks until every rank reaches the barrier."""
    group("barrier").barrier()


def get_rank() -> int:
    """This process's rank."""
    return int(group("get_rank").rank)


def get_world_size() -> int:
    """The number of ranks."""
    return int(group("get_world_size").size)


def broadcast_tensors(tensors: Iterable[Tensor], src: int = 0) -> None:
    """Broadcasts each tensor from rank ``src`` in place (parameters, buffers): every rank
    starts from the same weights."""
    g = group("broadcast_tensors")
    for t in tensors:
        g.broadcast(t, src)


def average_gradients_in_backward(params: Iterable[Tensor]) -> None:
    """Registers a gradient hook on each parameter that requires a gradient: the gradient is
    averaged over all ranks (one all_reduce per parameter) before it is accumulated into
    ``.grad``. The backward engine visits the parameters in the same order on every rank
    when the ranks run the same model, so the collectives line up; a parameter that gets no
    gradient on some rank leaves the others waiting, as in PyTorch's DDP without
    find_unused_parameters."""
    g = group("average_gradients_in_backward")

    def hook(grad: Tensor) -> Tensor:
        out = grad.clone()  # the incoming gradient may be shared with other nodes
        g.all_reduce(out, _C.ReduceOp.AVG)
        return out

    for p in params:
        if p.requires_grad:
            p.register_hook(hook)


def _finalize() -> None:
    destroy()
    if is_available():
        _C.mpi_finalize()


atexit.register(_finalize)
