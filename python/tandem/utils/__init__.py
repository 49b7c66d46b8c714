"""tandem.utils: torch.utils's names (data)."""
from . import data

__all__ = ["data"]
