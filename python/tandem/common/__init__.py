"""MindSpore's ``mindspore.common`` names: ``tandem.common.initializer``."""
from . import initializer  # noqa: F401

__all__ = ["initializer"]
