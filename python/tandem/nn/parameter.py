"""MindSpore's Parameter (``tandem.Parameter``, ``tandem.nn.Parameter``): the shared
Parameter with MindSpore's constructor and repr. It may hold integer data (MindSpore allows
it; such a Parameter gets no gradient), and prints as
``Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)``.
``tandem.mint.nn.Parameter`` keeps PyTorch's rules."""
from __future__ import annotations

from typing import Any, Optional

from .. import _C
from .._layers.parameter import Parameter as _SharedParameter

Tensor = _C.Tensor


class Parameter(_SharedParameter):
    """A trainable tensor that a Cell registers when assigned as an attribute.

    Args:
        default_input (Union[Tensor, numbers.Number, list, numpy.ndarray], optional): the
            value (converted with tandem.Tensor). Default: ``None`` .
        name (str, optional): the name (the attribute path when a Cell registers it and
            this is ``None``). Default: ``None`` .
        requires_grad (bool): whether gradients are computed for it (always False for
            integer and bool data). Default: ``True`` .
        layerwise_parallel (bool): accepted for compatibility. Default: ``False`` .
        parallel_optimizer (bool): accepted for compatibility. Default: ``True`` .
        storage_format (str): accepted for compatibility. Default: ``''`` .
    """

    def __init__(self, default_input: Any = None, name: Optional[str] = None,
                 requires_grad: bool = True, layerwise_parallel: bool = False,
                 parallel_optimizer: bool = True, storage_format: str = "") -> None:
        data = default_input
        if data is not None and not isinstance(data, Tensor):
            data = Tensor(data)
        differentiable = data is None or data.dtype.is_floating_point
        super().__init__(data, name, bool(requires_grad) and differentiable)
        self._declared_requires_grad = bool(requires_grad)

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, "
                f"dtype={_C.dtype_name(self.dtype)}, "
                f"requires_grad={self._shown_requires_grad()})")

    def _shown_requires_grad(self) -> bool:
        if self.dtype.is_floating_point:
            return bool(self.requires_grad)
        return bool(getattr(self, "_declared_requires_grad", False))

    __str__ = __repr__


class ParameterTuple(tuple):  # type: ignore[type-arg]
    """A tuple of Parameters (MindSpore's ParameterTuple), e.g. ``net.trainable_params()``
    kept together for an optimizer or a gradient function.

    Args:
        iterable (Iterable[Parameter]): the parameters; every element must be a Parameter.
    """

    def __new__(cls, iterable: Any) -> "ParameterTuple":
        items = tuple(iterable)
        for i, p in enumerate(items):
            if not isinstance(p, _SharedParameter):
                raise TypeError(f"ParameterTuple: element {i} is a {type(p).__name__}, not a "
                                "Parameter")
        names = [p.name for p in items if p.name is not None]
        if len(set(names)) != len(names):
            raise ValueError(f"ParameterTuple: the parameter names must be unique, got {names}")
        return super().__new__(cls, items)

    def __init__(self, iterable: Any) -> None:  # the items were set by __new__
        super().__init__()

    def clone(self, prefix: str, init: Any = "same") -> "ParameterTuple":
        """Copies of the parameters named ``prefix.name`` (an optimizer's moments).

        Args:
            prefix (str): the prefix of the new names.
            init (Union[str, numbers.Number]): ``'same'`` copies the values, ``'zeros'`` /
                ``'ones'`` or a number fills them. Default: ``'same'`` .

        Returns:
            ParameterTuple, the new parameters.
        """
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty str, got "
                             f"{prefix!r}")
        out = []
        for p in self:
            if init == "same":
                data = p.detach().clone()
            elif init in ("zeros", "ones") or isinstance(init, (int, float)):
                value = 0 if init == "zeros" else 1 if init == "ones" else init
                data = p.detach().clone()
                data.fill_(value)
            else:
                raise ValueError(f"ParameterTuple.clone: init must be 'same', 'zeros', 'ones' "
                                 f"or a number, got {init!r}")
            out.append(Parameter(data, name=f"{prefix}.{p.name}",
                                 requires_grad=bool(p.requires_grad)))
        return ParameterTuple(out)


__all__ = ["Parameter", "ParameterTuple"]
