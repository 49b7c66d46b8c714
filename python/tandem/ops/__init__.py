"""MindSpore-style functional ops (``tandem.ops.exp(x)``): a name map over the op table's
functions (``tandem._generated.ms_api``), with MindSpore's signatures where they differ."""
from .._generated.ms_api import *  # noqa: F401,F403
from .._generated import ms_api as _ms
from ..jit import cond, debug_print as print_, partial, vmap, while_loop  # noqa: F401


from .primitives import *  # noqa: F401,F403,E402  (ops.Add(), ops.ReduceMean(keep_dims=True), ...)
from . import primitives as _prims  # noqa: E402
from .comm_ops import AllGather, AllReduce, Broadcast, ReduceOp  # noqa: E402,F401  (MPI)


class Print(_prims.Primitive):
    """Prints its inputs when it runs: at once eagerly, every call inside a compiled
    function (MindSpore's ops.Print primitive).

    Args:
        No constructor arguments.
    """

    def __call__(self, *inputs: object) -> None:
        """Prints the inputs (tensors as print shows them).

        Args:
            inputs (object): what to print.
        """
        print_(*inputs)


__all__ = ["cond", "print_", "partial", "vmap", "while_loop", "Print"] + _prims.__all__
__all__ += ["AllGather", "AllReduce", "Broadcast", "ReduceOp"]
__all__ += _ms.__all__
