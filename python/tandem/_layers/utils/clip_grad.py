"""Gradient clipping with PyTorch's semantics (torch.nn.utils.clip_grad_norm_ /
clip_grad_value_). Gradients are scaled in place with tandem ops, without recording."""
from __future__ import annotations

import math
from typing import Iterable, List, Optional, Union

from ... import _C
from ...autograd import no_grad

Tensor = _C.Tensor
_Params = Union[Tensor, Iterable[Tensor]]

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors: _Params, fn: str) -> List[Tensor]:
    items = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for t in items:
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{fn}: expected Tensors, got {type(t).__name__}")
    return items


def _grads(parameters: _Params, fn: str) -> List[Tensor]:
    return [p.grad for p in _as_list(parameters, fn) if p is not None and p.grad is not None]


def get_total_norm(tensors: _Params, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: Optional[bool] = None) -> Tensor:
    """The norm of the per-tensor `norm_type` norms, i.e. the norm of all the tensors'
    entries concatenated.

    Args:
        tensors (Tensor or Iterable[Tensor]): the tensors (e.g. the gradients).
        norm_type (float): the p of the p-norm; ``inf`` for the max-abs norm.
            Default: ``2.0``.
        error_if_nonfinite (bool): raise RuntimeError when the norm is nan or inf.
            Default: ``False``.
        foreach (bool, optional): accepted for PyTorch code (one implementation).
            Default: ``None``.

    Returns:
        Tensor: a 0-d tensor (0.0 for no tensors).
    """
    norm_type = float(norm_type)
    items = [t for t in _as_list(tensors, "get_total_norm") if t is not None]
    if not items:
        return Tensor(0.0)
    with no_grad():
        norms = [_C.norm(t, norm_type, None, False) for t in items]
        dtype = norms[0].dtype
        for n in norms[1:]:
            dtype = _C.promote_types(dtype, n.dtype)
        total = _C.norm(_C.stack([_C.to_dtype(n, dtype) for n in norms], 0), norm_type, None,
                        False)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: _Params, max_norm: float, total_norm: Tensor,
                          foreach: Optional[bool] = None) -> None:
    """Scales the gradients of `parameters` by min(1, max_norm / (total_norm + 1e-6)) in
    place (the second half of :func:`clip_grad_norm_`).

    Args:
        parameters (Tensor or Iterable[Tensor]): the tensors whose ``.grad`` is scaled.
        max_norm (float): the largest allowed norm.
        total_norm (Tensor): the gradients' total norm (from :func:`get_total_norm`).
        foreach (bool, optional): accepted for PyTorch code. Default: ``None``.
    """
    grads = _grads(parameters, "clip_grads_with_norm_")
    if not grads:
        return
    if not isinstance(total_norm, Tensor):
        total_norm = Tensor(float(total_norm))
    with no_grad():
        coef = _C.clamp(float(max_norm) / (total_norm + 1e-6), None, 1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters: _Params, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Optional[bool] = None) -> Tensor:
    """Rescales the gradients of `parameters` in place so that their total `norm_type` norm
    is at most `max_norm` (never scaled up); returns the total norm before clipping.

    Args:
        parameters (Tensor or Iterable[Tensor]): the tensors whose ``.grad`` is clipped.
        max_norm (float): the largest allowed norm.
        norm_type (float): the p of the p-norm; ``inf`` for the max-abs norm.
            Default: ``2.0``.
        error_if_nonfinite (bool): raise RuntimeError when the total norm is nan or inf.
            Default: ``False``.
        foreach (bool, optional): accepted for PyTorch code. Default: ``None``.

    Returns:
        Tensor: the total norm of the gradients before clipping (0-d).
    """
    params = _as_list(parameters, "clip_grad_norm_")  # iterate a generator once
    total = get_total_norm(_grads(params, "clip_grad_norm_"), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_value_(parameters: _Params, clip_value: float,
                     foreach: Optional[bool] = None) -> None:
    """Clamps every gradient of `parameters` into [-clip_value, clip_value] in place.

    Args:
        parameters (Tensor or Iterable[Tensor]): the tensors whose ``.grad`` is clamped.
        clip_value (float): the largest allowed absolute value.
        foreach (bool, optional): accepted for PyTorch code. Default: ``None``.
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters, "clip_grad_value_"):
            g.clamp_(-clip_value, clip_value)
