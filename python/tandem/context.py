"""MindSpore's ``context`` module: ``context.set_context(mode=context.GRAPH_MODE)``."""
from .jit import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
from ._auto_parallel import (ParallelMode, get_auto_parallel_context,  # noqa: F401
                             reset_auto_parallel_context, set_auto_parallel_context)

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "get_context", "set_context", "ParallelMode",
           "get_auto_parallel_context", "reset_auto_parallel_context",
           "set_auto_parallel_context"]
