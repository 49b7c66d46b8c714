"""Conversion of Python data (numbers, nested sequences, numpy arrays) to tandem tensors."""
from __future__ import annotations

import numpy as np

from . import _C
from ._impl.creation import get_default_dtype

_NP_TO_DTYPE = {
    np.dtype(np.bool_): _C.dtype.bool,
    np.dtype(np.uint8): _C.dtype.uint8,
    np.dtype(np.int8): _C.dtype.int8,
    np.dtype(np.int16): _C.dtype.int16,
    np.dtype(np.int32): _C.dtype.int32,
    np.dtype(np.int64): _C.dtype.int64,
    np.dtype(np.float16): _C.dtype.float16,
    np.dtype(np.float32): _C.dtype.float32,
    np.dtype(np.float64): _C.dtype.float64,
}


def _contains_float(data) -> bool:
    if isinstance(data, float):
        return True
    if isinstance(data, (list, tuple)):
        return any(_contains_float(x) for x in data)
    if isinstance(data, _C.Tensor):
        return data.dtype in (_C.dtype.float16, _C.dtype.bfloat16, _C.dtype.float32, _C.dtype.float64)
    return False


def _default_float():
    return np.float64 if get_default_dtype() == _C.dtype.float64 else np.float32


def to_tensor(data=None, dtype=None, *, shape=None, init=None, internal=False,
              const_arg=False, device=None) -> _C.Tensor:
    """Builds a new tensor from `data` (copying it), as ``tandem.tensor`` does.

    Python floats become the default dtype (float32 unless set_default_dtype changed it),
    ints int64 and bools bool, like PyTorch; numpy arrays and numpy scalars keep their dtype.
    MindSpore's form ``Tensor(shape=..., dtype=..., init=One())`` fills a new tensor with the
    initializer (MindSpore defers this to ``init_data()``; tandem fills it at once, and
    ``init_data()`` returns the tensor). `internal`, `const_arg` and `device` are accepted as
    MindSpore accepts them and change nothing on the CPU.
    """
    if init is not None or shape is not None:
        if data is not None:
            raise ValueError("Tensor: pass either input_data or shape/init, not both "
                             f"(got input_data of type {type(data).__name__})")
        if init is None:
            raise ValueError(f"Tensor: shape={shape!r} needs an initializer, e.g. "
                             "init=One() or init='normal'")
        if shape is None:
            raise ValueError("Tensor: init= needs shape= (the shape of the new tensor)")
        from ._init.initializers import initializer
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        return initializer(init, tuple(shape), dtype)
    if isinstance(data, _C.Tensor):
        t = _C.clone(data)
        return t if dtype is None else _C.to_dtype(t, dtype)
    if data is None:
        raise TypeError("tensor: input_data is None; pass a number, a (nested) list or a numpy array")
    from_python = False
    if isinstance(data, np.ndarray) or np.isscalar(data) and isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        from_python = True
        try:
            arr = np.asarray(data)
        except (ValueError, TypeError) as e:
            raise ValueError(f"tensor: cannot build a tensor from {type(data).__name__}: {e}") from None
        if arr.dtype == object and dtype is not None and dtype.is_floating_point:
            try:  # ints beyond int64 into a float dtype: converted as floats, as in PyTorch
                with np.errstate(over="ignore"):
                    arr = np.asarray(data, dtype=np.float64)
            except (ValueError, TypeError, OverflowError):
                pass
        if arr.dtype == object and all(isinstance(v, int) for v in arr.reshape(-1)):
            big = max((v for v in arr.reshape(-1)), key=abs)
            raise ValueError(f"tensor: integer {big} is out of the int64 range; pass "
                             "dtype=float64 to store it as a float")
        if arr.dtype == object:
            raise TypeError(f"tensor: could not infer dtype of {type(data).__name__} "
                            "(ragged nested sequence or non-numeric elements?)")
        if arr.dtype == np.float64 and dtype is None:  # Python floats -> the default dtype
            with np.errstate(over="ignore"):  # 1e39 -> inf, as in PyTorch
                arr = arr.astype(_default_float())
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"tensor: integer {int(arr.max())} is out of the int64 range")
    if arr.dtype.kind == "U" or arr.dtype.kind == "S":
        raise TypeError(f"tensor: strings are not supported (got {arr.dtype})")
    if arr.dtype not in _NP_TO_DTYPE:
        if arr.dtype.kind == "u":
            arr = arr.astype(np.int64)
        elif arr.dtype.kind == "c":
            raise TypeError("tensor: complex dtypes are not supported")
        else:
            raise TypeError(f"tensor: unsupported numpy dtype {arr.dtype}")
    # np.ascontiguousarray would turn a 0-d array into shape (1,); only copy when needed.
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    t = _C.from_numpy(arr, copy=True)
    if dtype is not None:
        # Python numbers stored into an integer type must fit it, as in torch.tensor (numpy
        # arrays and tensors convert like .to(), wrapping).
        if from_python and not dtype.is_floating_point and dtype != _C.dtype.bool:
            _C._check_fits(t, dtype, "tensor")
        t = _C.to_dtype(t, dtype)
    return t
