"""Normalization layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d, LayerNorm, GroupNorm (PyTorch:
weight / bias, running_mean / running_var / num_batches_tracked buffers) and MindSpore's
BatchNorm1d/2d (gamma, beta, moving_mean, moving_variance; momentum=0.9), LayerNorm and
GroupNorm (gamma, beta)."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union, cast

from .. import _C
from .._init import InitSpec
from ._common import Cell, F, Parameter, ms_init, no_grad, ops

Tensor = _C.Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
           "LayerNorm", "GroupNorm", "MSBatchNorm1d", "MSBatchNorm2d", "MSLayerNorm",
           "MSGroupNorm"]

_BN_ARGS = """

    Args:
        num_features (int): C, the channels of the input (dim 1).
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.
        momentum (float, optional): the weight of each new batch in the running estimates
            (running = (1 - momentum) * running + momentum * batch); ``None`` uses the
            cumulative average. Default: ``0.1``.
        affine (bool): learn a per-channel scale (weight) and shift (bias). Default: ``True``.
        track_running_stats (bool): keep running estimates (used in eval); without them the
            batch statistics are used in eval too. Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' and buffers' dtype. Default: ``None``.
"""
_IN_ARGS = """

    Args:
        num_features (int): C, the channels of the input.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.
        momentum (float): the weight of each new batch in the running estimates.
            Default: ``0.1``.
        affine (bool): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool): keep running estimates and use them in eval.
            Default: ``False``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' and buffers' dtype. Default: ``None``.
"""


class _NormBase(Cell):
    _dims: Tuple[int, ...] = (2, 3)  # accepted input ranks
    _label = "2D or 3D"
    weight: Optional[Parameter]
    bias: Optional[Parameter]
    running_mean: Optional[Tensor]
    running_var: Optional[Tensor]
    num_batches_tracked: Optional[Tensor]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
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
        """Resets the running mean to 0, the running variance to 1 and the batch count to 0."""
        if self.track_running_stats:
            with no_grad():
                cast(Tensor, self.running_mean).zero_()
                cast(Tensor, self.running_var).fill_(1.0)
                cast(Tensor, self.num_batches_tracked).zero_()

    def reset_parameters(self) -> None:
        """Resets the running statistics, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                cast(Tensor, self.weight).fill_(1.0)
                cast(Tensor, self.bias).zero_()

    def _check_input_dim(self, input: Tensor) -> None:
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

    def forward(self, input: Tensor) -> Tensor:
        """Normalises `input` per channel, then scales and shifts it when affine.

        Args:
            input (Tensor): (N, C, *) with the rank the layer expects.

        Returns:
            Tensor: the normalised input, of the same shape.
        """
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
    __doc__ = ("Batch normalization of (N, C) or (N, C, L) input: each channel is normalised "
               "with the batch statistics in training and the running estimates in eval."
               + _BN_ARGS)


class BatchNorm2d(_BatchNorm):
    __doc__ = ("Batch normalization of (N, C, H, W) input, per channel over N, H and W."
               + _BN_ARGS)

    _dims, _label = (4,), "4D"


class BatchNorm3d(_BatchNorm):
    __doc__ = ("Batch normalization of (N, C, D, H, W) input, per channel over N, D, H and W."
               + _BN_ARGS)

    _dims, _label = (5,), "5D"


class _InstanceNorm(_NormBase):
    _spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        """Normalises each (sample, channel) of `input` over its spatial dims.

        Args:
            input (Tensor): (N, C, *spatial) or, unbatched, (C, *spatial).

        Returns:
            Tensor: the normalised input, of the same shape.
        """
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
    __doc__ = ("Instance normalization: each (sample, channel) of (N, C, L) or (C, L) input "
               "is normalised over L." + _IN_ARGS)

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    __doc__ = ("Instance normalization: each (sample, channel) of (N, C, H, W) or (C, H, W) "
               "input is normalised over H and W." + _IN_ARGS)

    _spatial = 2


