"""``tandem.mint.nn.functional``: the functional NN ops under PyTorch's names, from the op
table (``tandem._generated.functional_api``)."""
from ..._generated.functional_api import *  # noqa: F401,F403
