"""Embedding tables: Embedding (PyTorch: N(0, 1) init, padding_idx row zero and frozen in
the gradient) and MindSpore's Embedding(vocab_size, embedding_size) with embedding_table."""
from __future__ import annotations

from typing import Optional

from ._common import Cell, F, Parameter, ms_init, new_param, no_grad, normal_, ops


class Embedding(Cell):
    """Looks up rows of weight (num_embeddings, embedding_dim) at integer indices."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None,
                 max_norm: Optional[float] = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight=None,
                 _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError("Embedding: max_norm, scale_grad_by_freq and sparse are not supported")
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} must be within "
                                 f"num_embeddings ({num_embeddings})")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = new_param((self.num_embeddings, self.embedding_dim), dtype,
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise ValueError(f"Embedding: _weight has shape {tuple(_weight.shape)}, expected "
                                 f"{(self.num_embeddings, self.embedding_dim)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0.0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx: Optional[int] = None,
                        **kwargs) -> "Embedding":
        if embeddings.ndim != 2:
            raise ValueError("Embedding.from_pretrained: embeddings must be 2-D")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings.clone(), _freeze=freeze, **kwargs)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class MSEmbedding(Cell):
    """MindSpore's nn.Embedding(vocab_size, embedding_size, use_one_hot=False,
    embedding_table='normal', dtype=int32, padding_idx=None); the padding row starts at zero."""

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table="normal", dtype=None, padding_idx: Optional[int] = None):
        super().__init__()
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot, self.padding_idx = bool(use_one_hot), padding_idx
        if padding_idx is not None and not 0 <= padding_idx < vocab_size:
            raise ValueError(f"Embedding: padding_idx {padding_idx} must be in [0, {vocab_size})")
        table = ms_init(embedding_table, (self.vocab_size, self.embedding_size))
        if padding_idx is not None:
            with no_grad():
                table[padding_idx].fill_(0.0)
        self.embedding_table = Parameter(table)

    def construct(self, ids):
        if self.use_one_hot:
            one_hot = ops.one_hot(ids.long(), self.vocab_size).to(self.embedding_table.dtype)
            return ops.matmul(one_hot, self.embedding_table)
        return F.embedding(ids.long(), self.embedding_table)

    def extra_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, padding_idx={self.padding_idx}")
