"""MindSpore-style functional differentiation: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``.

Signatures and return shapes follow MindSpore 2.x:

* ``grad_position`` int -> the gradient of that input; tuple -> a tuple of gradients;
  None -> no input gradients (then ``weights`` must be given).
* ``weights`` (a tensor / Parameter or a sequence of them) -> a tuple of weight gradients;
  with ``grad_position`` too the result is ``(input_grads, weight_grads)``.
* ``has_aux`` -> only the first output is differentiated; the others come back unchanged
  (without gradient history): ``grad`` returns ``(grads, aux_tuple)``, ``value_and_grad``
  returns ``((out, *aux), grads)``.
* Without ``has_aux`` a function with several outputs is differentiated through the sum
  of its outputs (each output's sensitivity is ones).

Calls nest: when an argument already carries gradient history (an outer ``grad`` is
differentiating through this one), the gradients are built with ``create_graph`` so the
outer differentiation sees through them.
"""
from __future__ import annotations

from typing import Callable, Sequence, Union

from . import _C
from .autograd import enable_grad, grad as _autograd_grad

Tensor = _C.Tensor


def _positions(grad_position, nargs):
    """Validated positions, as MindSpore checks them (no negatives, no duplicates)."""
    if grad_position is None:
        return ()
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError(f"grad: grad_position must be an int, a tuple of ints or None, got "
                        f"{type(grad_position).__name__}")
    pos = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    if not pos:
        raise ValueError("grad: grad_position is an empty tuple; pass None to differentiate "
                         "with respect to weights only")
    for p in pos:
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"grad: the elements of grad_position must be ints, got "
                            f"{type(p).__name__}")
        if not 0 <= p < nargs:
            raise ValueError(f"grad: grad_position {p} is out of range for a function called "
                             f"with {nargs} positional arguments (valid: 0..{nargs - 1})")
    if len(set(pos)) != len(pos):
        raise ValueError(f"grad: grad_position {tuple(pos)} has duplicate positions")
    return pos


def _weights_list(weights):
    if weights is None:
        return []
    ws = [weights] if isinstance(weights, Tensor) else list(weights)
    for i, w in enumerate(ws):
        if not isinstance(w, Tensor):
            raise TypeError(f"grad: weights[{i}] must be a Tensor (Parameter), got "
                            f"{type(w).__name__}")
        if not w.requires_grad:
            raise ValueError(f"grad: weights[{i}] does not require grad; call "
                             f"requires_grad_() on it (trainable parameters do)")
    return ws


def _check_has_aux(has_aux):
    if not isinstance(has_aux, bool):
        raise TypeError(f"grad: has_aux must be a bool, got {type(has_aux).__name__}")


def _tensors_in(obj, found):
    """The tensors of a nested tuple / list / dict output, in order (MindSpore differentiates
    the sum of all of them; numbers and strings in it are constants)."""
    if isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors_in(o, found)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors_in(o, found)
    return found


def _split_outputs(out, has_aux, who):
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if has_aux:
        if len(outs) < 2:
            raise ValueError(f"{who}: with has_aux=True the function must return more than "
                             f"one output (the differentiated one first)")
        return outs[:1], outs[1:]
    if any(isinstance(o, (tuple, list, dict)) for o in outs):
        nested = tuple(_tensors_in(outs, []))
        if nested:
            return nested, ()
    return outs, ()


def _stop(x):
    return x.detach() if isinstance(x, Tensor) else x


def _nested(tensors):
    """Whether an outer differentiation is recording through these tensors."""
    return _C.is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad
                                        for t in tensors)


def _check_differentiable(args, pos):
    for p in pos:
        a = args[p]
        if not isinstance(a, Tensor):
            raise TypeError(f"grad: argument {p} must be a Tensor to be differentiated, got "
                            f"{type(a).__name__}")


def _as_leaf(a):
    """The tensor differentiated for argument a: integer and bool arguments (MindSpore
    differentiates them) are differentiated as float32 copies, and their gradients are
    converted back to the argument's dtype."""
    return a if a.dtype.is_floating_point else a.float()


def _prepare(args, pos):
    """args with the differentiated positions made leaves that require grad (or kept as
    they are when they already carry history, so nesting works)."""
    _check_differentiable(args, pos)
    args = list(args)
    for p in pos:
        a = args[p]
        if not a.dtype.is_floating_point:
            raise TypeError(f"grad: argument {p} has dtype {a.dtype}; only floating point "
                            "tensors can be differentiated")
        if not (a.requires_grad and _C.is_grad_enabled()):
            args[p] = a.detach().requires_grad_(True)
    return args


