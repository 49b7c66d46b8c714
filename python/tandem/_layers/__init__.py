"""The layer library behind ``tandem.nn`` (MindSpore names) and ``tandem.mint.nn`` (PyTorch
names). Classes whose constructors differ between the two are defined twice; the MindSpore
ones carry an ``MS`` prefix here and their MindSpore name outside."""
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403

def _ms_names() -> None:
    """Shows MS-prefixed classes under their MindSpore name in repr and errors."""
    for k, v in list(globals().items()):
        if k.startswith("MS") and isinstance(v, type) and v.__name__.startswith("MS"):
            v.__name__ = v.__qualname__ = k[2:]


_ms_names()
