"""torch.distributions.uniform: Uniform."""
from ._dists import Uniform

__all__ = ["Uniform"]