def _differentiate(fn, args, grad_position, weights, has_aux):
    """MindSpore's argument rules and result shapes around the C++ core
    (tandem._C.differentiate: leaves, grad mode, the gradients of the targets' sum)."""
    if grad_position is None and weights is None:
        raise ValueError("grad: grad_position and weights cannot both be None")
    _check_has_aux(has_aux)
    pos = _positions(grad_position, len(args))
    if not isinstance(grad_position, int):
        # MindSpore returns gradients for the tensors among the positions; a Python number
        # there is a constant.
        pos = [p for p in pos if not (isinstance(args[p], (int, float)) and
                                      not isinstance(args[p], Tensor))] or pos
    ws = _weights_list(weights)
    _check_differentiable(args, pos)
    seen = {}

    def run(leaves):
        a = list(args)
        for p, leaf in zip(pos, leaves):
            # A copy that carries the leaf's history: the function may update its argument
            # in place (x.add_(y)), as MindSpore allows, without touching the leaf.
            a[p] = leaf.clone()
        out = fn(*a)
        targets, aux = _split_outputs(out, has_aux, "grad")
        for t in targets:
            if not isinstance(t, Tensor):
                raise TypeError(f"grad: the function must return tensors, got "
                                f"{type(t).__name__}")
        seen.update(out=out, targets=targets, aux=aux)
        return list(targets)

    gs, nested = _C.differentiate(run, [_as_leaf(args[p]) for p in pos], ws)
    out, targets, aux = seen["out"], seen["targets"], seen["aux"]
    in_g = [g if g.dtype == args[p].dtype else g.to(args[p].dtype)
            for g, p in zip(gs[:len(pos)], pos)]
    w_g = tuple(gs[len(pos):])
    if grad_position is None:
        result = w_g
    else:
        ig = in_g[0] if isinstance(grad_position, int) else tuple(in_g)
        result = ig if weights is None else (ig, w_g)
    aux = tuple(_stop(a) for a in aux)
    if isinstance(out, (tuple, list)):
        value = tuple(o if nested else _stop(o) for o in targets) + aux
    else:
        value = out if nested else _stop(out)
    return value, result, aux


def grad(fn: Callable, grad_position: Union[int, Sequence[int], None] = 0,
         weights: Union[Tensor, Sequence[Tensor], None] = None, has_aux: bool = False,
         return_ids: bool = False) -> Callable:
    """A function computing the gradients of fn (MindSpore's mindspore.grad).

    Args:
        fn (Callable): the function to differentiate; it returns a tensor or a tuple of tensors
            (several outputs are summed, as MindSpore does, unless has_aux is set).
        grad_position (Union[int, Sequence[int], None]): the positional arguments to
            differentiate with respect to; None when only `weights` are wanted. Default: 0.
        weights (Union[Parameter, Sequence[Parameter], None]): parameters to differentiate
            with respect to, e.g. ``net.trainable_params()``. Default: None.
        has_aux (bool): only fn's first output is differentiated; the others are returned as
            auxiliary values, without gradients. Default: False.
        return_ids (bool): each gradient is returned as a ``(id, gradient)`` pair: the
            argument's position for inputs, the parameter's name for weights. Default: False.

    Returns:
        Callable, taking fn's arguments and returning the gradients: one tensor for an int
        `grad_position`, a tuple for a sequence, ``(input_grads, weight_grads)`` when both are
        given; with has_aux, ``(gradients, aux)``.

    Raises:
        ValueError: `grad_position` and `weights` are both None, or a position is out of range.
    """
    if grad_position is None and weights is None:
        raise ValueError("grad: grad_position and weights cannot both be None")

    def wrapped(*args):
        _, g, aux = _differentiate(fn, args, grad_position, weights, has_aux)
        if return_ids:
            g = _with_ids(g, grad_position, weights, len(args))
        return (g, aux) if has_aux else g

    return wrapped


def value_and_grad(fn: Callable, grad_position: Union[int, Sequence[int], None] = 0,
                   weights: Union[Tensor, Sequence[Tensor], None] = None,
                   has_aux: bool = False, return_ids: bool = False) -> Callable:
    """A function returning (fn's output, its gradients) (MindSpore's value_and_grad).

    Args:
        fn (Callable): the function to differentiate (a loss function or a Cell).
        grad_position (Union[int, Sequence[int], None]): the positional arguments to
            differentiate with respect to; None when only `weights` are wanted. Default: 0.
        weights (Union[Parameter, Sequence[Parameter], None]): parameters to differentiate
            with respect to, e.g. ``optimizer.parameters``. Default: None.
        has_aux (bool): only fn's first output is differentiated. Default: False.
        return_ids (bool): gradients come as ``(id, gradient)`` pairs, as in ``grad``.
            Default: False.

    Returns:
        Callable, taking fn's arguments and returning ``(value, gradients)``: value is fn's
        full output (a tuple when fn returns several), gradients are shaped as in ``grad``.

    Raises:
        ValueError: `grad_position` and `weights` are both None.
    """
    if grad_position is None and weights is None:
        raise ValueError("value_and_grad: grad_position and weights cannot both be None")

    def wrapped(*args):
        value, g, _ = _differentiate(fn, args, grad_position, weights, has_aux)
        return value, (_with_ids(g, grad_position, weights, len(args)) if return_ids else g)

    return wrapped


