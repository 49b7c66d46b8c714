"""MindSpore's mixed-precision names (``mindspore.amp``): ``auto_mixed_precision``, the loss
scalers and ``all_finite``, over the shared implementation in tandem/_amp.py."""
from __future__ import annotations

from typing import Any, Iterable, List, Union

from .. import _amp, _C
from .._layers.cell import Cell

Tensor = _C.Tensor

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "all_finite",
           "LossScaler", "StaticLossScaler", "DynamicLossScaler", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network"]


def get_white_list() -> List[type]:
    """The Cell classes amp_level 'O1' runs in low precision (MindSpore's white list: dense,
    convolution and recurrent cells, in both faces' spellings).

    Returns:
        list, the classes.
    """
    from .._layers import conv, linear, rnn
    names = [(linear, "Dense"), (linear, "Linear"), (conv, "Conv1d"), (conv, "Conv2d"),
             (conv, "ConvTranspose2d"), (conv, "MSConv1d"), (conv, "MSConv2d"),
             (rnn, "LSTMCell"), (rnn, "RNNCell"), (rnn, "GRUCell")]
    return [getattr(m, n) for m, n in names if hasattr(m, n)]


def get_black_list() -> List[type]:
    """The Cell classes amp_level 'O2' keeps in float32 (batch and layer normalization).

    Returns:
        list, the classes.
    """
    from .._layers import normalization as nrm
    names = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "MSBatchNorm1d",
             "MSBatchNorm2d", "MSLayerNorm"]
    return [getattr(nrm, n) for n in names if hasattr(nrm, n)]


class _OutputTo32(Cell):
    """Runs a network and casts its floating outputs to float32."""

    def __init__(self, network: Cell) -> None:
        super().__init__()
        self.network = network

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        return _amp.cast_tree(self.network(*args, **kwargs), _C.dtype.float32)


def auto_mixed_precision(network: Cell, amp_level: str = "O0",
                         dtype: Any = _C.dtype.float16) -> Cell:
    """Returns the network with mixed precision applied (MindSpore's
    ``amp.auto_mixed_precision``).

    - 'O0': unchanged.
    - 'O1': the white-list cells (``get_white_list``) run in `dtype`: their inputs and
      parameters are cast to it and their outputs back to float32.
    - 'O2': every cell but the black-list ones (``get_black_list``: normalization, kept in
      float32) runs in `dtype`; the network's outputs are cast to float32.
    - 'O3': the whole network runs in `dtype`; outputs are cast to float32.
    - 'auto': op lists instead of cells: matmul/linear/conv in `dtype`, losses and
      reductions such as prod in float32, other ops in their inputs' dtype (the lists of
      ``mint.autocast``).

    Parameters stay float32 (the master weights the optimizer updates); the casts are ops,
    so gradients reach them in float32, and GRAPH_MODE compiles the casts with the rest.

    Args:
        network (Cell): the network; modified in place ('O1', 'O2' set ``to_float`` on its
            cells) and returned (wrapped for 'O2', 'O3' and 'auto').
        amp_level (str): 'O0', 'O1', 'O2', 'O3' or 'auto'. Default: 'O0'.
        dtype (dtype): mindspore.float16 or mindspore.bfloat16. Default: float16.

    Returns:
        Cell, the network to train or run.

    Raises:
        ValueError: an unknown amp_level or a dtype that is not a 16-bit float.
        TypeError: network is not a Cell.
    """
    if not isinstance(network, Cell):
        raise TypeError(f"auto_mixed_precision: network must be a Cell, got "
                        f"{type(network).__name__}")
    level = str(amp_level)
    if level not in ("O0", "O1", "O2", "O3", "auto"):
        raise ValueError(f"auto_mixed_precision: amp_level must be 'O0', 'O1', 'O2', 'O3' or "
                         f"'auto', got {amp_level!r}")
    if level == "O0":
        return network
    _amp.check_autocast_dtype(dtype, "auto_mixed_precision")
    if level == "O1":
        white = tuple(get_white_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, white):
                cell.to_float(dtype)
                object.__setattr__(cell, "_amp_out_fp32", True)
        return network
    if level == "auto":
        return _AutoLists(network, dtype)
    network.to_float(dtype)
    if level == "O2":
        black = tuple(get_black_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, black):
                cell.to_float(_C.dtype.float32)
    return _OutputTo32(network)


class _AutoLists(Cell):
    """amp_level 'auto': the network under the op lists of mint.autocast."""

    def __init__(self, network: Cell, dtype: Any) -> None:
        super().__init__()
        self.network = network
        object.__setattr__(self, "_lists_dtype", dtype)

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        with _amp.AutocastScope(_amp.LISTS, self._lists_dtype):
            return self.network(*args, **kwargs)


