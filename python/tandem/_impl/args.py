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


def size(size: Tuple[Any, ...], op: str = "", what: str = "size") -> tuple:
    """The *size of zeros(2, 3) / zeros((2, 3)) / zeros([2, 3]) as one tuple; with `op`, a
    float (or other non-int) in it is a TypeError naming op and `what`."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = _one_sequence(op, what, size[0])
    if op:
        for e in size:
            if type(e) is not int:
                int_seq_arg(op, what, tuple(size))
                break
    return tuple(size)


def size_or_scalar(size: Any) -> tuple:
    """A size argument that may be None (a 0-d result) or one int."""
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def shape(shape: Tuple[Any, ...], op: str = "", what: str = "shape") -> Any:
    """Accepts f(2, 3), f((2, 3)) and f([2, 3]) for the *shape of Tensor methods."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        return _one_sequence(op, what, shape[0])
    return shape


def _one_sequence(op: str, what: str, value: Any) -> tuple:
    """The one argument of f(*shape) that is not an int: a sequence (as a tuple), or an
    integer-like object (a numpy int, an integer 0-d Tensor) as a 1-tuple; a float, even
    2.0, or another object is a TypeError naming op and `what`."""
    if isinstance(value, Tensor) and value.ndim == 0 or not hasattr(value, "__iter__"):
        i = _index(value)
        if i is None:
            raise TypeError(f"{op or 'function'}(): argument '{what}' must be tuple of ints, "
                            f"not {_type_name(value)}{_int_fix(what, value)}")
        return (i,)
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{op or 'function'}(): argument '{what}' must be tuple of ints, not "
                        f"{_type_name(value)}")
    return tuple(value)


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


def same_ndim(op: str, a: Any, b: Any) -> tuple:
    """(a, b), when both have the same number of dims (PyTorch broadcasts cross's operands
    only then); a ValueError naming both shapes otherwise."""
    if a.ndim != b.ndim:
        raise ValueError(f"{op}: inputs must have the same number of dimensions, got "
                         f"{list(a.shape)} and {list(b.shape)}; unsqueeze the smaller one")
    return a, b


def not_a_tensor_or_number(op: str, name: str, value: Any) -> None:
    """Raises the TypeError for a list or tuple passed where the op table declares a tensor
    or a number (PyTorch converts neither; build the tensor with tensor(...))."""
    raise TypeError(f"{op}(): argument '{name}' must be a Tensor or a number, not "
                    f"{type(value).__name__}; convert it with tensor(...)")


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
        return globals()["size"]((size_kw["size"],), op)
    return globals()["size"](size, op)


def write_back(op: str, self: Tensor, result: Tensor) -> Tensor:
    """`self.<op>_(...)`: writes an out-of-place result into self, which must be able to hold
    its dtype (PyTorch's rule: a float result is not silently truncated into an integer
    tensor)."""
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"{op}_: result type {result.dtype} can't be cast to the desired "
                           f"output type {self.dtype}")
    return self.copy_(result)


# --- int and number parameters of the mint (PyTorch) face ---------------------------------
# tandem._api.gen emits an inline fast check for each parameter the op table declares as
# int, a sequence of ints or a Number, and calls these only when it fails: a float where an
# int is wanted (even 2.0, as PyTorch), an int outside the C type PyTorch converts it to.

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
#: PyTorch's Scalar takes Python ints in [-2**63, 2**64) (the upper half as uint64).
SCALAR_END = 1 << 64


def _type_name(value: Any) -> str:
    if value is None:
        return "NoneType"
    if isinstance(value, Tensor):
        return "Tensor"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _int_fix(name: str, value: Any) -> str:
    """The hint after "must be int, not float": the value, and int(value) when it is whole."""
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        try:
            whole = float(value).is_integer()
        except (TypeError, ValueError, OverflowError):
            whole = False
        if whole:
            return f" (got {value!r}; pass int({name}) = {int(float(value))} for a whole number)"
        return f" (got {value!r})"
    if isinstance(value, Tensor):
        return f" (got a {value.dtype} Tensor of shape {tuple(value.shape)}; pass .item() of " \
               f"an integer Tensor or an int)"
    return ""


def _index(value: Any) -> Any:
    """operator.index(value), or None when value is not an integer (a float, a float tensor,
    a str, ...)."""
    if isinstance(value, float):
        return None
    try:
        return operator.index(value)
    except (TypeError, ValueError, RuntimeError):
        return None


def int_arg(op: str, name: str, value: Any) -> Any:
    """The slow path of the generated check of an ``int`` parameter (the fast one passed for
    an int in the int64 range): a bool is accepted as it is, an integer-like object (numpy
    int, integer 0-d Tensor) becomes an int; a float, even 2.0, is a TypeError and an int
    outside int64 a ValueError, as PyTorch raises them."""
    if isinstance(value, bool):
        return value
    i = value if isinstance(value, int) else _index(value)
    if i is None:
        raise TypeError(f"{op}(): argument '{name}' must be int, not {_type_name(value)}"
                        f"{_int_fix(name, value)}")
    if not INT64_MIN <= i <= INT64_MAX:
        raise ValueError(f"{op}(): argument '{name}' = {i} does not fit a 64-bit int (the "
                         "int64 range is [-2**63, 2**63 - 1])")
    return i


def int_seq_arg(op: str, name: str, value: Any) -> None:
    """The slow path of the generated check of an int-or-sequence-of-ints parameter (a dim,
    a shape, a kernel size): raises for a float (or None) where an int is wanted, inside a
    list or tuple too, and for ints outside int64. Other objects (Tensors, strings where
    the op takes one) are left to the op."""
    if isinstance(value, (list, tuple)):
        for pos, item in enumerate(value):
            if isinstance(item, bool) or type(item) is int and INT64_MIN <= item <= INT64_MAX:
                continue
            i = item if isinstance(item, int) else _index(item)
            if i is None:
                raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, but found "
                                f"element of type {_type_name(item)} at pos {pos}"
                                f"{_int_fix(f'{name}[{pos}]', item)}")
            if not INT64_MIN <= i <= INT64_MAX:
                raise ValueError(f"{op}(): argument '{name}' element {pos} = {i} does not fit a "
                                 "64-bit int (the int64 range is [-2**63, 2**63 - 1])")
        return
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"{op}(): argument '{name}' = {value} does not fit a 64-bit int "
                             "(the int64 range is [-2**63, 2**63 - 1])")
        return
    if value is None or isinstance(value, float) or \
            type(value).__name__.startswith("float") or \
            isinstance(value, Tensor) and value.ndim == 0 and value.is_floating_point():
        raise TypeError(f"{op}(): argument '{name}' must be int or tuple of ints, not "
                        f"{_type_name(value)}{_int_fix(name, value)}")


def number_arg(op: str, name: str, value: Any) -> None:
    """The slow path of the generated check of a Number parameter (PyTorch's Scalar): None
    is a TypeError; an int outside [-2**63, 2**64) is the OverflowError PyTorch raises (a
    Python float carries such a value)."""
    if value is None:
        raise TypeError(f"{op}(): argument '{name}' must be Number, not NoneType")
    if isinstance(value, int) and not INT64_MIN <= value < SCALAR_END:
        raise OverflowError(f"{op}(): argument '{name}' = {value} does not fit a 64-bit "
                            "integer scalar (Python ints must lie in [-2**63, 2**64), as in "
                            "PyTorch); pass a float for a value this large")
