"""Optimizers with PyTorch's names and semantics (torch.optim -> mint.optim).

Each class wraps a C++ optimizer (tandem._C.optim). ``param_groups`` is a list of plain
dicts, as in PyTorch: their hyper-parameters are copied into C++ before every ``step()``, so
writing ``opt.param_groups[0]['lr'] = 0.01`` (what lr schedulers do) takes effect on the next
step. ``state_dict()`` / ``load_state_dict()`` round-trip every buffer and step count, so
training resumes bit-exactly.
"""
from __future__ import annotations

from collections import defaultdict
from typing import (Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple,
                    TypeVar, Union, overload)

from ... import _C
from ...autograd import enable_grad
from ...jit import note_guard

Tensor = _C.Tensor
#: What an optimizer is built from: tensors (parameters), or dicts with 'params' and
#: per-group hyper-parameters (one dict is one group).
ParamsT = Union[Iterable[Tensor], Iterable[Dict[str, Any]], Dict[str, Any]]
#: The loss a step closure returns.
_Loss = TypeVar("_Loss", bound=Union[float, Tensor])

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"]

_CPP_KEYS: Dict[str, FrozenSet[str]] = {}


def _cpp_keys(name: str) -> FrozenSet[str]:
    if name not in _CPP_KEYS:
        _CPP_KEYS[name] = frozenset(_C.optim.default_options(name))
    return _CPP_KEYS[name]


def _as_float(key: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"optimizer option {key!r} must be a number, got "
                        f"{type(value).__name__}") from None


