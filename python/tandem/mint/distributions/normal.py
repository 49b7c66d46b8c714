"""torch.distributions.normal: Normal."""
from ._dists import Normal

__all__ = ["Normal"]
