// 3x3 stride-1 convolutions with padding 1 on small maps by Winograd F(3x3, 3x3): each 3x3
// tile of outputs reads a 5x5 window of the padded input, and the 25 products of the
// transformed window and the transformed filter replace a direct kernel's 81 multiplies.
//
// Why this and not oneDNN's Winograd F(4x4, 3x3) or its direct kernel: ResNet's last stages
// have 6x6 and 3x3 maps. F(4x4) tiles overhang a 6x6 map (64 outputs for 36) and a 3x3 one
// (16 for 9); the direct kernel skips the padding but still does 49 multiplies per 3x3 map
// and channel pair. 3x3 tiles cover both exactly: 25 multiplies per 9 outputs.
//
// All three passes are linear algebra on the same transforms (points 0, 1, -1, 2 and
// infinity, derived by Toom-Cook):
//   forward          Y = A^T [ sum_c U_oc . (B^T X_c B) ] A,      U_oc = G w_oc G^T
//   backward data    the adjoint of the forward: gX_c += B [ sum_o U_oc . (A gY_o A^T) ] B^T
//   backward weights gw_oc = G^T [ sum_tiles (A gY_o A^T) . (B^T X_c B) ] G
// where "." is elementwise over the 25 transformed points and the sums over channels and
// tiles are one GEMM per point. The adjoint forms give the exact gradient of the forward
// computation, so no flipped filter is needed. Float32 error: ~3e-6 of the output's
// magnitude against float64 (direct ~5e-7), as oneDNN's F(4x4).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tandem/core/allocator.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/gemm.h"

// GCC 12 reports the _mm512_undefined_* pass-through operand of the unpack intrinsics as
// uninitialized once they are inlined (GCC bug 105593): noise.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace tandem {
namespace {

constexpr int L = 16;   // channels per block of oneDNN's nChw16c layout
constexpr int VL = 16;  // channels per vector (two AVX2 registers: more work in flight)
constexpr int P = 25;   // transformed points (5 x 5)

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
constexpr Mat<5, 3> kG{{{0.5f, 0.f, 0.f},
                        {-0.5f, -0.5f, -0.5f},
                        {-1.f / 6, 1.f / 6, -1.f / 6},
                        {1.f / 6, 1.f / 3, 2.f / 3},
                        {0.f, 0.f, 1.f}}};
constexpr Mat<5, 5> kBT{
    {{2, -1, -2, 1, 0}, {0, -2, -1, 1, 0}, {0, 2, -3, 1, 0}, {0, -1, 0, 1, 0}, {0, 2, -1, -2, 1}}};
constexpr Mat<3, 5> kAT{{{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 1}}};
template <int R, int K>
constexpr Mat<K, R> transpose(const Mat<R, K>& m) {
  Mat<K, R> t{};
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < K; ++k) t.v[k][r] = m.v[r][k];
  return t;
}
constexpr Mat<3, 5> kGt = transpose(kG);
constexpr Mat<5, 5> kB = transpose(kBT);
constexpr Mat<5, 3> kA = transpose(kAT);

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

// An activation tensor of C channels on H x W maps, NCHW or nChw16c: the address of
// channels [c0, c0 + VL) at (n, y, x) and the distance between those channels.
struct Act {
  const float* base;
  int64_t C, H, W;
  bool blocked;
  int64_t lane_stride() const { return blocked ? 1 : H * W; }
  int64_t at(int64_t n, int64_t c0, int64_t y, int64_t x) const {
    return blocked ? (n * C + c0 / L * L) * H * W + (y * W + x) * L + c0 % L
                   : ((n * C + c0) * H + y) * W + x;
  }
};

struct Geometry {
  int64_t N, H, W, TY, TX, T;  // T = N * TY * TX tiles
  explicit Geometry(const ConvParams& p)
      : N(p.N), H(p.H), W(p.W), TY((p.H + 2) / 3), TX((p.W + 2) / 3), T(p.N * TY * TX) {}
};