class Optimizer:
    """The base class of the optimizers: holds ``param_groups`` (dicts with 'params' and
    hyper-parameters) and the C++ optimizer doing the updates. Subclasses name their C++
    class in ``_cpp``.

    Args:
        params (Iterable[Tensor] or Iterable[dict]): the parameters to optimize, or dicts
            with 'params' and hyper-parameters overriding `defaults` for that group.
        defaults (Dict[str, Any]): the default hyper-parameters of every group.
    """

    _cpp = ""

    def __init__(self, params: ParamsT, defaults: Dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got a Tensor")
        if isinstance(params, dict):
            params = [params]
        groups: List[Any] = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults: Dict[str, Any] = dict(defaults)
        self.param_groups: List[Dict[str, Any]] = []
        self._impl = _C.optim.create(self._cpp, [], self._options(self.defaults))
        for g in groups:
            self.add_param_group(g)

    # --- groups and options ---------------------------------------------------------------
    def _options(self, group: Dict[str, Any]) -> Dict[str, float]:
        """The group's hyper-parameters in C++ form (betas split; unknown keys skipped)."""
        keys = _cpp_keys(self._cpp)
        out: Dict[str, float] = {}
        for key, value in group.items():
            if key == "betas":
                b = tuple(value)
                if len(b) != 2:
                    raise ValueError(f"betas must be a pair, got {value!r}")
                out["beta1"] = _as_float("betas", b[0])
                out["beta2"] = _as_float("betas", b[1])
            elif key in keys:
                out[key] = _as_float(key, value)
        return out

    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        """Adds a parameter group (e.g. layers unfrozen during fine-tuning).

        Args:
            param_group (dict): 'params' (a Tensor or a list of them) and any
                hyper-parameters to override the defaults with.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        if "params" not in group:
            raise ValueError("param_group must have a 'params' entry")
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs; "
                            "use a list instead")
        params = list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but parameter {i} of "
                                f"the group is a {type(p).__name__}")
        group["params"] = params
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self._impl.add_param_group(params, self._options(group))
        self.param_groups.append(group)

    def _sync(self) -> None:
        for i, group in enumerate(self.param_groups):
            self._impl.set_options(i, self._options(group))

    # --- stepping -------------------------------------------------------------------------
    @overload
    def step(self, closure: None = None) -> None: ...

    @overload
    def step(self, closure: Callable[[], _Loss]) -> _Loss: ...

    def step(self, closure: Optional[Callable[[], _Loss]] = None) -> Optional[_Loss]:
        """One update of every parameter that has a ``.grad``.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss; it
                runs first, with grad enabled. Default: ``None``.

        Returns:
            The closure's loss (a float or Tensor), or ``None`` without a closure.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._sync()
        if _C.is_tracing():  # the rates are constants of the graph: recompile on a change
            note_guard(self, Optimizer._hyper)  # type: ignore[arg-type]  # called with self
        self._impl.step()
        return loss

    def __call__(self, gradients: Sequence[Optional[Tensor]]) -> bool:
        """MindSpore's calling convention (``optimizer(grads)``, as ``mindspore.mint.optim``
        optimizers are called after ``value_and_grad``): one update from `gradients`, one per
        parameter in param_groups order (``None`` skips one). The parameters' ``.grad`` are
        left as they were.

        Args:
            gradients (Sequence[Tensor]): the gradients.

        Returns:
            bool, ``True``.
        """
        params = self._params()
        grads = list(gradients)
        if len(grads) != len(params):
            raise ValueError(f"{type(self).__name__}: got {len(grads)} gradients for "
                             f"{len(params)} parameters (one per parameter, in param_groups "
                             "order)")
        saved = [p.grad for p in params]
        try:
            for p, g in zip(params, grads):
                if g is not None and not isinstance(g, Tensor):
                    raise TypeError(f"{type(self).__name__}: gradients must be Tensors or "
                                    f"None, got {type(g).__name__}")
                p.grad = g
            self.step()
        finally:
            for p, g in zip(params, saved):
                p.grad = g
        return True

    def _hyper(self) -> Tuple[Tuple[Tuple[str, Any], ...], ...]:
        return tuple(tuple(sorted((k, v) for k, v in g.items() if k != "params"
                                  and isinstance(v, (int, float, bool, tuple))))
                     for g in self.param_groups)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's ``.grad``.

        Args:
            set_to_none (bool): set it to ``None`` instead of zeroing it in place.
                Default: ``True``.
        """
        self._impl.zero_grad(set_to_none)

    # --- state ----------------------------------------------------------------------------
    def _params(self) -> List[Tensor]:
        return [p for g in self.param_groups for p in g["params"]]

    @property
    def state(self) -> Dict[Tensor, Dict[str, Any]]:
        """Per-parameter state keyed by parameter: buffers (live tensors) and 'step'."""
        out: Dict[Tensor, Dict[str, Any]] = defaultdict(dict)
        for i, p in enumerate(self._params()):
            tensors, scalars = self._impl.state(i)
            if tensors or scalars:
                out[p] = {**scalars, **tensors}
        return out

    def state_dict(self) -> Dict[str, Any]:
        """{'state': {index: {name: value}}, 'param_groups': [group dicts with 'params' as
        indices]}, PyTorch's layout. Tensors are copies, so later steps don't change it.

        Returns:
            Dict[str, Any]: the state, for :meth:`load_state_dict` (and ``mint.save``).
        """
        state: Dict[int, Dict[str, Any]] = {}
        for i, (tensors, scalars) in enumerate(self._impl.export_state()):
            if tensors or scalars:
                state[i] = {**scalars, **tensors}
        groups: List[Dict[str, Any]] = []
        start = 0
        for g in self.param_groups:
            d = {k: v for k, v in g.items() if k != "params"}
            d["params"] = list(range(start, start + len(g["params"])))
            start += len(g["params"])
            groups.append(d)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the hyper-parameters, buffers and step counts saved by
        :meth:`state_dict` (the groups must hold as many parameters as when it was saved).

        Args:
            state_dict (Dict[str, Any]): what :meth:`state_dict` returned.
        """
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict:
            raise ValueError("load_state_dict expects a dict with 'state' and 'param_groups'")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has {len(saved_groups)} parameter groups, the "
                             f"optimizer has {len(self.param_groups)}")
        for i, (s, g) in enumerate(zip(saved_groups, self.param_groups)):
            if len(s["params"]) != len(g["params"]):
                raise ValueError(f"loaded state dict contains a parameter group ({i}) with "
                                 f"{len(s['params'])} parameters, the optimizer's group has "
                                 f"{len(g['params'])}")
        saved_state = state_dict.get("state", {})
        entries: List[Tuple[Dict[str, Tensor], Dict[str, float]]] = []
        for s in saved_groups:
            for key in s["params"]:
                tensors: Dict[str, Tensor] = {}
                scalars: Dict[str, float] = {}
                for name, value in saved_state.get(key, {}).items():
                    if isinstance(value, Tensor) and name != "step":
                        tensors[name] = value
                    else:
                        scalars[name] = _as_float(name, value)
                entries.append((tensors, scalars))
        new_groups = []
        for s, g in zip(saved_groups, self.param_groups):
            d = {k: v for k, v in s.items() if k != "params"}
            d["params"] = g["params"]
            new_groups.append(d)
        # Validate every group's options before changing anything.
        probe = _C.optim.create(self._cpp, [], self._options(self.defaults))
        for d in new_groups:
            probe.add_param_group([], self._options(d))
        self._impl.import_state(entries)
        self.param_groups = new_groups
        self._sync()

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(g):
                if key != "params":
                    lines.append(f"    {key}: {g[key]}")
        lines.append(")")
        return "\n".join(lines)


