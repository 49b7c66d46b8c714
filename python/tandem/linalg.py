"""``tandem.linalg`` / ``tandem.mint.linalg``: linear-algebra functions under PyTorch's
names (generated from the op table)."""
from ._generated.linalg_api import *  # noqa: F401,F403