// u = (G w G^T) of 16 filters of the weights w [O][C][3][3]: filters (o, c + l) for lanes
// l (576 contiguous bytes), or (o + l, c) when across_o.
inline void transform_filters(const float* w, int64_t C, bool across_o, int64_t o, int64_t c,
                              Vec (&u)[5][5]) {
  const float* src = w + (o * C + c) * 9;
  const int64_t lane = across_o ? C * 9 : 9;
  Vec g[3][3], t[5][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < VL; ++l) g[i][j][l] = src[l * lane + i * 3 + j];
  left<5, 3, 3, kG>(g, t);
  right_t<5, 3, 5, kG>(t, u);
}

// U[point][o][c] = (G w[o][c] G^T)[point].
void weight_transform(const float* w, int64_t O, int64_t C, float* U) {
  const int nt = parallel_threads(O * C * 64);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t c0 = 0; c0 < C; c0 += VL) {
        Vec u[5][5];
        transform_filters(w, C, false, o, c0, u);
        for (int a = 0; a < 5; ++a)
          for (int b = 0; b < 5; ++b) store(U + ((a * 5 + b) * O + o) * C + c0, u[a][b]);
      }
  });
}

// gw[o][c] = G^T dU[.][o][c] G for dU [point][O][C]: the adjoint of weight_transform.
void weight_adjoint(const float* dU, int64_t O, int64_t C, float* gw) {
  const int nt = parallel_threads(O * C * 64);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t c0 = 0; c0 < C; c0 += VL) {
        Vec u[5][5], t[3][5], r[3][3];
        for (int a = 0; a < 5; ++a)
          for (int b = 0; b < 5; ++b) u[a][b] = load(dU + ((a * 5 + b) * O + o) * C + c0);
        left<3, 5, 5, kGt>(u, t);
        right_t<3, 5, 3, kGt>(t, r);
        float* dst = gw + (o * C + c0) * 9;
        for (int l = 0; l < VL; ++l)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) dst[l * 9 + i * 3 + j] = r[i][j][l];
      }
  });
}

// Tile t = (n, ty, tx) of a Geometry.
struct Tile {
  int64_t n, ty, tx;
  Tile(const Geometry& g, int64_t t) : n(t / (g.TY * g.TX)), ty(t / g.TX % g.TY), tx(t % g.TX) {}
};

// f(t, c0) for every tile t and vector of channels c0 of C channels, split between threads.
template <typename F>
void for_tile_vectors(const Geometry& g, int64_t C, const F& f) {
  const int64_t CB = C / VL;
  const int nt = parallel_threads(g.T * C * 64);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t k = 0; k < g.T * CB; ++k) f(k / CB, k % CB * VL);
  });
}

// The S x S window of a whose top-left corner is (y0, x0) in image n, channels [c0, c0 + VL);
// zeros outside the map (padding, or the part of an edge tile beyond it).
template <int S>
void gather(const Act& a, int64_t n, int64_t c0, int64_t y0, int64_t x0, Vec (&d)[S][S]) {
  const int64_t ls = a.lane_stride();
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j) {
      const int64_t y = y0 + i, x = x0 + j;
      if (y < 0 || y >= a.H || x < 0 || x >= a.W) {
        d[i][j] = Vec{};
        continue;
      }
      const float* src = a.base + a.at(n, c0, y, x);
      if (ls == 1) {
        d[i][j] = load(src);
      } else {
        for (int l = 0; l < VL; ++l) d[i][j][l] = src[l * ls];
      }
    }
}

// V[point][tile][c] = (B^T X B)[point] of each tile's 5x5 window (zeros outside the map).
void input_transform(const Act& x, const Geometry& g, float* V) {
  for_tile_vectors(g, x.C, [&](int64_t t, int64_t c0) {
    const Tile tl(g, t);
    Vec d[5][5], s[5][5], v[5][5];
    gather(x, tl.n, c0, tl.ty * 3 - 1, tl.tx * 3 - 1, d);
    left<5, 5, 5, kBT>(d, s);
    right_t<5, 5, 5, kBT>(s, v);
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 5; ++b) store(V + ((a * 5 + b) * g.T + t) * x.C + c0, v[a][b]);
  });
}

