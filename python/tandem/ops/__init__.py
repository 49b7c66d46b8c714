"""MindSpore-style functional ops (``tandem.ops.exp(x)``), the same implementations as
``tandem.mint``."""
from .._registry import PUBLIC as _PUBLIC

globals().update(_PUBLIC)


def stop_gradient(x):
    """x without gradient history: gradients do not flow through it."""
    return x.detach()
