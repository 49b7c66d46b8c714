"""Embedding tables: Embedding (PyTorch: N(0, 1) init, padding_idx row zero and frozen in
the gradient) and MindSpore's Embedding(vocab_size, embedding_size) with embedding_table."""
from __future__ import annotations

from typing import Any, Optional, Type, TypeVar

from .. import _C
from .._init import InitSpec
from ._common import Cell, F, Parameter, ms_init, new_param, no_grad, normal_, ops

Tensor = _C.Tensor
_E = TypeVar("_E", bound="Embedding")

__all__ = ["Embedding", "MSEmbedding"]


class Embedding(Cell):
    """A lookup table: row i of weight (num_embeddings, embedding_dim), drawn from N(0, 1),
    is the embedding of index i.

    Args:
        num_embeddings (int): the size of the table (the number of indices).
        embedding_dim (int): the size of each embedding vector.
        padding_idx (int, optional): an index whose row starts at zero and gets no gradient
            (negative values count from the end). Default: ``None``.
        max_norm (float, optional): not supported (must be ``None``). Default: ``None``.
        norm_type (float): the p of the max_norm renormalisation (unused). Default: ``2.0``.
        scale_grad_by_freq (bool): not supported (must be ``False``). Default: ``False``.
        sparse (bool): not supported (must be ``False``). Default: ``False``.
        _weight (Tensor, optional): an initial table of shape (num_embeddings,
            embedding_dim), used by :meth:`from_pretrained`. Default: ``None``.
        _freeze (bool): create the weight with ``requires_grad=False``. Default: ``False``.
        device (str, optional): accepted for PyTorch code; tandem runs on the CPU.
            Default: ``None``.
        dtype (tandem.dtype, optional): the weight's dtype. Default: ``None``.
    """

    weight: Parameter

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None,
                 max_norm: Optional[float] = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Optional[Tensor] = None, _freeze: bool = False,
                 device: Optional[str] = None, dtype: Optional[_C.dtype] = None) -> None:
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
        """Re-draws the table from N(0, 1), zeroing the padding row."""
        normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0.0)

    def forward(self, input: Tensor) -> Tensor:
        """Looks up the embeddings of `input`'s indices.

        Args:
            input (Tensor): integer indices in [0, num_embeddings), of any shape.

        Returns:
            Tensor: (*input.shape, embedding_dim).
        """
        return F.embedding(input, self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls: Type[_E], embeddings: Tensor, freeze: bool = True,
                        padding_idx: Optional[int] = None, **kwargs: Any) -> _E:
        """An Embedding whose table is a copy of `embeddings`.

        Args:
            embeddings (Tensor): the table, (num_embeddings, embedding_dim).
            freeze (bool): keep the table fixed (``requires_grad=False``). Default: ``True``.
            padding_idx (int, optional): as in the constructor. Default: ``None``.
            **kwargs: the constructor's other keyword arguments.

        Returns:
            Embedding: the new layer.
        """
        if embeddings.ndim != 2:
            raise ValueError("Embedding.from_pretrained: embeddings must be 2-D")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings.clone(), _freeze=freeze, **kwargs)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class MSEmbedding(Cell):
    """MindSpore's nn.Embedding: a lookup table `embedding_table` (vocab_size,
    embedding_size); the padding row starts at zero.

    Args:
        vocab_size (int): the size of the table (the number of ids).
        embedding_size (int): the size of each embedding vector.
        use_one_hot (bool): look up by a one-hot matrix product instead of a gather (same
            result). Default: ``False`` .
        embedding_table (Union[Tensor, str, Initializer, numbers.Number]): the table's
            initializer. Default: ``'normal'`` .
        dtype (mindspore.dtype, optional): the dtype of the ids (accepted for
            compatibility; any integer ids work). Default: ``None`` .
        padding_idx (int, optional): an id in [0, vocab_size) whose row starts at zero.
            Default: ``None`` .
    """

    embedding_table: Parameter

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table: InitSpec = "normal", dtype: Optional[_C.dtype] = None,
                 padding_idx: Optional[int] = None) -> None:
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

    def construct(self, ids: Tensor) -> Tensor:
        """Looks up the embeddings of `ids`.

        Args:
            ids (Tensor): integer ids in [0, vocab_size), of any shape.

        Returns:
            Tensor, (*ids.shape, embedding_size).
        """
        if self.use_one_hot:
            one_hot = ops.one_hot(ids.long(), self.vocab_size).to(self.embedding_table.dtype)
            return ops.matmul(one_hot, self.embedding_table)
        return F.embedding(ids.long(), self.embedding_table)

    def extra_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, padding_idx={self.padding_idx}")