_COMMON = """
        maximize (bool): maximize the objective (ascend the gradient). Default: ``False``.
        foreach (bool, optional): accepted for PyTorch code (one C++ implementation).
            Default: ``None``.
    """
_PARAMS = """
        params (Iterable[Tensor] or Iterable[dict]): the parameters to optimize, or dicts
            defining parameter groups with their own hyper-parameters."""


class SGD(Optimizer):
    __doc__ = """Stochastic gradient descent with optional momentum / Nesterov momentum:
    ``buf = momentum * buf + (1 - dampening) * g`` (``buf = g`` on the first step),
    ``p -= lr * (g + momentum * buf if nesterov else buf)``; weight decay adds
    ``weight_decay * p`` to g.

    Args:""" + _PARAMS + """
        lr (float): the learning rate. Default: ``1e-3``.
        momentum (float): the momentum factor. Default: ``0``.
        dampening (float): the dampening of the momentum. Default: ``0``.
        weight_decay (float): the L2 penalty. Default: ``0``.
        nesterov (bool): Nesterov momentum (needs momentum and no dampening).
            Default: ``False``.""" + _COMMON

    _cpp = "SGD"

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach))


_ADAM = """
        lr (float): the learning rate. Default: ``1e-3``.
        betas (Tuple[float, float]): the decay rates of the running averages of the gradient
            and of its square. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for numerical stability. Default: ``1e-8``."""


class Adam(Optimizer):
    __doc__ = """Adam (Kingma & Ba, 2014), with L2 weight decay added to the gradient and
    optional AMSGrad.

    Args:""" + _PARAMS + _ADAM + """
        weight_decay (float): the L2 penalty. Default: ``0``.
        amsgrad (bool): use the maximum of the past squared-gradient averages (AMSGrad).
            Default: ``False``.""" + _COMMON

    _cpp = "Adam"

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach))


class AdamW(Optimizer):
    __doc__ = """Adam with decoupled weight decay (Loshchilov & Hutter, 2017):
    ``p *= 1 - lr * weight_decay`` before the Adam update.

    Args:""" + _PARAMS + _ADAM + """
        weight_decay (float): the decoupled weight decay. Default: ``1e-2``.
        amsgrad (bool): use AMSGrad. Default: ``False``.""" + _COMMON

    _cpp = "AdamW"

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach))


class RMSprop(Optimizer):
    __doc__ = """RMSprop: divides the gradient by a running RMS of the gradients (optionally
    centered by their running mean), with optional momentum.

    Args:""" + _PARAMS + """
        lr (float): the learning rate. Default: ``1e-2``.
        alpha (float): the smoothing constant of the running average. Default: ``0.99``.
        eps (float): added to the denominator for numerical stability. Default: ``1e-8``.
        weight_decay (float): the L2 penalty. Default: ``0``.
        momentum (float): the momentum factor. Default: ``0``.
        centered (bool): normalise by the estimated variance instead of the second moment.
            Default: ``False``.""" + _COMMON

    _cpp = "RMSprop"

    def __init__(self, params: ParamsT, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize,
                                      foreach=foreach))


class Adagrad(Optimizer):
    __doc__ = """Adagrad: per-element rates from the running sum of squared gradients.

    Args:""" + _PARAMS + """
        lr (float): the learning rate. Default: ``1e-2``.
        lr_decay (float): the rate decays as lr / (1 + (step - 1) * lr_decay).
            Default: ``0``.
        weight_decay (float): the L2 penalty. Default: ``0``.
        initial_accumulator_value (float): the starting value of the sums.
            Default: ``0``.
        eps (float): added to the denominator for numerical stability.
            Default: ``1e-10``.""" + _COMMON

    _cpp = "Adagrad"

    def __init__(self, params: ParamsT, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, *,
                 maximize: bool = False, foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      eps=eps, maximize=maximize, foreach=foreach))


class Adadelta(Optimizer):
    __doc__ = """Adadelta (Zeiler, 2012): step sizes from running averages of squared
    gradients and of squared updates.

    Args:""" + _PARAMS + """
        lr (float): scales the update. Default: ``1.0``.
        rho (float): the decay rate of the running averages. Default: ``0.9``.
        eps (float): added inside the square roots for numerical stability.
            Default: ``1e-6``.
        weight_decay (float): the L2 penalty. Default: ``0``.""" + _COMMON

    _cpp = "Adadelta"

    def __init__(self, params: ParamsT, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, *, maximize: bool = False,
                 foreach: Optional[bool] = None) -> None:
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach))


from . import lr_scheduler  # noqa: E402,F401
