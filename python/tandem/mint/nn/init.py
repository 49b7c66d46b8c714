"""``torch.nn.init`` names (``mint.nn.init``): a name map over tandem._init.fills."""
from ..._init.fills import *  # noqa: F401,F403
from ..._init.fills import __all__, _calculate_fan_in_and_fan_out, _calculate_correct_fan  # noqa: F401