class LayerNorm(Cell):
    """Layer normalization: normalises over the trailing `normalized_shape` dims of each
    sample, then scales and shifts elementwise.

    Args:
        normalized_shape (int or Sequence[int]): the trailing shape to normalise over.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.
        elementwise_affine (bool): learn a weight (init 1) and a bias (init 0) of shape
            `normalized_shape`. Default: ``True``.
        bias (bool): learn the bias (with elementwise_affine). Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
    """

    weight: Optional[Parameter]
    bias: Optional[Parameter]

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
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

    def forward(self, input: Tensor) -> Tensor:
        """Normalises `input` over its trailing dims.

        Args:
            input (Tensor): (*, *normalized_shape).

        Returns:
            Tensor: the normalised input, of the same shape.
        """
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Cell):
    """Group normalization: splits the C channels of (N, C, *) input into groups and
    normalises each (sample, group), then scales and shifts per channel.

    Args:
        num_groups (int): the number of groups (dividing `num_channels`).
        num_channels (int): C, the channels of the input.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.
        affine (bool): learn a per-channel weight (init 1) and bias (init 0).
            Default: ``True``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
    """

    weight: Optional[Parameter]
    bias: Optional[Parameter]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
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

    def forward(self, input: Tensor) -> Tensor:
        """Normalises `input` per (sample, group).

        Args:
            input (Tensor): (N, C, *).

        Returns:
            Tensor: the normalised input, of the same shape.
        """
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


# --- MindSpore names ------------------------------------------------------------------------------

class _MSBatchNorm(Cell):
    """MindSpore batch norm: moving = momentum * moving + (1 - momentum) * batch. With
    use_batch_statistics None the mode decides (set_train); True / False force batch /
    moving statistics."""

    _dims: Tuple[int, ...] = (2, 3)
    _label = "2D or 3D"
    moving_mean: Parameter
    moving_variance: Parameter
    gamma: Parameter
    beta: Parameter

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: InitSpec = "ones", beta_init: InitSpec = "zeros",
                 moving_mean_init: InitSpec = "zeros", moving_var_init: InitSpec = "ones",
                 use_batch_statistics: Optional[bool] = None, data_format: str = "NCHW",
                 dtype: Optional[_C.dtype] = None) -> None:
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

    def construct(self, x: Tensor) -> Tensor:
        """Normalises `x` per channel, then scales by gamma and shifts by beta.

        Args:
            x (Tensor): (N, C, *) with the rank the layer expects.

        Returns:
            Tensor, the normalised input, of the same shape.
        """
        if x.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected {self._label} input, got shape "
                             f"{tuple(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None else bool(self.use_batch_statistics)
        return F.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                            use_batch, 1.0 - self.momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma.shape}, beta={self.beta.shape}")


_MS_BN_ARGS = """

    Args:
        num_features (int): C, the channels of the input (dim 1).
        eps (float): added to the variance for numerical stability. Default: ``1e-5`` .
        momentum (float): the weight of the old value in the moving statistics
            (moving = momentum * moving + (1 - momentum) * batch), in [0, 1].
            Default: ``0.9`` .
        affine (bool): learn gamma and beta (otherwise they stay at their initial values).
            Default: ``True`` .
        gamma_init (Union[Tensor, str, Initializer, numbers.Number]): gamma's initializer.
            Default: ``'ones'`` .
        beta_init (Union[Tensor, str, Initializer, numbers.Number]): beta's initializer.
            Default: ``'zeros'`` .
        moving_mean_init (Union[Tensor, str, Initializer, numbers.Number]): the moving mean's
            initializer. Default: ``'zeros'`` .
        moving_var_init (Union[Tensor, str, Initializer, numbers.Number]): the moving
            variance's initializer. Default: ``'ones'`` .
        use_batch_statistics (bool, optional): ``None``: batch statistics in training,
            moving ones otherwise; ``True`` / ``False`` force one. Default: ``None`` .
        data_format (str): only ``'NCHW'``. Default: ``'NCHW'`` .
        dtype (mindspore.dtype, optional): the parameters' dtype. Default: ``None`` .
"""


