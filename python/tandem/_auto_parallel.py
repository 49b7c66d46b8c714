"""MindSpore's auto-parallel context (``set_auto_parallel_context(parallel_mode=
ParallelMode.DATA_PARALLEL, gradients_mean=True)``): the settings TrainOneStepCell reads to
average gradients over the ranks of the MPI job (tandem/_distributed.py). Only data
parallelism exists; the model-parallel modes are names that raise when set."""
from __future__ import annotations

from typing import Any, Dict

from . import _distributed

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context"]


class ParallelMode:
    """The parallel modes (MindSpore's ``ParallelMode``): ``STAND_ALONE`` (one process, the
    default) and ``DATA_PARALLEL`` (every rank runs the whole model on its share of the
    batch; gradients are reduced over the ranks). ``SEMI_AUTO_PARALLEL``, ``AUTO_PARALLEL``
    and ``HYBRID_PARALLEL`` (operator-level model parallelism) are not supported: setting
    them raises NotImplementedError."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


# Options that only tune MindSpore's graph compiler or strategy files: stored and returned,
# without an effect on what data parallelism computes here.
_NO_EFFECT = {"gradient_fp32_sync": True, "loss_repeated_mean": True,
              "all_reduce_fusion_config": None, "comm_fusion": None, "search_mode": None,
              "strategy_ckpt_load_file": "", "strategy_ckpt_save_file": "", "full_batch": False,
              "dataset_strategy": None, "strategy_ckpt_config": None}
_DEFAULTS: Dict[str, Any] = {"parallel_mode": ParallelMode.STAND_ALONE, "gradients_mean": False,
                             "device_num": None, "global_rank": None,
                             "parameter_broadcast": False, "enable_parallel_optimizer": False,
                             "pipeline_stages": 1, "grad_accumulation_step": 1, **_NO_EFFECT}
_context: Dict[str, Any] = dict(_DEFAULTS)


def _world() -> tuple:
    """(size, rank) of the initialized group, (1, 0) before init."""
    if _distributed.is_initialized():
        return _distributed.get_world_size(), _distributed.get_rank()
    return 1, 0


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Sets the parallel configuration (MindSpore's ``set_auto_parallel_context``).

    Args:
        kwargs (Any): ``parallel_mode`` (a ``ParallelMode`` name; only STAND_ALONE and
            DATA_PARALLEL are supported), ``gradients_mean`` (bool: average the gradients
            over the ranks instead of summing them; default False, as MindSpore),
            ``device_num`` (int, the number of ranks; must equal the job's world size once
            the group is initialized), ``global_rank`` (int, must equal this rank),
            ``parameter_broadcast`` (bool: TrainOneStepCell starts every rank from rank 0's
            parameters). ``gradient_fp32_sync``, ``loss_repeated_mean``,
            ``all_reduce_fusion_config``, ``comm_fusion``, ``search_mode``, ``full_batch``,
            ``dataset_strategy`` and the strategy file options are stored and returned but
            change nothing here. ``enable_parallel_optimizer=True``, ``pipeline_stages > 1``
            and ``grad_accumulation_step > 1`` raise NotImplementedError.

    Raises:
        ValueError: an unknown option or a bad value.
        NotImplementedError: a model-parallel mode or option.
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown option {key!r}; the options "
                             f"are {sorted(_DEFAULTS)}")
        if key == "parallel_mode":
            if value not in ParallelMode.MODE_LIST:
                raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of "
                                 f"{ParallelMode.MODE_LIST}, got {value!r}")
            if value not in (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL):
                raise NotImplementedError(
                    f"set_auto_parallel_context: parallel_mode {value!r} (model parallelism) "
                    "is not supported; use ParallelMode.DATA_PARALLEL")
        elif key in ("gradients_mean", "parameter_broadcast", "enable_parallel_optimizer"):
            if not isinstance(value, bool):
                raise ValueError(f"set_auto_parallel_context: {key} must be a bool, got "
                                 f"{value!r}")
            if key == "enable_parallel_optimizer" and value:
                raise NotImplementedError("set_auto_parallel_context: the parallel optimizer "
                                          "(optimizer state sharding) is not supported")
        elif key in ("device_num", "global_rank", "pipeline_stages", "grad_accumulation_step"):
            value = _check_int(key, value)
        _context[key] = value


def _check_int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"set_auto_parallel_context: {key} must be an int, got {value!r}")
    size, rank = _world()
    if key == "device_num":
        if not 1 <= value <= 4096:
            raise ValueError(f"set_auto_parallel_context: device_num must be in [1, 4096], "
                             f"got {value}")
        if _distributed.is_initialized() and value != size:
            raise ValueError(f"set_auto_parallel_context: device_num={value} but the job has "
                             f"{size} ranks; launch with mpirun -n {value}")
    elif key == "global_rank":
        if _distributed.is_initialized() and value != rank:
            raise ValueError(f"set_auto_parallel_context: global_rank={value} but this process "
                             f"is rank {rank}")
    elif value != 1:
        raise NotImplementedError(f"set_auto_parallel_context: {key}={value} is not supported "
                                  "(only 1)")
    return value


def get_auto_parallel_context(attr_key: str) -> Any:
    """One option of the parallel configuration (MindSpore's ``get_auto_parallel_context``).

    Args:
        attr_key (str): the option, e.g. ``'parallel_mode'``, ``'gradients_mean'``,
            ``'device_num'`` (the world size when not set), ``'global_rank'`` (this rank
            when not set).

    Returns:
        Any, its value.

    Raises:
        ValueError: an unknown option.
    """
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown option {attr_key!r}; the options "
                         f"are {sorted(_DEFAULTS)}")
    value = _context[attr_key]
    if value is None and attr_key in ("device_num", "global_rank"):
        size, rank = _world()
        return size if attr_key == "device_num" else rank
    return value


def reset_auto_parallel_context() -> None:
    """Restores every option to its default (STAND_ALONE, gradients_mean False, ...)."""
    _context.clear()
    _context.update(_DEFAULTS)


def data_parallel() -> bool:
    """Whether parallel_mode is DATA_PARALLEL."""
    return bool(_context["parallel_mode"] == ParallelMode.DATA_PARALLEL)
