"""MindSpore-style functional ops (``tandem.ops.exp(x)``), the same implementations as
``tandem.mint``."""
from .._registry import PUBLIC as _PUBLIC

globals().update(_PUBLIC)


def stop_gradient(x):
    """Returns x detached from gradient recording (before autodiff lands: an alias)."""
    return x.detach()
