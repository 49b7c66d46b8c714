"""``mint.distributions``: torch.distributions' Normal, Uniform, Bernoulli, Categorical and
Multinomial (``sample``, ``rsample`` where reparameterizable, ``log_prob``, ``entropy``),
drawing from tandem's global generator."""
from . import bernoulli, categorical, multinomial, normal, uniform  # noqa: F401
from ._dists import Bernoulli, Categorical, Distribution, Multinomial, Normal, Uniform

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "Multinomial",
           "normal", "uniform", "bernoulli", "categorical", "multinomial"]
