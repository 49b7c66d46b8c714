"""MindSpore-style optimizers (mindspore.nn.SGD, Momentum, Adam, AdamWeightDecay).

They are called with the gradients, ``optimizer(grads)``, one per parameter in the order of
``optimizer.parameters`` (what ``value_and_grad(..., weights=net.trainable_params())``
returns). The updates run in the same C++ optimizers as tandem.mint.optim.

``learning_rate`` is a number (kept as a float32 Parameter, as MindSpore does, so
assigning to ``opt.learning_rate`` changes it), a list / 1-D Tensor of per-step values
(dynamic lr: step i uses value i; the last value is kept past the end), or a callable
schedule taking the global step (a LearningRateSchedule, called with the step as an int32
Tensor). The rate and the global step are tensors the update reads when it runs, so a
compiled (@jit) training step follows a dynamic rate and an assignment to the rate exactly
as eager steps do. With parameter groups (dicts with
'params' and optional 'lr' / 'weight_decay') each group may have its own rate and decay.
Without groups, MindSpore's default filter applies: parameters whose name contains 'beta'
or 'gamma' (normalization shifts and scales) get no weight decay.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union, cast

from .. import _C
from ..autograd import no_grad
from .._layers.parameter import Parameter

Tensor = _C.Tensor
#: A learning rate: a number, per-step values (a list or 1-D Tensor), or a schedule called
#: with the global step (an int32 Tensor).
LearningRate = Union[float, int, Sequence[float], Tensor, Callable[[Tensor], Any]]
#: What an optimizer is built from: Parameters, or group dicts with 'params' and optional
#: 'lr' / 'weight_decay'.
ParamsT = Union[Iterable[Tensor], Iterable[Dict[str, Any]]]

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]


def _decay_filter(p: Tensor) -> bool:
    name = getattr(p, "name", None) or ""
    return "beta" not in name and "gamma" not in name


def _check_number(name: str, value: Any, lo: float = 0.0, cls: str = "Optimizer") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', the type of '{name}' must be float, but got "
                        f"{type(value).__name__}")
    number = float(value)
    if number < lo:
        raise ValueError(f"For '{cls}', '{name}' must be >= {lo}, but got {number}")
    return number


class _LR:
    """One learning-rate source: fixed (a float32 Parameter), per-step values, or a
    schedule called with the global step."""

    value: Any

    def __init__(self, lr: LearningRate, cls: str) -> None:
        self.kind = "fixed"
        if callable(lr) and not isinstance(lr, Tensor):
            self.kind, self.value = "schedule", lr
        elif isinstance(lr, Tensor) and lr.ndim == 1 or isinstance(lr, (list, tuple)):
            values = [float(v) for v in (lr.tolist() if isinstance(lr, Tensor) else lr)]
            if not values:
                raise ValueError(f"For '{cls}', a dynamic learning_rate needs at least one "
                                 "value, got an empty sequence")
            for v in values:
                if v < 0:
                    raise ValueError(f"For '{cls}', every learning rate must be >= 0, got {v}")
            self.kind = "dynamic"
            self.value = Tensor(values, _C.dtype.float32)
        elif isinstance(lr, Tensor):
            if lr.ndim != 0:
                raise ValueError(f"For '{cls}', a Tensor learning_rate must be 0-d or 1-D, got "
                                 f"shape {list(lr.shape)}")
            self.value = Parameter(Tensor(float(lr), _C.dtype.float32), name="learning_rate",
                                   requires_grad=False)
        else:
            v = _check_number("learning_rate", lr, 0.0, cls)
            self.value = Parameter(Tensor(v, _C.dtype.float32), name="learning_rate",
                                   requires_grad=False)

    def at(self, step: int) -> Tensor:
        return self.tensor_at(Tensor(step, _C.dtype.int32))

    def tensor_at(self, step: Tensor) -> Tensor:
        """The rate for a 0-d int32 step tensor, with tensor ops only (traceable)."""
        if self.kind == "fixed":
            fixed: Tensor = self.value
            return fixed
        if self.kind == "dynamic":
            last = self.value.shape[0] - 1
            return _C.index_select(self.value, 0, _C.clamp(step, None, last).reshape([1]))[0]
        r = self.value(step)
        if isinstance(r, Tensor):
            return r
        if _C.is_tracing():  # a number would be frozen into the compiled step
            raise TypeError("inside jit, a learning-rate schedule must return a Tensor "
                            "computed with tensor ops from the step Tensor it is given, got "
                            f"{type(r).__name__}; or call the optimizer outside jit")
        return Tensor(float(r), _C.dtype.float32)


class Optimizer:
    """The base of the MindSpore-style optimizers (mindspore.nn.Optimizer), called with the
    gradients: ``optimizer(grads)``. Subclasses give the C++ class (`_cpp`) and its fixed
    options (`_options`).

    Args:
        learning_rate (Union[float, list, Tensor, LearningRateSchedule]): a number (kept as
            a float32 Parameter), per-step values (a list or 1-D Tensor; the last value is
            kept past the end), or a schedule called with the global step.
        parameters (Union[list[Parameter], list[dict]]): the parameters to update, or group
            dicts with 'params' and optional 'lr' and 'weight_decay'.
        weight_decay (float): the L2 penalty; without groups, parameters whose name
            contains 'beta' or 'gamma' get none. Default: ``0.0`` .
        loss_scale (float): the gradients are divided by it (> 0). Default: ``1.0`` .
    """

    _cpp = ""

    def __init__(self, learning_rate: LearningRate, parameters: ParamsT,
                 weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        cls = type(self).__name__
        if isinstance(parameters, Tensor):
            raise TypeError(f"For '{cls}', 'params' must be an iterable of Parameters or of "
                            "group dicts, but got a single Tensor")
        items: List[Any] = list(parameters)
        if not items:
            raise ValueError(f"For '{cls}', the argument 'params' must not be empty: the "
                             "optimizer got an empty parameter list")
        weight_decay = _check_number("weight_decay", weight_decay, 0.0, cls)
        loss_scale = _check_number("loss_scale", loss_scale, 0.0, cls)
        if loss_scale == 0.0:
            raise ValueError(f"For '{cls}', 'loss_scale' must be > 0, but got 0.0")
        self.loss_scale = loss_scale
        self.is_group = isinstance(items[0], dict)
        if self.is_group:
            groups = []
            for g in items:
                if not isinstance(g, dict) or "params" not in g:
                    raise TypeError(f"For '{cls}', every group must be a dict with 'params'")
                if "order_params" in g:
                    raise NotImplementedError(f"{cls}: 'order_params' groups are not supported")
                groups.append(g)
        else:
            groups = [{"params": items}]
        self.is_group_lr = self.is_group and any("lr" in g for g in groups)
        self._lrs: List[_LR] = []
        params: List[Tensor] = []
        self._param_group: List[int] = []  # parameter -> its group
        cgroups: List[Tuple[int, List[int], float]] = []  # (lr index, param indices, decay)
        for gi, g in enumerate(groups):
            ps = [g["params"]] if isinstance(g["params"], Tensor) else list(g["params"])
            for p in ps:
                if not isinstance(p, Tensor):
                    raise TypeError(f"For '{cls}', parameters must be Parameters (Tensors), "
                                    f"got {type(p).__name__}")
            self._lrs.append(_LR(g.get("lr", learning_rate), cls))
            wd = _check_number("weight_decay", g.get("weight_decay", weight_decay), 0.0, cls)
            idx = list(range(len(params), len(params) + len(ps)))
            params.extend(ps)
            self._param_group += [gi] * len(ps)
            if self.is_group or wd == 0.0:
                cgroups.append((gi, idx, wd))
            else:
                decayed = [i for i in idx if _decay_filter(params[i])]
                kept = [i for i in idx if not _decay_filter(params[i])]
                cgroups += [(gi, decayed, wd)] if decayed else []
                cgroups += [(gi, kept, 0.0)] if kept else []
        self.parameters: Tuple[Tensor, ...] = tuple(params)
        self.dynamic_lr = any(lr.kind != "fixed" for lr in self._lrs)
        # The global step (MindSpore keeps it in a Parameter too): compiled steps advance it.
        self._step_t = Tensor(0, _C.dtype.int32)
        self._impl = _C.optim.create(self._cpp, [], self._options())
        self._owner: List[int] = []  # C++ group -> lr index
        self._order: List[int] = []  # C++ flat parameter order -> index in self.parameters
        for gi, idx, wd in cgroups:
            # MindSpore adds the decay before dividing by loss_scale: (g + wd p) / s.
            decay = wd / loss_scale if self._decay_in_grad else wd
            self._impl.add_param_group([params[i] for i in idx],
                                       {"lr": self._lr_value(gi), "weight_decay": decay})
            self._owner.append(gi)
            self._order += idx

    @property
    def global_step(self) -> int:
        """Steps taken so far (eager and compiled)."""
        return int(self._step_t.item())

    @global_step.setter
    def global_step(self, value: int) -> None:
        with no_grad():
            self._step_t.fill_(int(value))

    _decay_in_grad = True

    def _options(self) -> Dict[str, float]:
        return {}

    def _lr_value(self, group: int) -> float:
        return float(self._lrs[group].at(self.global_step))

    @property
    def learning_rate(self) -> Any:
        """The rate source: a Parameter (fixed), a 1-D Tensor (per-step values) or the
        schedule; a tuple of them with per-group rates."""
        values = tuple(lr.value for lr in self._lrs)
        return values if self.is_group_lr else values[0]

    def get_lr(self) -> Union[Tensor, Tuple[Tensor, ...]]:
        """The learning rate the next step uses. Unlike MindSpore's get_lr, calling it does
        not advance the global step.

        Returns:
            Tensor, the rate (0-d float32), or a tuple of them with per-group rates.
        """
        values = tuple(lr.at(self.global_step) for lr in self._lrs)
        return values if self.is_group_lr else values[0]

    def get_lr_parameter(self, param: Union[Tensor, Sequence[Tensor]]
                         ) -> Union[Tensor, List[Tensor]]:
        """The learning rate the next step uses for a parameter.

        Args:
            param (Union[Parameter, list[Parameter]]): an optimized parameter, or a list of
                them.

        Returns:
            Tensor, the rate (0-d), or a list of rates for a list of parameters.
        """
        def one(p: Tensor) -> Tensor:
            for q, gi in zip(self.parameters, self._param_group):
                if q is p:
                    return self._lrs[gi].at(self.global_step)
            raise ValueError(f"{type(self).__name__}: the parameter is not optimized here")
        if isinstance(param, (list, tuple)):
            return [one(p) for p in param]
        return one(cast(Tensor, param))

    def __call__(self, gradients: Sequence[Optional[Tensor]]) -> bool:
        """Updates every parameter from its gradient and advances the global step.

        Args:
            gradients (tuple[Tensor]): one gradient per parameter, in the order of
                `parameters` (``None`` skips a parameter).

        Returns:
            bool, ``True``.
        """
        grads = tuple(gradients)
        if len(grads) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', the number of gradients "
                             f"({len(grads)}) must equal the number of parameters "
                             f"({len(self.parameters)})")
        with no_grad():
            # Rates as tensors read when the update runs (a compiled step reads the rate
            # Parameter and the step counter by reference instead of freezing their values).
            lrs = [lr.tensor_at(self._step_t) for lr in self._lrs]
            for ci, gi in enumerate(self._owner):
                self._impl.set_lr_tensor(ci, lrs[gi])
            if self.loss_scale != 1.0:
                inv = 1.0 / self.loss_scale
                grads = tuple(None if g is None else g * inv for g in grads)
            self._impl.step_with([grads[i] for i in self._order])
            self._step_t.add_(1)
        return True

    construct = __call__

    def state_dict(self) -> Dict[str, Any]:
        """The optimizer's state, for resuming.

        Returns:
            dict, the buffers (copies, in `parameters` order) and the global step.
        """
        exported = self._impl.export_state()
        state: List[Any] = [None] * len(self.parameters)
        for k, i in enumerate(self._order):
            state[i] = exported[k]
        return {"state": state, "global_step": self.global_step}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the state saved by :meth:`state_dict`.

        Args:
            state_dict (dict): what :meth:`state_dict` returned.
        """
        state = state_dict["state"]
        if len(state) != len(self.parameters):
            raise ValueError(f"{type(self).__name__}: the saved state has "
                             f"{len(state)} entries, the optimizer has {len(self.parameters)} "
                             "parameters")
        self._impl.import_state([tuple(state[i]) for i in self._order])
        self.global_step = int(state_dict.get("global_step", 0))


