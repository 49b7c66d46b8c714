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
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tandem/core/allocator.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/kernels/cpu/winograd3_math.h"

namespace tandem {
namespace {

using namespace winograd3;

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

// gb[o] = the sum of gy over images and positions, 16 channels at a time on each thread.
void bias_gradient(const Act& gy, int64_t N, float* gb) {
  const int64_t HW = gy.H * gy.W, qs = gy.blocked ? L : 1, ls = gy.lane_stride();
  const int nt = parallel_threads(N * HW * gy.C);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t c0 = 0; c0 < gy.C; c0 += VL) {
      float acc[VL] = {};
      for (int64_t n = 0; n < N; ++n) {
        const float* p = gy.base + gy.at(n, c0, 0, 0);
        for (int64_t q = 0; q < HW; ++q)
          for (int l = 0; l < VL; ++l) acc[l] += p[q * qs + l * ls];
      }
      std::copy(acc, acc + VL, gb + c0);
    }
  });
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
  Buffer V(size_t(P * g.T * p.C)), Mb(size_t(P * g.T * p.O));
  input_transform(Act{x, p.C, p.H, p.W, p.blocked}, g, V.p);
  output_adjoint(Act{gy, p.O, p.H, p.W, p.blocked}, g, Mb.p);
#if defined(__x86_64__)
  if (panel_gemm_on()) {
    weight_gradient_blocks(Mb.p, V.p, g.T, p.O, p.C, gw);
  } else
#endif
  {
    // dU[pt] (O x C) = Mb[pt]^T (O x T) V[pt] (T x C).
    Buffer dU(size_t(P * p.C * p.O));
    per_point_gemm(true, false, p.O, p.C, g.T, Mb.p, p.O, V.p, p.C, dU.p);
    weight_adjoint(dU.p, p.O, p.C, gw);
  }
  if (gb) bias_gradient(Act{gy, p.O, p.H, p.W, p.blocked}, p.N, gb);
}

}  // namespace tandem
