"""``tandem.communication``: MindSpore's ``mindspore.communication`` names over tandem's MPI
collectives (tandem/_distributed.py, shared with ``mint.distributed``). Start the ranks with
``mpirun -n N python train.py``; each calls ``init()``."""
from __future__ import annotations

import os
from typing import List, Optional

from .. import _distributed as _impl

__all__ = ["init", "release", "get_rank", "get_group_size", "create_group", "destroy_group",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank", "get_local_rank",
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


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The rank of this process in the group.

    Args:
        group (str): the world group or one made by `create_group`.
            Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the rank.
    """
    return int(_impl.named_group("get_rank", group).rank)


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks in the group.

    Args:
        group (str): the world group or one made by `create_group`.
            Default: ``GlobalComm.WORLD_COMM_GROUP`` .

    Returns:
        int, the group size.
    """
    return int(_impl.named_group("get_group_size", group).size)


def create_group(group: str, rank_ids: List[int]) -> None:
    """Creates a communication group of the given world ranks; every rank in `rank_ids`
    calls it with the same arguments (others do not). Collectives name it by `group`.

    Args:
        group (str): the new group's name.
        rank_ids (list[int]): the world ranks of the group; this rank must be one of them.

    Raises:
        ValueError: the name exists, the ranks repeat or are out of range, or this rank is
            not a member.
    """
    _impl.create_named_group("create_group", group, rank_ids)


def destroy_group(group: str) -> None:
    """Destroys a group made by `create_group`.

    Args:
        group (str): the group's name.
    """
    _impl.destroy_named_group("destroy_group", group)


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of a group rank.

    Args:
        group (str): the group's name.
        group_rank_id (int): the rank within the group.

    Returns:
        int, the world rank.
    """
    ranks = list(_impl.named_group("get_world_rank_from_group_rank", group).world_ranks)
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"get_world_rank_from_group_rank: group rank {group_rank_id!r} is out "
                         f"of range for group {group!r} of {len(ranks)} ranks")
    return int(ranks[group_rank_id])


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank within the group of a world rank.

    Args:
        world_rank_id (int): the world rank.
        group (str): the group's name.

    Returns:
        int, the rank within the group.
    """
    ranks = list(_impl.named_group("get_group_rank_from_world_rank", group).world_ranks)
    if world_rank_id not in ranks:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id!r} is not "
                         f"in group {group!r} (ranks {ranks})")
    return ranks.index(world_rank_id)


# Where MPI launchers put the node-local rank and size (Open MPI, then MPICH/Hydra).
_LOCAL = {"rank": ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
          "size": ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")}


def _local(what: str, op: str, group: str) -> int:
    if group != GlobalComm.WORLD_COMM_GROUP:
        raise ValueError(f"{op}: only the world group {GlobalComm.WORLD_COMM_GROUP!r} has a "
                         f"node-local rank here, got {group!r}")
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