_PARAMS = """
        params (Union[list[Parameter], list[dict]]): the parameters to update, or group
            dicts with 'params' and optional 'lr' and 'weight_decay'."""
_LR_ARG = """
        learning_rate (Union[float, list, Tensor, LearningRateSchedule]): a number, per-step
            values, or a schedule called with the global step."""
_DECAY = """
        weight_decay (float): the L2 penalty (none for 'beta' / 'gamma' parameters without
            groups). Default: ``0.0`` ."""
_SCALE = """
        loss_scale (float): the gradients are divided by it. Default: ``1.0`` ."""


class SGD(Optimizer):
    __doc__ = """Stochastic gradient descent (mindspore.nn.SGD):
    ``v = momentum * v + (1 - dampening) * g`` (``v = g`` on the first step),
    ``p -= lr * (g + momentum * v if nesterov else v)``.

    Args:""" + _PARAMS + _LR_ARG + """ Default: ``0.1`` .
        momentum (float): the momentum factor. Default: ``0.0`` .
        dampening (float): the dampening of the momentum. Default: ``0.0`` .""" + _DECAY + """
        nesterov (bool): Nesterov momentum. Default: ``False`` .""" + _SCALE + "\n    "

    _cpp = "SGD"

    def __init__(self, params: ParamsT, learning_rate: LearningRate = 0.1, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 loss_scale: float = 1.0) -> None:
        self._opts = {"momentum": _check_number("momentum", momentum, 0.0, "SGD"),
                      "dampening": _check_number("dampening", dampening, 0.0, "SGD"),
                      "nesterov": float(bool(nesterov))}
        super().__init__(learning_rate, params, weight_decay, loss_scale)

    def _options(self) -> Dict[str, float]:
        return self._opts


