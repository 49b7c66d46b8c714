"""nn.GraphCell: a model file loaded by ``tandem.load`` (tandem/export.py), run as a Cell."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._layers.cell import Cell

if TYPE_CHECKING:
    from .._C import Tensor
    from ..export import Graph


class GraphCell(Cell):
    """Runs a loaded Graph as a Cell (MindSpore's nn.GraphCell)::

        net = nn.GraphCell(tandem.load("lenet.tdm"))
        y = net(x)

    The graph runs in the C++ runtime: no autograd (outputs never require grad), no
    tracing, whatever the context mode.

    Args:
        graph (Graph): a model file loaded by ``tandem.load``.

    Raises:
        TypeError: `graph` is not a Graph.
    """

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        from ..export import Graph
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphCell: expected a Graph from tandem.load, got "
                            f"{type(graph).__name__}")
        object.__setattr__(self, "graph", graph)

    def construct(self, *inputs: Tensor) -> Tensor | tuple:
        """Runs the graph.

        Args:
            inputs (Tensor): the graph's inputs, in order.

        Returns:
            Tensor, or a tuple of tensors when the graph has several outputs.
        """
        return self.graph(*inputs)

    def __call__(self, *inputs: Tensor) -> Tensor | tuple:
        """Runs the graph (see ``construct``).

        Args:
            inputs (Tensor): the graph's inputs, in order.

        Returns:
            Tensor, or a tuple of tensors when the graph has several outputs.
        """
        # Not Cell.__call__: GRAPH_MODE would try to trace the runtime call.
        return self.graph(*inputs)
