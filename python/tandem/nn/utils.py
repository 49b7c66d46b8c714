"""Gradient clipping under PyTorch's names (torch.nn.utils): a name map over tandem._layers.utils."""
from .._layers.utils import *  # noqa: F401,F403
from .._layers.utils import __all__  # noqa: F401
