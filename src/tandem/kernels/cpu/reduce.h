// Reduction kernels over a dense input viewed as (outer O, reduced R, inner I).
#pragma once
#include "tandem/core/tensor.h"

namespace tandem {

enum class ReduceKind : uint8_t { Sum, Prod, Max, Min, All, Any };

// out (dense, O*I elements, dtype = accumulation dtype) = reduce over R of x (dense,
// dtype = out's dtype except All/Any, which read any dtype as bool after conversion).
void reduce_kernel(ReduceKind kind, const Tensor& x, int64_t O, int64_t R, int64_t I,
                   const Tensor& out);
// values and int64 indices of the max (or min) over R; NaN counts as the largest, and the
// first occurrence wins, as in PyTorch.
void arg_reduce_kernel(bool is_max, const Tensor& x, int64_t O, int64_t R, int64_t I,
                       const Tensor& values, const Tensor& indices);

}  // namespace tandem
