"""Evaluation metrics with MindSpore's interface (clear / update / eval): Accuracy, Loss,
MAE, MSE, TopKCategoricalAccuracy, Precision, Recall."""
from __future__ import annotations

from typing import Any, Dict, List, Union

import numpy as np

from .. import _C

Tensor = _C.Tensor


def _np(x: Any) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.asnumpy()
    return np.asarray(x)


class Metric:
    """The base of metrics: ``clear()`` resets, ``update(*inputs)`` adds a batch,
    ``eval()`` returns the value over the batches since the last clear."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Resets the accumulated state."""
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        """Adds one batch.

        Args:
            *inputs: the metric's inputs (predictions and labels, or the loss).
        """
        raise NotImplementedError

    def eval(self) -> Any:
        """The metric's value.

        Returns:
            The value over every batch since the last clear.
        """
        raise NotImplementedError

    def _need(self, n: int, what: str) -> None:
        if n == 0:
            raise RuntimeError(f"{type(self).__name__}.eval: no {what} yet; call update() first")


def _labels(y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Class indices from labels given as indices or one-hot rows."""
    if y.ndim == y_pred.ndim and y.shape == y_pred.shape and y_pred.ndim > 1:
        return y.argmax(axis=-1)
    return y.reshape(-1) if y_pred.ndim > 1 else y


class Accuracy(Metric):
    """The fraction of correct predictions.

    Args:
        eval_type (str): ``'classification'`` (logits or probabilities (N, C) against class
            indices or one-hot labels) or ``'multilabel'`` (0/1 predictions, all labels of
            a sample right). Default: ``'classification'`` .
    """

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', "
                             f"got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self) -> None:
        """Resets the counts."""
        self._correct = 0.0
        self._total = 0

    def update(self, *inputs: Any) -> None:
        """Adds one batch of (y_pred, y).

        Args:
            *inputs: y_pred (N, C) scores and y (N,) class indices or (N, C) one-hot.
        """
        if len(inputs) != 2:
            raise ValueError(f"Accuracy.update: needs (y_pred, y), got {len(inputs)} inputs")
        y_pred, y = _np(inputs[0]), _np(inputs[1])
        if self.eval_type == "multilabel":
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy.update: multilabel y_pred {y_pred.shape} and y "
                                 f"{y.shape} must have the same shape")
            right = np.all(np.round(y_pred) == y, axis=tuple(range(1, y.ndim)))
        else:
            if y_pred.ndim < 2:
                raise ValueError(f"Accuracy.update: y_pred must be (N, C) scores, got shape "
                                 f"{y_pred.shape}")
            labels = _labels(y_pred, y)
            if labels.shape[0] != y_pred.shape[0]:
                raise ValueError(f"Accuracy.update: {y_pred.shape[0]} predictions but "
                                 f"{labels.shape[0]} labels")
            right = y_pred.argmax(axis=-1) == labels
        self._correct += float(np.sum(right))
        self._total += int(right.shape[0])

    def eval(self) -> float:
        """The accuracy.

        Returns:
            float, correct / total.
        """
        self._need(self._total, "samples")
        return self._correct / self._total


class Loss(Metric):
    """The mean of the losses given to update."""

    def clear(self) -> None:
        """Resets the sum."""
        self._sum = 0.0
        self._count = 0

    def update(self, *inputs: Any) -> None:
        """Adds one loss value.

        Args:
            *inputs: the loss (a scalar, or a 1-D tensor of one value per sample).
        """
        if len(inputs) != 1:
            raise ValueError(f"Loss.update: needs one input (the loss), got {len(inputs)}")
        loss = _np(inputs[0])
        if loss.ndim > 1:
            raise ValueError(f"Loss.update: the loss must be a scalar or 1-D, got shape "
                             f"{loss.shape}")
        self._sum += float(loss.mean()) if loss.ndim == 1 else float(loss)
        self._count += 1

    def eval(self) -> float:
        """The average loss.

        Returns:
            float, the mean over the updates.
        """
        self._need(self._count, "losses")
        return self._sum / self._count


class _Elementwise(Metric):
    _fn = staticmethod(np.abs)

    def clear(self) -> None:
        """Resets the sums."""
        self._sum = 0.0
        self._count = 0

    def update(self, *inputs: Any) -> None:
        """Adds one batch of (y_pred, y).

        Args:
            *inputs: predictions and targets of the same shape.
        """
        if len(inputs) != 2:
            raise ValueError(f"{type(self).__name__}.update: needs (y_pred, y)")
        y_pred, y = _np(inputs[0]), _np(inputs[1])
        if y_pred.shape != y.shape:
            y = y.reshape(y_pred.shape)
        err = self._fn(y_pred.astype(np.float64) - y.astype(np.float64))
        self._sum += float(err.reshape(err.shape[0], -1).mean(axis=1).sum()) if err.ndim else \
            float(err)
        self._count += int(err.shape[0]) if err.ndim else 1

    def eval(self) -> float:
        """The mean error per sample.

        Returns:
            float, the metric.
        """
        self._need(self._count, "samples")
        return self._sum / self._count


class MAE(_Elementwise):
    """The mean absolute error."""

    _fn = staticmethod(np.abs)


class MSE(_Elementwise):
    """The mean squared error."""

    _fn = staticmethod(np.square)


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among the k highest scores.

    Args:
        k (int): how many top scores count.
    """

    def __init__(self, k: int) -> None:
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be a positive int, got {k!r}")
        self.k = k
        super().__init__()

    def clear(self) -> None:
        """Resets the counts."""
        self._correct = 0
        self._total = 0

    def update(self, *inputs: Any) -> None:
        """Adds one batch of (y_pred, y).

        Args:
            *inputs: y_pred (N, C) scores and y (N,) class indices or (N, C) one-hot.
        """
        y_pred, y = _np(inputs[0]), _np(inputs[1])
        labels = _labels(y_pred, y)
        top = np.argsort(-y_pred, axis=-1, kind="stable")[:, :self.k]
        self._correct += int(np.sum(np.any(top == labels[:, None], axis=1)))
        self._total += int(y_pred.shape[0])

    def eval(self) -> float:
        """The top-k accuracy.

        Returns:
            float, correct / total.
        """
        self._need(self._total, "samples")
        return self._correct / self._total


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 accuracy."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 accuracy."""

    def __init__(self) -> None:
        super().__init__(5)


_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE,
            "top_1_accuracy": Top1CategoricalAccuracy,
            "top_5_accuracy": Top5CategoricalAccuracy}


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    """The metric named `name` ('accuracy', 'loss', 'mae', 'mse', 'top_1_accuracy', ...).

    Args:
        name (str): the metric's name.
        *args: its constructor's arguments.
        **kwargs: its constructor's keyword arguments.

    Returns:
        Metric, a new metric object.
    """
    cls = _BY_NAME.get(name)
    if cls is None:
        raise KeyError(f"get_metric_fn: unknown metric {name!r}; known: {sorted(_BY_NAME)}")
    return cls(*args, **kwargs)


def metrics_dict(metrics: Union[None, set, list, tuple, dict]) -> Dict[str, Metric]:
    """Model's metrics argument as name -> Metric."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        out: Dict[str, Metric] = {}
        for k, m in metrics.items():
            out[k] = get_metric_fn(m) if isinstance(m, str) else m
            if not isinstance(out[k], Metric):
                raise TypeError(f"Model: metric {k!r} must be a Metric, got {type(m).__name__}")
        return out
    if isinstance(metrics, (set, list, tuple)):
        names: List[str] = sorted(metrics) if isinstance(metrics, set) else list(metrics)
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"Model: metrics given as a set or list must be names, got {n!r}")
        return {n: get_metric_fn(n) for n in names}
    raise TypeError(f"Model: metrics must be a set of names or a dict name -> Metric, got "
                    f"{type(metrics).__name__}")