def all_finite(inputs: Union[Tensor, Iterable[Tensor]]) -> Tensor:
    """Whether every element of the inputs (usually gradients) is finite (MindSpore's
    ``amp.all_finite``).

    Args:
        inputs (Union[Tensor, Iterable[Tensor]]): the tensors to check.

    Returns:
        Tensor, a 0-d bool tensor.
    """
    return _amp.all_finite([inputs] if isinstance(inputs, Tensor) else list(inputs))


class LossScaler:
    """Base of the loss scalers: ``scale``, ``unscale`` and ``adjust``."""

    def scale(self, inputs: Any) -> Any:
        """Multiplies inputs by the scale.

        Args:
            inputs (Any): a tensor or a nested tuple/list of tensors.

        Returns:
            The scaled inputs, nested as given.
        """
        return _amp.map_tensors(inputs, lambda t: t * self.scale_value.to(t.dtype))

    def unscale(self, inputs: Any) -> Any:
        """Divides inputs (usually gradients) by the scale.

        Args:
            inputs (Any): a tensor or a nested tuple/list of tensors.

        Returns:
            The unscaled inputs, nested as given.
        """
        return _amp.map_tensors(inputs, lambda t: t / self.scale_value.to(t.dtype))

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Adapts the scale to whether the last gradients were finite.

        Args:
            grads_finite (Tensor): the result of ``all_finite(grads)``.

        Returns:
            Tensor, True when the scale was kept or grew.
        """
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A fixed loss scale (MindSpore's ``amp.StaticLossScaler``).

    Args:
        scale_value (Union[float, int]): the scale.

    Raises:
        ValueError: the scale is not positive.
    """

    def __init__(self, scale_value: Union[float, int]) -> None:
        if not float(scale_value) > 0:
            raise ValueError(f"StaticLossScaler: scale_value must be positive, got {scale_value}")
        from .._layers.parameter import Parameter
        self.scale_value = Parameter(_C.full([], float(scale_value), _C.dtype.float32),
                                     name="scale_value", requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Keeps the scale.

        Args:
            grads_finite (Tensor): ignored.

        Returns:
            Tensor, False (MindSpore's return value: nothing was adjusted).
        """
        return _C.full([], 0, _C.dtype.bool)


class DynamicLossScaler(LossScaler):
    """A loss scale that halves (divides by `scale_factor`, never below 1) when gradients
    overflow and grows by `scale_factor` after `scale_window` finite steps (MindSpore's
    ``amp.DynamicLossScaler``). The state is in tensors and ``adjust`` uses tensor ops, so
    a train step calling it compiles in GRAPH_MODE.

    Args:
        scale_value (Union[float, int]): the initial scale.
        scale_factor (int): the growth and backoff factor.
        scale_window (int): finite steps between growths.

    Raises:
        ValueError: a non-positive scale, a factor <= 1 or a window < 1.
    """

    def __init__(self, scale_value: Union[float, int], scale_factor: int,
                 scale_window: int) -> None:
        if not float(scale_value) > 0:
            raise ValueError(f"DynamicLossScaler: scale_value must be positive, got {scale_value}")
        if not float(scale_factor) > 1:
            raise ValueError(f"DynamicLossScaler: scale_factor must be > 1, got {scale_factor}")
        if int(scale_window) < 1:
            raise ValueError(f"DynamicLossScaler: scale_window must be >= 1, got {scale_window}")
        from .._layers.parameter import Parameter
        self.scale_value = Parameter(_C.full([], float(scale_value), _C.dtype.float32),
                                     name="scale_value", requires_grad=False)
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)
        self.counter = Parameter(_C.full([], 0, _C.dtype.int32), name="counter",
                                 requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Grows the scale after `scale_window` finite steps in a row; after an overflow
        divides it by `scale_factor` (not below 1) and restarts the count.

        Args:
            grads_finite (Tensor): the result of ``all_finite(grads)``.

        Returns:
            Tensor, True (MindSpore's return value).
        """
        finite = grads_finite.to(_C.dtype.bool)
        one = _C.full([], 1, _C.dtype.int32)
        zero = _C.full([], 0, _C.dtype.int32)
        count = _C.where(finite, self.counter + one, zero)
        grow = _C.logical_and(finite, count >= self.scale_window)
        down = _C.maximum(self.scale_value / self.scale_factor,
                          _C.full([], 1.0, _C.dtype.float32))
        up = self.scale_value * self.scale_factor
        grow = _C.logical_and(grow, _C.isfinite(up))  # never grow into inf
        scale = _C.where(finite, _C.where(grow, up, self.scale_value), down)
        self.scale_value.copy_(scale)
        self.counter.copy_(_C.where(grow, zero, count))
        return _C.full([], 1, _C.dtype.bool)


from ._train import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: E402
                     LossScaleManager, build_train_network)