// Mb[point][tile][o] = (A gY A^T)[point]: the adjoint of the output transform, for the
// output gradient gy (O channels); positions of an edge tile beyond the map are no outputs
// and get no gradient.
void output_adjoint(const Act& gy, const Geometry& g, float* Mb) {
  for_tile_vectors(g, gy.C, [&](int64_t t, int64_t c0) {
    const Tile tl(g, t);
    Vec y3[3][3], s[5][3], m[5][5];
    gather(gy, tl.n, c0, tl.ty * 3, tl.tx * 3, y3);
    left<5, 3, 3, kA>(y3, s);
    right_t<5, 3, 5, kA>(s, m);
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 5; ++b) store(Mb + ((a * 5 + b) * g.T + t) * gy.C + c0, m[a][b]);
  });
}

// Stores v as channels [c0, c0 + VL) of a at (n, y, x).
void put(const Act& a, int64_t n, int64_t c0, int64_t y, int64_t x, Vec v) {
  float* dst = const_cast<float*>(a.base) + a.at(n, c0, y, x);
  const int64_t ls = a.lane_stride();
  if (ls == 1) {
    store(dst, v);
  } else {
    for (int l = 0; l < VL; ++l) dst[l * ls] = v[l];
  }
}

// y = A^T M A per tile (+ bias, ReLU), the outputs inside the map written.
void output_transform(const float* M, const Geometry& g, int64_t O, bool blocked, const float* b,
                      bool relu, float* y) {
  const Act ya{y, O, g.H, g.W, blocked};
  for_tile_vectors(g, O, [&](int64_t t, int64_t o0) {
    const Tile tl(g, t);
    Vec m[5][5], s[3][5], r[3][3];
    for (int a = 0; a < 5; ++a)
      for (int c = 0; c < 5; ++c) m[a][c] = load(M + ((a * 5 + c) * g.T + t) * O + o0);
    left<3, 5, 5, kAT>(m, s);
    right_t<3, 5, 3, kAT>(s, r);
    Vec bias{};
    if (b) bias = load(b + o0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int64_t yy = tl.ty * 3 + i, xx = tl.tx * 3 + j;
        if (yy >= g.H || xx >= g.W) continue;
        Vec v = r[i][j] + bias;
        if (relu) v = v > 0.f ? v : Vec{};
        put(ya, tl.n, o0, yy, xx, v);
      }
  });
}

// gx = sum over tiles of B Vb B^T, the windows' parts inside the map (windows overlap by
// two rows and columns, so one task owns one image's channel block).
void input_adjoint(const float* Vb, const Geometry& g, int64_t C, bool blocked, float* gx) {
  const int64_t CB = C / VL;
  const Act xa{gx, C, g.H, g.W, blocked};
  const int64_t HW = g.H * g.W;
  const int nt = parallel_threads(g.T * C * 64);
  parallel_region(nt, [&] {
    Vec* acc = static_cast<Vec*>(cpu_allocate(size_t(HW) * sizeof(Vec)));
#pragma omp for schedule(static)
    for (int64_t k = 0; k < g.N * CB; ++k) {
      const int64_t n = k / CB, c0 = k % CB * VL;
      std::fill_n(acc, HW, Vec{});
      for (int64_t ty = 0; ty < g.TY; ++ty)
        for (int64_t tx = 0; tx < g.TX; ++tx) {
          const int64_t t = (n * g.TY + ty) * g.TX + tx;
          Vec v[5][5], s[5][5], d[5][5];
          for (int a = 0; a < 5; ++a)
            for (int c = 0; c < 5; ++c) v[a][c] = load(Vb + ((a * 5 + c) * g.T + t) * C + c0);
          left<5, 5, 5, kB>(v, s);
          right_t<5, 5, 5, kB>(s, d);
          for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) {
              const int64_t y = ty * 3 - 1 + i, xx = tx * 3 - 1 + j;
              if (y < 0 || y >= g.H || xx < 0 || xx >= g.W) continue;  // padding
              acc[y * g.W + xx] += d[i][j];
            }
        }
      for (int64_t q = 0; q < HW; ++q) put(xa, n, c0, q / g.W, q % g.W, acc[q]);
    }
    cpu_free(acc, size_t(HW) * sizeof(Vec));
  });
}

