"""Argument normalisation shared by the ops: dims, sizes, int lists, tensor lists, pairs."""
from __future__ import annotations

import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .. import _C

Tensor = _C.Tensor


def dims(dim: Any, axis: Any = None) -> Optional[Union[int, List[int]]]:
    """dim (or its alias axis) as None, an int or a list of ints."""
    if axis is not None:
        if dim is not None:
            raise TypeError("pass either dim or axis, not both")
        dim = axis
    if isinstance(dim, Tensor):
        dim = dim.tolist()
    if dim is None:
        return None
    try:
        if isinstance(dim, (list, tuple)):
            return [operator.index(d) for d in dim]
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, a sequence of ints or None, got {dim!r}") from None


def one_dim(dim: Any, axis: Any, default: Any = 0) -> Any:
    """A single dim given as dim or as its alias axis; both (dim not at its default) is an
    error rather than a silent choice of one."""
    if axis is None:
        return dim
    if dim is not default and dim != default:
        raise TypeError(f"pass either dim or axis, not both (got dim={dim!r}, axis={axis!r})")
    return axis


def size(size: Tuple[Any, ...]) -> tuple:
    """The *size of zeros(2, 3) / zeros((2, 3)) / zeros([2, 3]) as one tuple."""
    if len(size) == 1 and not isinstance(size[0], int):
        return tuple(size[0])
    return tuple(size)


def size_or_scalar(size: Any) -> tuple:
    """A size argument that may be None (a 0-d result) or one int."""
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def shape(shape: Tuple[Any, ...]) -> Any:
    """Accepts f(2, 3), f((2, 3)) and f([2, 3]) for the *shape of Tensor methods."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return shape


def ints(v: Any, op: str, what: str) -> List[int]:
    """An int, a sequence of ints or an integer Tensor as a list of ints."""
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, int):
        return [v]
    try:
        return [operator.index(e) for e in v]
    except TypeError:
        raise TypeError(f"{op}: {what} must be an int or a sequence of ints, got {v!r}") from None


def varargs(args: Tuple[Any, ...], op: str, what: str, required: bool = False) -> List[int]:
    """Tensor.repeat(2, 3), .repeat((2, 3)) and .repeat([2, 3]) alike; `required`: at least
    one argument (torch's TypeError for .repeat())."""
    if required and not args:
        raise TypeError(f"{op}() missing 1 required positional argument: {what!r}")
    if len(args) == 1 and not isinstance(args[0], int):
        return ints(args[0], op, what)
    return ints(args, op, what)


def not_a_tensor(op: str, name: str, value: Any) -> None:
    """Raises the TypeError for a non-Tensor passed where the op table declares a Tensor
    (the generated functions check before any helper reads ``.shape`` or ``.ndim`` of it)."""
    raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(value).__name__}")


def not_a_bool(op: str, name: str, value: Any) -> None:
    """Raises the TypeError for a non-bool passed where the op table declares a bool (numpy's
    bool_ is accepted and passed on as a bool by the caller's own check)."""
    if type(value).__name__ == "bool_":
        return
    raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")


def not_a_dtype(op: str, name: str, value: Any) -> None:
    """Raises the TypeError for a non-dtype passed where the op table declares a DType."""
    raise TypeError(f"{op}(): argument '{name}' must be a tandem dtype (e.g. mint.float32), "
                    f"not {type(value).__name__}")


def tensor_list(tensors: Any, op: str) -> List[Tensor]:
    """A list of Tensors from a list / tuple (PyTorch rejects a bare Tensor here too)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}: expected a list or tuple of Tensors, got {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: expected a sequence of Tensors, but element {i} is "
                            f"{type(t).__name__}")
    return list(tensors)


def pair(v: Union[int, Sequence[int]], n: int = 2, name: str = "argument",
         one: bool = True) -> List[int]:
    """An int or a sequence of n ints (or of one int, unless one=False: fold/unfold want
    exactly n, as in PyTorch) as a list of n ints."""
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) == 1 and one:
        return v * n
    if len(v) != n:
        raise ValueError(f"expected {name} to be an int or a sequence of {n} ints, got {v}")
    return v


def size_or_keyword(size: Tuple[Any, ...], size_kw: Dict[str, Any], op: str) -> tuple:
    """The shape of ``rand(2, 3)`` / ``rand((2, 3))`` / ``rand(size=(2, 3))``: the *size
    positional form, or PyTorch's ``size=`` keyword (never both, no other keyword)."""
    extra = [k for k in size_kw if k != "size"]
    if extra:
        raise TypeError(f"{op}() got an unexpected keyword argument {extra[0]!r}")
    if "size" in size_kw:
        if size:
            raise TypeError(f"{op}(): the size was given both by position {size} and as "
                            f"size={size_kw['size']!r}; pass it once")
        kw = size_kw["size"]
        return (int(kw),) if isinstance(kw, int) else tuple(kw)
    return globals()["size"](size)


def write_back(op: str, self: Tensor, result: Tensor) -> Tensor:
    """`self.<op>_(...)`: writes an out-of-place result into self, which must be able to hold
    its dtype (PyTorch's rule: a float result is not silently truncated into an integer
    tensor)."""
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"{op}_: result type {result.dtype} can't be cast to the desired "
                           f"output type {self.dtype}")
    return self.copy_(result)
