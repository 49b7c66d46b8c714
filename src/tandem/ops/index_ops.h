// Indexing ops: advanced (integer-array) indexing with numpy semantics, gather / scatter
// along a dim, masks, and one_hot.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// x[..., i0, ..., i1, ...] where index tensors (int64, broadcast together) apply at `dims`
// (sorted). Result dims follow numpy: the broadcast index shape replaces the indexed dims
// in place when they are adjacent, else it goes first.
Tensor index(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<Tensor>& idx);
// Functional x[idx] = values (or += with accumulate); returns a new tensor.
Tensor index_put(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<Tensor>& idx,
                 const Tensor& values, bool accumulate = false);
// In-place form: writes into x (any view).
const Tensor& index_put_(const Tensor& x, const std::vector<int64_t>& dims,
                         const std::vector<Tensor>& idx, const Tensor& values,
                         bool accumulate = false);
// Indices of non-zero elements: (N, ndim) int64.
Tensor nonzero(const Tensor& x);
// One int64 index tensor per dim of a bool mask (numpy's mask.nonzero()).
std::vector<Tensor> mask_to_indices(const Tensor& mask);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, const Tensor& value);
// 1-D tensor of the elements of x where mask (broadcast to x) is true.
Tensor masked_select(const Tensor& x, const Tensor& mask);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// index_select for a composite op: an index outside [0, size) raises IndexError naming `op`
// when the kernel runs (so also in a compiled graph, where indices have no values yet).
Tensor index_select_for(const char* op, const Tensor& x, int64_t dim, const Tensor& index);
// out[i][j] = x[index[i][j]][j] for dim 0 (PyTorch's gather). wrap: negative indices count
// from the end (MindSpore's gather_elements); false: they raise IndexError (PyTorch).
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index, bool wrap = true);
// reduce: "" (replace), "add" / "sum", "multiply" / "prod", "amax", "amin", "mean"; wrap as
// for gather.
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce = "", bool wrap = true);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                   bool wrap = true);
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha = 1);
// index_add for a composite op: an index outside [0, size) raises IndexError naming `op`
// when the kernel runs (as index_select_for).
Tensor index_add_for(const char* op, const Tensor& x, int64_t dim, const Tensor& index,
                     const Tensor& source, Scalar alpha = 1);
// Elements of the flattened x at `index` (result has index's shape).
Tensor take(const Tensor& x, const Tensor& index);
// num_classes = -1 infers max(x) + 1.
Tensor one_hot(const Tensor& x, int64_t num_classes = -1);

}  // namespace tandem
