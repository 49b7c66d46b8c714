"""MindSpore's training wrappers (mindspore.nn.WithLossCell, WithEvalCell, TrainOneStepCell):
Cells that put a network, its loss and its optimizer together, so ``train.Model`` and user
code drive one call per step. In GRAPH_MODE a Cell compiles its construct, so a
TrainOneStepCell's forward, backward and update run as one graph."""
from __future__ import annotations

from typing import Any, Callable, Tuple

from .. import _C
from .._functional_grad import value_and_grad
from .._layers.cell import Cell

Tensor = _C.Tensor


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``.

    Args:
        backbone (Cell): the network.
        loss_fn (Cell): the loss, called with (network output, label).
    """

    def __init__(self, backbone: Cell, loss_fn: Callable[..., Tensor]) -> None:
        super().__init__()
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Any, label: Any) -> Tensor:
        """The loss of one batch.

        Args:
            data (Tensor): the network's input.
            label (Tensor): the target.

        Returns:
            Tensor, the loss.
        """
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        """The wrapped network."""
        return self._backbone


class WithEvalCell(Cell):
    """``(loss, outputs, label)`` of one batch, for evaluation.

    Args:
        network (Cell): the network.
        loss_fn (Cell): the loss, called with (outputs, label).
        add_cast_fp32 (bool): cast outputs to float32 first (mixed precision).
            Default: ``False`` .
    """

    def __init__(self, network: Cell, loss_fn: Callable[..., Tensor],
                 add_cast_fp32: bool = False) -> None:
        super().__init__()
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data: Any, label: Any) -> Tuple[Tensor, Tensor, Tensor]:
        """Loss, outputs and label of one batch.

        Args:
            data (Tensor): the network's input.
            label (Tensor): the target.

        Returns:
            tuple(Tensor), (loss, outputs, label).
        """
        outputs = self._network(data)
        if self.add_cast_fp32:
            outputs = _C.to_dtype(outputs, _C.dtype.float32)
        return self._loss_fn(outputs, label), outputs, label


class TrainOneStepCell(Cell):
    """One training step: the loss of `network` (a Cell returning the loss, such as a
    WithLossCell), its gradients with respect to the optimizer's parameters, the update.

    Args:
        network (Cell): returns the loss from the step's inputs.
        optimizer (Optimizer): a ``tandem.nn`` optimizer (called with the gradients).
        sens (float): the gradient of the loss (scales every gradient). Default: ``1.0`` .
        return_grad (bool): also return the gradients. Default: ``False`` .

    Under ``set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)`` the step
    reduces the gradients over the ranks with a ``DistributedGradReducer`` (``grad_reducer``;
    mean from ``gradients_mean``, degree from ``device_num``) before the update, as
    MindSpore does, and with ``parameter_broadcast=True`` every rank starts from rank 0's
    weights. In GRAPH_MODE the reductions compile into the step's graph.
    """

    def __init__(self, network: Cell, optimizer: Any, sens: float = 1.0,
                 return_grad: bool = False) -> None:
        super().__init__()
        if not callable(optimizer) or not hasattr(optimizer, "parameters"):
            raise TypeError(f"TrainOneStepCell: optimizer must be a tandem.nn optimizer "
                            f"(called with the gradients), got {type(optimizer).__name__}")
        self.network = network
        self.optimizer = optimizer
        self.weights = tuple(optimizer.parameters)
        self.sens = float(sens)
        self.return_grad = return_grad
        self._grad_fn = value_and_grad(self._scaled_loss, None, self.weights)
        self.grad_reducer = _grad_reducer(self.weights)

    def _needs_tape(self, args: Tuple[Any, ...]) -> bool:
        # The step differentiates inside construct; its result (the loss) is not
        # differentiated by the caller, so GRAPH_MODE compiles the whole step.
        return False

    def _scaled_loss(self, *inputs: Any) -> Tensor:
        loss = self.network(*inputs)
        return loss * self.sens if self.sens != 1.0 else loss

    def construct(self, *inputs: Any) -> Any:
        """Runs the step.

        Args:
            *inputs (Tensor): the network's inputs (data, label, ...).

        Returns:
            Tensor, the loss (and the gradients with return_grad).
        """
        loss, grads = self._grad_fn(*inputs)
        if self.sens != 1.0:
            loss = loss / self.sens
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        return (loss, grads) if self.return_grad else loss


def _grad_reducer(weights: Tuple[Any, ...]) -> Any:
    """The DistributedGradReducer of a data-parallel step (None outside DATA_PARALLEL);
    with parameter_broadcast, rank 0's weights are copied to every rank first."""
    from .. import _auto_parallel, _distributed
    if not _auto_parallel.data_parallel():
        return None
    from .grad_reducer import DistributedGradReducer
    ctx = _auto_parallel.get_auto_parallel_context
    reducer = DistributedGradReducer(weights, mean=ctx("gradients_mean"),
                                     degree=ctx("device_num"))
    if ctx("parameter_broadcast"):
        _distributed.broadcast_tensors(weights, 0)
    return reducer


def _all_finite(grads: Any) -> Tensor:
    from .. import _amp
    return _amp.all_finite([g for g in grads if g is not None])


