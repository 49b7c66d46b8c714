"""Python-side Tensor behaviour: repr, formatting, iteration, dtype conversions, and the
op methods generated from the op table."""
from __future__ import annotations

from typing import Any, Dict, Iterator, Optional, SupportsIndex, Tuple, Union, overload

import numpy as np

from . import _C
from ._generated.methods import METHODS

Tensor = _C.Tensor
dtype = _C.dtype
DType = _C.dtype

_FLOAT = (dtype.float16, dtype.bfloat16, dtype.float32, dtype.float64)


def _dtype_repr(self: "DType") -> str:
    return f"tandem.{self.name}"


def _dtype_str(self: "DType") -> str:
    """MindSpore prints a dtype by its type name: Float32, Int64, Bool."""
    return _C.dtype_name(self)


dtype.__repr__ = _dtype_repr
dtype.__str__ = _dtype_str


def _dtype_is_floating_point(self: "DType") -> bool:
    """True for float16, bfloat16, float32 and float64."""
    return self in _FLOAT


def _dtype_is_signed(self: "DType") -> bool:
    """True for every dtype that can hold negative values (all but bool and uint8)."""
    return self not in (dtype.bool, dtype.uint8)


def _dtype_itemsize(self: "DType") -> int:
    """Bytes per element."""
    return _C.itemsize(self)


# Properties of the extension's enum, attached here (the stub declares them).
dtype.is_floating_point = property(_dtype_is_floating_point)
dtype.is_signed = property(_dtype_is_signed)
dtype.itemsize = property(_dtype_itemsize)


def _repr_float(v: Any) -> str:
    return f"{float(v): .8e}"


#: mint.set_printoptions writes here. While they are the defaults, tensors print in
#: MindSpore's format (the system modelled); any change switches to these options.
PRINT_OPTIONS: Dict[str, Any] = dict(precision=4, threshold=1000, edgeitems=3, linewidth=75,
                                     sci_mode=None)
_DEFAULT_PRINT_OPTIONS: Dict[str, Any] = dict(PRINT_OPTIONS)


def _value_str(t: Tensor) -> str:
    """The value part of MindSpore's repr: numpy layout, comma separated, floats in
    scientific notation with 8 digits (``[ 3.26189250e-01, -1.50000000e+00]``)."""
    a = t.asnumpy()  # not numpy(): that refuses tensors that require grad, as in PyTorch
    o = PRINT_OPTIONS
    if o == _DEFAULT_PRINT_OPTIONS:  # MindSpore's format unless set_printoptions changed it
        if a.ndim == 0:  # a scalar prints plainly: value= 3.5
            return str(a.astype(np.float32) if t.dtype == dtype.bfloat16 else a)
        if a.dtype.kind == "f" or t.dtype == dtype.bfloat16:
            return np.array2string(a.astype(np.float64) if a.dtype.kind != "f" else a,
                                   separator=", ", formatter={"float_kind": _repr_float},
                                   threshold=1000, edgeitems=3, prefix=" ")
        return np.array2string(a, separator=", ", threshold=1000, edgeitems=3, prefix=" ")
    o = PRINT_OPTIONS
    if t.dtype == dtype.bool:
        return np.array2string(a, separator=", ", threshold=o["threshold"],
                               edgeitems=o["edgeitems"], max_line_width=o["linewidth"])
    kw: Dict[str, Any] = {}
    if o["sci_mode"] is not None and a.dtype.kind == "f":
        p = o["precision"]
        kw["formatter"] = {"float_kind": (lambda x: f"{x:.{p}e}") if o["sci_mode"]
                           else (lambda x: f"{x:.{p}f}")}
    return np.array2string(a, separator=", ", precision=o["precision"], suppress_small=False,
                           threshold=o["threshold"], edgeitems=o["edgeitems"],
                           max_line_width=o["linewidth"], **kw)


def _repr(self: Tensor) -> str:
    """MindSpore's layout: Tensor(shape=[2, 3], dtype=Float32, value=...)."""
    shape = list(self.shape)
    value = _value_str(self)
    sep = "\n " if "\n" in value else " "
    return f"Tensor(shape={shape}, dtype={_C.dtype_name(self.dtype)}, value={sep}{value})"


def _str(self: Tensor) -> str:
    """MindSpore's str(): the value as numpy prints it (``[1 0 1 0]``, ``[4.  2.5 2. ]``)."""
    a = self.asnumpy()
    if self.dtype == dtype.bfloat16:
        a = a.astype(np.float32)
    return str(a)


