// C = A @ op(B) for many A against one B (a recurrent layer's W_hh, multiplied once per time
// step): B is reordered once into the blocked layout oneDNN's matmul kernels read, so the
// steps skip the per-call packing that dominates sgemm at small M (32 rows against a 1 MB
// weight). float32 only; other dtypes, and shapes oneDNN serves only with its reference
// kernel, run through gemm() unchanged.
#pragma once
#include <cstdint>
#include <memory>

#include "tandem/core/dtype.h"

namespace tandem {

class PackedGemm {
 public:
  // op(B) is K x N: B stored K x N (ldb) or, with trans_b, N x K. B must live as long as
  // the object (the fallback, taken where packing is not possible, reads it).
  PackedGemm(DType dtype, bool trans_b, int64_t M, int64_t N, int64_t K, const void* B,
             int64_t ldb);
  ~PackedGemm();
  PackedGemm(const PackedGemm&) = delete;
  PackedGemm& operator=(const PackedGemm&) = delete;

  // C[M, N] (row stride ldc) = A[M, K] (row stride lda) @ op(B), plus C when accumulate.
  void run(const void* A, int64_t lda, void* C, int64_t ldc, bool accumulate) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DType dtype_;
  bool trans_b_;
  int64_t M_, N_, K_, ldb_;
  const void* B_;
};

}  // namespace tandem
