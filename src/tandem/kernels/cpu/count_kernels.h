// Counting and searching loops: unique (grouping equal rows), searchsorted, bincount, histc.
// Inputs are dense; dtypes exclude the 16-bit floats (callers compute those in float32).
#pragma once
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// Groups the N rows of M elements of x (dense, N * M). sort: groups in ascending lexicographic
// order (NaN last); otherwise runs of equal neighbouring rows in input order. NaN never equals
// NaN. Fills, per group, the first source row and the row count, and inverse[n] = group of n.
void unique_rows_kernel(const Tensor& x, int64_t N, int64_t M, bool sort,
                        std::vector<int64_t>& first, std::vector<int64_t>& counts,
                        std::vector<int64_t>& inverse);
// out (int64 or int32, V dense elements) = insertion points of vals (dense, V elements) into
// seq (dense, same dtype). Row r of vals holds V / rows elements and searches row r of seq
// (length L) when seq_batched, else the single row of seq.
void searchsorted_kernel(const Tensor& seq, int64_t L, bool seq_batched, const Tensor& vals,
                         int64_t rows, bool right, const Tensor& out);
// out (length bins) += 1 (or weights[i]) at x[i]; x int64, weights (optional, undefined when
// absent) and out float32 / float64 / int64. Throws IndexError on a value outside [0, bins).
void bincount_kernel(const Tensor& x, const Tensor& weights, const Tensor& out);
// out (length bins, x's floating dtype) = counts of x in equal bins over [lo, hi]; elements
// outside the range and NaNs are ignored; hi falls in the last bin.
void histc_kernel(const Tensor& x, int64_t bins, double lo, double hi, const Tensor& out);

}  // namespace tandem
