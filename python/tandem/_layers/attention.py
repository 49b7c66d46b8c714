"""MultiheadAttention (PyTorch layout): in_proj_weight (3E, E) / in_proj_bias, out_proj
Linear; time-major (L, N, E) input unless batch_first; returns (output, weights or None)."""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple, cast

from .. import _C
from ._common import Cell, F, Parameter, fill_, new_param, normal_, ops, xavier_uniform_
from .linear import Linear

Tensor = _C.Tensor

__all__ = ["MultiheadAttention"]


def _additive(mask: Optional[Tensor], dtype: _C.dtype) -> Optional[Tensor]:
    """A float mask to add to scores: bool True (= not allowed) becomes -inf."""
    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        return mask.to(dtype)
    return ops.zeros(*mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))


class MultiheadAttention(Cell):
    """Multi-head attention: softmax(Q K^T / sqrt(d) + mask) V over `num_heads` heads of size
    d = embed_dim / num_heads, with input projections (in_proj_weight (3E, E), or q/k/v
    weights when kdim / vdim differ) and an output projection `out_proj`.

    Args:
        embed_dim (int): E, the size of the queries (and of the output).
        num_heads (int): the number of heads (dividing `embed_dim`).
        dropout (float): the dropout probability on the attention weights in training.
            Default: ``0.0``.
        bias (bool): learn biases in the input and output projections. Default: ``True``.
        add_bias_kv (bool): append a learnt bias vector to the keys and values.
            Default: ``False``.
        add_zero_attn (bool): append a zero vector to the keys and values. Default: ``False``.
        kdim (int, optional): the size of the keys (`embed_dim` when ``None``).
            Default: ``None``.
        vdim (int, optional): the size of the values (`embed_dim` when ``None``).
            Default: ``None``.
        batch_first (bool): inputs and outputs are (N, L, E) instead of (L, N, E).
            Default: ``False``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the parameters' dtype. Default: ``None``.
    """

    in_proj_weight: Optional[Parameter]
    q_proj_weight: Optional[Parameter]
    k_proj_weight: Optional[Parameter]
    v_proj_weight: Optional[Parameter]
    in_proj_bias: Optional[Parameter]
    bias_k: Optional[Parameter]
    bias_v: Optional[Parameter]
    out_proj: Linear

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by "
                             f"num_heads ({num_heads})")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = embed_dim if kdim is None else int(kdim)
        self.vdim = embed_dim if vdim is None else int(vdim)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = bool(add_zero_attn)
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = xavier_uniform_(new_param((3 * E, E), dtype))
            for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(n, None)
        else:
            self.q_proj_weight = xavier_uniform_(new_param((E, E), dtype))
            self.k_proj_weight = xavier_uniform_(new_param((E, self.kdim), dtype))
            self.v_proj_weight = xavier_uniform_(new_param((E, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = fill_(new_param((3 * E,), dtype), 0.0)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(E, E, bias=bias, dtype=dtype)
        if bias and self.out_proj.bias is not None:
            fill_(self.out_proj.bias, 0.0)
        if add_bias_kv:
            std = math.sqrt(2.0 / (2 * E))
            self.bias_k = normal_(new_param((1, 1, E), dtype), 0.0, std)
            self.bias_v = normal_(new_param((1, 1, E), dtype), 0.0, std)
        else:
            self.bias_k = self.bias_v = None

    def _projections(self) -> Tuple[Sequence[Tensor], Sequence[Optional[Tensor]]]:
        """The (q, k, v) weights and biases; the weights of the active layout are set."""
        w: Sequence[Tensor]
        b: Sequence[Optional[Tensor]]
        if self._qkv_same_embed_dim:
            w = ops.chunk(cast(Tensor, self.in_proj_weight), 3, 0)
        else:
            w = cast(Tuple[Tensor, Tensor, Tensor],
                     (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight))
        b = ops.chunk(self.in_proj_bias, 3, 0) if self.in_proj_bias is not None else (None,) * 3
        return w, b

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Optional[Tensor] = None, need_weights: bool = True,
                attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> Tuple[Tensor, Optional[Tensor]]:
        """Attends from the queries to the keys and mixes the values.

        Args:
            query (Tensor): (L, N, E), or (N, L, E) with batch_first, or unbatched (L, E).
            key (Tensor): (S, N, kdim) (batch_first / unbatched likewise).
            value (Tensor): (S, N, vdim) (batch_first / unbatched likewise).
            key_padding_mask (Tensor, optional): (N, S): True (bool) or -inf (float) marks
                keys to ignore. Default: ``None``.
            need_weights (bool): also return the attention weights. Default: ``True``.
            attn_mask (Tensor, optional): (L, S) or (N * num_heads, L, S): True (bool) marks
                pairs not allowed; a float mask is added to the scores. Default: ``None``.
            average_attn_weights (bool): average the returned weights over the heads.
                Default: ``True``.
            is_causal (bool): without attn_mask, let each query attend only to keys at
                positions up to its own. Default: ``False``.

        Returns:
            Tuple[Tensor, Optional[Tensor]]: the output, shaped like `query`, and the
            attention weights (N, L, S) (or (N, num_heads, L, S) without averaging), or
            ``None`` when not `need_weights`.
        """
        batched = query.ndim == 3
        if query.ndim not in (2, 3):
            raise ValueError(f"MultiheadAttention: query must be 2D or 3D, got shape {tuple(query.shape)}")
        if batched and self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        L, N, E = query.shape
        if E != self.embed_dim:
            raise ValueError(f"MultiheadAttention: query has {E} features, expected embed_dim={self.embed_dim}")
        H, hd = self.num_heads, self.head_dim
        (wq, wk, wv), (bq, bk, bv) = self._projections()
        q, k, v = F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)
        amask = _additive(attn_mask, q.dtype)
        if amask is None and is_causal:
            amask = _additive(ops.ones(L, key.shape[0], dtype=query.dtype).triu(1) > 0, q.dtype)
        kpm = _additive(key_padding_mask, q.dtype)
        if self.bias_k is not None:
            k = ops.cat([k, self.bias_k.expand(1, N, E)], 0)
            v = ops.cat([v, cast(Tensor, self.bias_v).expand(1, N, E)], 0)  # set with bias_k
            amask = ops.pad(amask, [0, 1]) if amask is not None else None
            kpm = ops.pad(kpm, [0, 1]) if kpm is not None else None
        # (seq, N, E) -> (N * H, seq, head_dim)
        q = q.reshape(L, N * H, hd).transpose(0, 1)
        k = k.reshape(k.shape[0], N * H, hd).transpose(0, 1)
        v = v.reshape(v.shape[0], N * H, hd).transpose(0, 1)
        if self.add_zero_attn:
            k = ops.cat([k, ops.zeros(N * H, 1, hd, dtype=k.dtype)], 1)
            v = ops.cat([v, ops.zeros(N * H, 1, hd, dtype=v.dtype)], 1)
            amask = ops.pad(amask, [0, 1]) if amask is not None else None
            kpm = ops.pad(kpm, [0, 1]) if kpm is not None else None
        S = k.shape[1]
        scores = ops.matmul(q, k.transpose(1, 2)) * (1.0 / math.sqrt(hd))
        if amask is not None:
            scores = scores + (amask if amask.ndim == 2 else amask.reshape(N * H, L, S))
        if kpm is not None:
            scores = (scores.reshape(N, H, L, S) + kpm.reshape(N, 1, 1, S)).reshape(N * H, L, S)
        attn = F.softmax(scores, -1)
        if self.dropout and self.training:
            attn = F.dropout(attn, self.dropout, True)
        out = ops.matmul(attn, v).transpose(0, 1).reshape(L, N, E)
        out = self.out_proj(out)
        weights = None
        if need_weights:
            weights = attn.reshape(N, H, L, S)
            if average_attn_weights:
                weights = weights.mean(1)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0) if weights is not None else None
        return out, weights
