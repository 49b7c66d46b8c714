"""``mint.backends``: PyTorch's backend queries, for the CPU backend tandem has."""
from __future__ import annotations

from . import cpu

__all__ = ["cpu"]
