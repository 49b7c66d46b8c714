"""MindSpore's ``context`` module: ``context.set_context(mode=context.GRAPH_MODE)``."""
from .jit import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "get_context", "set_context"]
