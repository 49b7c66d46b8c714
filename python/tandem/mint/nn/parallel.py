"""``mint.nn.DataParallel`` / ``mint.nn.parallel``: data parallelism over one device. tandem
runs on the CPU only, so the wrapper calls the module directly (PyTorch does the same when
it sees no GPU); asking for CUDA devices raises."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..._device import as_device
from ..._layers.cell import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """Runs ``module`` on the one available device (the CPU); ``.module`` is the wrapped
    module, as in PyTorch, so its state_dict keys carry the ``module.`` prefix.

    Args:
        module (Module): the module to run.
        device_ids (list, optional): must be None, empty or name the CPU. Default: ``None``.
        output_device (optional): must be None or the CPU. Default: ``None``.
        dim (int): the batch dim (unused with one device). Default: ``0``.
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None,
                 output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        for d in list(device_ids or []) + ([output_device] if output_device is not None else []):
            as_device(d, "DataParallel")
        self.module = module
        self.dim = dim
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """module(*inputs, **kwargs).

        Args:
            *inputs: the module's inputs.
            **kwargs: its keyword inputs.

        Returns:
            Any: the module's output.
        """
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Data-parallel training over the ranks of ``mint.distributed`` (one process per rank,
    launched by mpirun): at construction every rank takes rank 0's parameters and buffers;
    during ``backward`` each parameter's gradient is averaged over the ranks, so an optimizer
    step on each rank applies the gradient of the global batch. ``.module`` is the wrapped
    module. Every parameter that requires a gradient must receive one on every rank in each
    backward (there is no find_unused_parameters); gradients are reduced one parameter at a
    time (no bucketing).

    Args:
        module (Module): the module to train; the same architecture on every rank.
        device_ids (list, optional): must be None, empty or name the CPU. Default: ``None``.
        output_device (optional): must be None or the CPU. Default: ``None``.
        broadcast_buffers (bool): also broadcast the buffers at construction (PyTorch
            broadcasts them before each forward). Default: ``True``.
        **kwargs: other PyTorch options (``find_unused_parameters=True`` is rejected).
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None,
                 output_device: Any = None, broadcast_buffers: bool = True,
                 **kwargs: Any) -> None:
        super().__init__()
        from ... import _distributed
        for d in list(device_ids or []) + ([output_device] if output_device is not None else []):
            as_device(d, "DistributedDataParallel")
        if kwargs.get("find_unused_parameters"):
            raise NotImplementedError("DistributedDataParallel: find_unused_parameters=True is "
                                      "not supported; every parameter needs a gradient on every "
                                      "rank")
        _distributed.group("DistributedDataParallel")
        self.module = module
        self.device_ids: list = []
        tensors = list(module.parameters())
        if broadcast_buffers:
            tensors += list(module.buffers())
        _distributed.broadcast_tensors(tensors, 0)
        _distributed.average_gradients_in_backward(module.parameters())

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """module(*inputs, **kwargs).

        Args:
            *inputs: the module's inputs.
            **kwargs: its keyword inputs.

        Returns:
            Any: the module's output.
        """
        return self.module(*inputs, **kwargs)
