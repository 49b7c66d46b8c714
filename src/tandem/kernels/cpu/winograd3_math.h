// Internal to the F(3x3, 3x3) Winograd convolution (conv_winograd3.cpp and, for CPUs with
// AVX-512, conv_winograd3_avx512.cpp): vectors of 16 channels, the transform matrices, and
// the contraction that applies them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tandem/core/allocator.h"

namespace tandem::winograd3 {

inline constexpr int L = 16;   // channels per block of oneDNN's nChw16c layout
inline constexpr int VL = 16;  // channels per vector (two AVX2 registers: more work in flight)
inline constexpr int P = 25;   // transformed points (5 x 5)

// A block from tandem's caching allocator (a training step asks for the same sizes again).
struct Buffer {
  float* p;
  size_t n;
  explicit Buffer(size_t count) : p(static_cast<float*>(cpu_allocate(count * 4))), n(count * 4) {}
  ~Buffer() { cpu_free(p, n); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Vectors of VL floats and the transform matrices as template arguments: with the loops
// unrolled, the products by 0 and 1 fold away.
typedef float Vec __attribute__((vector_size(VL * 4)));
template <int R, int K>
struct Mat {
  float v[R][K];
};
inline constexpr Mat<5, 3> kG{{{0.5f, 0.f, 0.f},
                               {-0.5f, -0.5f, -0.5f},
                               {-1.f / 6, 1.f / 6, -1.f / 6},
                               {1.f / 6, 1.f / 3, 2.f / 3},
                               {0.f, 0.f, 1.f}}};
inline constexpr Mat<5, 5> kBT{
    {{2, -1, -2, 1, 0}, {0, -2, -1, 1, 0}, {0, 2, -3, 1, 0}, {0, -1, 0, 1, 0}, {0, 2, -1, -2, 1}}};
inline constexpr Mat<3, 5> kAT{{{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 1}}};
template <int R, int K>
constexpr Mat<K, R> transpose(const Mat<R, K>& m) {
  Mat<K, R> t{};
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < K; ++k) t.v[k][r] = m.v[r][k];
  return t;
}
inline constexpr Mat<3, 5> kGt = transpose(kG);
inline constexpr Mat<5, 5> kB = transpose(kBT);
inline constexpr Mat<5, 3> kA = transpose(kAT);

// acc + m * x, with m a compile-time constant after unrolling.
inline Vec fma_c(Vec acc, float m, Vec x) {
  if (m == 0.f) return acc;
  if (m == 1.f) return acc + x;
  if (m == -1.f) return acc - x;
  return acc + m * x;
}

// out[r][c] = sum over k of coef(r, c, k) * in(r, c, k), unrolled.
template <int R, int K, int C, typename Coef, typename In>
inline void contract(Vec (&out)[R][C], const Coef& coef, const In& in) {
#pragma GCC unroll 32
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 32
    for (int c = 0; c < C; ++c) {
      Vec acc = {};
#pragma GCC unroll 32
      for (int k = 0; k < K; ++k) acc = fma_c(acc, coef(r, c, k), in(r, c, k));
      out[r][c] = acc;
    }
}
// out = M in (M: R x K; in: K x C) and out = in M^T (in: R x K; M: C x K).
template <int R, int K, int C, Mat<R, K> M>
inline void left(const Vec (&in)[K][C], Vec (&out)[R][C]) {
  contract<R, K, C>(
      out, [](int r, int, int k) { return M.v[r][k]; },
      [&](int, int c, int k) -> const Vec& { return in[k][c]; });
}
template <int R, int K, int C, Mat<C, K> M>
inline void right_t(const Vec (&in)[R][K], Vec (&out)[R][C]) {
  contract<R, K, C>(
      out, [](int, int c, int k) { return M.v[c][k]; },
      [&](int r, int, int k) -> const Vec& { return in[r][k]; });
}
inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) {
  std::memcpy(p, &v, sizeof v);
}

// conv_winograd3_avx512.cpp, for CPUs with AVX-512.
//
// Out[pt] (T x N) = A[pt] (T x K) U[pt] for every point, U = the weights w [O][C][3][3]
// transformed, as the forward multiplies it (K = C, N = O) or the input gradient (K = O,
// N = C).
void transformed_gemm(const float* w, int64_t O, int64_t C, bool forward, int64_t T, const float* A,
                      float* Out);
// gw [O][C][3][3] from Mb [point][T][O] and V [point][T][C]: gw = G^T (Mb^T V) G per point.
void weight_gradient_blocks(const float* Mb, const float* V, int64_t T, int64_t O, int64_t C,
                            float* gw);

}  // namespace tandem::winograd3