// One float32 GEMM per transformed point: C[pt] (M x N) = op(A[pt]) op(B[pt]).
void per_point_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                    const float* B, int64_t ldb, float* C) {
  const int64_t a_step = M * K, b_step = K * N, c_step = M * N;
  for (int pt = 0; pt < P; ++pt)
    gemm(DType::Float32, ta, tb, M, N, K, 1.0, A + pt * a_step, lda, B + pt * b_step, ldb, 0.0,
         C + pt * c_step, N);
}

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

#if defined(__x86_64__)
// C[R, w] = A[R, K] (rows lda apart) x panel [K][32] (+ C when acc), w = 16 or 32 columns.
template <int R>
__attribute__((target("avx512f"))) void panel_tile(int64_t K, const float* A, int64_t lda,
                                                   const float* B, int w, float* C, int64_t ldc,
                                                   bool acc) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    c0[r] = acc ? _mm512_loadu_ps(C + r * ldc) : _mm512_setzero_ps();
    c1[r] = acc && w > 16 ? _mm512_loadu_ps(C + r * ldc + 16) : _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < K; ++k) {
    const __m512 b0 = _mm512_loadu_ps(B + k * kPW), b1 = _mm512_loadu_ps(B + k * kPW + 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(A[r * lda + k]);
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

// Rows [0, rows) of C = A x panel (+ C when acc), eight at a time.
void panel_rows(int64_t rows, int64_t K, const float* A, int64_t lda, const float* B, int w,
                float* C, int64_t ldc, bool acc) {
  int64_t m = 0;
  for (; m + 8 <= rows; m += 8) panel_tile<8>(K, A + m * lda, lda, B, w, C + m * ldc, ldc, acc);
  using Tile = void (*)(int64_t, const float*, int64_t, const float*, int, float*, int64_t, bool);
  static constexpr Tile kLast[8] = {nullptr,        &panel_tile<1>, &panel_tile<2>, &panel_tile<3>,
                                    &panel_tile<4>, &panel_tile<5>, &panel_tile<6>, &panel_tile<7>};
  if (m < rows) kLast[rows - m](K, A + m * lda, lda, B, w, C + m * ldc, ldc, acc);
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
          panel_rows(T, kc, A + pt * T * K + k0, K, panel.p + pt * kStep, int(w),
                     Out + pt * T * N + n0, N, k0 > 0);
      }
    }
  });
}
#endif

// Whether the passes take transformed_gemm (where the CPU has AVX-512) or U whole and sgemm.
bool panel_gemm_on() {
#if defined(__x86_64__)
  return cpu_use_avx512();
#else
  return false;
#endif
}

// The forward's Out[pt] (T x O) = A[pt] (T x C) U[pt]^T, or the input gradient's Out[pt]
// (T x C) = A[pt] (T x O) U[pt], U[pt] (O x C) being the weights w transformed.
void multiply_by_u(const float* w, int64_t O, int64_t C, bool forward, int64_t T, const float* A,
                   float* Out) {
#if defined(__x86_64__)
  if (panel_gemm_on()) return transformed_gemm(w, O, C, forward, T, A, Out);
#endif
  Buffer U(size_t(P * C * O));
  weight_transform(w, O, C, U.p);
  if (forward)
    per_point_gemm(false, true, T, O, C, A, C, U.p, C, Out);
  else
    per_point_gemm(false, false, T, C, O, A, O, U.p, C, Out);
}

}  // namespace

