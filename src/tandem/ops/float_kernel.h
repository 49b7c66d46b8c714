// Helpers for ops whose kernels exist for float32 and float64 only (convolution, pooling,
// normalization, resampling): 16-bit floats compute in float32 and convert back.
#pragma once
#include "tandem/core/tensor.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/elementwise.h"

namespace tandem {

// The dtype a float kernel runs in for output dtype t.
inline DType float_kernel_dtype(DType t) {
  return t == DType::Float64 ? t : DType::Float32;
}
// t as a dense tensor of dtype kt (no copy when it already is one).
inline Tensor dense_as(const Tensor& t, DType kt) {
  return (t.dtype() == kt ? t : to_dtype(t, kt)).contiguous();
}
// The buffer a kernel writes for output `out`: out itself when it has the kernel dtype.
inline Tensor kernel_buffer(const Tensor& out, DType kt) {
  return out.dtype() == kt ? out : Tensor::empty(out.shape(), kt);
}
// Calls f(tag) with tag's type float or double per kernel dtype.
template <typename F>
void by_kernel_dtype(DType kt, F f) {
  if (kt == DType::Float64)
    f(double{});
  else
    f(float{});
}
// Copies a kernel buffer back into its output when they differ.
inline void copy_back(const Tensor& buf, const Tensor& out) {
  if (!buf.same(out)) copy_into(out, buf);
}

}  // namespace tandem
