"""torch.distributions.bernoulli: Bernoulli."""
from ._dists import Bernoulli

__all__ = ["Bernoulli"]
