"""Loss modules over the functional losses (PyTorch: CrossEntropyLoss, NLLLoss, MSELoss,
L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss) and MindSpore's
SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none') and SmoothL1Loss
(reduction='none')."""
from __future__ import annotations

from typing import Optional

from .. import _C
from .._impl.nn import reduction as _reduction
from ._common import Cell, F

Tensor = _C.Tensor

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SoftmaxCrossEntropyWithLogits",
           "MSSmoothL1Loss", "MSCrossEntropyLoss", "MSNLLLoss", "MSBCEWithLogitsLoss", "MSBCELoss",
           "MSMSELoss", "MSL1Loss", "MSKLDivLoss"]

_REDUCTIONS = ("none", "mean", "sum", "batchmean")

_LEGACY = """
        size_average (bool, optional): deprecated; folded into `reduction` as PyTorch does
            (``False`` means 'sum'). Default: ``None``.
        reduce (bool, optional): deprecated; ``False`` means 'none'. Default: ``None``."""
_REDUCTION = """
        reduction (str): 'none' (one loss per element), 'mean' or 'sum'. Default: ``'mean'``."""


class _Loss(Cell):
    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        reduction = _reduction(size_average, reduce, reduction)
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return ""


class _WeightedLoss(_Loss):
    weight: Optional[Tensor]

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    __doc__ = """Cross entropy of logits (N, C, ...) with class indices (N, ...) or class
    probabilities (N, C, ...): log_softmax over dim 1, then the negative log-likelihood.

    Args:
        weight (Tensor, optional): a rescaling weight per class, (C,). Default: ``None``.
        size_average (bool, optional): deprecated; folded into `reduction`.
            Default: ``None``.
        ignore_index (int): a target index that contributes no loss (nor to the mean).
            Default: ``-100``.
        reduce (bool, optional): deprecated; ``False`` means 'none'.
            Default: ``None``.""" + _REDUCTION + """
        label_smoothing (float): in [0, 1]: the target mixes the labels with the uniform
            distribution by this amount. Default: ``0.0``.
    """

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 ignore_index: int = -100, reduce: Optional[bool] = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = int(ignore_index), float(label_smoothing)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): logits, (N, C, *) or unbatched (C,).
            target (Tensor): int64 class indices (N, *), or probabilities shaped like `input`.

        Returns:
            Tensor: a 0-d tensor, or the per-sample losses (N, *) with reduction 'none'.
        """
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    __doc__ = """The negative log-likelihood of log-probabilities (N, C, ...) at class indices.

    Args:
        weight (Tensor, optional): a rescaling weight per class, (C,). Default: ``None``.
        size_average (bool, optional): deprecated; folded into `reduction`.
            Default: ``None``.
        ignore_index (int): a target index that contributes no loss (nor to the mean).
            Default: ``-100``.
        reduce (bool, optional): deprecated; ``False`` means 'none'.
            Default: ``None``.""" + _REDUCTION + """
    """

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 ignore_index: int = -100, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = int(ignore_index)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): log-probabilities, (N, C, *) or unbatched (C,).
            target (Tensor): int64 class indices, (N, *).

        Returns:
            Tensor: a 0-d tensor, or the per-sample losses (N, *) with reduction 'none'.
        """
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    __doc__ = """The squared error (input - target)^2, reduced.

    Args:""" + _LEGACY + _REDUCTION + "\n    "

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    __doc__ = """The absolute error |input - target|, reduced.

    Args:""" + _LEGACY + _REDUCTION + "\n    "

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    __doc__ = """The smooth L1 loss of d = input - target: 0.5 d^2 / beta for |d| < beta,
    |d| - 0.5 beta otherwise, reduced.

    Args:""" + _LEGACY + _REDUCTION + """
        beta (float): where the loss changes from quadratic to linear. Default: ``1.0``.
    """

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = float(beta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    __doc__ = """The Huber loss of d = input - target: 0.5 d^2 for |d| < delta,
    delta (|d| - 0.5 delta) otherwise, reduced.

    Args:""" + _REDUCTION + """
        delta (float): where the loss changes from quadratic to linear. Default: ``1.0``.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = float(delta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of `input` against `target`.

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.huber_loss(input, target, self.reduction, self.delta)


class BCELoss(_WeightedLoss):
    __doc__ = """Binary cross entropy of probabilities: -(t log(p) + (1 - t) log(1 - p)),
    reduced.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast against the input.
            Default: ``None``.""" + _LEGACY + _REDUCTION + "\n    "

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of the probabilities `input` against `target` (in [0, 1]).

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    __doc__ = """Binary cross entropy of logits, computed stably (sigmoid and BCE in one).

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast against the input.
            Default: ``None``.""" + _LEGACY + _REDUCTION + """
        pos_weight (Tensor, optional): the weight of the positive class, per class (the last
            dim). Default: ``None``.
    """

    pos_weight: Optional[Tensor]

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean",
                 pos_weight: Optional[Tensor] = None) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of the logits `input` against `target` (in [0, 1]).

        Args:
            input (Tensor): the prediction, of any shape.
            target (Tensor): the target, of the shape of `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise losses with reduction 'none'.
        """
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    __doc__ = """The Kullback-Leibler divergence target * (log(target) - input), with `input`
    holding log-probabilities.

    Args:""" + _LEGACY + """
        reduction (str): 'none', 'mean' (over all elements), 'sum' or 'batchmean' (the sum
            divided by the batch size: the true KL divergence). Default: ``'mean'``.
        log_target (bool): `target` holds log-probabilities too. Default: ``False``.
    """

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = bool(log_target)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The divergence of `input` from `target`.

        Args:
            input (Tensor): log-probabilities, of any shape.
            target (Tensor): probabilities (or log-probabilities with log_target), shaped
                like `input`.

        Returns:
            Tensor: a 0-d tensor, or the elementwise terms with reduction 'none'.
        """
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


# --- MindSpore names ------------------------------------------------------------------------------

class SoftmaxCrossEntropyWithLogits(_Loss):
    """MindSpore's nn.SoftmaxCrossEntropyWithLogits: the cross entropy of logits (N, C) with
    one-hot or probability labels (N, C), or with class indices (N,) when `sparse`.

    Args:
        sparse (bool): the labels are class indices instead of one-hot rows.
            Default: ``False`` .
        reduction (str): ``'none'`` (one loss per sample), ``'mean'`` or ``'sum'``.
            Default: ``'none'`` .
    """

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction=reduction)
        self.sparse = bool(sparse)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        """The loss of `logits` against `labels`.

        Args:
            logits (Tensor): (N, C).
            labels (Tensor): (N, C) probabilities, or (N,) integer class indices when
                `sparse`.

        Returns:
            Tensor, (N,) with reduction ``'none'``, else 0-d.
        """
        if self.sparse:
            if labels.dtype.is_floating_point:
                raise TypeError("SoftmaxCrossEntropyWithLogits(sparse=True): labels must be "
                                f"integer class indices, got {labels.dtype}")
            labels = labels.to(_C.dtype.int64)
        elif tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: labels shape {tuple(labels.shape)} "
                             f"must match logits shape {tuple(logits.shape)} (or use sparse=True)")
        else:
            labels = labels.to(logits.dtype)
        return F.cross_entropy(logits, labels, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"sparse={self.sparse}, reduction={self.reduction!r}"


_MS_REDUCTION = """
        reduction (str): ``'none'`` (elementwise losses), ``'mean'`` or ``'sum'``.
            Default: ``'mean'`` ."""


class MSSmoothL1Loss(SmoothL1Loss):
    """MindSpore's nn.SmoothL1Loss: 0.5 d^2 / beta for |d| < beta, |d| - 0.5 beta otherwise.

    Args:
        beta (float): where the loss changes from quadratic to linear. Default: ``1.0`` .
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'none'`` .
    """

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction=reduction, beta=beta)


class MSCrossEntropyLoss(CrossEntropyLoss):
    __doc__ = """MindSpore's nn.CrossEntropyLoss: the cross entropy of logits (N, C, ...) with
    class indices or class probabilities.

    Args:
        weight (Tensor, optional): a rescaling weight per class, (C,). Default: ``None`` .
        ignore_index (int): a target index that contributes no loss. Default: ``-100`` .""" + \
        _MS_REDUCTION + """
        label_smoothing (float): in [0, 1]: the amount of label smoothing.
            Default: ``0.0`` .
    """

    def __init__(self, weight: Optional[Tensor] = None, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, None, ignore_index, None, reduction, label_smoothing)


class MSNLLLoss(NLLLoss):
    __doc__ = """MindSpore's nn.NLLLoss: the negative log-likelihood of log-probabilities at
    class indices.

    Args:
        weight (Tensor, optional): a rescaling weight per class, (C,). Default: ``None`` .
        ignore_index (int): a target index that contributes no loss. Default: ``-100`` .""" + \
        _MS_REDUCTION + "\n    "

    def __init__(self, weight: Optional[Tensor] = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:
        super().__init__(weight, None, ignore_index, None, reduction)


class MSBCEWithLogitsLoss(BCEWithLogitsLoss):
    __doc__ = """MindSpore's nn.BCEWithLogitsLoss: binary cross entropy of logits, computed
    stably.

    Args:""" + _MS_REDUCTION + """
        weight (Tensor, optional): a rescaling weight, broadcast against the input.
            Default: ``None`` .
        pos_weight (Tensor, optional): the weight of the positive class, per class.
            Default: ``None`` .
    """

    def __init__(self, reduction: str = "mean", weight: Optional[Tensor] = None,
                 pos_weight: Optional[Tensor] = None) -> None:
        super().__init__(weight, None, None, reduction, pos_weight)


class MSBCELoss(BCELoss):
    __doc__ = """MindSpore's nn.BCELoss: binary cross entropy of probabilities.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast against the input.
            Default: ``None`` .""" + _MS_REDUCTION + "\n    "

    def __init__(self, weight: Optional[Tensor] = None, reduction: str = "mean") -> None:
        super().__init__(weight, None, None, reduction)


class MSMSELoss(MSELoss):
    __doc__ = """MindSpore's nn.MSELoss: the squared error, reduced.

    Args:""" + _MS_REDUCTION + "\n    "

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)


class MSL1Loss(L1Loss):
    __doc__ = """MindSpore's nn.L1Loss: the absolute error, reduced.

    Args:""" + _MS_REDUCTION + "\n    "

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)


class MSKLDivLoss(KLDivLoss):
    __doc__ = """MindSpore's nn.KLDivLoss: the Kullback-Leibler divergence, `input` holding
    log-probabilities.

    Args:
        reduction (str): ``'none'``, ``'mean'``, ``'sum'`` or ``'batchmean'``.
            Default: ``'mean'`` .
    """

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
