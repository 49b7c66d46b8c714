"""MindSpore-style functional ops (``tandem.ops.exp(x)``): a name map over the op table's
functions (``tandem._generated.ms_api``), with MindSpore's signatures where they differ."""
from .._generated.ms_api import *  # noqa: F401,F403
