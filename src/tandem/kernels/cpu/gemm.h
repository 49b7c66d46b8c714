// Matrix multiply on dense row-major panels: float32 through oneDNN's sgemm (JIT-compiled,
// AVX-512), float64 and integers through a cache-blocked loop of our own.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

// C = alpha * op(A) @ op(B) + beta * C. op(A) is M x K (A stored K x M when trans_a), op(B)
// is K x N; lda/ldb/ldc are row strides in elements. dtype: float32, float64 or an integer.
void gemm(DType dtype, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
          const void* A, int64_t lda, const void* B, int64_t ldb, double beta, void* C,
          int64_t ldc);

// Float32 products this small (attention's per-head matrices, 10 x 10 x 8) skip the library
// call, whose fixed cost is larger than the arithmetic: gemm() runs them in a plain loop on
// the calling thread, and batched callers spread many of them over the threads.
constexpr int64_t kTinyGemmMaxN = 32;
inline bool is_tiny_gemm(int64_t M, int64_t N, int64_t K) {
  return N <= kTinyGemmMaxN && M * N * K <= 4096;
}

// C = op(A) @ op(B) for bfloat16 A, B and C (float32 accumulation) on oneDNN's matmul
// primitive. Returns false, computing nothing, where oneDNN has no fast kernel for it (the
// caller then converts to float32).
bool gemm_bf16(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
               int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc);

// C = op(A) @ op(B) (+ C when accumulate) for float32 on a cached oneDNN matmul primitive
// instead of sgemm; gemm() chooses it where it is faster. Returns false, computing nothing,
// where oneDNN has no fast kernel for it.
bool gemm_f32_matmul(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
                     int64_t lda, const void* B, int64_t ldb, bool accumulate, void* C,
                     int64_t ldc);

}  // namespace tandem
