"""``mindspore.common.initializer`` names: a name map over tandem._init.initializers."""
from .._init.initializers import *  # noqa: F401,F403
from .._init.initializers import __all__  # noqa: F401