class MSBatchNorm1d(_MSBatchNorm):
    __doc__ = "MindSpore's nn.BatchNorm1d over (N, C) or (N, C, L) input." + _MS_BN_ARGS


class MSBatchNorm2d(_MSBatchNorm):
    __doc__ = "MindSpore's nn.BatchNorm2d over (N, C, H, W) input." + _MS_BN_ARGS

    _dims, _label = (4,), "4D"


class MSLayerNorm(Cell):
    """MindSpore's nn.LayerNorm: normalises over the dims from `begin_norm_axis` on, then
    scales by gamma and shifts by beta (both shaped `normalized_shape`).

    Args:
        normalized_shape (Union[tuple[int], list[int]]): the shape of gamma and beta.
        begin_norm_axis (int): the first axis to normalise over. Default: ``-1`` .
        begin_params_axis (int): the first axis gamma and beta apply to (kept for
            compatibility; they broadcast against the trailing dims). Default: ``-1`` .
        gamma_init (Union[Tensor, str, Initializer, numbers.Number]): gamma's initializer.
            Default: ``'ones'`` .
        beta_init (Union[Tensor, str, Initializer, numbers.Number]): beta's initializer.
            Default: ``'zeros'`` .
        epsilon (float): added to the variance for numerical stability. Default: ``1e-7`` .
        dtype (mindspore.dtype, optional): the parameters' dtype. Default: ``None`` .
    """

    gamma: Parameter
    beta: Parameter

    def __init__(self, normalized_shape: Union[int, Sequence[int]], begin_norm_axis: int = -1,
                 begin_params_axis: int = -1, gamma_init: InitSpec = "ones",
                 beta_init: InitSpec = "zeros", epsilon: float = 1e-7,
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(ms_init(gamma_init, self.normalized_shape, dtype))
        self.beta = Parameter(ms_init(beta_init, self.normalized_shape, dtype))

    def construct(self, x: Tensor) -> Tensor:
        """Normalises `x` over its trailing axes.

        Args:
            x (Tensor): the input; its trailing dims broadcast with `normalized_shape`.

        Returns:
            Tensor, the normalised input, of the same shape.
        """
        axis = self.begin_norm_axis % x.ndim
        y = F.layer_norm(x, list(x.shape[axis:]), None, None, self.epsilon)
        return y * self.gamma + self.beta

    def extra_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}")


class MSGroupNorm(Cell):
    """MindSpore's nn.GroupNorm: normalises each (sample, group of channels) of (N, C, *)
    input, then scales by gamma and shifts by beta per channel.

    Args:
        num_groups (int): the number of groups (dividing `num_channels`).
        num_channels (int): C, the channels of the input.
        eps (float): added to the variance for numerical stability. Default: ``1e-5`` .
        affine (bool): learn gamma and beta. Default: ``True`` .
        gamma_init (Union[Tensor, str, Initializer, numbers.Number]): gamma's initializer.
            Default: ``'ones'`` .
        beta_init (Union[Tensor, str, Initializer, numbers.Number]): beta's initializer.
            Default: ``'zeros'`` .
        dtype (mindspore.dtype, optional): the parameters' dtype. Default: ``None`` .
    """

    gamma: Parameter
    beta: Parameter

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init: InitSpec = "ones", beta_init: InitSpec = "zeros",
                 dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps = int(num_groups), int(num_channels), float(eps)
        self.affine = bool(affine)
        self.gamma = Parameter(ms_init(gamma_init, (num_channels,), dtype), requires_grad=self.affine)
        self.beta = Parameter(ms_init(beta_init, (num_channels,), dtype), requires_grad=self.affine)

    def construct(self, x: Tensor) -> Tensor:
        """Normalises `x` per (sample, group).

        Args:
            x (Tensor): (N, C, *).

        Returns:
            Tensor, the normalised input, of the same shape.
        """
        return F.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extra_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
