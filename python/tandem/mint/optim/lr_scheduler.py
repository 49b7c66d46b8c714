"""Learning-rate schedulers (PyTorch's torch.optim.lr_scheduler).

A scheduler works with any object exposing ``param_groups``: a list of dicts holding
``'lr'``. ``step()`` advances ``last_epoch`` and writes the new rate into every group. The
chainable forms (``get_lr``) update the current rate, so several schedulers can act on one
optimizer; ``step(epoch)`` uses the closed forms, where a scheduler has one.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Dict, Iterable, List, Optional, Protocol, Sequence, Union

__all__ = [
    "LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR",
    "LinearLR", "OneCycleLR",
]


class _HasParamGroups(Protocol):
    """What a scheduler drives: an object with a list of param-group dicts holding 'lr'
    (every mint.optim optimizer)."""

    param_groups: List[Dict[str, Any]]


def _check_optimizer(optimizer: Any) -> None:
    groups = getattr(optimizer, "param_groups", None)
    if not isinstance(groups, (list, tuple)) or not all(isinstance(g, dict) for g in groups):
        raise TypeError(f"{type(optimizer).__name__} is not an optimizer: expected an object "
                        "with a `param_groups` list of dicts")
    for i, g in enumerate(groups):
        if "lr" not in g:
            raise KeyError(f"param_groups[{i}] has no 'lr' entry")


def _format_param(name: str, optimizer: _HasParamGroups, param: Any) -> List[Any]:
    """One value per param group (a list / tuple must have one per group)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class LRScheduler:
    """The base class of the schedulers: adjusts each param group's ``'lr'`` once per
    ``step()``.

    Args:
        optimizer (Optimizer): an object with ``param_groups`` (a list of dicts with
            ``'lr'``).
        last_epoch (int): the index of the last epoch; -1 starts afresh (and records each
            group's ``'initial_lr'``), anything else resumes and needs ``'initial_lr'`` in
            each group. Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in "
                                   f"param_groups[{i}] when resuming an optimizer")
        self.base_lrs: List[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> Dict[str, Any]:
        """The scheduler's state, for resuming.

        Returns:
            Dict[str, Any]: every attribute except the optimizer.
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the attributes saved by :meth:`state_dict`.

        Args:
            state_dict (Dict[str, Any]): what :meth:`state_dict` returned.
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> List[float]:
        """The rates the last ``step()`` set.

        Returns:
            List[float]: one rate per param group.
        """
        return self._last_lr

    def get_lr(self) -> List[float]:
        """The chainable form: the next rates computed from the current ones.

        Returns:
            List[float]: one rate per param group.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def step(self, epoch: Optional[int] = None) -> None:
        """Advances one epoch and writes the new rates into the param groups.

        Args:
            epoch (int, optional): jump to this epoch instead (deprecated, as in PyTorch;
                uses the closed form where the scheduler has one). Default: ``None``.
        """
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn("The epoch parameter in `scheduler.step()` is deprecated; the "
                          "closed form is used instead of the chainable form, where available.",
                          UserWarning, stacklevel=2)
            self.last_epoch = epoch
            closed: Optional[Callable[[], List[float]]] = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


# PyTorch's old name.
_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    """Sets each group's rate to initial_lr * lr_lambda(epoch).

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        lr_lambda (Callable or list of Callable): epoch -> factor; one function, or one per
            param group.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, lr_lambda: Union[Callable[[int], float],
                                                   Sequence[Callable[[int], float]]],
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> Dict[str, Any]:
        """The scheduler's state: its attributes except the optimizer; plain functions are
        not saved, callable objects save their ``__dict__``.

        Returns:
            Dict[str, Any]: the state.
        """
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the state saved by :meth:`state_dict` (callable objects get their saved
        ``__dict__`` back).

        Args:
            state_dict (Dict[str, Any]): what :meth:`state_dict` returned.
        """
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiplies the rate by `gamma` every `step_size` epochs.

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        step_size (int): the period of the decay, in epochs.
        gamma (float): the factor of each decay. Default: ``0.1``.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        if not isinstance(step_size, int) or isinstance(step_size, bool) or step_size <= 0:
            raise ValueError(f"StepLR: step_size must be a positive integer, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the rate by `gamma` at each milestone epoch (a repeated milestone decays
    repeatedly).

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        milestones (Iterable[int]): the epochs at which the rate decays.
        gamma (float): the factor of each decay. Default: ``0.1``.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        if self.last_epoch not in self.milestones:
            return [g["lr"] for g in self.optimizer.param_groups]
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [g["lr"] * factor for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the rate by `gamma` every epoch.

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        gamma (float): the factor per epoch.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        # The constructor's step must not decay a resumed rate once more.
        if self._is_initial:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, computed
    recursively (so it composes with other schedulers) as PyTorch does; past T_max the
    cosine continues (the rate rises again).

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        T_max (int): the number of epochs of the half cosine.
        eta_min (float): the smallest rate. Default: ``0.0``.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_max <= 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be positive, got {T_max}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        groups = self.optimizer.param_groups
        e, T, lo = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [g["lr"] for g in groups]
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
                * (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scales the rate by a factor going linearly from `start_factor` to `end_factor` over
    `total_iters` epochs (warmup when start_factor < end_factor).

    Args:
        optimizer (Optimizer): the optimizer whose rates are set.
        start_factor (float): the factor at the first epoch, in (0, 1]. Default: ``1/3``.
        end_factor (float): the factor from `total_iters` on, in [0, 1]. Default: ``1.0``.
        total_iters (int): the number of epochs of the ramp. Default: ``5``.
        last_epoch (int): the index of the last epoch (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             f"less or equal to 1, got {start_factor}.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"Ending multiplicative factor expected to be between 0 and 1, got "
                             f"{end_factor}.")
        if total_iters <= 0:
            raise ValueError(f"LinearLR: total_iters must be positive, got {total_iters}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [g["lr"] for g in groups]
        d = self.end_factor - self.start_factor
        factor = 1.0 + d / (self.total_iters * self.start_factor + (self.last_epoch - 1) * d)
        return [g["lr"] * factor for g in groups]

    def _get_closed_form_lr(self) -> List[float]:
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * frac)
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy: from max_lr / div_factor up to max_lr over `pct_start` of the
    steps, then down to initial_lr / final_div_factor (with three_phase, first back to
    initial_lr symmetrically, then down). Momentum (or Adam's beta1) cycles inversely when
    `cycle_momentum` is set. Step it after every batch.

    Args:
        optimizer (Optimizer): the optimizer whose rates (and momentum) are set.
        max_lr (float or Sequence[float]): the peak rate, or one per param group.
        total_steps (int, optional): the number of steps of the cycle. Default: ``None``.
        epochs (int, optional): with `steps_per_epoch`, gives the steps when `total_steps`
            is ``None``. Default: ``None``.
        steps_per_epoch (int, optional): the steps of one epoch. Default: ``None``.
        pct_start (float): the fraction of the steps spent increasing the rate.
            Default: ``0.3``.
        anneal_strategy (str): 'cos' or 'linear'. Default: ``'cos'``.
        cycle_momentum (bool): cycle the momentum (or Adam's beta1) inversely to the rate.
            Default: ``True``.
        base_momentum (float or Sequence[float]): the momentum at the peak rate.
            Default: ``0.85``.
        max_momentum (float or Sequence[float]): the momentum at the lowest rates.
            Default: ``0.95``.
        div_factor (float): initial_lr = max_lr / div_factor. Default: ``25.0``.
        final_div_factor (float): the last rate is initial_lr / final_div_factor.
            Default: ``1e4``.
        three_phase (bool): go back to initial_lr symmetrically before annealing.
            Default: ``False``.
        last_epoch (int): the index of the last step (-1 starts afresh). Default: ``-1``.
    """

    def __init__(self, optimizer: _HasParamGroups, max_lr: Union[float, Sequence[float]],
                 total_steps: Optional[int] = None, epochs: Optional[int] = None,
                 steps_per_epoch: Optional[int] = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: Union[float, Sequence[float]] = 0.85,
                 max_momentum: Union[float, Sequence[float]] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if isinstance(pct_start, bool) or not isinstance(pct_start, (int, float)) \
                or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        n = self.total_steps
        up = float(pct_start * n) - 1
        if three_phase:
            self._schedule_phases: List[Dict[str, Any]] = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * n) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": n - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": n - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for m, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = m / div_factor
                group["max_lr"] = m
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            defaults = getattr(optimizer, "defaults", None)
            keys = defaults if isinstance(defaults, dict) else optimizer.param_groups[0]
            if "momentum" not in keys and "betas" not in keys:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in keys
            max_ms = _format_param("max_momentum", optimizer, max_momentum)
            base_ms = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_max, m_base, group in zip(max_ms, base_ms, optimizer.param_groups):
                    self._set_momentum(group, m_max)
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: Dict[str, Any], value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *tuple(group["betas"])[1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> List[float]:
        """The next rates, one per param group (chainable form).

        Returns:
            List[float]: the rates.
        """
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step <= end_step or i == last:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[phase["start_momentum"]],
                                           group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, mom)
        return lrs
