"""MindSpore's primitive classes (``ops.Add()(x, y)``, ``ops.ReduceMean(keep_dims=True)(x,
axis)``, ``ops.Softmax(axis)(x)``, ``ops.GradOperation(...)``): configured at construction,
called with tensors. Each forwards to the same functional op as ``tandem.ops``; none has an
implementation of its own."""
from __future__ import annotations

from typing import Any, Callable, Sequence, Tuple

from .. import _C
from .._generated import ms_api as F

Tensor = _C.Tensor


class Primitive:
    """The base of the primitive classes: ``Prim(attrs...)(inputs...)``."""

    def __call__(self, *inputs: Any) -> Any:
        """Runs the op.

        Args:
            *inputs: the op's inputs.

        Returns:
            The op's result.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


def _simple(name: str, fn: Callable[..., Any], doc: str) -> type:
    def call(self: Primitive, *inputs: Any) -> Any:
        return fn(*inputs)

    call.__doc__ = ("Runs the op.\n\n        Args:\n            *inputs: the op's inputs.\n\n"
                    "        Returns:\n            The op's result.\n        ")
    cls = type(name, (Primitive,), {"__call__": call, "__doc__": doc + "\n\n    Args:\n"
                                    "        No constructor arguments.\n"})
    return cls


# Elementwise and other attribute-free primitives: Prim()(inputs) == ops.fn(inputs).
_SIMPLE = {
    "Add": (F.add, "x + y."), "Sub": (F.sub, "x - y."), "Mul": (F.mul, "x * y."),
    "Div": (F.div, "x / y."), "RealDiv": (F.div, "x / y."),
    "FloorDiv": (F.floor_divide, "x // y."), "Mod": (F.remainder, "x % y (floor mod)."),
    "Pow": (F.pow, "x ** y."), "Maximum": (F.maximum, "The elementwise maximum."),
    "Minimum": (F.minimum, "The elementwise minimum."), "Neg": (F.neg, "-x."),
    "Abs": (F.abs, "|x|."), "Exp": (F.exp, "e ** x."), "Log": (F.log, "The natural log."),
    "Sqrt": (F.sqrt, "The square root."), "Square": (F.square, "x * x."),
    "Rsqrt": (F.rsqrt, "1 / sqrt(x)."), "Sin": (F.sin, "sin(x)."), "Cos": (F.cos, "cos(x)."),
    "ReLU": (F.relu, "max(x, 0)."), "Sigmoid": (F.sigmoid, "1 / (1 + e ** -x)."),
    "Tanh": (F.tanh, "tanh(x)."), "HSwish": (F.hardswish, "x * relu6(x + 3) / 6."),
    "HSigmoid": (F.hardsigmoid, "relu6(x + 3) / 6."),
    "Equal": (F.eq, "x == y."), "NotEqual": (F.ne, "x != y."), "Greater": (F.gt, "x > y."),
    "GreaterEqual": (F.ge, "x >= y."), "Less": (F.lt, "x < y."), "LessEqual": (F.le, "x <= y."),
    "LogicalAnd": (F.logical_and, "x and y."), "LogicalOr": (F.logical_or, "x or y."),
    "LogicalNot": (F.logical_not, "not x."), "Select": (F.select, "x where cond, else y."),
    "MatrixInverse": (F.inverse, "The matrix inverse."),
    "Reshape": (F.reshape, "x with the given shape: Reshape()(x, shape)."),
    "Transpose": (F.transpose, "x with permuted dims: Transpose()(x, perm)."),
    "Cast": (F.cast, "x converted: Cast()(x, dtype)."),
    "ExpandDims": (F.expand_dims, "A new dim of size 1: ExpandDims()(x, axis)."),
    "Shape": (F.shape, "The shape tuple."), "Rank": (F.rank, "The number of dims."),
    "Size": (F.size, "The number of elements."),
    "ZerosLike": (F.zeros_like, "Zeros of x's shape and dtype."),
    "OnesLike": (F.ones_like, "Ones of x's shape and dtype."),
    "Zeros": (F.zeros, "Zeros: Zeros()(shape, dtype)."),
    "Ones": (F.ones, "Ones: Ones()(shape, dtype)."),
    "Fill": (F.fill, "Fill()(dtype, shape, value)."),
    "Gather": (F.gather, "Slices at indices: Gather()(params, indices, axis)."),
    "GatherD": (F.gather_elements, "PyTorch's gather: GatherD()(x, dim, index)."),
    "Tile": (F.tile, "x repeated: Tile()(x, multiples)."),
    "BroadcastTo": (F.broadcast_to, "x broadcast to a shape."),
    "StopGradient": (F.stop_gradient, "x without gradient history."),
    "Depend": (F.depend, "value, after expr: Depend()(value, expr)."),
    "Assign": (F.assign, "Writes value into variable: Assign()(variable, value)."),
    "Identity": (lambda x: x, "x itself."),
    "Flatten": (lambda x: F.flatten(x), "x as (N, -1)."),
    "Dense": (F.dense, "x @ w.T + b: Dense()(x, w, b)."),
}
for _name, (_fn, _doc) in _SIMPLE.items():
    globals()[_name] = _simple(_name, _fn, _doc)


class _Reduce(Primitive):
    _fn: Callable[..., Tensor] = staticmethod(F.sum)

    def __init__(self, keep_dims: bool = False) -> None:
        self.keep_dims = bool(keep_dims)

    def __call__(self, x: Tensor, axis: Any = ()) -> Tensor:
        """Reduces x over axis (every axis when ``()``).

        Args:
            x (Tensor): the input.
            axis (Union[int, tuple[int]]): the axes; ``()`` reduces all. Default: ``()`` .

        Returns:
            Tensor, the reduction.
        """
        dims = None if axis in ((), []) or axis is None else axis
        return self._fn(x, dims, self.keep_dims)


class ReduceSum(_Reduce):
    """The sum over axes.

    Args:
        keep_dims (bool): keep each reduced axis with size 1. Default: ``False`` .
    """

    _fn = staticmethod(lambda x, d, k: F.sum(x, d, k))


class ReduceMean(_Reduce):
    """The mean over axes.

    Args:
        keep_dims (bool): keep each reduced axis with size 1. Default: ``False`` .
    """

    _fn = staticmethod(lambda x, d, k: F.mean(x, d, k))


class ReduceMax(_Reduce):
    """The maximum over axes.

    Args:
        keep_dims (bool): keep each reduced axis with size 1. Default: ``False`` .
    """

    _fn = staticmethod(lambda x, d, k: F.amax(x, () if d is None else d, k))


class ReduceMin(_Reduce):
    """The minimum over axes.

    Args:
        keep_dims (bool): keep each reduced axis with size 1. Default: ``False`` .
    """

    _fn = staticmethod(lambda x, d, k: F.amin(x, () if d is None else d, k))


class ReduceProd(_Reduce):
    """The product over axes.

    Args:
        keep_dims (bool): keep each reduced axis with size 1. Default: ``False`` .
    """

    _fn = staticmethod(lambda x, d, k: _prod(x, d, k))


def _prod(x: Tensor, d: Any, k: bool) -> Tensor:
    if d is None:
        out = F.prod(x)
        return F.reshape(out, (1,) * x.ndim) if k else out
    for a in sorted((d,) if isinstance(d, int) else d, key=lambda a: -(a % x.ndim)):
        x = F.prod(x, a, k)
    return x


class _Axis(Primitive):
    def __init__(self, axis: int = -1) -> None:
        self.axis = axis


class Softmax(_Axis):
    """Softmax along axis.

    Args:
        axis (Union[int, tuple[int]]): the axis. Default: ``-1`` .
    """

    def __call__(self, x: Tensor) -> Tensor:
        """Softmax of x.

        Args:
            x (Tensor): the logits.

        Returns:
            Tensor, the probabilities.
        """
        axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
        return F.softmax(x, axis)


class LogSoftmax(_Axis):
    """Log-softmax along axis.

    Args:
        axis (int): the axis. Default: ``-1`` .
    """

    def __call__(self, x: Tensor) -> Tensor:
        """Log-softmax of x.

        Args:
            x (Tensor): the logits.

        Returns:
            Tensor, the log-probabilities.
        """
        return F.log_softmax(x, self.axis)


class Concat(_Axis):
    """Joins tensors along axis.

    Args:
        axis (int): the axis. Default: ``0`` .
    """

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis)

    def __call__(self, x: Sequence[Tensor]) -> Tensor:
        """Concatenation of the tensors.

        Args:
            x (tuple[Tensor]): the tensors.

        Returns:
            Tensor, the joined tensor.
        """
        return F.concat(tuple(x), self.axis)


class Stack(_Axis):
    """Stacks tensors along a new axis.

    Args:
        axis (int): the new axis. Default: ``0`` .
    """

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis)

    def __call__(self, x: Sequence[Tensor]) -> Tensor:
        """The stacked tensors.

        Args:
            x (tuple[Tensor]): the tensors.

        Returns:
            Tensor, the stack.
        """
        return F.stack(tuple(x), self.axis)


class Squeeze(Primitive):
    """Removes size-1 axes.

    Args:
        axis (Union[int, tuple[int]]): the axes (all size-1 axes when ``()``).
            Default: ``()`` .
    """

    def __init__(self, axis: Any = ()) -> None:
        self.axis = axis

    def __call__(self, x: Tensor) -> Tensor:
        """x without the axes.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor, the squeezed tensor.
        """
        return F.squeeze(x, None if self.axis in ((), []) else self.axis)


class Argmax(Primitive):
    """The index of the maximum along axis.

    Args:
        axis (int): the axis. Default: ``-1`` .
        output_type (dtype): the index dtype. Default: ``int32`` .
    """

    def __init__(self, axis: int = -1, output_type: Any = None) -> None:
        self.axis = axis
        self.output_type = output_type or _C.dtype.int32

    def __call__(self, x: Tensor) -> Tensor:
        """The indices.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor, of output_type.
        """
        return F.cast(F.argmax(x, self.axis), self.output_type)


class MatMul(Primitive):
    """x @ y of 2-D tensors, optionally transposed.

    Args:
        transpose_a (bool): use x.T. Default: ``False`` .
        transpose_b (bool): use y.T. Default: ``False`` .
    """

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x: Tensor, y: Tensor) -> Tensor:
        """The product.

        Args:
            x (Tensor): the left matrix.
            y (Tensor): the right matrix.

        Returns:
            Tensor, the product.
        """
        if self.transpose_a:
            x = F.swapaxes(x, -1, -2)
        if self.transpose_b:
            y = F.swapaxes(y, -1, -2)
        return F.matmul(x, y)


class BatchMatMul(MatMul):
    """Batched x @ y, optionally transposed.

    Args:
        transpose_a (bool): transpose x's last two dims. Default: ``False`` .
        transpose_b (bool): transpose y's last two dims. Default: ``False`` .
    """


class OneHot(Primitive):
    """One-hot encoding: OneHot(axis)(indices, depth, on_value, off_value).

    Args:
        axis (int): where the class dim goes. Default: ``-1`` .
    """

    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def __call__(self, indices: Tensor, depth: int, on_value: Any, off_value: Any) -> Tensor:
        """The encoding.

        Args:
            indices (Tensor): class indices.
            depth (int): the number of classes.
            on_value (Union[Tensor, Number]): the value at the class.
            off_value (Union[Tensor, Number]): the value elsewhere.

        Returns:
            Tensor, the one-hot tensor.
        """
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """(per-sample loss, gradient wrt logits) of logits against one-hot/probability labels.

    Args:
        No constructor arguments.
    """

    def __call__(self, logits: Tensor, labels: Tensor) -> Tuple[Tensor, Tensor]:
        """The loss and the backprop term.

        Args:
            logits (Tensor): (N, C) logits.
            labels (Tensor): (N, C) probabilities.

        Returns:
            tuple(Tensor), (loss (N,), softmax(logits) - labels).
        """
        loss = F.neg(F.sum(F.mul(labels, F.log_softmax(logits, -1)), -1))
        return loss, F.sub(F.softmax(logits, -1), labels)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """The mean cross entropy of logits against class indices.

    Args:
        is_grad (bool): return the gradient wrt the logits instead. Default: ``False`` .
    """

    def __init__(self, is_grad: bool = False) -> None:
        self.is_grad = is_grad

    def __call__(self, logits: Tensor, labels: Tensor) -> Tensor:
        """The loss (or its gradient).

        Args:
            logits (Tensor): (N, C) logits.
            labels (Tensor): (N,) class indices.

        Returns:
            Tensor, the mean loss, or (softmax - one_hot) / N with is_grad.
        """
        if self.is_grad:
            n, c = logits.shape
            oh = F.one_hot(labels, c, 1.0, 0.0)
            return F.div(F.sub(F.softmax(logits, -1), oh), n)
        return F.cross_entropy(logits, F.cast(labels, _C.dtype.int64))


class GradOperation(Primitive):
    """A higher-order primitive: ``GradOperation(...)(fn[, weights])`` is a function returning
    gradients of fn (MindSpore 1.x's form of ``tandem.grad``).

    Args:
        get_all (bool): the gradients of every input (else of the first). Default: ``False`` .
        get_by_list (bool): the gradients of the weights given at the second call.
            Default: ``False`` .
        sens_param (bool): the returned function takes the output's gradient as its last
            argument. Default: ``False`` .
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False) -> None:
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn: Callable[..., Any], weights: Any = None) -> Callable[..., Any]:
        """The gradient function of fn.

        Args:
            fn (Callable): the function (or Cell) to differentiate.
            weights (Union[ParameterTuple, list[Parameter]], optional): the weights, with
                get_by_list. Default: ``None`` .

        Returns:
            Callable, returning the gradients.
        """
        from .._functional_grad import grad, vjp
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation: get_by_list=True needs the weights: "
                             "GradOperation(get_by_list=True)(fn, weights)")
        ws = list(weights) if self.get_by_list else None
        get_all, sens_param = self.get_all, self.sens_param

        def positions(nargs: int) -> Any:
            if self.get_by_list and not get_all:
                return None
            return tuple(range(nargs)) if get_all else 0

        def grad_fn(*args: Any) -> Any:
            if sens_param:
                *inputs, sens = args
                pos = positions(len(inputs))
                if pos is None:
                    out, pull = vjp(fn, *inputs, weights=ws)
                    return pull(sens)[1]
                out, pull = vjp(fn, *inputs, weights=ws)
                g = pull(sens)
                if ws is not None:
                    gi, gw = g
                    gi = gi if get_all else gi[0]
                    return gi, gw
                return g if get_all else g[0]
            pos = positions(len(args))
            return grad(fn, pos, ws)(*args)

        return grad_fn


__all__ = sorted(list(_SIMPLE) + [  # noqa: PLE0605  (a list at run time)
    "Primitive", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Softmax",
    "LogSoftmax", "Concat", "Stack", "Squeeze", "Argmax", "MatMul", "BatchMatMul", "OneHot",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "GradOperation"])
