// float32 gemm() against a float64 reference, on the shapes that take each of its paths:
// its own loop for tiny products, oneDNN's sgemm, and the cached matmul primitive it picks for
// large x W^T products (gemm_matmul.cpp), with padded row strides, alpha and beta, and the
// primitive entry itself with accumulation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tandem/kernels/cpu/gemm.h"

namespace tandem {
namespace {

struct Case {
  bool ta, tb;
  int64_t M, N, K, pad;  // every row stride is its minimum plus pad
  double alpha, beta;
};

std::vector<float> fill(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = std::sin(0.37f * float(i) + float(seed));
  return v;
}

void check(const Case& c) {
  const int64_t lda = (c.ta ? c.M : c.K) + c.pad, ldb = (c.tb ? c.K : c.N) + c.pad,
                ldc = c.N + c.pad;
  const auto A = fill((c.ta ? c.K : c.M) * lda, 1), B = fill((c.tb ? c.N : c.K) * ldb, 2);
  auto C = fill(c.M * ldc, 3);
  const auto C0 = C;
  gemm(DType::Float32, c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta,
       C.data(), ldc);
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < c.K; ++k)
        acc += double(c.ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]) *
               double(c.tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]);
      const double want = c.alpha * acc + c.beta * double(C0[size_t(i * ldc + j)]);
      ASSERT_NEAR(C[size_t(i * ldc + j)], want, 1e-4 * (1 + std::sqrt(double(c.K))))
          << "ta " << c.ta << " tb " << c.tb << " M " << c.M << " N " << c.N << " K " << c.K
          << " at (" << i << ", " << j << ")";
    }
  // The padding between rows is never written.
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = c.N; j < ldc; ++j) ASSERT_EQ(C[size_t(i * ldc + j)], C0[size_t(i * ldc + j)]);
}

TEST(Gemm, Float32MatchesTheReferenceOnEveryPath) {
  for (int pad : {0, 3})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (double beta : {0.0, 1.0, 0.5}) {
          check({ta, tb, 5, 7, 9, pad, 1.0, beta});       // tiny: gemm's own loop
          check({ta, tb, 16, 16, 16, pad, 0.5, beta});    // the largest tiny product
          check({ta, tb, 2, 33, 3, pad, 1.0, beta});      // too wide for the tiny loop
          check({ta, tb, 20, 40, 30, pad, 1.0, beta});    // small: sgemm on one thread
          check({ta, tb, 64, 130, 300, pad, 1.0, beta});  // x W^T here takes the primitive
          check({ta, tb, 64, 130, 300, pad, 0.5, beta});  // alpha != 1: sgemm
          check({ta, tb, 300, 40, 200, pad, 1.0, beta});  // a narrow output: sgemm
        }
}

// beta == 0 ignores what C held (NaN included), on the tiny loop as on the library paths.
TEST(Gemm, BetaZeroIgnoresNanInC) {
  for (int64_t M : {4, 40}) {
    const int64_t N = 8, K = 6;
    const auto A = fill(M * K, 7), B = fill(K * N, 8);
    std::vector<float> C(size_t(M * N), std::nanf(""));
    gemm(DType::Float32, false, false, M, N, K, 1.0, A.data(), K, B.data(), N, 0.0, C.data(), N);
    for (float v : C) ASSERT_TRUE(std::isfinite(v)) << "M " << M;
  }
}

TEST(Gemm, MatmulPrimitiveAccumulates) {
  const int64_t M = 33, N = 70, K = 45;
  const auto A = fill(M * K, 4), B = fill(N * K, 5);
  auto C = fill(M * N, 6);
  const auto C0 = C;
  ASSERT_TRUE(gemm_f32_matmul(false, true, M, N, K, A.data(), K, B.data(), K, true, C.data(), N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = C0[size_t(i * N + j)];
      for (int64_t k = 0; k < K; ++k) acc += double(A[size_t(i * K + k)]) * B[size_t(j * K + k)];
      ASSERT_NEAR(C[size_t(i * N + j)], acc, 1e-4) << "(" << i << ", " << j << ")";
    }
  EXPECT_FALSE(gemm_f32_matmul(false, true, M, N, 0, A.data(), 1, B.data(), 1, true, C.data(), N))
      << "K == 0 is left to gemm()'s own path";
}

}  // namespace
}  // namespace tandem
