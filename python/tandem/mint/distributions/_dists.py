"""The probability distributions the PyTorch face offers (torch.distributions' names):
sampling draws from tandem's global generator (tandem.manual_seed fixes it), log_prob and
rsample are differentiable tensor expressions."""
from __future__ import annotations

import math

import numpy as np
from typing import Any, Optional, Sequence, Tuple, Union

from ... import _C
from ..._generated import torch_api as _t
from ..nn import functional as _F

Tensor = _C.Tensor
_Shape = Union[Sequence[int], Tuple[int, ...]]


def _as_float(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x if x.dtype.is_floating_point else x.float()
    return _t.tensor(float(x)) if not isinstance(x, (list, tuple)) else _t.tensor(x).float()


def _shape(sample_shape: Any) -> Tuple[int, ...]:
    if isinstance(sample_shape, int):
        return (sample_shape,)
    return tuple(int(s) for s in sample_shape)


class Distribution:
    """Base class: ``batch_shape``, ``event_shape``, ``sample(sample_shape)``."""

    def __init__(self, batch_shape: _Shape = (), event_shape: _Shape = ()) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        """The shape of the independent parameter sets."""
        return self._batch_shape

    @property
    def event_shape(self) -> Tuple[int, ...]:
        """The shape of one draw."""
        return self._event_shape

    def _extended(self, sample_shape: Any) -> Tuple[int, ...]:
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draws without gradient.

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: sample_shape + batch_shape + event_shape values.
        """
        with _no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterized draws (differentiable in the parameters).

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: the draws.
        """
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sampler")

    def log_prob(self, value: Tensor) -> Tensor:
        """Log density / mass of ``value``.

        Args:
            value (Tensor): points.

        Returns:
            Tensor: the log probabilities.
        """
        raise NotImplementedError(f"{type(self).__name__}.log_prob is not implemented")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _no_grad():
    from ...autograd import no_grad
    return no_grad()


class Normal(Distribution):
    """The normal distribution N(loc, scale^2).

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the standard deviation (> 0).
    """

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = _as_float(loc), _as_float(scale)
        self.loc, self.scale = _t.broadcast_tensors(self.loc, self.scale)
        if validate_args is not False and bool((self.scale <= 0).any()):
            raise ValueError("Normal: expected scale > 0 (the standard deviation)")
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        """loc."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """scale."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """scale squared."""
        return self.scale ** 2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """loc + scale * eps with eps ~ N(0, 1).

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: the draws.
        """
        eps = _C.randn(self._extended(sample_shape), self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        """-(x - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi)).

        Args:
            value (Tensor): points.

        Returns:
            Tensor: the log densities.
        """
        value = _as_float(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - _t.log(self.scale) \
            - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        """0.5 + 0.5 log(2 pi) + log(scale).

        Returns:
            Tensor: the entropy.
        """
        return 0.5 + 0.5 * math.log(2 * math.pi) + _t.log(self.scale)


class Uniform(Distribution):
    """The uniform distribution on [low, high).

    Args:
        low (float or Tensor): lower bound.
        high (float or Tensor): upper bound (> low).
    """

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = _t.broadcast_tensors(_as_float(low), _as_float(high))
        if validate_args is not False and bool((self.high <= self.low).any()):
            raise ValueError("Uniform: expected low < high")
        super().__init__(tuple(self.low.shape))

    @property
    def mean(self) -> Tensor:
        """(low + high) / 2."""
        return (self.low + self.high) / 2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """low + (high - low) * u with u ~ U[0, 1).

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: the draws.
        """
        u = _C.rand(self._extended(sample_shape), self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        """-log(high - low) inside the support, -inf outside.

        Args:
            value (Tensor): points.

        Returns:
            Tensor: the log densities.
        """
        value = _as_float(value)
        inside = (value >= self.low) & (value < self.high)
        lp = -_t.log(self.high - self.low)
        return _t.where(inside, lp, _t.full_like(lp, -math.inf))

    def entropy(self) -> Tensor:
        """log(high - low).

        Returns:
            Tensor: the entropy.
        """
        return _t.log(self.high - self.low)


def _probs_logits(name: str, probs: Any, logits: Any, normalize: bool) -> Tuple[Tensor, Tensor]:
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}: give exactly one of probs or logits")
    if probs is not None:
        p = _as_float(probs)
        if bool((p < 0).any()):
            raise ValueError(f"{name}: probs must be non-negative")
        if normalize:
            p = p / p.sum(-1, keepdim=True)
        return p, _t.log(p)
    lg = _as_float(logits)
    if normalize:
        lg = lg - _t.logsumexp(lg, -1, keepdim=True)
        return _t.exp(lg), lg
    return _t.sigmoid(lg), lg


class Bernoulli(Distribution):
    """0/1 draws with probability ``probs`` of 1 (or sigmoid(logits)).

    Args:
        probs (float or Tensor, optional): P(1).
        logits (float or Tensor, optional): log-odds of 1.
    """

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self.probs, self.logits = _probs_logits("Bernoulli", probs, logits, False)
        if probs is not None:
            self.logits = _t.log(self.probs) - _t.log1p(-self.probs)
        if bool((self.probs > 1).any()):
            raise ValueError("Bernoulli: probs must be in [0, 1]")
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        """probs."""
        return self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """0./1. draws.

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: the draws (the probabilities' float dtype).
        """
        with _no_grad():
            u = _C.rand(self._extended(sample_shape), self.probs.dtype)
            return (u < self.probs).type(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        """v log p + (1 - v) log(1 - p), computed from the logits.

        Args:
            value (Tensor): 0/1 values.

        Returns:
            Tensor: the log probabilities.
        """
        value = _as_float(value)
        return -_F.binary_cross_entropy_with_logits(
            self.logits.expand(value.shape) if self.logits.shape != value.shape else self.logits,
            value, reduction="none")

    def entropy(self) -> Tensor:
        """-(p log p + (1 - p) log(1 - p)).

        Returns:
            Tensor: the entropy.
        """
        return _F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                 reduction="none")


class Categorical(Distribution):
    """Draws of category indices 0..K-1 with probabilities ``probs`` (normalized over the last
    dim) or softmax(logits).

    Args:
        probs (Tensor, optional): (..., K) non-negative weights.
        logits (Tensor, optional): (..., K) unnormalized log-probabilities.
    """

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self.probs, self.logits = _probs_logits("Categorical", probs, logits, True)
        if self.probs.ndim < 1:
            raise ValueError("Categorical: probs must have at least one dim (the categories)")
        self._num_events = self.probs.shape[-1]
        super().__init__(tuple(self.probs.shape[:-1]))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Category indices.

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: int64 indices of shape sample_shape + batch_shape.
        """
        n = 1
        for s in _shape(sample_shape):
            n *= s
        flat = self.probs.reshape(-1, self._num_events)
        with _no_grad():
            draws = _t.multinomial(flat, n, True)  # (batch, n)
        out = draws.T.reshape(_shape(sample_shape) + self._batch_shape)
        return out

    def log_prob(self, value: Any) -> Tensor:
        """log probs[value].

        Args:
            value (Tensor): int category indices.

        Returns:
            Tensor: the log probabilities.
        """
        value = value if isinstance(value, Tensor) else _t.tensor(value)
        value = value.long()
        lg = self.logits
        if value.ndim > 0 or lg.ndim > 1:
            shape = _t.broadcast_shapes(tuple(value.shape), tuple(lg.shape[:-1]))
            lg = lg.expand(tuple(shape) + (self._num_events,))
            value = value.expand(tuple(shape))
        return _t.gather(lg, -1, value.unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> Tensor:
        """-sum p log p over the categories.

        Returns:
            Tensor: the entropy.
        """
        return -(self.probs * self.logits).sum(-1)


class Multinomial(Distribution):
    """Counts of ``total_count`` categorical draws per row.

    Args:
        total_count (int): draws per sample. Default: ``1``.
        probs (Tensor, optional): (..., K) category weights.
        logits (Tensor, optional): (..., K) unnormalized log-probabilities.
    """

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self.total_count = int(total_count)
        self._categorical = Categorical(probs=probs, logits=logits)
        self.probs, self.logits = self._categorical.probs, self._categorical.logits
        k = self.probs.shape[-1]
        super().__init__(tuple(self.probs.shape[:-1]), (k,))

    @property
    def mean(self) -> Tensor:
        """total_count * probs."""
        return self.probs * self.total_count

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Category counts.

        Args:
            sample_shape (tuple): leading shape of independent draws. Default: ``()``.

        Returns:
            Tensor: float counts of shape sample_shape + batch_shape + (K,), each summing to
            total_count.
        """
        shape = _shape(sample_shape)
        k = self._event_shape[0]
        idx = self._categorical.sample((self.total_count,) + shape)  # (n, *shape, *batch)
        onehot = _F.one_hot(idx, k).type(self.probs.dtype)
        return onehot.sum(0)

    def log_prob(self, value: Any) -> Tensor:
        """log n! - sum log x_i! + sum x_i log p_i.

        Args:
            value (Tensor): (..., K) counts.

        Returns:
            Tensor: the log probabilities.
        """
        value = _as_float(value)
        logits = self.logits.clone()
        logits = _t.where((value == 0) & _t.isinf(logits), _t.zeros_like(logits), logits)
        counts = value.detach().numpy().astype(np.float64)
        lg = np.vectorize(math.lgamma, otypes=[np.float64])
        coef = lg(counts.sum(-1) + 1) - lg(counts + 1).sum(-1)
        return _t.tensor(coef, dtype=logits.dtype) + (value * logits).sum(-1)
