"""PyTorch-named functions (``from tandem import mint``; then ``mint.exp(x)``,
``mint.zeros(2, 3)``). Porting PyTorch code means swapping ``torch`` for ``mint``.

The functions come from the op table (``tandem._generated.torch_api``); this module is a
name map over them."""
from .._generated.torch_api import *  # noqa: F401,F403
from .._C import Tensor, dtype  # noqa: F401
from .. import (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32,  # noqa: F401
                float64, half, double, short, long, get_default_dtype, set_default_dtype,
                is_tensor, linalg)

float = float32  # noqa: A001
int = int32  # noqa: A001
globals()["bool"] = bool_
from . import nn  # noqa: E402,F401
from .. import autograd, no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from ..serialization import save, load  # noqa: E402,F401
from ..jit import cond, vmap, while_loop  # noqa: E402,F401

from .._generated import torch_api as _ops  # noqa: E402

__all__ = [
    "Tensor", "dtype", "bool_", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "half", "double", "short", "long", "float", "int", "bool",
    "get_default_dtype", "set_default_dtype", "is_tensor", "linalg", "nn", "autograd", "no_grad",
    "enable_grad", "set_grad_enabled", "is_grad_enabled", "optim", "save", "load", "cond",
    "vmap", "while_loop",
]
__all__ += _ops.__all__
from ..export import mint_export as export  # noqa: E402,F401  (deployment: tandem/export.py)
from .. import onnx  # noqa: E402,F401  (mint.onnx.export: tandem/onnx/)
__all__ += ["export", "onnx"]  # deployment

# Devices, PyTorch's non-op names, and torch.utils / torch.distributions by the same swap.
import sys as _sys  # noqa: E402

from .._device import device  # noqa: E402,F401
from . import backends  # noqa: E402,F401  (backends.cpu.get_cpu_capability)
from . import cuda  # noqa: E402,F401
from . import distributions  # noqa: E402,F401
from . import jit  # noqa: E402,F401  (mint.jit.script / trace on tandem.jit)
from . import distributed  # noqa: E402,F401  (MPI collectives: tandem/_distributed.py)
from .. import utils  # noqa: E402,F401  (mint.utils.data is tandem.utils.data)
from .. import set_num_threads, get_num_threads  # noqa: E402,F401
from ..autograd import inference_mode  # noqa: E402,F401
from ._compat import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor,  # noqa: E402,F401
                      DoubleTensor, FloatTensor, Generator, HalfTensor, IntTensor, LongTensor,
                      ShortTensor, from_dlpack, get_printoptions, seed, set_printoptions)

_sys.modules.setdefault(__name__ + ".utils", utils)
_sys.modules.setdefault(__name__ + ".utils.data", utils.data)
_sys.modules.setdefault(__name__ + ".utils.data.distributed", utils.data.distributed)
__all__ += ["device", "backends", "cuda", "distributions", "jit", "distributed", "utils", "set_num_threads", "get_num_threads",
            "inference_mode", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
            "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
            "Generator", "seed", "from_dlpack", "set_printoptions", "get_printoptions"]
import builtins as _builtins  # noqa: E402

_py_bool = _builtins.bool
from . import amp  # noqa: E402  (mixed precision: tandem/_amp.py)
from .amp import autocast  # noqa: E402,F401


def is_autocast_enabled(device_type: str = "cpu") -> _py_bool:
    """Whether an autocast region is active on this thread (``torch.is_autocast_enabled``).

    Args:
        device_type (str): 'cpu' (autocast is never enabled for other devices here).

    Returns:
        bool, True inside an enabled ``mint.autocast`` region.
    """
    from .. import _amp as _amp_core
    return device_type == "cpu" and _amp_core.state()[0] == _amp_core.LISTS


def get_autocast_dtype(device_type: str = "cpu") -> dtype:
    """The low-precision dtype autocast uses (``torch.get_autocast_dtype``).

    Args:
        device_type (str): 'cpu'.

    Returns:
        dtype, the active region's dtype, or bfloat16 (the CPU default) outside one.
    """
    from .. import _amp as _amp_core
    mode, dt = _amp_core.state()
    return dt if mode == _amp_core.LISTS else bfloat16


__all__ += ["amp", "autocast", "is_autocast_enabled", "get_autocast_dtype"]