def _with_ids(g, grad_position, weights, nargs):
    """grad(return_ids=True): each gradient paired with its argument position or its
    parameter's name, nested as the gradients are."""
    pos = _positions(grad_position, nargs) if grad_position is not None else []
    names = [getattr(w, "name", None) for w in _weights_list(weights)]
    if grad_position is None:
        return tuple(zip(names, g))
    ig, wg = (g, None) if weights is None else g
    if isinstance(grad_position, int):
        ig = (pos[0], ig)
    else:
        ig = tuple(zip(pos, ig))
    return ig if weights is None else (ig, tuple(zip(names, wg)))


def get_grad(gradients: tuple, identifier: Union[int, Tensor]) -> Tensor:
    """The gradient of one input or parameter out of ``grad(..., return_ids=True)``'s result
    (MindSpore's mindspore.get_grad).

    Args:
        gradients (tuple): what ``grad`` returned (or ``value_and_grad``'s second output) with
            ``return_ids=True``.
        identifier (Union[int, Parameter]): an input position or a parameter given as weights.

    Returns:
        Tensor, that gradient.

    Raises:
        RuntimeError: no gradient has that identifier.
        TypeError: `identifier` is neither an int nor a Parameter.
    """
    if isinstance(identifier, bool) or not isinstance(identifier, (int, Tensor)):
        raise TypeError(f"get_grad: identifier must be an input position (int) or a Parameter, "
                        f"got {type(identifier).__name__}")
    key = identifier if isinstance(identifier, int) else getattr(identifier, "name", None)

    def find(g):
        if (isinstance(g, tuple) and len(g) == 2 and isinstance(g[1], Tensor)
                and isinstance(g[0], (int, str)) and not isinstance(g[0], bool)):
            return g[1] if (g[0] == key and type(g[0]) is type(key)) else None
        if isinstance(g, tuple):
            for item in g:
                hit = find(item)
                if hit is not None:
                    return hit
        return None

    hit = find(gradients)
    if hit is None:
        raise RuntimeError(f"get_grad: no gradient for identifier {key!r}; was grad called "
                           "with return_ids=True and this position or parameter?")
    return hit


def _aux_value(aux):
    return aux[0] if len(aux) == 1 else aux


def vjp(fn: Callable, *inputs: Tensor,
        weights: Union[Tensor, Sequence[Tensor], None] = None,
        has_aux: bool = False) -> tuple:
    """Vector-Jacobian products of fn at `inputs` (MindSpore's mindspore.vjp).

    Args:
        fn (Callable): the function; it returns a tensor or a tuple of tensors.
        inputs (Tensor): the point at which fn is differentiated.
        weights (Union[Parameter, Sequence[Parameter], None]): parameters to differentiate
            with respect to as well. Default: None.
        has_aux (bool): fn's outputs after the first are auxiliary values. Default: False.

    Returns:
        tuple, ``(fn(*inputs), vjp_fn)`` (plus aux with has_aux), where ``vjp_fn(v)`` returns the
        tuple of vector-Jacobian products, one per input (``(input_grads, weight_grads)`` when
        weights are given). vjp_fn can be called several times.

    Raises:
        TypeError: an input is not a Tensor.
    """
    _check_has_aux(has_aux)
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"vjp: input {i} must be a Tensor, got {type(x).__name__}")
    ws = _weights_list(weights)
    nested = _nested(inputs)
    # Integer inputs (indices, labels) pass through and get zero gradients.
    diff = [i for i, x in enumerate(inputs) if x.dtype.is_floating_point]
    xs = _prepare(inputs, diff)
    with enable_grad():
        out = fn(*xs)
    targets, aux = _split_outputs(out, has_aux, "vjp")

    def vjp_fn(*vs):
        vs = tuple(vs[0]) if len(vs) == 1 and isinstance(vs[0], (tuple, list)) else vs
        if len(vs) != len(targets):
            raise ValueError(f"vjp: got {len(vs)} vectors for {len(targets)} outputs")
        vs = [v if isinstance(v, Tensor) else Tensor(v) for v in vs]
        for k, (v, t) in enumerate(zip(vs, targets)):
            if tuple(v.shape) != tuple(t.shape):
                raise ValueError(f"vjp: vector {k} has shape {tuple(v.shape)} but output {k} "
                                 f"has shape {tuple(t.shape)}")
        pairs = [(t, v) for t, v in zip(targets, vs) if t.requires_grad]
        wrt = [xs[i] for i in diff] + ws
        found = [None] * len(wrt)
        if pairs and wrt:
            found = _autograd_grad([t for t, _ in pairs], wrt, [v for _, v in pairs],
                                   retain_graph=True, create_graph=nested, allow_unused=True)
        by_input = dict(zip(diff, found[:len(diff)]))
        gx = tuple(by_input.get(i) for i in range(len(xs)))
        gs = tuple(g if g is not None else _C.full(x.shape, 0, x.dtype)
                   for g, x in zip(gx + tuple(found[len(diff):]), list(xs) + ws))
        return (gs[:len(xs)], gs[len(xs):]) if weights is not None else gs

    stop = (lambda o: o) if nested else _stop
    if has_aux:
        return stop(targets[0]), vjp_fn, _aux_value(tuple(_stop(a) for a in aux))
    primal = tuple(stop(o) for o in out) if isinstance(out, (tuple, list)) else stop(out)
    return primal, vjp_fn


