"""Parameter: a Tensor that a Cell / Module registers as trainable when assigned as an
attribute (MindSpore's mindspore.Parameter, PyTorch's nn.Parameter)."""
from __future__ import annotations

from typing import Optional

from .. import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A trainable tensor. Shares memory with `data` (a Tensor or anything tandem.tensor
    accepts); requires_grad defaults to True.

    Args:
        data: initial value.
        name: optional name (MindSpore); Cells fill it with the attribute path.
        requires_grad: whether gradients are computed for it.
    """

    def __init__(self, data=None, name: Optional[str] = None, requires_grad: bool = True):
        if data is None:
            data = _C.empty((0,), _C.dtype.float32)
        if not isinstance(data, Tensor):
            data = Tensor(data)
        super().__init__(0.0)
        self._set_impl(data.detach())
        self.name = name
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def set_data(self, data) -> "Parameter":
        """Replaces the value in place (MindSpore's Parameter.set_data)."""
        if not isinstance(data, Tensor):
            data = Tensor(data)
        self._set_impl(data.detach())
        return self

    def __deepcopy__(self, memo):
        p = Parameter(_C.clone(self.detach()), self.name, self.requires_grad)
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, protocol):
        return (Parameter, (Tensor(self.detach()), self.name, self.requires_grad))
