"""MindSpore-style functional differentiation: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``.

Signatures and return shapes follow MindSpore 2.x:

* ``grad_position`` int -> the gradient of that input; tuple -> a tuple of gradients;
  None -> no input gradients (then ``weights`` must be given).
* ``weights`` (a tensor / Parameter or a sequence of them) -> a tuple of weight gradients;
  with ``grad_position`` too the result is ``(input_grads, weight_grads)``.
* ``has_aux`` -> only the first output is differentiated; the rest are returned as aux.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

from . import _C
from .autograd import enable_grad, grad as _autograd_grad

Tensor = _C.Tensor


def _positions(grad_position, nargs):
    if grad_position is None:
        return ()
    single = isinstance(grad_position, int)
    pos = (grad_position,) if single else tuple(grad_position)
    for p in pos:
        if not isinstance(p, int) or not -nargs <= p < nargs:
            raise ValueError(f"grad_position {p} is out of range for a function called with "
                             f"{nargs} positional arguments")
    return tuple(p % nargs for p in pos)


def _weights_list(weights):
    if weights is None:
        return []
    if isinstance(weights, Tensor):
        return [weights]
    return list(weights)


def _differentiate(fn, args, grad_position, weights, has_aux):
    if grad_position is None and weights is None:
        raise ValueError("grad: grad_position and weights cannot both be None")
    args = list(args)
    pos = _positions(grad_position, len(args))
    for p in pos:
        if not isinstance(args[p], Tensor):
            raise TypeError(f"grad: argument {p} must be a Tensor to be differentiated, got "
                            f"{type(args[p]).__name__}")
        args[p] = args[p].detach().requires_grad_(True)
    ws = _weights_list(weights)
    with enable_grad():
        out = fn(*args)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if has_aux:
        targets, aux = outs[:1], outs[1:]
    else:
        targets, aux = outs, ()
    inputs = [args[p] for p in pos] + ws
    for t in targets:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad: the function must return tensors, got {type(t).__name__}")
    needing = [t for t in targets if t.requires_grad]
    if needing and inputs:
        gs = _autograd_grad(needing, inputs, [_C.full(t.shape, 1, t.dtype) for t in needing],
                            allow_unused=True)
    else:
        gs = (None,) * len(inputs)
    gs = [g if g is not None else _C.full(x.shape, 0, x.dtype) for g, x in zip(gs, inputs)]
    in_g, w_g = gs[:len(pos)], tuple(gs[len(pos):])
    if grad_position is None:
        result = w_g
    else:
        ig = in_g[0] if isinstance(grad_position, int) else tuple(in_g)
        result = ig if weights is None else (ig, w_g)
    value = out if not has_aux else (outs[0],) + tuple(aux) if isinstance(out, (tuple, list)) else out
    return value, result, aux


def grad(fn: Callable, grad_position: Union[int, Sequence[int], None] = 0, weights=None,
         has_aux: bool = False, return_ids: bool = False) -> Callable:
    """A function computing the gradients of fn (MindSpore's mindspore.grad)."""
    if return_ids:
        raise NotImplementedError("grad: return_ids=True is not supported")

    def wrapped(*args):
        _, g, aux = _differentiate(fn, args, grad_position, weights, has_aux)
        return (g, aux if len(aux) != 1 else aux[0]) if has_aux else g

    return wrapped


def value_and_grad(fn: Callable, grad_position: Union[int, Sequence[int], None] = 0,
                   weights=None, has_aux: bool = False) -> Callable:
    """A function returning (fn's output, its gradients) (MindSpore's value_and_grad)."""

    def wrapped(*args):
        value, g, _ = _differentiate(fn, args, grad_position, weights, has_aux)
        return value, g

    return wrapped


def vjp(fn: Callable, *inputs, has_aux: bool = False):
    """(fn(*inputs), vjp_fn) where vjp_fn(v) returns the vector-Jacobian products."""
    xs = [x.detach().requires_grad_(True) for x in inputs]
    with enable_grad():
        out = fn(*xs)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    targets = outs[:1] if has_aux else outs

    def vjp_fn(*vs):
        vs = vs[0] if len(vs) == 1 and isinstance(vs[0], (tuple, list)) else vs
        gs = _autograd_grad(list(targets), xs, list(vs), retain_graph=True, allow_unused=True)
        gs = tuple(g if g is not None else _C.full(x.shape, 0, x.dtype) for g, x in zip(gs, xs))
        return gs[0] if len(gs) == 1 else gs

    primal = (outs[0] if has_aux else out)
    if has_aux:
        return primal, vjp_fn, outs[1:] if len(outs) > 2 else outs[1]
    return primal, vjp_fn


def jvp(fn: Callable, inputs, v, has_aux: bool = False):
    """(fn(inputs), J v) by forward-over-reverse: the vjp of the vjp (double backward)."""
    single = isinstance(inputs, Tensor)
    xs = [inputs] if single else list(inputs)
    vs = [v] if isinstance(v, Tensor) else list(v)
    xs = [x.detach().requires_grad_(True) for x in xs]
    with enable_grad():
        out = fn(*xs)
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        targets = list(outs[:1] if has_aux else outs)
        us = [_C.full(t.shape, 0, t.dtype).requires_grad_(True) for t in targets]
        gs = _autograd_grad(targets, xs, us, create_graph=True, allow_unused=True)
        pairs = [(g, vv) for g, vv in zip(gs, vs) if g is not None]
        jv = _autograd_grad([g for g, _ in pairs], us, [vv for _, vv in pairs], allow_unused=True)
    jv = tuple(j if j is not None else _C.full(t.shape, 0, t.dtype) for j, t in zip(jv, targets))
    primal = outs[0] if has_aux or len(outs) == 1 else outs
    tangent = jv[0] if len(jv) == 1 else jv
    if has_aux:
        return primal, tangent, outs[1:] if len(outs) > 2 else outs[1]
    return primal, tangent