class Momentum(Optimizer):
    __doc__ = """MindSpore's Momentum: ``accum = momentum * accum + g``; ``p -= lr * accum``, or
    with use_nesterov ``p -= lr * (g + momentum * accum)``.

    Args:""" + _PARAMS + _LR_ARG + """
        momentum (float): the momentum factor (>= 0).""" + _DECAY + _SCALE + """
        use_nesterov (bool): Nesterov momentum. Default: ``False`` .
    """

    _cpp = "Momentum"

    def __init__(self, params: ParamsT, learning_rate: LearningRate, momentum: float,
                 weight_decay: float = 0.0,
                 loss_scale: float = 1.0, use_nesterov: bool = False) -> None:
        self._opts = {"momentum": _check_number("momentum", momentum, 0.0, "Momentum"),
                      "nesterov": float(bool(use_nesterov))}
        super().__init__(learning_rate, params, weight_decay, loss_scale)

    def _options(self) -> Dict[str, float]:
        return self._opts


class Adam(Optimizer):
    __doc__ = """MindSpore's Adam: ``m = beta1 m + (1 - beta1) g``,
    ``v = beta2 v + (1 - beta2) g^2``,
    ``p -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)`` (eps is not
    bias-corrected, unlike mint.optim.Adam). Weight decay is added to the gradient.

    Args:""" + _PARAMS + _LR_ARG + """ Default: ``1e-3`` .
        beta1 (float): the decay rate of the gradient average, in [0, 1).
            Default: ``0.9`` .
        beta2 (float): the decay rate of the squared-gradient average, in [0, 1).
            Default: ``0.999`` .
        eps (float): added to the denominator (> 0). Default: ``1e-8`` .
        use_locking (bool): accepted for compatibility. Default: ``False`` .
        use_nesterov (bool): Nesterov momentum on the gradient average.
            Default: ``False`` .""" + _DECAY + _SCALE + """
        use_amsgrad (bool): use the maximum of the past squared-gradient averages.
            Default: ``False`` .
        **kwargs: accepted for compatibility.
    """

    _cpp = "Adam"

    def __init__(self, params: ParamsT, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: float = 0.0, loss_scale: float = 1.0,
                 use_amsgrad: bool = False, **kwargs: Any) -> None:
        self._opts = _adam_options("Adam", beta1, beta2, eps)
        self._opts.update(nesterov=float(bool(use_nesterov)), amsgrad=float(bool(use_amsgrad)),
                          raw_eps=1.0)
        super().__init__(learning_rate, params, weight_decay, loss_scale)

    def _options(self) -> Dict[str, float]:
        return self._opts


