"""MindSpore's ``mindspore.common`` names: ``tandem.common.initializer``."""
from . import initializer  # noqa: F401
