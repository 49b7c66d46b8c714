"""Loss modules over the functional losses (PyTorch: CrossEntropyLoss, NLLLoss, MSELoss,
L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss) and MindSpore's
SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none') and SmoothL1Loss
(reduction='none')."""
from __future__ import annotations

from .. import _C
from .._impl.nn import reduction as _reduction
from ._common import Cell, F

_REDUCTIONS = ("none", "mean", "sum", "batchmean")


class _Loss(Cell):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        reduction = _reduction(size_average, reduce, reduction)
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return ""


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits (N, C, ...) with class indices or class probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = int(ignore_index), float(label_smoothing)

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = int(ignore_index)

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    """(input - target)^2, reduced."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """|input - target|, reduced."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """0.5 d^2 / beta for |d| < beta, |d| - 0.5 beta otherwise."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = float(beta)

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d^2 for |d| < delta, delta (|d| - 0.5 delta) otherwise."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = float(delta)

    def forward(self, input, target):
        return F.huber_loss(input, target, self.reduction, self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross entropy of logits (stable); pos_weight weighs the positive class."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    """KL divergence; input holds log-probabilities (target too when log_target)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = bool(log_target)

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


# --- MindSpore names ------------------------------------------------------------------------------

class SoftmaxCrossEntropyWithLogits(_Loss):
    """MindSpore: cross entropy of logits (N, C) with one-hot / probability labels (N, C), or
    with class indices (N,) when sparse=True. reduction defaults to 'none' (per sample)."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction=reduction)
        self.sparse = bool(sparse)

    def construct(self, logits, labels):
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


class MSSmoothL1Loss(SmoothL1Loss):
    """MindSpore's nn.SmoothL1Loss(beta=1.0, reduction='none')."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction=reduction, beta=beta)


class MSCrossEntropyLoss(CrossEntropyLoss):
    """MindSpore's nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(weight, None, ignore_index, None, reduction, label_smoothing)


class MSNLLLoss(NLLLoss):
    """MindSpore's nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(weight, None, ignore_index, None, reduction)


class MSBCEWithLogitsLoss(BCEWithLogitsLoss):
    """MindSpore's nn.BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)."""

    def __init__(self, reduction: str = "mean", weight=None, pos_weight=None):
        super().__init__(weight, None, None, reduction, pos_weight)


class MSBCELoss(BCELoss):
    """MindSpore's nn.BCELoss(weight=None, reduction='mean')."""

    def __init__(self, weight=None, reduction: str = "mean"):
        super().__init__(weight, None, None, reduction)


class MSMSELoss(MSELoss):
    """MindSpore's nn.MSELoss(reduction='mean')."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(reduction=reduction)


class MSL1Loss(L1Loss):
    """MindSpore's nn.L1Loss(reduction='mean')."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(reduction=reduction)


class MSKLDivLoss(KLDivLoss):
    """MindSpore's nn.KLDivLoss(reduction='mean')."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(reduction=reduction)
