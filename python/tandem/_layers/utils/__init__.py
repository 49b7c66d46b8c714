"""Gradient clipping (PyTorch's torch.nn.utils), behind mint.nn.utils and tandem.nn.utils."""
from .clip_grad import (clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,  # noqa: F401
                        get_total_norm)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
