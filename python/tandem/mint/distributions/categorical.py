"""torch.distributions.categorical: Categorical."""
from ._dists import Categorical

__all__ = ["Categorical"]