def _format(self: Tensor, spec: str) -> str:
    """f"{t}" shows str(t) (numpy style, as MindSpore); a format spec applies to one element."""
    if self.ndim == 0 or self.numel() == 1 and spec:
        return format(self.item(), spec)
    return str(self) if not spec else format(str(self), spec)


def _iter(self: Tensor) -> Iterator[Tensor]:
    # Checked here, not inside a generator, so iter(0-d tensor) itself raises (as in PyTorch).
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (_C.select(self, 0, i) for i in range(self.shape[0]))


def _array(self: Tensor, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
    # np.asarray(t) (copy=None) shares memory, as numpy's own asarray does; np.array(t)
    # (copy=True) must not, or writes to the "copy" would change the tensor.
    a = self.numpy()
    if dtype is not None and np.dtype(dtype) != a.dtype:
        if copy is False:
            raise ValueError(f"__array__: converting {self.dtype.name} to {np.dtype(dtype)} "
                             f"needs a copy, but copy=False was given")
        return a.astype(dtype)
    return a.copy() if copy else a


def _dlpack(self: Tensor, *, stream: Any = None, max_version: Any = None,
            dl_device: Any = None, copy: Optional[bool] = None) -> Any:
    """A DLPack capsule viewing this tensor's memory (zero-copy; the consumer keeps the
    memory alive). bfloat16 has no numpy dtype and cannot be exported this way."""
    if self.requires_grad:
        raise RuntimeError("__dlpack__: can't export a tensor that requires grad; use "
                           "tensor.detach()")
    if self.dtype == dtype.bfloat16:
        raise TypeError("__dlpack__: bfloat16 tensors cannot be exported (convert with "
                        ".float() first)")
    a = self.numpy()
    if copy:
        a = a.copy()
    kw: Dict[str, Any] = {}
    if max_version is not None:
        kw["max_version"] = max_version
    try:
        return a.__dlpack__(stream=stream, **kw)
    except TypeError:
        return a.__dlpack__(stream=stream)


def _dlpack_device(self: Tensor) -> Tuple[int, int]:
    """(kDLCPU, 0): tandem tensors live in host memory."""
    return (1, 0)


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """to(dtype), to(other_tensor) or to(device, dtype); CPU is the only device (a CUDA
    device raises)."""
    from ._device import as_device, device as _dev
    target = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    if kwargs.get("device") is not None:
        as_device(kwargs["device"], "Tensor.to")
    for a in args:
        if isinstance(a, _C.dtype):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
        elif isinstance(a, (str, _dev)) or (isinstance(a, int) and not isinstance(a, bool)):
            as_device(a, "Tensor.to")
        else:
            raise TypeError(f"to: expected a dtype, a tensor or a device, got {type(a).__name__}")
    if target is None or target == self.dtype:
        return _C.clone(self) if copy else self  # same dtype: self, as PyTorch returns
    return _C.to_dtype(self, target, copy)


def _type(self: Tensor, dtype_: Optional["DType"] = None) -> Union[str, Tensor]:
    if dtype_ is None:
        return f"tandem.{self.dtype.name.capitalize()}Tensor"
    return _C.to_dtype(self, dtype_)


def _cast(d: "DType") -> Any:
    def cast(self: Tensor) -> Tensor:
        return self if self.dtype == d else _C.to_dtype(self, d)
    cast.__doc__ = f"self converted to {d.name} (self when it already is)."
    return cast


def _astype(self: Tensor, d: "DType") -> Tensor:
    """self converted to dtype d (MindSpore's and numpy's name for to(dtype))."""
    return _C.to_dtype(self, d)


def _clone(self: Tensor) -> Tensor:
    """A copy of self with its own memory (recorded by autograd)."""
    return _C.clone(self)


def _is_floating_point(self: Tensor) -> bool:
    """True for float16, bfloat16, float32 and float64 tensors."""
    return self.dtype in _FLOAT


def _cpu(self: Tensor, memory_format: Any = None) -> Tensor:
    """self (tandem runs on the CPU)."""
    return self


def _cuda(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    """Raises: tandem has no CUDA backend (check mint.cuda.is_available() first)."""
    raise RuntimeError("Tensor.cuda: tandem has no CUDA backend (mint.cuda.is_available() "
                       "is False); keep tensors on the CPU or use "
                       "x.to(d2l.try_gpu()) / x.to('cpu')")


def _T(self: Tensor) -> Tensor:
    return _C.permute(self, list(range(self.ndim))[::-1])


def _mT(self: Tensor) -> Tensor:
    return _C.transpose(self, -2, -1)


def _device(self: Tensor) -> Any:
    from ._device import CPU
    return CPU


def _is_cuda(self: Tensor) -> bool:
    return False


def _get_data(self: Tensor) -> Tensor:
    return self.detach()


def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    return self._copy_from(src)


def _fill_(self: Tensor, value: Any) -> Tensor:
    return self._fill(value)


def _zero_(self: Tensor) -> Tensor:
    return self._fill(0)


def _new_tensor(self: Tensor, data: Any, dtype: Optional["DType"] = None) -> Tensor:
    return Tensor(data, self.dtype if dtype is None else dtype)


def _new_zeros(self: Tensor, *size: Any, dtype: Optional["DType"] = None) -> Tensor:
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    return _C.full(size, 0, self.dtype if dtype is None else dtype)


def _new_ones(self: Tensor, *size: Any, dtype: Optional["DType"] = None) -> Tensor:
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    return _C.full(size, 1, self.dtype if dtype is None else dtype)


def _new_full(self: Tensor, size: Any, fill_value: Any, dtype: Optional["DType"] = None) -> Tensor:
    return _C.full(tuple(size), fill_value, self.dtype if dtype is None else dtype)


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    return _C.normal_(self, mean, std)


def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    return _C.uniform_(self, a, b)


def _bernoulli_(self: Tensor, p: Any = 0.5) -> Tensor:
    """Fills self with 0 / 1 draws from Bernoulli(p) in place (PyTorch's ``bernoulli_``).

    Args:
        p (float or Tensor): the probability of a 1, a number in [0, 1] or a tensor of them
            broadcastable to self. Default: ``0.5``.

    Returns:
        Tensor: self.
    """
    fdt = self.dtype if self.is_floating_point() else dtype.float32
    if isinstance(p, Tensor):
        probs = _C.to_dtype(_C.broadcast_to(p, self.shape), fdt, False)
    else:
        from ._impl.creation import check_probability
        probs = _C.full(self.shape, check_probability(p, "bernoulli_"), fdt)
    return self._copy_from(_C.bernoulli(probs))


_c_setitem = Tensor.__setitem__


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    # PyTorch drops leading size-1 dims of the value before broadcasting it into the slot
    # (x[i] = t with t of shape (1, 1) into a scalar slot); numpy broadcasting alone refuses.
    try:
        _c_setitem(self, index, value)
    except (ValueError, RuntimeError):
        if not isinstance(value, Tensor) or value.ndim == 0 or value.shape[0] != 1:
            raise
        v = value
        while v.ndim > 0 and v.shape[0] == 1:
            v = _C.reshape(v, list(v.shape[1:]))
            try:
                _c_setitem(self, index, v)
                return
            except (ValueError, RuntimeError):
                continue
        raise


def install() -> None:
    """Attaches the Python-level methods to the Tensor class."""
    if not hasattr(Tensor, "_size_method"):  # the binding's size(), behind the size property
        Tensor._size_method = Tensor.size
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in EXTRA_METHODS.items():
        setattr(Tensor, name, fn)


class GradFn:
    """The op that produced a tensor, for printing (PyTorch's grad_fn)."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<{''.join(p.capitalize() for p in self._name.split('_'))}Backward>"


def _grad_fn(self: Tensor) -> Optional["GradFn"]:
    name = self._grad_fn_name
    return GradFn(name) if name else None


def _backward(self: Tensor, gradient: Any = None, retain_graph: Optional[bool] = None,
              create_graph: bool = False) -> None:
    """Accumulates the gradient of this tensor into the .grad of the leaves it depends on.

    Works inside no_grad() too (D2L's Trainer calls it there)."""
    if gradient is not None and not isinstance(gradient, Tensor):
        gradient = Tensor(gradient)
    retain = create_graph if retain_graph is None else bool(retain_graph)
    self._backward(gradient, retain, bool(create_graph))


def _set_data(self: Tensor, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
    self._set_impl(value.detach())


def _rebuild(array, requires_grad):
    t = _C.from_numpy(array, True)
    return t.requires_grad_(True) if requires_grad else t


def _reduce_ex(self: Tensor, protocol: "SupportsIndex") -> Tuple[Any, ...]:
    """Pickles the values (a copy), dtype and requires_grad of a leaf tensor."""
    src = self.detach()
    if self.dtype == dtype.bfloat16:
        raise TypeError("pickling bfloat16 tensors is not supported; convert with .float()")
    return (_rebuild, (src.contiguous().numpy().copy(), bool(self.requires_grad and self.is_leaf)))


def _deepcopy(self: Tensor, memo: Dict[int, Any]) -> Tensor:
    t = _C.clone(self.detach())
    if self.requires_grad and self.is_leaf:
        t.requires_grad_(True)
    memo[id(self)] = t
    return t


def _alias(self):
    """A new Tensor object sharing this one's data (detach before autograd exists)."""
    return _C.as_strided(self, list(self.shape), list(self.stride()), self.storage_offset())


class _Size(int):
    """MindSpore's ``Tensor.size`` (the element count, an int) that PyTorch code can still
    call: ``t.size`` is 6 and ``t.size()`` is ``(2, 3)``, ``t.size(1)`` is 3."""

    _shape: Tuple[int, ...]

    def __new__(cls, t: Tensor) -> "_Size":
        out = super().__new__(cls, t.numel())
        out._shape = tuple(t.shape)
        out._tensor = t
        return out

    @overload
    def __call__(self) -> Tuple[int, ...]: ...

    @overload
    def __call__(self, dim: int) -> int: ...

    def __call__(self, dim: Optional[int] = None) -> Any:
        return _C.Tensor._size_method(self._tensor, dim)


def _size(self: Tensor) -> "_Size":  # an int that is also callable as size() / size(dim)
    return _Size(self)


def _nbytes(self: Tensor) -> int:
    """Bytes the elements occupy (numel * itemsize), as MindSpore's and numpy's nbytes."""
    return int(self.numel() * self.itemsize)


def _strides(self: Tensor) -> Tuple[int, ...]:
    """The step of each dimension in bytes (MindSpore and numpy; stride() counts elements)."""
    return tuple(int(s) * int(self.itemsize) for s in self.stride())


def _from_numpy(array: "np.ndarray") -> Tensor:
    """A tensor sharing memory with the numpy array (MindSpore's Tensor.from_numpy).

    Args:
        array (numpy.ndarray): a numpy array of a supported dtype.

    Returns:
        Tensor, whose writes and the array's show through each other.
    """
    return _C.from_numpy(array)


def _init_data(self: Tensor, slice_index: Optional[int] = None, shape: Any = None,
               opt_shard_group: Optional[str] = None) -> Tensor:
    """MindSpore materialises a Tensor(shape=, init=) here; tandem filled it at construction.

    Args:
        slice_index (int, optional): unused (parallel slicing). Default: ``None`` .
        shape (list, optional): unused. Default: ``None`` .
        opt_shard_group (str, optional): unused. Default: ``None`` .

    Returns:
        Tensor, this tensor.
    """
    return self


#: Tensor behaviour that is not an op (the ops' methods come from the op table).
EXTRA_METHODS: Dict[str, Any] = {
    "__repr__": _repr,
    "__str__": _str,
    "__format__": _format,
    "__iter__": _iter,
    "__array__": _array,
    "__array_priority__": 1000,
    "__setitem__": _setitem,
    "to": _to,
    "type": _type,
    "astype": _astype,
    "float": _cast(dtype.float32),
    "double": _cast(dtype.float64),
    "half": _cast(dtype.float16),
    "bfloat16": _cast(dtype.bfloat16),
    "long": _cast(dtype.int64),
    "int": _cast(dtype.int32),
    "short": _cast(dtype.int16),
    "char": _cast(dtype.int8),
    "byte": _cast(dtype.uint8),
    "bool": _cast(dtype.bool),
    "clone": _clone,
    "copy_": _copy_,
    "fill_": _fill_,
    "zero_": _zero_,
    "normal_": _normal_,
    "uniform_": _uniform_,
    "bernoulli_": _bernoulli_,
    "new_tensor": _new_tensor,
    "new_zeros": _new_zeros,
    "new_ones": _new_ones,
    "new_full": _new_full,
    "is_floating_point": _is_floating_point,
    "cpu": _cpu,
    "cuda": _cuda,
    "__dlpack__": _dlpack,
    "__dlpack_device__": _dlpack_device,
    "T": property(_T),
    "mT": property(_mT),
    "device": property(_device),
    "is_cuda": property(_is_cuda),
    "data": property(_get_data, _set_data),
    "backward": _backward,
    "__reduce_ex__": _reduce_ex,
    "__deepcopy__": _deepcopy,
    "grad_fn": property(_grad_fn),
    "size": property(_size),
    "nbytes": property(_nbytes),
    "strides": property(_strides),
    "from_numpy": staticmethod(_from_numpy),
    "init_data": _init_data,
}
