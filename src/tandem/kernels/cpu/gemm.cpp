#include "tandem/kernels/cpu/gemm.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {
namespace {

// Blocked C += alpha * A @ B for dense (non-transposed) panels; the j loop vectorizes.
template <typename T>
void gemm_loop(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
               const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  auto a_at = [&](int64_t i, int64_t k) { return ta ? A[k * lda + i] : A[i * lda + k]; };
  // B transposed is packed once so the inner loop streams contiguous rows.
  std::vector<T> bt;
  if (tb) {
    bt.resize(size_t(K * N));
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) bt[k * N + j] = B[j * ldb + k];
    B = bt.data();
    ldb = N;
  }
  int nt = parallel_threads(M * N * std::max<int64_t>(K, 1), 1 << 15);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < M; ++i) {
      T* c = C + i * ldc;
      if (beta == T(0)) {
        for (int64_t j = 0; j < N; ++j) c[j] = T(0);
      } else if (beta != T(1)) {
        for (int64_t j = 0; j < N; ++j) c[j] = T(c[j] * beta);
      }
      constexpr int64_t KB = 256;
      for (int64_t k0 = 0; k0 < K; k0 += KB) {
        int64_t k1 = std::min(K, k0 + KB);
        for (int64_t k = k0; k < k1; ++k) {
          T a = T(alpha * a_at(i, k));
          const T* b = B + k * ldb;
          for (int64_t j = 0; j < N; ++j) c[j] = T(c[j] + a * b[j]);
        }
      }
    }
  });
}

// C = alpha * op(A) op(B) + beta * C for products too small to pay for a library call
// (attention's per-head score matrices: 10 x 10 x 8). dnnl_sgemm spends ~0.3-0.5 us per call
// deciding and packing; these loops finish such a product in less. One thread, no buffers.
template <typename T>
void gemm_tiny(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
               const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  auto a_at = [&](int64_t i, int64_t k) { return ta ? A[k * lda + i] : A[i * lda + k]; };
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    if (tb) {  // rows of B are columns of op(B): dot products along K
      for (int64_t j = 0; j < N; ++j) {
        const T* b = B + j * ldb;
        T acc = T(0);
        for (int64_t k = 0; k < K; ++k) acc += a_at(i, k) * b[k];
        c[j] = beta == T(0) ? T(alpha * acc) : T(alpha * acc + beta * c[j]);
      }
      continue;
    }
    T acc[kTinyGemmMaxN];
    for (int64_t j = 0; j < N; ++j) acc[j] = T(0);
    for (int64_t k = 0; k < K; ++k) {
      const T a = a_at(i, k);
      const T* b = B + k * ldb;
      for (int64_t j = 0; j < N; ++j) acc[j] += a * b[j];
    }
    for (int64_t j = 0; j < N; ++j)
      c[j] = beta == T(0) ? T(alpha * acc[j]) : T(alpha * acc[j] + beta * c[j]);
  }
}

}  // namespace

void gemm(DType dtype, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
          const void* A, int64_t lda, const void* B, int64_t ldb, double beta, void* C,
          int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (dtype == DType::Float32) {
    if (K == 0) {  // oneDNN rejects K == 0; the product is then beta * C
      float* c = static_cast<float*>(C);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j)
          c[i * ldc + j] = beta == 0 ? 0.f : float(beta) * c[i * ldc + j];
      return;
    }
    if (is_tiny_gemm(M, N, K)) {
      gemm_tiny<float>(ta, tb, M, N, K, float(alpha), static_cast<const float*>(A), lda,
                       static_cast<const float*>(B), ldb, float(beta), static_cast<float*>(C), ldc);
      return;
    }
    // Tiny products finish faster on one thread than a parallel region costs (and a busy
    // machine makes OpenMP barriers far worse); oneDNN reads the calling thread's setting.
    const bool small = double(M) * double(N) * double(K) < double(1 << 18);
    threads::available();  // samples the load now and then (threads.h)
    // op(B) = B^T (a Linear layer's x W^T): oneDNN's matmul kernel runs 15-30 % faster than
    // its sgemm from a few million products up, except for narrow outputs (gemm_matmul.cpp).
    if (tb && !ta && alpha == 1 && (beta == 0 || beta == 1) && N >= 64 &&
        double(M) * double(N) * double(K) >= double(1 << 21) &&
        gemm_f32_matmul(ta, tb, M, N, K, A, lda, B, ldb, beta == 1, C, ldc))
      return;
    const int prev_threads = omp_get_max_threads();
    if (small && prev_threads > 1) omp_set_num_threads(1);
    dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, float(alpha),
                                  static_cast<const float*>(A), std::max<int64_t>(lda, 1),
                                  static_cast<const float*>(B), std::max<int64_t>(ldb, 1),
                                  float(beta), static_cast<float*>(C), std::max<int64_t>(ldc, 1));
    if (small && prev_threads > 1) omp_set_num_threads(prev_threads);
    TANDEM_CHECK(st == dnnl_success, Error, "matmul: oneDNN sgemm failed with status ", int(st),
                 " (M=", M, ", N=", N, ", K=", K, ")");
    return;
  }
  TANDEM_DISPATCH_COMPUTE(dtype, "matmul", [&] {
    if constexpr (std::is_same_v<scalar_t, bool>) {
      throw_error<TypeError>("matmul: not implemented for Bool tensors");
    } else {
      gemm_loop<scalar_t>(ta, tb, M, N, K, scalar_t(alpha), static_cast<const scalar_t*>(A), lda,
                          static_cast<const scalar_t*>(B), ldb, scalar_t(beta),
                          static_cast<scalar_t*>(C), ldc);
    }
  });
}

}  // namespace tandem
