// Inclusive scans along the middle axis of a dense input viewed as (outer O, scanned R,
// inner I): cumsum, cumprod, logcumsumexp, and running max / min with indices.
#pragma once
#include "tandem/core/tensor.h"

namespace tandem {

enum class ScanKind : uint8_t { Sum, Prod, LogSumExp };

// out (dense, x's dtype) = inclusive scan of x over R. LogSumExp needs a floating dtype.
void scan_kernel(ScanKind kind, const Tensor& x, int64_t O, int64_t R, int64_t I,
                 const Tensor& out);
// Running max (or min) over R with int64 indices. As in PyTorch, a NaN sticks once seen (each
// later NaN takes over the index) and ties move the index to the later element.
void cum_extreme_kernel(bool is_max, const Tensor& x, int64_t O, int64_t R, int64_t I,
                        const Tensor& values, const Tensor& indices);

}  // namespace tandem