def jvp(fn: Callable, inputs: Union[Tensor, Sequence[Tensor]],
        v: Union[Tensor, Sequence[Tensor]], has_aux: bool = False) -> tuple:
    """Jacobian-vector product of fn at `inputs` along `v` (MindSpore's mindspore.jvp),
    computed forward-over-reverse: the vjp of the vjp (double backward).

    Args:
        fn (Callable): the function; it returns a tensor or a tuple of tensors.
        inputs (Union[Tensor, Sequence[Tensor]]): the point at which fn is differentiated.
        v (Union[Tensor, Sequence[Tensor]]): tangent vectors, one per input, of the inputs'
            shapes.
        has_aux (bool): fn's outputs after the first are auxiliary values. Default: False.

    Returns:
        tuple, ``(fn(inputs), J v)`` (plus aux with has_aux).

    Raises:
        ValueError: `v` does not match `inputs` in number or shape.
    """
    _check_has_aux(has_aux)
    single = isinstance(inputs, Tensor)
    xs = [inputs] if single else list(inputs)
    vs = [v] if isinstance(v, Tensor) else list(v)
    if len(vs) != len(xs):
        raise ValueError(f"jvp: got {len(vs)} tangent vectors for {len(xs)} inputs")
    for k, (x, t) in enumerate(zip(xs, vs)):
        if not isinstance(x, Tensor) or not isinstance(t, Tensor):
            raise TypeError(f"jvp: inputs and v must be tensors (or tuples of tensors); "
                            f"element {k} is {type(x).__name__} / {type(t).__name__}")
        if tuple(x.shape) != tuple(t.shape):
            raise ValueError(f"jvp: v[{k}] has shape {tuple(t.shape)} but input {k} has shape "
                             f"{tuple(x.shape)}")
    nested = _nested(xs)
    xs = _prepare(xs, range(len(xs)))
    vs = [t if t.dtype == x.dtype else t.to(x.dtype) for t, x in zip(vs, xs)]
    with enable_grad():
        out = fn(*xs)
        targets, aux = _split_outputs(out, has_aux, "jvp")
        live = [t for t in targets if t.requires_grad]
        # u: a dummy cotangent; J^T u is linear in u, so d(J^T u . v)/du = J v.
        us = [_C.full(t.shape, 0, t.dtype).requires_grad_(True) for t in live]
        jv_live = [None] * len(live)
        if live:
            gs = _autograd_grad(live, xs, us, create_graph=True, allow_unused=True)
            pairs = [(g, vv) for g, vv in zip(gs, vs) if g is not None and g.requires_grad]
            if pairs:
                jv_live = list(_autograd_grad([g for g, _ in pairs], us,
                                              [vv for _, vv in pairs],
                                              create_graph=nested, allow_unused=True))
    it = iter(jv_live)
    jv = tuple((next(it) if t.requires_grad else None) for t in targets)
    jv = tuple(j if j is not None else _C.full(t.shape, 0, t.dtype) for j, t in zip(jv, targets))
    stop = (lambda o: o) if nested else _stop
    tangent = jv[0] if len(jv) == 1 else jv
    if has_aux:
        return stop(targets[0]), tangent, _aux_value(tuple(_stop(a) for a in aux))
    primal = tuple(stop(o) for o in targets) if isinstance(out, (tuple, list)) else stop(out)
    return primal, tangent
