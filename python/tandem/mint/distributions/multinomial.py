"""torch.distributions.multinomial: Multinomial."""
from ._dists import Multinomial

__all__ = ["Multinomial"]
