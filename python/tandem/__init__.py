"""tandem: a deep-learning framework with a C++ core.

Eager (PyNative) execution by default; ``tandem.mint`` mirrors PyTorch's names.
"""
from __future__ import annotations

import builtins as _builtins
import os as _os

# OpenMP threads spin only briefly before sleeping between parallel regions: libgomp's
# default long spin collapsed throughput 10-30x whenever anything else (the data loader's
# workers, another process) competed for the cores, while sleeping at once (passive) cost
# 2x on back-to-back small ops. 20000 spins kept both cases fast here. Set OMP_WAIT_POLICY
# or GOMP_SPINCOUNT to override.
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "20000")

# A development build keeps the extension in <build>/python/tandem (see README).
_build = _os.environ.get("TANDEM_BUILD_DIR")
if _build:
    __path__.append(_os.path.join(_os.path.abspath(_build), "python", "tandem"))  # noqa: F821


def _cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux names them (/proc/cpuinfo); empty where unknown."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _check_cpu() -> None:
    """Refuses, with a message, a CPU below the x86-64-v3 baseline the library is compiled
    for: loading it there would end the process with SIGILL instead of an exception."""
    import sys
    if not sys.platform.startswith("linux") or _os.uname().machine != "x86_64":
        return
    flags = _cpu_flags()
    if not flags:
        return
    # x86-64-v3's features as Linux names them (abm: LZCNT).
    missing = sorted({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe"} - flags)
    if missing:
        raise ImportError(
            "tandem is compiled for x86-64-v3 (AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE) and "
            "this CPU lacks "
            f"{', '.join(missing)}; build it from source on this machine with "
            "tools/build.sh -DTANDEM_ARCH=native")


_check_cpu()
from . import _C  # noqa: E402
from ._C import Tensor, dtype  # noqa: E402
from ._generated.torch_api import *  # noqa: E402,F401,F403 - the ops, from the op table
from . import _tensor  # noqa: E402

_tensor.install()

# dtypes under PyTorch and MindSpore names.
bool_ = dtype.bool
uint8 = dtype.uint8
int8 = dtype.int8
int16 = dtype.int16
int32 = dtype.int32
int64 = dtype.int64
float16 = dtype.float16
bfloat16 = dtype.bfloat16
float32 = dtype.float32
float64 = dtype.float64
half = float16
float = float32  # noqa: A001 - PyTorch's alias
double = float64
short = int16
int = int32  # noqa: A001
long = int64
globals()["bool"] = dtype.bool

from ._impl.creation import get_default_dtype, set_default_dtype  # noqa: E402
from . import linalg  # noqa: E402,F401



# int, float and bool name dtypes here (as in PyTorch), so annotations spell the builtins out.
def set_num_threads(n: _builtins.int) -> None:
    """Sets the number of threads the CPU kernels use (OpenMP) for the rest of the process.

    Args:
        n (int): the number of threads (>= 1).
    """
    _C.set_num_threads(n)


def get_num_threads() -> _builtins.int:
    """The number of threads the CPU kernels use.

    Returns:
        int: the thread count (the number of cores unless :func:`set_num_threads` changed it).
    """
    return _C.get_num_threads()


def is_tensor(obj: object) -> _builtins.bool:
    """Whether `obj` is a tandem tensor (a Tensor or a Parameter).

    Args:
        obj (object): any object.

    Returns:
        bool: ``True`` for tandem tensors.
    """
    return isinstance(obj, Tensor)


def memory_stats() -> "dict[str, _builtins.int]":
    """The caching allocator's counters.

    Returns:
        dict: name -> bytes or count: bytes_in_use, peak_bytes_in_use, bytes_cached, ...
    """
    stats: "dict[str, _builtins.int]" = _C.memory_stats()
    return stats


from . import autograd  # noqa: E402,F401
from .autograd import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: E402,F401
from ._functional_grad import grad, value_and_grad, vjp, jvp, get_grad  # noqa: E402,F401
from . import mint, ops  # noqa: E402,F401
from . import nn, common  # noqa: E402,F401
from .jit import jit, set_context, get_context, GRAPH_MODE, PYNATIVE_MODE  # noqa: E402,F401
from .jit import jit_class, mutable, vmap, STRICT, COMPATIBLE, LAX  # noqa: E402,F401
from . import context  # noqa: E402,F401
from .nn.parameter import Parameter, ParameterTuple  # noqa: E402,F401  (MindSpore's)
from . import serialization  # noqa: E402,F401
from . import amp  # noqa: E402,F401  (mindspore.amp)
from .serialization import save_checkpoint, load_checkpoint, load_param_into_net  # noqa: E402,F401
from . import dataset, mindrecord, utils, vision  # noqa: E402,F401
from . import train  # noqa: E402,F401
from . import communication  # noqa: E402,F401  (mindspore.communication)
from ._auto_parallel import (ParallelMode, get_auto_parallel_context,  # noqa: E402,F401
                             reset_auto_parallel_context, set_auto_parallel_context)
from .export import export, load  # noqa: E402,F401  (deployment: tandem/export.py)

__version__ = "0.1.0"

from ._generated import torch_api as _ops  # noqa: E402

# The public names (explicit, so type checkers see the re-exports).
__all__ = [
    "Tensor", "dtype", "bool_", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "half", "float", "double", "short", "int", "long", "bool",
    "get_default_dtype", "set_default_dtype", "linalg", "set_num_threads", "get_num_threads",
    "is_tensor", "memory_stats", "autograd", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "grad", "value_and_grad", "get_grad", "vjp", "jvp", "mint", "ops", "nn",
    "common", "jit", "jit_class", "vmap", "STRICT", "COMPATIBLE", "LAX", "set_context",
    "get_context", "GRAPH_MODE", "PYNATIVE_MODE", "amp",
    "context", "Parameter", "ParameterTuple", "mutable",
    "serialization", "save_checkpoint", "load_checkpoint", "load_param_into_net", "dataset",
    "utils", "vision", "mindrecord", "train", "communication", "ParallelMode",
    "set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context",
]
__all__ += _ops.__all__
__all__ += ["export", "load"]  # deployment
