"""``mint.nn.DataParallel`` / ``mint.nn.parallel``: data parallelism over one device. tandem
runs on the CPU only, so the wrapper calls the module directly (PyTorch does the same when
it sees no GPU); asking for CUDA devices raises."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..._device import as_device
from ..._layers.cell import Module

__all__ = ["DataParallel"]


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
