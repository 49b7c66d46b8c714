"""``tandem.mint.nn.functional``: the functional NN ops under PyTorch's names."""
from ..._ops_nn import FUNCTIONAL as _F

globals().update(_F)