bool conv2d_prefers_winograd3(const ConvParams& p, ConvPass pass) {
  // Measured fwd+bwd at 2 threads against oneDNN (its F(4x4) Winograd from 8x8 maps, else
  // direct): batch 32, 256 channels, 6x6 maps 13.5 -> 9.7 ms, 512 channels 6x6 49.9 -> 33.4,
  // 256 channels 9x9 30.1 -> 20.5. It loses where the tiles overhang the map (4x4, 7x7, 8x8,
  // 10x10-12x12: 10-50 % slower), and where few tiles share one transform of the weights
  // (batch 8 of 3x3 maps, 512 channels: 6.4 -> 8.5 ms); with 32 channels the two are level.
  // On 3x3 maps (one tile per image) the forward and the input gradient with U whole and
  // sgemm only win from batch 64 (512 channels: 9.0 -> 6.8 ms each; level at batch 32); the
  // weight gradient wins from batch 16 (512 channels, batch 32: 4.9 -> 3.9 ms). With the
  // panel-by-panel transform (AVX-512) all three win at batch 32: fwd+bwd of 32 x 512 x 3x3
  // 15.1-15.5 -> 12.9-14.1 ms.
  const bool shape = p.KH == 3 && p.KW == 3 && p.sh == 1 && p.sw == 1 && p.dh == 1 && p.dw == 1 &&
                     p.pt == 1 && p.pl == 1 && p.pb == 1 && p.pr == 1 && p.groups == 1 &&
                     p.OH == p.H && p.OW == p.W;
  const int64_t tiles = p.N * (p.H / 3) * (p.W / 3);
  if (pass != ConvPass::BackwardWeights && p.H * p.W == 9 && tiles < 64 && !panel_gemm_on())
    return false;
  // Without AVX-512 the transformed weights are held whole while the pass runs (25/9 of the
  // weights, 26 MB at 512 x 512 channels); wider layers, beyond what was measured, stay on
  // oneDNN.
  return shape && p.C % L == 0 && p.O % L == 0 && p.C >= 64 && p.O >= 64 && p.C <= 512 &&
         p.O <= 512 && p.H % 3 == 0 && p.W % 3 == 0 && p.H <= 9 && p.W <= 9 && tiles >= 16 &&
         (p.act == ConvParams::Act::None || p.act == ConvParams::Act::Relu);
}

void conv2d_forward_winograd3(const ConvParams& p, const float* x, const float* w, const float* b,
                              float* y) {
  const Geometry g(p);
  Buffer V(size_t(P * g.T * p.C)), M(size_t(P * g.T * p.O));
  input_transform(Act{x, p.C, p.H, p.W, p.blocked}, g, V.p);
  multiply_by_u(w, p.O, p.C, true, g.T, V.p, M.p);
  output_transform(M.p, g, p.O, p.blocked, b, p.act == ConvParams::Act::Relu, y);
}

void conv2d_backward_data_winograd3(const ConvParams& p, const float* gy, const float* w,
                                    float* gx) {
  const Geometry g(p);
  Buffer Mb(size_t(P * g.T * p.O)), Vb(size_t(P * g.T * p.C));
  output_adjoint(Act{gy, p.O, p.H, p.W, p.blocked}, g, Mb.p);
  multiply_by_u(w, p.O, p.C, false, g.T, Mb.p, Vb.p);
  input_adjoint(Vb.p, g, p.C, p.blocked, gx);
}

void conv2d_backward_weights_winograd3(const ConvParams& p, const float* x, const float* gy,
                                       float* gw, float* gb) {
  const Geometry g(p);
  Buffer V(size_t(P * g.T * p.C)), Mb(size_t(P * g.T * p.O)), dU(size_t(P * p.C * p.O));
  input_transform(Act{x, p.C, p.H, p.W, p.blocked}, g, V.p);
  output_adjoint(Act{gy, p.O, p.H, p.W, p.blocked}, g, Mb.p);
  // dU[pt] (O x C) = Mb[pt]^T (O x T) V[pt] (T x C).
  per_point_gemm(true, false, p.O, p.C, g.T, Mb.p, p.O, V.p, p.C, dU.p);
  weight_adjoint(dU.p, p.O, p.C, gw);
  if (gb) {
    const Act ga{gy, p.O, p.H, p.W, p.blocked};
    const int64_t HW = p.H * p.W;
    for (int64_t o = 0; o < p.O; ++o) {
      float s = 0.f;
      for (int64_t n = 0; n < p.N; ++n)
        for (int64_t q = 0; q < HW; ++q) s += gy[ga.at(n, o, q / p.W, q % p.W)];
      gb[o] = s;
    }
  }
}

}  // namespace tandem
