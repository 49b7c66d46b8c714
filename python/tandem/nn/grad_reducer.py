"""MindSpore's ``nn.DistributedGradReducer``: the gradients of a data-parallel step reduced
over the ranks of the MPI job (tandem/_collective_ops.py over tandem/_distributed.py), so
that each rank's optimizer applies the gradient of the global batch."""
from __future__ import annotations

from typing import Any, Iterable, Optional, Tuple

from .. import _distributed
from .._C import Tensor
from .._collective_ops import all_reduce_many
from .._layers.cell import Cell


class DistributedGradReducer(Cell):
    """Sums the gradients over the ranks, then divides them by `degree` when `mean`
    (one all_reduce per gradient). Called with the tuple of gradients of `parameters`
    (as ``value_and_grad`` returns them), it returns a new tuple; the input is not changed.
    Inside a compiled graph (GRAPH_MODE, jit) the all-reduces are graph nodes, so a compiled
    train step contains its reductions.

    Args:
        parameters (list[Parameter]): the parameters the gradients belong to (their number
            is checked against each call).
        mean (bool, optional): divide the sum by `degree`; when None, the auto-parallel
            context's ``gradients_mean``. Default: ``None`` .
        degree (int, optional): the divisor for `mean`; the number of ranks when None.
            Default: ``None`` .
        fusion_type (int): MindSpore's all-reduce fusion group (no effect). Default: ``1`` .
        group (str): the communication group (``'world_group'`` or one made by
            ``communication.create_group``). Default: ``'world_group'`` .

    Raises:
        RuntimeError: the process group is not initialized (``communication.init()``).
        ValueError: `degree` is not a positive int, or another group is named.
    """

    def __init__(self, parameters: Iterable[Any], mean: Optional[bool] = None,
                 degree: Optional[int] = None, fusion_type: int = 1,
                 group: str = "world_group") -> None:
        super().__init__()
        from .. import _auto_parallel
        g = _distributed.named_group("DistributedGradReducer", group)
        self._group = group
        if mean is None:
            mean = bool(_auto_parallel.get_auto_parallel_context("gradients_mean"))
        if degree is None:
            degree = int(g.size)
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got "
                             f"{degree!r}")
        self._count = len(list(parameters))
        self.mean, self.degree = bool(mean), degree

    def construct(self, grads: Tuple[Tensor, ...]) -> Tuple[Tensor, ...]:
        """Reduces the gradients over the ranks.

        Args:
            grads (tuple[Tensor]): the gradients, one per parameter, the same shapes on
                every rank.

        Returns:
            tuple[Tensor], the summed (or averaged) gradients.
        """
        from .. import _C
        grads = tuple(grads)
        if len(grads) != self._count:
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for "
                             f"{self._count} parameters")
        summed = all_reduce_many("DistributedGradReducer", grads, _C.ReduceOp.SUM, self._group)
        return tuple(r / self.degree if self.mean else r for r in summed)
