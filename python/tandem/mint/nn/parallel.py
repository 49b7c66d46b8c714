"""``mint.nn.DataParallel`` / ``mint.nn.parallel``: data parallelism over one device. tandem
runs on the CPU only, so the wrapper calls the module directly (PyTorch does the same when
it sees no GPU); asking for CUDA devices raises."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional, Sequence

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
    during ``backward`` the gradients are averaged over the ranks in buckets of about
    ``bucket_cap_mb``, each reduced asynchronously as soon as its gradients exist, so
    communication overlaps the rest of the backward; when backward returns, ``.grad`` holds
    the gradient of the global batch on every rank. ``.module`` is the wrapped module.
    Every parameter that requires a gradient must receive one on every rank in each
    synchronised backward (there is no find_unused_parameters; a missing one raises).

    Args:
        module (Module): the module to train; the same architecture on every rank.
        device_ids (list, optional): must be None, empty or name the CPU. Default: ``None``.
        output_device (optional): must be None or the CPU. Default: ``None``.
        broadcast_buffers (bool): broadcast rank 0's buffers (batch-norm statistics) at
            construction and before each forward. Default: ``True``.
        process_group (optional): the group to average over (``mint.distributed.new_group``);
            None for all ranks. Default: ``None``.
        bucket_cap_mb (float): bucket size in MiB. Default: ``25``.
        **kwargs: other PyTorch options: ``gradient_as_bucket_view=True`` leaves each
            ``.grad`` a view into its bucket after the reduction (one copy less per step);
            ``find_unused_parameters=True`` is rejected; ``static_graph`` is accepted and
            ignored.
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None,
                 output_device: Any = None, broadcast_buffers: bool = True,
                 process_group: Any = None, bucket_cap_mb: Optional[float] = None,
                 **kwargs: Any) -> None:
        super().__init__()
        from ... import _ddp, _distributed
        for d in list(device_ids or []) + ([output_device] if output_device is not None else []):
            as_device(d, "DistributedDataParallel")
        if kwargs.pop("find_unused_parameters", False):
            raise NotImplementedError("DistributedDataParallel: find_unused_parameters=True is "
                                      "not supported; every parameter needs a gradient on every "
                                      "rank")
        as_view = bool(kwargs.pop("gradient_as_bucket_view", False))
        for ignored in ("static_graph", "dim",
                        "check_reduction", "init_sync"):
            kwargs.pop(ignored, None)
        if kwargs:
            raise TypeError(f"DistributedDataParallel: unexpected arguments {sorted(kwargs)}")
        self.module = module
        self.device_ids: list = []
        self.broadcast_buffers = bool(broadcast_buffers)
        self.process_group = process_group
        group = _distributed.resolve("DistributedDataParallel", process_group)
        tensors = list(module.parameters())
        if broadcast_buffers:
            tensors += list(module.buffers())
        if group is not None:
            _distributed.broadcast_tensors(tensors, 0, process_group)
        self.reducer = _ddp.Reducer(list(module.parameters()), process_group,
                                    25.0 if bucket_cap_mb is None else float(bucket_cap_mb),
                                    as_view)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """module(*inputs, **kwargs), after rank 0's buffers are broadcast when
        ``broadcast_buffers``.

        Args:
            *inputs: the module's inputs.
            **kwargs: its keyword inputs.

        Returns:
            Any: the module's output.
        """
        if self.broadcast_buffers and self.reducer.group is not None and self.training:
            from ... import _distributed
            _distributed.broadcast_tensors(self.module.buffers(), 0, self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within this context gradients are not averaged: they accumulate in ``.grad`` on
        each rank, and the first backward after it averages the accumulated gradients.

        Yields:
            None.
        """
        previous = self.reducer.require_sync
        self.reducer.require_sync = False
        try:
            yield
        finally:
            self.reducer.require_sync = previous
