"""PyTorch's mixed-precision names (``torch.amp``): ``autocast`` and ``GradScaler``, over the
shared implementation in tandem/_amp.py."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Union

from .. import _amp, _C

Tensor = _C.Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast works on a device type (``torch.amp.is_autocast_available``).

    Args:
        device_type (str): 'cpu' or 'cuda'.

    Returns:
        bool, True for 'cpu' (the only backend here).
    """
    return str(device_type).split(":")[0] == "cpu"


class autocast(_amp.AutocastScope):  # noqa: N801  (PyTorch's name)
    """Runs the ops of a region in lower precision where that is safe
    (``torch.autocast`` / ``torch.amp.autocast``), as a context manager or a decorator.

    Matmul, linear, conv, bmm, addmm, baddbmm, prelu and einsum cast float32 inputs to
    `dtype`; losses, prod, cdist, trace and inverse cast low-precision inputs to float32;
    other ops run in their inputs' dtype (PyTorch's CPU lists, checked against torch 2.13).
    float64 tensors are never cast. In graph mode the casts are traced into the graph.

    Args:
        device_type (str): 'cpu'. 'cuda' has no backend here: autocast warns and disables
            itself, as PyTorch does on a machine without CUDA.
        dtype (dtype, optional): mint.bfloat16 (default on CPU) or mint.float16.
        enabled (bool): False makes the region run in full precision (nested regions can
            switch autocast off). Default: True.
        cache_enabled (bool, optional): accepted for PyTorch compatibility; casts of weights
            are not cached across ops.
    """

    def __init__(self, device_type: str = "cpu", dtype: Optional[Any] = None,
                 enabled: bool = True, cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise TypeError(f"autocast: device_type must be a str like 'cpu', got "
                            f"{type(device_type).__name__}")
        dev = device_type.split(":")[0]
        low = _C.dtype.bfloat16 if dtype is None else dtype
        if enabled and dev != "cpu":
            _amp.warn_disabled(f"User provided device_type of '{device_type}', but it is not "
                               "available here (tandem runs on the CPU). Disabling autocast.")
            enabled = False
        if enabled and low not in _amp._LOW:
            _amp.warn_disabled(f"In CPU autocast, but the target dtype {low} is not supported "
                               "(use mint.bfloat16 or mint.float16). Disabling autocast.")
            enabled = False
        self.device = dev
        self.fast_dtype = low
        self.enabled = bool(enabled)
        super().__init__(_amp.LISTS if self.enabled else _amp.OFF,
                         low if low in _amp._LOW else _C.dtype.bfloat16)


def _per_tensor(outputs: Any, fn: Callable[[Tensor], Tensor]) -> Any:
    if isinstance(outputs, (Tensor, list, tuple, dict)):
        return _amp.map_tensors(outputs, fn)
    if isinstance(outputs, Iterable):  # generators: torch scales what they yield
        return [_amp.map_tensors(o, fn) for o in outputs]
    raise TypeError(f"GradScaler.scale: outputs must be a tensor or an iterable of tensors, "
                    f"got {type(outputs).__name__}")


class GradScaler:
    """Loss scaling for float16 training (``torch.amp.GradScaler``): multiplies the loss by
    a scale so small gradients do not flush to zero, unscales the gradients before the
    optimizer step, skips steps whose gradients overflowed, and adapts the scale.

    The scale and the per-optimizer overflow flags are tensors, so a training step using
    the scaler compiles with ``jit`` (the skip decision is a guarded branch).

    Args:
        device (str): 'cpu'. 'cuda' warns and disables the scaler (no CUDA here).
            Default: 'cuda' (PyTorch's default).
        init_scale (float): the initial scale. Default: 2.0 ** 16.
        growth_factor (float): the scale is multiplied by this after `growth_interval`
            steps without overflow. Default: 2.0.
        backoff_factor (float): the scale is multiplied by this after an overflow.
            Default: 0.5.
        growth_interval (int): overflow-free steps between growths. Default: 2000.
        enabled (bool): False makes every method a pass-through. Default: True.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        if enabled and str(device).split(":")[0] != "cpu":
            _amp.warn_disabled(f"GradScaler is enabled, but device '{device}' is not available "
                               "here. Disabling. (Use GradScaler('cpu').)")
            enabled = False
        if growth_factor <= 1.0:
            raise ValueError(f"GradScaler: growth_factor must be > 1, got {growth_factor}")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError(f"GradScaler: backoff_factor must be in (0, 1), got {backoff_factor}")
        if int(growth_interval) <= 0:
            raise ValueError(f"GradScaler: growth_interval must be positive, got {growth_interval}")
        self._enabled = bool(enabled)
        self._scale = _C.full([], float(init_scale), _C.dtype.float32)
        self._growth_tracker = _C.full([], 0, _C.dtype.int32)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._per_optimizer: dict = {}  # id(optimizer) -> {"stage", "found_inf"}

    def is_enabled(self) -> bool:
        """Whether the scaler scales (False after disabling or for an unavailable device).

        Returns:
            bool, the flag.
        """
        return self._enabled

    def scale(self, outputs: Union[Tensor, Iterable[Tensor]]) -> Any:
        """Multiplies outputs (usually the loss) by the current scale.

        Args:
            outputs (Union[Tensor, Iterable[Tensor]]): what to scale.

        Returns:
            The scaled tensor(s), nested as given.
        """
        if not self._enabled:
            return outputs
        return _per_tensor(outputs, lambda t: t * self._scale.to(t.dtype))

    def _state(self, optimizer: Any) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready",
                                                              "found_inf": None})

    def unscale_(self, optimizer: Any) -> None:
        """Divides the gradients of optimizer's parameters by the scale, in place, and
        records whether any is inf or NaN.

        Args:
            optimizer (Optimizer): the optimizer whose parameters' gradients to unscale.

        Raises:
            RuntimeError: unscale_ was already called for this optimizer since the last
                update(), or step() already ran.
            ValueError: a gradient is float16 (unscaling it would lose the small values).
        """
        if not self._enabled:
            return
        st = self._state(optimizer)
        if st["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if st["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv = (1.0 / self._scale).to(_C.dtype.float32)
        grads = []
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.dtype == _C.dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients: keep the "
                                     "parameters (master weights) in float32.")
                g.mul_(inv.to(g.dtype))
                grads.append(g)
        st["found_inf"] = _C.logical_not(_amp.all_finite(grads))
        st["stage"] = "unscaled"

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales the gradients (unless ``unscale_`` ran) and runs ``optimizer.step()``
        unless they hold inf or NaN.

        Args:
            optimizer (Optimizer): the optimizer to step.
            args (Any): passed on to ``optimizer.step``.
            kwargs (Any): passed on to ``optimizer.step``.

        Returns:
            What optimizer.step returned, or None when the step was skipped.

        Raises:
            RuntimeError: step() was already called for this optimizer since update().
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        st = self._state(optimizer)
        if st["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] == "ready":
            self.unscale_(optimizer)
        st["stage"] = "stepped"
        if bool(st["found_inf"]):
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Optional[Union[float, Tensor]] = None) -> None:
        """Adapts the scale after the steps of an iteration: backoff if any optimizer's
        gradients overflowed, growth after `growth_interval` clean iterations.

        Args:
            new_scale (Union[float, Tensor], optional): use this scale instead.
        """
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale.fill_(float(new_scale))
        else:
            flags = [st["found_inf"] for st in self._per_optimizer.values()
                     if st["found_inf"] is not None]
            if not flags:
                raise RuntimeError("No inf checks were recorded prior to update(): call "
                                   "scaler.step(optimizer) (or unscale_) first.")
            found = flags[0]
            for f in flags[1:]:
                found = _C.logical_or(found, f)
            tracker = _C.where(found, _C.full([], 0, _C.dtype.int32),
                               self._growth_tracker + 1)
            grow = tracker >= self._growth_interval
            scale = _C.where(found, self._scale * self._backoff_factor,
                             _C.where(grow, self._scale * self._growth_factor, self._scale))
            self._scale.copy_(scale)
            self._growth_tracker.copy_(_C.where(grow, _C.full([], 0, _C.dtype.int32), tracker))
        self._per_optimizer.clear()

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled).

        Returns:
            float, the scale.
        """
        return float(self._scale.item()) if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        """Returns:
            float, the growth factor."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Args:
            new_factor (float): the new growth factor."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """Returns:
            float, the backoff factor."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Args:
            new_factor (float): the new backoff factor."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """Returns:
            int, the growth interval."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Args:
            new_interval (int): the new growth interval."""
        self._growth_interval = int(new_interval)

    def state_dict(self) -> dict:
        """The scaler's state, for checkpoints (PyTorch's keys).

        Returns:
            dict, scale, growth_factor, backoff_factor, growth_interval and _growth_tracker.
        """
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": int(self._growth_tracker.item())}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores a state from ``state_dict()``.

        Args:
            state_dict (dict): the saved state.

        Raises:
            RuntimeError: the state is empty (saved from a disabled scaler).
        """
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale.fill_(float(state_dict["scale"]))
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker.fill_(int(state_dict["_growth_tracker"]))
