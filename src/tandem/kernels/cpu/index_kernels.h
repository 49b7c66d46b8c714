// Byte-moving loops behind indexing, gather and scatter.
#pragma once
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// For each b: copy `inner` contiguous elements from src_base + offsets[b] to dst + b*inner.
void gather_blocks(const Tensor& src, const std::vector<int64_t>& offsets, int64_t inner,
                   const Tensor& dst);
// out[pos with dim := index[pos]] (op)= src[pos] over every position of index.
// mode: 0 replace, 1 add, 2 multiply, 3 amax, 4 amin. out may be any view. Indices lie in
// [-n, n) with negative ones counted from the end (wrap, MindSpore's rule) or in [0, n)
// (PyTorch's rule); others raise IndexError.
void scatter_kernel(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src,
                    int mode, bool wrap = true);
// out[pos] = x[pos with dim := index[pos]]; out dense with index's shape. wrap as above.
void gather_kernel(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out,
                   bool wrap = true);

}  // namespace tandem
