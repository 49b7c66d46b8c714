"""Op table: gather / scatter, index_select, masks, nonzero, one_hot."""
from __future__ import annotations

from .rows import Op

_IDX = {"dim": "the dim to index along.",
        "index": "the indices (an int64 tensor, or a list of ints)."}

ROWS = [
    Op("index_select", "(input: Tensor, dim: int, index: Tensor) -> Tensor",
       "_C.index_select(input, dim, _impl.index.as_long(index))",
       "The entries of input at index (1-D) along dim.", method=True, args=_IDX),
    Op("gather", "(input: Tensor, dim: int, index: Tensor) -> Tensor",
       "_C.gather(input, dim, _impl.index.as_long(index), False)",
       "out[i][j] = input[index[i][j]][j] for dim 0 (and likewise for other dims); the "
       "result has index's shape.", method=True, args=_IDX),
    Op("scatter", "(input: Tensor, dim: int, index: Tensor, src: Optional[TensorLike] = None, *, "
       "value: Optional[Number] = None, reduce: Optional[str] = None) -> Tensor",
       "_impl.index.scatter(input, dim, index, src, value, reduce)",
       "A copy of input with src (or value) written at index along dim.", method=True,
       args={**_IDX, "src": "the values to write (a tensor or a number).",
             "value": "a number to write (instead of src).",
             "reduce": "None (overwrite), 'add' or 'multiply'."}),
    Op("scatter_add", "(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor",
       "_impl.index.scatter_add(input, dim, index, src)",
       "A copy of input with src added at index along dim (duplicates accumulate).",
       method=True, args={**_IDX, "src": "the values to add."}),
    Op("scatter_reduce", "(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, "
       "include_self: bool = True) -> Tensor",
       "_impl.index.scatter_reduce(input, dim, index, src, reduce, include_self)",
       "A copy of input with src reduced into it at index along dim.", method=True,
       args={**_IDX, "src": "the values to reduce in.",
             "reduce": "'sum', 'prod', 'mean', 'amax' or 'amin'.",
             "include_self": "whether input's values at the written positions take part."}),
    Op("index_add", "(input: Tensor, dim: int, index: Tensor, source: Tensor, *, "
       "alpha: Number = 1) -> Tensor",
       "_C.index_add(input, dim, _impl.index.as_long(index), source, alpha)",
       "A copy of input with alpha * source added at index along dim.", method=True,
       args={**_IDX, "source": "the values to add.", "alpha": "the multiplier of source."}),
    Op("masked_fill", "(input: Tensor, mask: Tensor, value: TensorLike) -> Tensor",
       "_C.masked_fill(input, mask, value)", "A copy of input with value where mask is True.",
       method=True, inplace="_C.masked_fill_(self, mask, value)",
       args={"mask": "a bool tensor broadcastable to input.",
             "value": "the fill value (a number or a 0-d tensor)."}),
    Op("masked_select", "(input: Tensor, mask: Tensor) -> Tensor",
       "_C.masked_select(input, mask)",
       "The elements of input where mask (broadcast) is True, as a 1-D tensor.", method=True,
       args={"mask": "a bool tensor broadcastable to input."}),
    Op("take", "(input: Tensor, index: Tensor) -> Tensor",
       "_C.take(input, _impl.index.as_long(index))",
       "The elements of the flattened input at index.", method=True,
       args={"index": "indices into the flattened input."}),
    Op("nonzero", "(input: Tensor, *, as_tuple: bool = False) "
       "-> Union[Tensor, Tuple[Tensor, ...]]",
       "_impl.index.nonzero(input, as_tuple)",
       "The indices of the non-zero elements: an (N, ndim) int64 tensor, or one 1-D tensor "
       "per dim.", method=True, grad=False,
       args={"as_tuple": "return one index tensor per dim."}),
    Op("argwhere", "(input: Tensor) -> Tensor", "_C.nonzero(input)",
       "The indices of the non-zero elements as an (N, ndim) int64 tensor.", method=True,
       grad=False),
    Op("one_hot", "(tensor: Tensor, num_classes: int = -1) -> Tensor",
       "_C.one_hot(tensor, num_classes)",
       "The int64 one-hot encoding of integer class indices, with a new last dim of size "
       "num_classes (the largest index + 1 when -1).", grad=False, also=("F",),
       args={"tensor": "the class indices.", "num_classes": "the number of classes."}),
    Op("index_put", "(input: Tensor, indices: Sequence[Tensor], values: TensorLike, "
       "accumulate: bool = False) -> Tensor",
       "_impl.index.index_put(input, indices, values, accumulate)",
       "A copy of input with values at the positions named by the tuple of index tensors (a "
       "bool mask stands for the indices of its True elements).", method=True,
       inplace="self.copy_(_impl.index.index_put(self, indices, values, accumulate))",
       args={"indices": "one index tensor per leading dim.",
             "values": "the values to write (broadcast).",
             "accumulate": "add to the existing values instead of overwriting."}),
]
