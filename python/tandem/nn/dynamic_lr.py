"""MindSpore's dynamic learning rates (mindspore.nn.dynamic_lr): each function returns the
whole schedule as a Python list with one rate per step, to pass as an optimizer's
learning_rate. ``current_epoch = floor(i / step_per_epoch)`` for step i.
"""
from __future__ import annotations

import math
from typing import List, Sequence

__all__ = [
    "piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
    "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr",
]


def _positive_int(value: object, name: str, fn: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{fn}', the '{name}' must be int, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{fn}', the '{name}' must be a positive int, but got {value}.")


def _float(value: object, name: str, fn: str) -> None:
    if not isinstance(value, float):
        raise TypeError(f"For '{fn}', the '{name}' must be float, but got "
                        f"{type(value).__name__}.")


def _positive_float(value: float, name: str, fn: str) -> None:
    _float(value, name, fn)
    if value <= 0:
        raise ValueError(f"For '{fn}', the '{name}' must be positive, but got {value}.")


def _non_negative_float(value: float, name: str, fn: str) -> None:
    _float(value, name, fn)
    if value < 0:
        raise ValueError(f"For '{fn}', the '{name}' must be non-negative, but got {value}.")


def _check_decay(fn: str, learning_rate: float, decay_rate: float, total_step: int,
                 step_per_epoch: int, decay_epoch: int, is_stair: bool) -> None:
    _positive_int(total_step, "total_step", fn)
    _positive_int(step_per_epoch, "step_per_epoch", fn)
    _positive_int(decay_epoch, "decay_epoch", fn)
    _positive_float(learning_rate, "learning_rate", fn)
    _positive_float(decay_rate, "decay_rate", fn)
    if not isinstance(is_stair, bool):
        raise TypeError(f"For '{fn}', the 'is_stair' must be bool, but got "
                        f"{type(is_stair).__name__}.")


def piecewise_constant_lr(milestone: Sequence[int], learning_rates: Sequence[float]) -> List[float]:
    """A piecewise-constant schedule: learning_rates[i] for the steps in
    [milestone[i-1], milestone[i]).

    Args:
        milestone (Union[list[int], tuple[int]]): the (positive, non-decreasing) step at
            which each piece ends.
        learning_rates (Union[list[float], tuple[float]]): the rate of each piece.

    Returns:
        list[float], milestone[-1] rates, one per step.
    """
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)):
        raise TypeError(f"For '{fn}', 'milestone' must be a list or tuple, got "
                        f"{type(milestone).__name__}.")
    if not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{fn}', 'learning_rates' must be a list or tuple, got "
                        f"{type(learning_rates).__name__}.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{fn}', the size of 'milestone' must be same with the size of "
                         f"'learning_rates', but got 'milestone' size: {len(milestone)}, "
                         f"'learning_rates' size: {len(learning_rates)}.")
    lr: List[float] = []
    last = 0
    for i, item in enumerate(milestone):
        _positive_int(item, f"milestone[{i}]", fn)
        _float(learning_rates[i], f"learning_rates[{i}]", fn)
        if item < last:
            raise ValueError(f"For '{fn}', the value of milestone[{i}] must be greater than "
                             f"milestone[{i - 1}], but got milestone[{i}]: {item}, "
                             f"milestone[{i - 1}]: {last}.")
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int,
                         is_stair: bool = False) -> List[float]:
    """learning_rate * decay_rate ** (current_epoch / decay_epoch) (floored when is_stair).

    Args:
        learning_rate (float): the initial rate (> 0).
        decay_rate (float): the decay rate (> 0).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        decay_epoch (int): the number of epochs per decay unit.
        is_stair (bool): decay in steps every `decay_epoch` epochs instead of continuously.
            Default: ``False`` .

    Returns:
        list[float], `total_step` rates, one per step.
    """
    _check_decay("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                 decay_epoch, is_stair)
    lr = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        lr.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return lr


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int,
                         is_stair: bool = False) -> List[float]:
    """learning_rate * e ** (-decay_rate * current_epoch); with is_stair, current_epoch is
    rounded down to a multiple of decay_epoch.

    Args:
        learning_rate (float): the initial rate (> 0).
        decay_rate (float): the decay rate (> 0).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        decay_epoch (int): the number of epochs per decay unit.
        is_stair (bool): decay in steps every `decay_epoch` epochs instead of continuously.
            Default: ``False`` .

    Returns:
        list[float], `total_step` rates, one per step.
    """
    _check_decay("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                 decay_epoch, is_stair)
    lr = []
    for i in range(total_step):
        e = math.floor(i / step_per_epoch)
        if is_stair:
            e = math.floor(e / decay_epoch) * decay_epoch
        lr.append(learning_rate * math.e ** (-decay_rate * e))
    return lr


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                     step_per_epoch: int, decay_epoch: int,
                     is_stair: bool = False) -> List[float]:
    """learning_rate / (1 + decay_rate * current_epoch / decay_epoch) (floored when
    is_stair).

    Args:
        learning_rate (float): the initial rate (> 0).
        decay_rate (float): the decay rate (> 0).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        decay_epoch (int): the number of epochs per decay unit.
        is_stair (bool): decay in steps every `decay_epoch` epochs instead of continuously.
            Default: ``False`` .

    Returns:
        list[float], `total_step` rates, one per step.
    """
    _check_decay("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                 decay_epoch, is_stair)
    lr = []
    for i in range(total_step):
        e = math.floor(i / step_per_epoch)
        p = math.floor(e / decay_epoch) if is_stair else e / decay_epoch
        lr.append(learning_rate / (1 + decay_rate * p))
    return lr


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> List[float]:
    """A cosine decay: min_lr + (max_lr - min_lr) * (1 + cos(pi * min(current_epoch,
    decay_epoch) / decay_epoch)) / 2.

    Args:
        min_lr (float): the final rate (>= 0).
        max_lr (float): the initial rate (> min_lr).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        decay_epoch (int): the epochs of the decay (the rate stays min_lr after).

    Returns:
        list[float], `total_step` rates, one per step.
    """
    fn = "cosine_decay_lr"
    _non_negative_float(min_lr, "min_lr", fn)
    _positive_float(max_lr, "max_lr", fn)
    _positive_int(total_step, "total_step", fn)
    _positive_int(step_per_epoch, "step_per_epoch", fn)
    _positive_int(decay_epoch, "decay_epoch", fn)
    if min_lr >= max_lr:
        raise ValueError(f"For '{fn}', the 'max_lr' must be greater than the 'min_lr', but got "
                         f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    lr = []
    for i in range(total_step):
        e = min(math.floor(i / step_per_epoch), decay_epoch)
        lr.append(min_lr + delta * (1 + math.cos(math.pi * e / decay_epoch)))
    return lr


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int,
                        step_per_epoch: int, decay_epoch: int, power: float,
                        update_decay_epoch: bool = False) -> List[float]:
    """(learning_rate - end_learning_rate) * (1 - tmp_epoch / tmp_decay_epoch) ** power +
    end_learning_rate, tmp_epoch = min(current_epoch, decay_epoch). With update_decay_epoch,
    tmp_decay_epoch = decay_epoch * max(ceil(current_epoch / decay_epoch), 1) and tmp_epoch =
    current_epoch (the decay restarts every decay_epoch epochs).

    Args:
        learning_rate (float): the initial rate (> 0).
        end_learning_rate (float): the final rate (>= 0).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        decay_epoch (int): the epochs of the decay.
        power (float): the power of the polynomial (> 0).
        update_decay_epoch (bool): restart the decay every `decay_epoch` epochs.
            Default: ``False`` .

    Returns:
        list[float], `total_step` rates, one per step.
    """
    fn = "polynomial_decay_lr"
    _positive_float(learning_rate, "learning_rate", fn)
    _non_negative_float(end_learning_rate, "end_learning_rate", fn)
    _positive_float(power, "power", fn)
    _positive_int(total_step, "total_step", fn)
    _positive_int(step_per_epoch, "step_per_epoch", fn)
    _positive_int(decay_epoch, "decay_epoch", fn)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"For '{fn}', the 'update_decay_epoch' must be bool, but got "
                        f"{type(update_decay_epoch).__name__}.")
    delta = learning_rate - end_learning_rate
    lr = []
    for i in range(total_step):
        e = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            tmp_decay, tmp_epoch = decay_epoch * max(math.ceil(e / decay_epoch), 1), e
        else:
            tmp_decay, tmp_epoch = decay_epoch, min(e, decay_epoch)
        lr.append(delta * (1 - tmp_epoch / tmp_decay) ** power + end_learning_rate)
    return lr


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int,
              warmup_epoch: int) -> List[float]:
    """A linear warmup: learning_rate * min(current_epoch, warmup_epoch) / warmup_epoch.

    Args:
        learning_rate (float): the rate reached at the end of the warmup (>= 0).
        total_step (int): the number of steps (the length of the schedule).
        step_per_epoch (int): the steps per epoch.
        warmup_epoch (int): the epochs of the warmup.

    Returns:
        list[float], `total_step` rates, one per step.
    """
    fn = "warmup_lr"
    _non_negative_float(learning_rate, "learning_rate", fn)
    _positive_int(warmup_epoch, "warmup_epoch", fn)
    _positive_int(total_step, "total_step", fn)
    _positive_int(step_per_epoch, "step_per_epoch", fn)
    lr = []
    for i in range(total_step):
        e = min(math.floor(i / step_per_epoch), warmup_epoch)
        lr.append(learning_rate * e / warmup_epoch)
    return lr
