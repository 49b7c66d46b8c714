"""Loss-scale managers and build_train_network (MindSpore's amp training names), over
nn's TrainOneStepWithLossScaleCell and the update cells."""
from __future__ import annotations

from typing import Any, Optional

from .._layers.cell import Cell


class LossScaleManager:
    """Base of the loss-scale managers ``Model`` and ``build_train_network`` take."""

    def get_loss_scale(self) -> float:
        """Returns:
            float, the current scale."""
        raise NotImplementedError

    def get_update_cell(self) -> Optional[Cell]:
        """Returns:
            Cell or None, the cell updating the scale inside the training step."""
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        """Args:
            overflow (bool): whether the last gradients overflowed."""
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale (MindSpore's ``amp.FixedLossScaleManager``).

    Args:
        loss_scale (float): the scale. Default: 128.0.
        drop_overflow_update (bool): skip the update when gradients overflow (the training
            step then checks them); False also scales without checking, and the optimizer
            must be built with ``loss_scale`` equal to it, as in MindSpore. Default: True.

    Raises:
        ValueError: loss_scale < 1.
    """

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        if not float(loss_scale) >= 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be >= 1, got {loss_scale}")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = bool(drop_overflow_update)

    def get_loss_scale(self) -> float:
        """Returns:
            float, the scale."""
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        """Returns:
            bool, whether overflowed steps are skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """The scale is fixed: nothing to do.

        Args:
            overflow (bool): ignored.
        """

    def get_update_cell(self) -> Optional[Cell]:
        """Returns:
            Cell or None, a FixedLossScaleUpdateCell when overflowed steps are dropped."""
        if not self._drop_overflow_update:
            return None
        from ..nn.wrap import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by `scale_factor` on overflow and multiplied by it after
    `scale_window` clean steps (MindSpore's ``amp.DynamicLossScaleManager``).

    Args:
        init_loss_scale (float): the initial scale. Default: 2 ** 24.
        scale_factor (int): the factor. Default: 2.
        scale_window (int): clean steps between growths. Default: 2000.
    """

    def __init__(self, init_loss_scale: float = 2.0 ** 24, scale_factor: int = 2,
                 scale_window: int = 2000) -> None:
        from ..nn.wrap import DynamicLossScaleUpdateCell
        self._cell = DynamicLossScaleUpdateCell(init_loss_scale, scale_factor, scale_window)

    def get_loss_scale(self) -> float:
        """Returns:
            float, the current scale."""
        return self._cell.get_loss_scale()

    def get_drop_overflow_update(self) -> bool:
        """Returns:
            bool, True: overflowed steps are always skipped."""
        return True

    def update_loss_scale(self, overflow: bool) -> None:
        """Updates the scale outside a training step.

        Args:
            overflow (bool): whether the last gradients overflowed.
        """
        from .. import _C
        self._cell(None, _C.full([], int(bool(overflow)), _C.dtype.bool))

    def get_update_cell(self) -> Optional[Cell]:
        """Returns:
            Cell, the DynamicLossScaleUpdateCell holding the scale."""
        return self._cell


def build_train_network(network: Cell, optimizer: Any, loss_fn: Optional[Cell] = None,
                        level: str = "O0", boost_level: str = "O0", **kwargs: Any) -> Cell:
    """A training step with mixed precision and loss scaling (MindSpore's
    ``amp.build_train_network``): ``auto_mixed_precision(network, level)``, the loss (kept in
    float32: the network's outputs are cast back), then a TrainOneStepCell, or a
    TrainOneStepWithLossScaleCell when loss scaling checks for overflow.

    Args:
        network (Cell): the network.
        optimizer (Optimizer): a ``tandem.nn`` optimizer.
        loss_fn (Cell, optional): the loss; None when network returns the loss.
        level (str): 'O0', 'O1', 'O2', 'O3' or 'auto'. 'O2' scales the loss with a
            DynamicLossScaleManager unless `loss_scale_manager` is given. Default: 'O0'.
        boost_level (str): 'O0' only. Default: 'O0'.
        kwargs (Any): ``loss_scale_manager`` (a LossScaleManager, or None for no scaling);
            ``dtype`` (float16 or bfloat16, default float16).

    Returns:
        Cell, called with the step's inputs; returns the loss (with a loss-scale cell:
        (loss, overflow, scale)).

    Raises:
        ValueError: an unsupported boost_level or an unknown level.
    """
    from .. import _C
    from ..nn.wrap import TrainOneStepCell, TrainOneStepWithLossScaleCell, WithLossCell
    from . import auto_mixed_precision
    if boost_level != "O0":
        raise ValueError(f"build_train_network: boost_level {boost_level!r} is not supported")
    manager = kwargs.get("loss_scale_manager",
                         DynamicLossScaleManager() if level == "O2" else None)
    net = auto_mixed_precision(network, level, kwargs.get("dtype", _C.dtype.float16))
    if loss_fn is not None:
        net = WithLossCell(net, loss_fn)
    if manager is None:
        return TrainOneStepCell(net, optimizer)
    cell = manager.get_update_cell()
    if cell is None:
        return TrainOneStepCell(net, optimizer, sens=manager.get_loss_scale())
    return TrainOneStepWithLossScaleCell(net, optimizer, scale_sense=cell)
