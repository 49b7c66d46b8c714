"""Reading PyTorch's ``torch.save`` files (the zip format: ``<name>/data.pkl`` plus one
raw little-endian file per storage) without torch. Only tensors, Parameters and plain
containers are rebuilt: the unpickler refuses every other global, so a hostile file cannot
run code."""
from __future__ import annotations

import collections
import pickle
import zipfile
from typing import Any, Dict, Tuple

import numpy as np

from . import _C

# torch storage class name -> numpy dtype (bfloat16 is read as raw 16-bit then widened)
_STORAGE = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": "bfloat16", "LongStorage": np.int64, "IntStorage": np.int32,
    "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}
_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
           "bfloat16": "bfloat16", "int64": np.int64, "int32": np.int32, "int16": np.int16,
           "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


class _StorageType:
    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype


class _DType:
    def __init__(self, name: str) -> None:
        self.name = name


def is_torch_zip(path: str) -> bool:
    """Whether ``path`` is a zip archive holding a ``data.pkl`` (torch.save's format).

    Args:
        path (str): the file.

    Returns:
        bool: True for torch.save files.
    """
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        return any(n.endswith("/data.pkl") or n == "data.pkl" for n in z.namelist())


def _tensor_from(storage: Tuple[np.ndarray, Any], offset: int, size: Tuple[int, ...],
                 stride: Tuple[int, ...]) -> "_C.Tensor":
    flat, dt = storage
    if not size:
        arr = flat[offset:offset + 1].reshape(())
    else:
        item = flat.itemsize
        arr = np.lib.stride_tricks.as_strided(flat[offset:], shape=tuple(size),
                                              strides=tuple(s * item for s in stride))
    arr = np.array(arr, copy=True, order="C")  # owned: the zip's bytes are not kept
    if dt == "bfloat16":  # raw uint16 bits -> float32 -> tandem bfloat16
        f32 = (arr.astype(np.uint32) << 16).view(np.float32)
        return _C.to_dtype(_C.from_numpy(f32), _C.dtype.bfloat16)
    return _C.from_numpy(arr)


def load_torch_zip(path: str) -> Any:
    """The object a torch.save zip file holds, with tensors as tandem tensors.

    Args:
        path (str): the file.

    Returns:
        Any: the state dict (or other container of tensors).
    """
    from ._layers.parameter import Parameter
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        pkl = next(n for n in names if n.endswith("data.pkl"))
        prefix = pkl[: -len("data.pkl")]
        cache: Dict[str, Tuple[np.ndarray, Any]] = {}

        def storage(key: str, dt: Any) -> Tuple[np.ndarray, Any]:
            if key not in cache:
                raw = z.read(f"{prefix}data/{key}")
                base = np.uint16 if dt == "bfloat16" else dt
                cache[key] = (np.frombuffer(raw, dtype=np.dtype(base).newbyteorder("<")), dt)
            return cache[key]

        def rebuild_tensor(st, offset, size, stride, requires_grad=False, *rest):
            t = _tensor_from(st, offset, size, stride)
            return t.requires_grad_(True) if requires_grad else t

        def rebuild_parameter(data, requires_grad=True, *rest):
            return Parameter(data, requires_grad=requires_grad)

        allowed = {
            ("collections", "OrderedDict"): collections.OrderedDict,
            ("torch._utils", "_rebuild_tensor_v2"): rebuild_tensor,
            ("torch._utils", "_rebuild_tensor"): rebuild_tensor,
            ("torch._utils", "_rebuild_parameter"): rebuild_parameter,
            ("torch", "Size"): tuple,
        }

        class Unpickler(pickle.Unpickler):
            def find_class(self, module: str, name: str) -> Any:
                if (module, name) in allowed:
                    return allowed[(module, name)]
                if module == "torch" and name in _STORAGE:
                    return _StorageType(_STORAGE[name])
                if module == "torch" and name in _DTYPES:
                    return _DType(name)
                raise pickle.UnpicklingError(
                    f"mint.load: {module}.{name} is not allowed in a weights-only load (only "
                    f"tensors, Parameters and containers are read from PyTorch files)")

            def persistent_load(self, pid: Any) -> Any:
                if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
                    raise pickle.UnpicklingError(f"mint.load: unknown persistent id {pid!r}")
                _, st_type, key, _location, _numel = pid[:5]
                if isinstance(st_type, _StorageType):
                    return storage(str(key), st_type.dtype)
                raise pickle.UnpicklingError("mint.load: unsupported storage type")

        with z.open(pkl) as f:
            return Unpickler(f).load()