class AdamWeightDecay(Optimizer):
    __doc__ = """Adam without bias correction and with decoupled decay (MindSpore's
    AdamWeightDecay): ``p -= lr * (m / (sqrt(v) + eps) + weight_decay * p)``.

    Args:""" + _PARAMS + _LR_ARG + """ Default: ``1e-3`` .
        beta1 (float): the decay rate of the gradient average, in [0, 1).
            Default: ``0.9`` .
        beta2 (float): the decay rate of the squared-gradient average, in [0, 1).
            Default: ``0.999`` .
        eps (float): added to the denominator (> 0). Default: ``1e-6`` .
        weight_decay (float): the decoupled decay (none for 'beta' / 'gamma' parameters
            without groups). Default: ``0.0`` .
    """

    _cpp = "AdamW"
    _decay_in_grad = False

    def __init__(self, params: ParamsT, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        self._opts = _adam_options("AdamWeightDecay", beta1, beta2, eps)
        self._opts.update(bias_correction=0.0)
        super().__init__(learning_rate, params, weight_decay)

    def _options(self) -> Dict[str, float]:
        return self._opts


def _adam_options(cls: str, beta1: float, beta2: float, eps: float) -> Dict[str, float]:
    b1 = _check_number("beta1", beta1, 0.0, cls)
    b2 = _check_number("beta2", beta2, 0.0, cls)
    if b1 >= 1.0 or b2 >= 1.0:
        raise ValueError(f"For '{cls}', beta1 and beta2 must be in [0, 1), got {b1}, {b2}")
    e = _check_number("eps", eps, 0.0, cls)
    if e == 0.0:
        raise ValueError(f"For '{cls}', 'eps' must be > 0, but got 0.0")
    return {"beta1": b1, "beta2": b2, "eps": e}
