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
        self.optimizer(grads)
        return (loss, grads) if self.return_grad else loss


__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell"]
