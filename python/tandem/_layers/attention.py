"""MultiheadAttention (PyTorch layout): in_proj_weight (3E, E) / in_proj_bias, out_proj
Linear; time-major (L, N, E) input unless batch_first; returns (output, weights or None)."""
from __future__ import annotations

import math
from typing import Optional

from ._common import Cell, F, fill_, new_param, normal_, ops, xavier_uniform_
from .linear import Linear


def _additive(mask, dtype):
    """A float mask to add to scores: bool True (= not allowed) becomes -inf."""
    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        return mask.to(dtype)
    return ops.zeros(*mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))


class MultiheadAttention(Cell):
    """softmax(Q K^T / sqrt(d) + mask) V over num_heads heads of size embed_dim / num_heads."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device=None, dtype=None):
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
        if bias:
            fill_(self.out_proj.bias, 0.0)
        if add_bias_kv:
            std = math.sqrt(2.0 / (2 * E))
            self.bias_k = normal_(new_param((1, 1, E), dtype), 0.0, std)
            self.bias_v = normal_(new_param((1, 1, E), dtype), 0.0, std)
        else:
            self.bias_k = self.bias_v = None

    def _projections(self):
        if self._qkv_same_embed_dim:
            w = ops.chunk(self.in_proj_weight, 3, 0)
        else:
            w = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = ops.chunk(self.in_proj_bias, 3, 0) if self.in_proj_bias is not None else (None,) * 3
        return w, b

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
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
            v = ops.cat([v, self.bias_v.expand(1, N, E)], 0)
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