class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale (MindSpore's nn.FixedLossScaleUpdateCell).

    Args:
        loss_scale_value (float): the scale.
    """

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        if not loss_scale_value > 0:
            raise ValueError(f"FixedLossScaleUpdateCell: loss_scale_value must be > 0, got "
                             f"{loss_scale_value!r}")
        self.loss_scale_value = float(loss_scale_value)

    def get_loss_scale(self) -> float:
        """The scale.

        Returns:
            float, the loss scale.
        """
        return self.loss_scale_value

    def construct(self, loss_scale: Any, overflow: Any) -> bool:
        """Keeps the scale.

        Args:
            loss_scale (Tensor): the current scale (unchanged).
            overflow (Tensor): whether the gradients overflowed.

        Returns:
            bool, whether the step may update the parameters (no overflow).
        """
        return not bool(overflow)


class DynamicLossScaleUpdateCell(Cell):
    """A loss scale that shrinks by scale_factor on overflow and grows by it after
    scale_window steps without one (MindSpore's nn.DynamicLossScaleUpdateCell): the cell
    form of ``amp.DynamicLossScaler``, which holds the state (in tensors).

    Args:
        loss_scale_value (float): the initial scale.
        scale_factor (int): the factor to shrink and grow by.
        scale_window (int): overflow-free steps before growing.
    """

    def __init__(self, loss_scale_value: float, scale_factor: int, scale_window: int) -> None:
        super().__init__()
        if not loss_scale_value > 0 or scale_factor <= 1 or scale_window < 1:
            raise ValueError("DynamicLossScaleUpdateCell: needs loss_scale_value > 0, "
                             "scale_factor > 1 and scale_window >= 1, got "
                             f"{loss_scale_value!r}, {scale_factor!r}, {scale_window!r}")
        from ..amp import DynamicLossScaler
        object.__setattr__(self, "_scaler",
                           DynamicLossScaler(loss_scale_value, scale_factor, scale_window))
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)

    @property
    def loss_scale_value(self) -> float:
        """The current scale."""
        return self.get_loss_scale()

    def get_loss_scale(self) -> float:
        """The current scale.

        Returns:
            float, the loss scale.
        """
        return float(self._scaler.scale_value.item())

    def construct(self, loss_scale: Any, overflow: Any) -> bool:
        """Updates the scale after a step.

        Args:
            loss_scale (Tensor): the scale Parameter to update in place.
            overflow (Tensor): whether the gradients overflowed.

        Returns:
            bool, whether the step may update the parameters (no overflow).
        """
        overflow = overflow if isinstance(overflow, Tensor) else Tensor(bool(overflow))
        self._scaler.adjust(_C.logical_not(overflow))
        if isinstance(loss_scale, Tensor):
            from ..autograd import no_grad
            with no_grad():
                loss_scale.copy_(self._scaler.scale_value.to(loss_scale.dtype))
        return not bool(overflow)


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: the loss is multiplied by the scale before
    differentiation, the gradients divided by it, and the update skipped when a gradient is
    not finite (MindSpore's nn.TrainOneStepWithLossScaleCell). The overflow check reads the
    gradients' values, so under jit the step specializes on it (see DESIGN.md, data-dependent
    Python).

    Args:
        network (Cell): returns the loss from the step's inputs.
        optimizer (Optimizer): a ``tandem.nn`` optimizer.
        scale_sense (Union[Tensor, float, FixedLossScaleUpdateCell,
            DynamicLossScaleUpdateCell]): a fixed scale, or a cell updating it.
    """

    def __init__(self, network: Cell, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer)
        from .parameter import Parameter
        if isinstance(scale_sense, (FixedLossScaleUpdateCell, DynamicLossScaleUpdateCell)):
            self.loss_scaling_manager = scale_sense
            value = scale_sense.get_loss_scale()
        elif isinstance(scale_sense, (Tensor, int, float)):
            self.loss_scaling_manager = None
            value = float(scale_sense.item() if isinstance(scale_sense, Tensor) else scale_sense)
        else:
            raise TypeError("TrainOneStepWithLossScaleCell: scale_sense must be a Tensor, a "
                            "number or a loss-scale update cell, got "
                            f"{type(scale_sense).__name__}")
        self.scale_sense = Parameter(Tensor(value, _C.dtype.float32), name="scale_sense",
                                     requires_grad=False)
        self._scaled_grad_fn = value_and_grad(self._loss_times_scale, None, self.weights)

    def _loss_times_scale(self, *inputs: Any) -> Tensor:
        return self.network(*inputs) * self.scale_sense

    def construct(self, *inputs: Any) -> Tuple[Tensor, Tensor, Tensor]:
        """Runs the step.

        Args:
            *inputs (Tensor): the network's inputs.

        Returns:
            tuple(Tensor), (loss, overflow, loss scale used).
        """
        scale = _C.clone(self.scale_sense.detach())
        scaled_loss, grads = self._scaled_grad_fn(*inputs)
        loss = scaled_loss / scale
        grads = tuple(g / scale for g in grads)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        overflow = _C.logical_not(_all_finite(grads))
        ok = (self.loss_scaling_manager(self.scale_sense, overflow)
              if self.loss_scaling_manager is not None else not bool(overflow))
        if ok:
            self.optimizer(grads)
        return loss, overflow, scale


__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
           "FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell"]
