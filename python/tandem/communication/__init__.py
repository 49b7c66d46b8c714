"""``tandem.communication``: MindSpore's ``mindspore.communication`` names over tandem's MPI
collectives (tandem/_distributed.py, shared with ``mint.distributed``). Start the ranks with
``mpirun -n N python train.py``; each calls ``init()``."""
from __future__ import annotations

import os
from typing import Optional

from .. import _distributed as _impl

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "GlobalComm"]


class GlobalComm:
    """Names of the communication backend and the world group (MindSpore's ``GlobalComm``)."""

    BACKEND = "mpi"
    WORLD_COMM_GROUP = "world_group"


def init(backend_name: Optional[str] = None) -> None:
    """Initializes the communication service: every rank of the ``mpirun`` job.

    Args:
        backend_name (str, optional): ``'mpi'`` or None (tandem communicates over MPI).
            Default: ``None`` .
    """
    _impl.init(backend_name or "mpi")


def release() -> None:
    """Releases the world group's communicator."""
    _impl.destroy()


def _check_group(group: str, op: str) -> None:
    if group != GlobalComm.WORLD_COMM_GROUP:
        raise ValueError(f"{op}: only the world group {GlobalComm.WORLD_COMM_GROUP!r} exists, "
                         f"got {group!r}")


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The rank of this process in the group.

    Args:
        group (str): the world group. Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the rank.
    """
    _check_group(group, "get_rank")
    return _impl.get_rank()


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks in the group.

    Args:
        group (str): the world group. Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the group size.
    """
    _check_group(group, "get_group_size")
    return _impl.get_world_size()


# Where MPI launchers put the node-local rank and size (Open MPI, then MPICH/Hydra).
_LOCAL = {"rank": ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
          "size": ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")}


def _local(what: str, op: str, group: str) -> int:
    _check_group(group, op)
    size = _impl.get_world_size()
    for var in _LOCAL[what]:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    if size == 1:  # a process started without a launcher is alone on its machine
        return 0 if what == "rank" else 1
    raise RuntimeError(f"{op}: the MPI launcher did not say the node-local {what} "
                       f"({' or '.join(_LOCAL[what])} is unset); start the job with Open "
                       "MPI's or MPICH's mpirun")


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The rank of this process among the ranks on its machine (from the MPI launcher).

    Args:
        group (str): the world group. Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the local rank.
    """
    return _local("rank", "get_local_rank", group)


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks on this process's machine (from the MPI launcher).

    Args:
        group (str): the world group. Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the local size.
    """
    return _local("size", "get_local_rank_size", group)
