"""Normalization layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d, LayerNorm, GroupNorm (PyTorch:
weight / bias, running_mean / running_var / num_batches_tracked buffers) and MindSpore's
BatchNorm1d/2d (gamma, beta, moving_mean, moving_variance; momentum=0.9), LayerNorm and
GroupNorm (gamma, beta)."""
from __future__ import annotations

from typing import Optional, Sequence

from .. import _C
from ._common import Cell, F, Parameter, ms_init, no_grad, ops


class _NormBase(Cell):
    _dims = (2, 3)  # accepted input ranks
    _label = "2D or 3D"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        if self.affine:
            self.weight = Parameter(ops.ones(self.num_features, dtype=dtype))
            self.bias = Parameter(ops.zeros(self.num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", ops.zeros(self.num_features, dtype=dtype))
            self.register_buffer("running_var", ops.ones(self.num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", ops.tensor(0, dtype=_C.dtype.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                self.weight.fill_(1.0)
                self.bias.zero_()

    def _check_input_dim(self, input) -> None:
        if input.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected {self._label} input, got "
                             f"{input.ndim}D input of shape {tuple(input.shape)}")

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """Normalises each channel (dim 1) with batch statistics in training (updating the running
    estimates: momentum, or a cumulative average when momentum is None) and with the
    running estimates in eval."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else float(self.momentum)
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) or (N, C, L) input."""


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W) input."""

    _dims, _label = (4,), "4D"


class BatchNorm3d(_BatchNorm):
    """Batch norm of (N, C, D, H, W) input."""

    _dims, _label = (5,), "5D"


class _InstanceNorm(_NormBase):
    _spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        batched = input.ndim == self._spatial + 2
        if not batched and input.ndim != self._spatial + 1:
            raise ValueError(f"{type(self).__name__}: expected {self._spatial + 1}D or "
                             f"{self._spatial + 2}D input, got shape {tuple(input.shape)}")
        x = input if batched else input.unsqueeze(0)
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats,
                            0.1 if self.momentum is None else self.momentum, self.eps)
        return y if batched else y.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Normalises each (sample, channel) of (N, C, L) over L."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Normalises each (sample, channel) of (N, C, H, W) over H, W."""

    _spatial = 2


class LayerNorm(Cell):
    """Normalises over the trailing normalized_shape dims; elementwise weight and bias."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps, self.elementwise_affine = float(eps), bool(elementwise_affine)
        if self.elementwise_affine:
            self.weight = Parameter(ops.ones(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(ops.zeros(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Cell):
    """Splits the C channels of (N, C, *) into num_groups groups and normalises each group."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels = int(num_groups), int(num_channels)
        self.eps, self.affine = float(eps), bool(affine)
        if self.affine:
            self.weight = Parameter(ops.ones(self.num_channels, dtype=dtype))
            self.bias = Parameter(ops.zeros(self.num_channels, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


# --- MindSpore names ------------------------------------------------------------------------------

class _MSBatchNorm(Cell):
    """MindSpore batch norm: moving = momentum * moving + (1 - momentum) * batch. With
    use_batch_statistics None the mode decides (set_train); True / False force batch /
    moving statistics."""

    _dims, _label = (2, 3), "2D or 3D"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None,
                 data_format: str = "NCHW", dtype=None):
        super().__init__()
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"BatchNorm: momentum must be in [0, 1], got {momentum}")
        if data_format != "NCHW":
            raise ValueError(f"BatchNorm: only data_format='NCHW' is supported, got {data_format!r}")
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), float(momentum)
        self.affine, self.use_batch_statistics = bool(affine), use_batch_statistics
        n = (self.num_features,)
        self.moving_mean = Parameter(ms_init(moving_mean_init, n, dtype), requires_grad=False)
        self.moving_variance = Parameter(ms_init(moving_var_init, n, dtype), requires_grad=False)
        self.gamma = Parameter(ms_init(gamma_init, n, dtype), requires_grad=self.affine)
        self.beta = Parameter(ms_init(beta_init, n, dtype), requires_grad=self.affine)

    def construct(self, x):
        if x.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected {self._label} input, got shape "
                             f"{tuple(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None else bool(self.use_batch_statistics)
        return F.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                            use_batch, 1.0 - self.momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma.shape}, beta={self.beta.shape}")


class MSBatchNorm1d(_MSBatchNorm):
    """MindSpore's nn.BatchNorm1d over (N, C) or (N, C, L)."""


class MSBatchNorm2d(_MSBatchNorm):
    """MindSpore's nn.BatchNorm2d over (N, C, H, W)."""

    _dims, _label = (4,), "4D"


class MSLayerNorm(Cell):
    """MindSpore's nn.LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
    gamma_init='ones', beta_init='zeros', epsilon=1e-7): normalises over the dims from
    begin_norm_axis on, then scales by gamma / shifts by beta (shaped normalized_shape)."""

    def __init__(self, normalized_shape: Sequence[int], begin_norm_axis: int = -1,
                 begin_params_axis: int = -1, gamma_init="ones", beta_init="zeros",
                 epsilon: float = 1e-7, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(ms_init(gamma_init, self.normalized_shape, dtype))
        self.beta = Parameter(ms_init(beta_init, self.normalized_shape, dtype))

    def construct(self, x):
        axis = self.begin_norm_axis % x.ndim
        y = F.layer_norm(x, list(x.shape[axis:]), None, None, self.epsilon)
        return y * self.gamma + self.beta

    def extra_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}")


class MSGroupNorm(Cell):
    """MindSpore's nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, gamma_init,
    beta_init) with parameters gamma and beta."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps = int(num_groups), int(num_channels), float(eps)
        self.affine = bool(affine)
        self.gamma = Parameter(ms_init(gamma_init, (num_channels,), dtype), requires_grad=self.affine)
        self.beta = Parameter(ms_init(beta_init, (num_channels,), dtype), requires_grad=self.affine)

    def construct(self, x):
        return F.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extra_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
