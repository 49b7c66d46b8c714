// Sorting and selection loops over O dense rows of R elements (the op moves its dim last).
// Order is PyTorch's: NaN above every number; equal keys keep their index order, so every
// result is deterministic. Rows run in parallel; x's dtype excludes the 16-bit floats.
#pragma once
#include "tandem/core/tensor.h"

namespace tandem {

// values / indices (O, R): each row sorted ascending (or descending) with source indices.
void sort_rows_kernel(const Tensor& x, int64_t O, int64_t R, bool descending, const Tensor& values,
                      const Tensor& indices);
// values / indices (O, k): the k largest (or smallest) of each row, best first. 0 <= k <= R.
void topk_rows_kernel(const Tensor& x, int64_t O, int64_t R, int64_t k, bool largest,
                      const Tensor& values, const Tensor& indices);
// values / indices (O): the element of rank k (0-based, ascending) of each row. 0 <= k < R.
void kth_rows_kernel(const Tensor& x, int64_t O, int64_t R, int64_t k, const Tensor& values,
                     const Tensor& indices);
// values / indices (O): lower median of each row (R > 0). A row with a NaN gives its first NaN
// unless ignore_nan, which skips NaNs (all-NaN rows still give their first NaN).
void median_rows_kernel(const Tensor& x, int64_t O, int64_t R, bool ignore_nan,
                        const Tensor& values, const Tensor& indices);
// values / indices (O): most frequent value of each row (smallest on ties; R > 0) and the
// index of its last occurrence, as PyTorch's CPU kernel returns.
void mode_rows_kernel(const Tensor& x, int64_t O, int64_t R, const Tensor& values,
                      const Tensor& indices);

}  // namespace tandem
