// The F(3x3, 3x3) Winograd convolution's multiplies by the transformed weights, for CPUs
// with AVX-512 (conv_winograd3.cpp calls them where cpu_use_avx512()): register-tiled GEMMs
// fed panel by panel, so the transformed weights and their gradient never go to memory.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/winograd3_math.h"

// GCC 12 reports the _mm512_undefined_* pass-through operand of the unpack intrinsics as
// uninitialized once they are inlined (GCC bug 105593): noise.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#if defined(__x86_64__)
namespace tandem::winograd3 {
namespace {

// --- the weights transformed panel by panel into a register-tiled GEMM (AVX-512) -------
// A pass multiplies the tiles' transforms (T rows; one tile per image on 3x3 maps) by U,
// 25 matrices of up to 512 x 512. Materialized whole, U (25/9 of the weights, 26 MB at 512
// x 512 channels) goes to memory and back, which cost as much as the multiplies Winograd
// saves; and sgemm packs each matrix again before it multiplies. Instead each thread
// transforms the weights of one panel of 32 output columns, for all 25 points and kKC rows
// of k at a time, straight into the layout its register tile reads, [point][k][32], and
// multiplies it while it is in cache.
constexpr int64_t kPW = 32;
// Rows of k transformed and multiplied at a time: a thread's panel of all 25 points is then
// 400 KB, within its core's L2, instead of 1.6 MB at 512 channels (measured equally fast;
// less memory).
constexpr int64_t kKC = 128;

// An operand of panel_tile: element (r, k) of A at p[r * rs + k * ks], row k of B at p + k * rs.
struct Strided {
  const float* p;
  int64_t rs, ks;
};

// C[R, w] = A[R, K] x B[K, w] (+ C when acc), w = 16 or 32 columns.
template <int R>
__attribute__((target("avx512f"))) void panel_tile(int64_t K, Strided A, Strided B, int w, float* C,
                                                   int64_t ldc, bool acc) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    c0[r] = acc ? _mm512_loadu_ps(C + r * ldc) : _mm512_setzero_ps();
    c1[r] = acc && w > 16 ? _mm512_loadu_ps(C + r * ldc + 16) : _mm512_setzero_ps();
  }
  const __mmask16 m1 = w > 16 ? 0xFFFF : 0;  // a masked-off load never faults
  for (int64_t k = 0; k < K; ++k) {
    const float* b = B.p + k * B.rs;
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_maskz_loadu_ps(m1, b + 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(A.p[r * A.rs + k * A.ks]);
      c0[r] = _mm512_fmadd_ps(a, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(a, b1, c1[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(C + r * ldc, c0[r]);
    if (w > 16) _mm512_storeu_ps(C + r * ldc + 16, c1[r]);
  }
}

// Rows [0, rows) of C = A x B (+ C when acc), eight at a time.
void panel_rows(int64_t rows, int64_t K, Strided A, Strided B, int w, float* C, int64_t ldc,
                bool acc) {
  int64_t m = 0;
  for (; m + 8 <= rows; m += 8)
    panel_tile<8>(K, {A.p + m * A.rs, A.rs, A.ks}, B, w, C + m * ldc, ldc, acc);
  using Tile = void (*)(int64_t, Strided, Strided, int, float*, int64_t, bool);
  static constexpr Tile kLast[8] = {nullptr,        &panel_tile<1>, &panel_tile<2>, &panel_tile<3>,
                                    &panel_tile<4>, &panel_tile<5>, &panel_tile<6>, &panel_tile<7>};
  if (m < rows) kLast[rows - m](K, {A.p + m * A.rs, A.rs, A.ks}, B, w, C + m * ldc, ldc, acc);
}

// r[i] <- column i of the 16 x 16 matrix whose rows are r.
__attribute__((target("avx512f"))) inline void transpose16(__m512 (&r)[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

// The taps of one panel's filters for rows [k0, k0 + kc) of k, in the order the transform
// reads them, dst[k - k0][tap][32]: lane l at row k is the filter (o = n0 + l, c = k) for
// the forward and (o = k, c = n0 + l) for the input gradient, so each tap of 16 filters is
// one plain load. Gathering the taps from w [O][C][3][3] instead cost as much as the rest
// of the transform: a gather takes ~26 cycles on this core even from L1. 16 x 16 blocks
// through registers; a panel's chunk (147 KB) stays in its core's L2 for the transform.
constexpr int64_t kAhead = 4;  // rows of k prefetched ahead by the input gradient's panel_taps
__attribute__((target("avx512f"))) void panel_taps(const float* w, int64_t C, bool forward,
                                                   int64_t n0, int64_t width, int64_t k0,
                                                   int64_t kc, float* dst) {
  __m512 r[16];
  for (int64_t h = 0; h < width; h += VL) {
    if (forward) {  // rows n0 + h .. + 15 of w [O][C * 9], 16 columns at a time
      const float* src = w + (n0 + h) * C * 9 + k0 * 9;
      for (int64_t j0 = 0; j0 < kc * 9; j0 += VL) {
        for (int i = 0; i < VL; ++i) r[i] = _mm512_loadu_ps(src + i * C * 9 + j0);
        transpose16(r);
        for (int j = 0; j < VL; ++j) _mm512_storeu_ps(dst + (j0 + j) * kPW + h, r[j]);
      }
      continue;
    }
    for (int64_t k = 0; k < kc; ++k) {  // 16 filters (k0 + k, n0 + h + i) of 9 taps each
      const float* src = w + ((k0 + k) * C + n0 + h) * 9;
      // Each row k lies in a page of its own, where the hardware prefetchers stop.
      if (k + kAhead < kc)
        for (int l = 0; l < 9 * VL; l += 16) _mm_prefetch(src + kAhead * C * 9 + l, _MM_HINT_T0);
      for (int i = 0; i < VL; ++i) r[i] = _mm512_maskz_loadu_ps(0x1FF, src + i * 9);
      transpose16(r);
      for (int t = 0; t < 9; ++t) _mm512_storeu_ps(dst + (k * 9 + t) * kPW + h, r[t]);
    }
  }
}

// u = G g G^T of the 16 filters whose taps start at src (taps_major's layout), stored at
// dst + pt * step for point pt.
__attribute__((target("avx512f"))) void transform_taps(const float* src, float* dst, int64_t step) {
  Vec g[3][3], t[5][3], u[5][5];
  for (int k = 0; k < 9; ++k) g[k / 3][k % 3] = load(src + k * kPW);
  left<5, 3, 3, kG>(g, t);
  right_t<5, 3, 5, kG>(t, u);
#pragma GCC unroll 5
  for (int a = 0; a < 5; ++a)
#pragma GCC unroll 5
    for (int b = 0; b < 5; ++b) store(dst + (a * 5 + b) * step, u[a][b]);
}

// gw[o][c0 + l] (9 taps) for the lanes l of the 3 x 3 vectors g, gw at dst = gw[o][c0]: one
// transpose and 16 stores where the lanes one by one take 144 scalar stores.
__attribute__((target("avx512f"))) void store_filters(const Vec (&g)[3][3], float* dst) {
  __m512 m[16];
  for (int k = 0; k < 9; ++k) std::memcpy(&m[k], &g[k / 3][k % 3], sizeof m[k]);
  for (int k = 9; k < 16; ++k) m[k] = _mm512_setzero_ps();
  transpose16(m);
  for (int l = 0; l < VL; ++l) _mm512_mask_storeu_ps(dst + l * 9, 0x1FF, m[l]);
}

// The weight gradient block by block: dU of kOB output channels x kKC input channels at all
// 25 points (200 KB, in L2) multiplied from the tiles' transforms, then turned into gw at
// once. Materialized whole, dU is 26 MB at 512 x 512 channels, and the 25 GEMMs that wrote
// it (inner size T: 32 on 3x3 maps at batch 32) and the adjoint that read it back were bound
// by memory.
constexpr int64_t kOB = 16;
constexpr int64_t kDS = kOB * kKC + VL;  // a point's block, padded by a line as kStep is
void adjoint_block(const float* dU, int64_t C, int64_t o0, int64_t c0, int64_t cw, float* gw) {
  for (int64_t r = 0; r < kOB; ++r)
    for (int64_t c = 0; c < cw; c += VL) {
      Vec u[5][5], t[3][5], g[3][3];
      for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b) u[a][b] = load(dU + (a * 5 + b) * kDS + r * kKC + c);
      left<3, 5, 5, kGt>(u, t);
      right_t<3, 5, 3, kGt>(t, g);
      store_filters(g, gw + ((o0 + r) * C + c0 + c) * 9);
    }
}

}  // namespace

// Out[pt] (T x N) = A[pt] (T x K) U[pt] for every point, U as the forward multiplies it (K =
// C input channels, N = O outputs: U[pt][o][c] at (c, o)) or the input gradient (K = O, N =
// C: at (o, c)). The panels are split between threads.
void transformed_gemm(const float* wt, int64_t O, int64_t C, bool forward, int64_t T,
                      const float* A, float* Out) {
  const int64_t K = forward ? C : O, N = forward ? O : C, QN = (N + kPW - 1) / kPW;
  // A point's panel, padded by a cache line: the 25 stores of one transformed vector would
  // otherwise fall in one L1 set (measured 89 -> 56 us per panel of 512 rows).
  constexpr int64_t kStep = kKC * kPW + VL;
  const int nt = int(std::min<int64_t>(parallel_threads(P * T * N * K / 64), QN));
  parallel_region(nt, [&] {
    Buffer panel(size_t(P * kStep));     // [point][k][32] for kKC rows of k
    Buffer taps(size_t(kKC * 9 * kPW));  // [k][tap][32]
#pragma omp for schedule(static)
    for (int64_t q = 0; q < QN; ++q) {
      const int64_t n0 = q * kPW, w = std::min(kPW, N - n0);  // w: 16 or 32
      if (w < kPW)  // the padding columns: read by the tile, never stored
        for (int pt = 0; pt < P; ++pt)
          for (int64_t r = 0; r < kKC; ++r)
            std::fill_n(panel.p + pt * kStep + r * kPW + w, kPW - w, 0.f);
      for (int64_t k0 = 0; k0 < K; k0 += kKC) {
        const int64_t kc = std::min(kKC, K - k0);
        panel_taps(wt, C, forward, n0, w, k0, kc, taps.p);
        for (int64_t k = 0; k < kc; ++k)
          for (int64_t v = 0; v < w; v += VL)
            transform_taps(taps.p + k * 9 * kPW + v, panel.p + k * kPW + v, kStep);
        for (int pt = 0; pt < P; ++pt)
          panel_rows(T, kc, {A + pt * T * K + k0, K, 1}, {panel.p + pt * kStep, kPW, 0}, int(w),
                     Out + pt * T * N + n0, N, k0 > 0);
      }
    }
  });
}

// gw [O][C][3][3] from Mb [point][T][O] and V [point][T][C]: gw = G^T (Mb^T V) G per point.
void weight_gradient_blocks(const float* Mb, const float* V, int64_t T, int64_t O, int64_t C,
                            float* gw) {
  const int64_t CB = (C + kKC - 1) / kKC, blocks = O / kOB * CB;
  const int nt = int(std::min<int64_t>(parallel_threads(P * T * O * C / 64), blocks));
  parallel_region(nt, [&] {
    Buffer dU(size_t(P * kDS));  // [point][kOB][kKC]
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t o0 = b / CB * kOB, c0 = b % CB * kKC, cw = std::min(kKC, C - c0);
      for (int pt = 0; pt < P; ++pt)
        for (int64_t c = 0; c < cw; c += kPW)
          panel_rows(kOB, T, {Mb + pt * T * O + o0, 1, O}, {V + pt * T * C + c0 + c, C, 0},
                     int(std::min(kPW, cw - c)), dU.p + pt * kDS + c, kKC, false);
      adjoint_block(dU.p, C, o0, c0, cw, gw);
    }
  });
}

}  // namespace tandem::winograd3
#endif
