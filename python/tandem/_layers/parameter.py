"""Parameter: a Tensor that a Cell / Module registers as trainable when assigned as an
attribute (MindSpore's mindspore.Parameter, PyTorch's nn.Parameter)."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from .. import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A trainable tensor. Shares memory with `data` (a Tensor, or anything ``tandem.tensor``
    accepts, which is converted first); a Cell registers it when it is assigned as an
    attribute.

    Args:
        data (Tensor or array_like, optional): the initial value; ``None`` makes an empty
            float32 tensor. Default: ``None``.
        name (str, optional): the parameter's name (MindSpore); Cells fill it with the
            attribute path when it is ``None``. Default: ``None``.
        requires_grad (bool): whether gradients are computed for it. Default: ``True``.
    """

    name: Optional[str]

    def __init__(self, data: Any = None, name: Optional[str] = None,
                 requires_grad: bool = True) -> None:
        if data is None:
            data = _C.empty((0,), _C.dtype.float32)
        if not isinstance(data, Tensor):
            data = Tensor(data)
        super().__init__(0.0)
        self._set_impl(data.detach())  # type: ignore[attr-defined]  # private binding
        self.name = name
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def set_data(self, data: Any) -> "Parameter":
        """Replaces the value in place, keeping this object (MindSpore's
        Parameter.set_data); the shape may change.

        Args:
            data (Tensor or array_like): the new value (converted to a Tensor if needed).

        Returns:
            Parameter: this parameter.
        """
        if not isinstance(data, Tensor):
            data = Tensor(data)
        self._set_impl(data.detach())  # type: ignore[attr-defined]  # private binding
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Parameter":
        p = type(self)(_C.clone(self.detach()), self.name, self.requires_grad)
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, protocol: Any) -> Tuple[Any, ...]:
        return (type(self), (Tensor(self.detach()), self.name, self.requires_grad))
