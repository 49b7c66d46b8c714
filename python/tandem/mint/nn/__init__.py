"""``tandem.mint.nn``: PyTorch-style neural-network building blocks."""
from . import functional  # noqa: F401
