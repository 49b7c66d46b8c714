"""Dropout layers: Dropout(p), Dropout1d/2d (PyTorch) and MindSpore's Dropout(keep_prob, p)."""
from __future__ import annotations

from typing import Optional

from ._common import Cell, F


class _DropoutNd(Cell):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = float(p), bool(inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability p in training, scaling the rest by 1/(1-p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) with probability p in training."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) with probability p in training."""

    def forward(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"Dropout1d: expected 2D or 3D input, got shape {tuple(input.shape)}")
        y = F.dropout2d(input.unsqueeze(-1), self.p, self.training).squeeze(-1)
        return input.copy_(y) if self.inplace and self.training else y


class MSDropout(Cell):
    """MindSpore's nn.Dropout(keep_prob=0.5, p=None): p (if given) is the drop probability,
    otherwise 1 - keep_prob. Identity outside training (set_train(False))."""

    def __init__(self, keep_prob: float = 0.5, p: Optional[float] = None, dtype=None):
        super().__init__()
        if p is None:
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            p = 1.0 - keep_prob
        if not 0.0 <= p < 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return F.dropout(x, self.p, True)

    def extra_repr(self) -> str:
        return f"p={self.p}"
