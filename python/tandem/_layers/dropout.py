"""Dropout layers: Dropout(p), Dropout1d/2d (PyTorch) and MindSpore's Dropout(keep_prob, p)."""
from __future__ import annotations

from typing import Optional

from .. import _C
from ._common import Cell, F

Tensor = _C.Tensor

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "MSDropout"]

_ARGS = """

    Args:
        p (float): the probability of zeroing, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
"""


class _DropoutNd(Cell):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = float(p), bool(inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    __doc__ = ("In training, zeroes each element with probability p and scales the rest by "
               "1 / (1 - p); the identity in eval." + _ARGS)

    def forward(self, input: Tensor) -> Tensor:
        """Applies dropout (in training mode only).

        Args:
            input (Tensor): the input, of any shape.

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    __doc__ = ("In training, zeroes whole channels of (N, C, H, W) or (C, H, W) input with "
               "probability p and scales the rest by 1 / (1 - p)." + _ARGS)

    def forward(self, input: Tensor) -> Tensor:
        """Applies channel dropout (in training mode only).

        Args:
            input (Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    __doc__ = ("In training, zeroes whole channels of (N, C, L) or (C, L) input with "
               "probability p and scales the rest by 1 / (1 - p)." + _ARGS)

    def forward(self, input: Tensor) -> Tensor:
        """Applies channel dropout (in training mode only).

        Args:
            input (Tensor): (N, C, L) or (C, L).

        Returns:
            Tensor: the result, of the shape of `input`.
        """
        if input.ndim not in (2, 3):
            raise ValueError(f"Dropout1d: expected 2D or 3D input, got shape {tuple(input.shape)}")
        y = F.dropout2d(input.unsqueeze(-1), self.p, self.training).squeeze(-1)
        return input.copy_(y) if self.inplace and self.training else y


class MSDropout(Cell):
    """MindSpore's nn.Dropout: in training, zeroes each element with probability p and
    scales the rest by 1 / (1 - p); the identity outside training (``set_train(False)``).

    Args:
        keep_prob (float): the probability of keeping an element, in (0, 1] (MindSpore 1.x
            style; ignored when `p` is given). Default: ``0.5`` .
        p (float, optional): the probability of dropping an element, in [0, 1).
            Default: ``None`` .
        dtype (mindspore.dtype, optional): accepted for compatibility. Default: ``None`` .
    """

    def __init__(self, keep_prob: float = 0.5, p: Optional[float] = None,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        if p is None:
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            p = 1.0 - keep_prob
        if not 0.0 <= p < 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x: Tensor) -> Tensor:
        """Applies dropout (in training mode only).

        Args:
            x (Tensor): the input, of any shape.

        Returns:
            Tensor, of the shape of `x`.
        """
        if not self.training or self.p == 0.0:
            return x
        return F.dropout(x, self.p, True)

    def extra_repr(self) -> str:
        return f"p={self.p}"
