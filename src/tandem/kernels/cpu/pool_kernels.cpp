#include "tandem/kernels/cpu/pool_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/simd.h"
#include "tandem/kernels/cpu/storage_io.h"

// GCC 12 reports the _mm512_undefined_* pass-through operand of some intrinsics as
// uninitialized once they are inlined (GCC bug 105593): noise.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tandem {
namespace {

int threads_for(const PoolParams& p) {
  return parallel_threads(p.planes * p.OH * p.OW * p.kh * p.kw, 1 << 14);
}

// Undilated windows (ResNet's 3x3/2 pad 1, 2x2/2), one plane at a time. The plane is
// copied, padded with -inf, into its sh x sw stride phases (P[a][b][r][c] = padded[r * sh +
// a][c * sw + b]), so that tap (i, j) of every output is one contiguous run of a phase:
// out[oh][ow] = P[i % sh][j % sw][oh + i / sh][ow + j / sw]. Outputs are kept with the
// phases' row length (a few junk columns), which makes each tap a single long vector loop
// over the whole output plane instead of a short one per output row. Taps are visited in
// the general loop's row-major order and keep its rule (a strictly greater value or the
// first NaN wins), so values and indices are identical; a padding cell can only win when
// every real value of its window is -inf, and then the first real cell is taken, as there.
#if defined(__x86_64__)
// The float32 form with AVX-512 masks (GCC keeps the generic loop scalar behind an alias
// check). Compiled for AVX-512 whatever the build's baseline; taken where the CPU has it.
__attribute__((target("avx512f"))) void max_tap_avx512(int64_t n, const float* __restrict src,
                                                       float* __restrict b, int32_t* __restrict k,
                                                       int32_t id) {
  const __m512i vid = _mm512_set1_epi32(id), zero = _mm512_setzero_si512();
  for (int64_t t = 0; t < n; t += 16) {
    const __mmask16 m = n - t >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - t)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, src + t), cur = _mm512_maskz_loadu_ps(m, b + t);
    const __m512i kt = _mm512_maskz_loadu_epi32(m, k + t);
    __mmask16 take =
        _mm512_cmp_ps_mask(v, cur, _CMP_GT_OQ) | _mm512_cmplt_epi32_mask(kt, zero) |
        (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(cur, cur, _CMP_ORD_Q));
    take &= m;
    _mm512_mask_storeu_ps(b + t, take, v);
    _mm512_mask_storeu_epi32(k + t, take, vid);
  }
}
#endif

// One tap over n outputs: the running max b and winning tap k (-1: none yet).
template <typename T>
void max_tap(int64_t n, const T* __restrict src, T* __restrict b, int32_t* __restrict k,
             int32_t id) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>)
    if (cpu_use_avx512()) return max_tap_avx512(n, src, b, k, id);
#endif
  for (int64_t t = 0; t < n; ++t) {
    const T v = src[t], cur = b[t];
    const int32_t kt = k[t];
    // Bitwise, not short-circuit: branches would keep the loop scalar.
    const bool take = (v > cur) | (kt < 0) | ((v != v) & (cur == cur));
    b[t] = take ? v : cur;
    k[t] = take ? id : kt;
  }
}

// X is the storage type (bfloat16 planes are widened as they are copied into the phases,
// and the maxima, values of the input, narrowed back exactly).
template <typename X>
void max_fwd_dense(const PoolParams& p, const X* x, X* y, int64_t* idx) {
  using T = compute_t<X>;
  const int64_t sh = p.sh, sw = p.sw;
  const int64_t PR = p.OH + (p.kh - 1) / sh + 1, PC = p.OW + (p.kw - 1) / sw + 1;
  const int64_t phase = PR * PC, out_len = p.OH * PC;
  const T ninf = -std::numeric_limits<T>::infinity();
  std::vector<int64_t> tap_i(size_t(p.kh * p.kw)), tap_j(size_t(p.kh * p.kw));  // no divisions
  std::vector<int64_t> tap_off(size_t(p.kh * p.kw));  // tap's input offset from the corner
  for (int64_t i = 0; i < p.kh; ++i)
    for (int64_t j = 0; j < p.kw; ++j) {
      const size_t t = size_t(i * p.kw + j);
      tap_i[t] = i, tap_j[t] = j, tap_off[t] = i * p.W + j;
    }
  // Outputs whose window lies wholly inside the input (rows [in_r0, in_r1), columns [in_c0,
  // in_c1)) find their winner's index without the padding checks.
  auto inside = [](int64_t pad, int64_t stride, int64_t k, int64_t in, int64_t out, int64_t* lo,
                   int64_t* hi) {
    *lo = std::min(out, (pad + stride - 1) / stride);
    *hi = in - k + pad >= 0 ? std::min(out, (in - k + pad) / stride + 1) : 0;
    *hi = std::max(*hi, *lo);
  };
  int64_t in_r0, in_r1, in_c0, in_c1;
  inside(p.ph, sh, p.kh, p.H, p.OH, &in_r0, &in_r1);
  inside(p.pw, sw, p.kw, p.W, p.OW, &in_c0, &in_c1);
  int nt = threads_for(p);
  parallel_region(nt, [&] {
    std::vector<T> ph(size_t(sh * sw * phase + PC));  // + a row of slack for the last tap
    std::vector<T> best(static_cast<size_t>(out_len));
    std::vector<int32_t> tap(static_cast<size_t>(out_len));
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const X* xp = x + pl * p.H * p.W;
      std::fill(ph.begin(), ph.end(), ninf);
      for (int64_t ih = 0; ih < p.H; ++ih) {
        const int64_t a = ih + p.ph;  // padded row
        if (a / sh >= PR) break;
        const X* xr = xp + ih * p.W;
        for (int64_t b = 0; b < sw; ++b) {
          T* __restrict dst = ph.data() + ((a % sh) * sw + b) * phase + (a / sh) * PC;
          // Padded column c * sw + b is input column c * sw + b - pw: the c in range.
          const int64_t off = b - p.pw;
          const int64_t c0 = off >= 0 ? 0 : (-off + sw - 1) / sw;
          const int64_t c1 = std::min(PC, (p.W - off + sw - 1) / sw);
          const X* __restrict src = xr + off;
          if (sw == 1)
            for (int64_t c = c0; c < c1; ++c) dst[c] = ld(src[c]);
          else if (sw == 2)  // a constant stride: shuffles, not gathers
            for (int64_t c = c0; c < c1; ++c) dst[c] = ld(src[2 * c]);
          else
            for (int64_t c = c0; c < c1; ++c) dst[c] = ld(src[c * sw]);
        }
      }
      std::fill(best.begin(), best.end(), ninf);
      std::fill(tap.begin(), tap.end(), int32_t(-1));
      T* bv = best.data();
      int32_t* k = tap.data();
      for (int64_t i = 0; i < p.kh; ++i)
        for (int64_t j = 0; j < p.kw; ++j) {
          const T* src = ph.data() + ((i % sh) * sw + j % sw) * phase + (i / sh) * PC + j / sw;
          max_tap(out_len, src, bv, k, int32_t(i * p.kw + j));
        }
      // Locals, not p's fields: stores through the int64 outputs could alias them.
      const int64_t OH = p.OH, OW = p.OW, H = p.H, W = p.W, ph0 = p.ph, pw0 = p.pw;
      const int64_t* ti = tap_i.data();
      const int64_t* tj = tap_j.data();
      const int64_t* to = tap_off.data();
      for (int64_t oh = 0; oh < OH; ++oh) {
        X* yr = y + (pl * OH + oh) * OW;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = st<X>(bv[oh * PC + ow]);
        if (!idx) continue;
        int64_t* ir = idx + (pl * OH + oh) * OW;
        const int32_t* kr = k + oh * PC;
        auto checked = [&](int64_t ow) {  // a window that may reach into the padding
          int64_t ih = oh * sh + ti[kr[ow]] - ph0, iw = ow * sw + tj[kr[ow]] - pw0;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W) {  // all -inf: the first real cell
            ih = std::max<int64_t>(oh * sh - ph0, 0);
            iw = std::max<int64_t>(ow * sw - pw0, 0);
          }
          ir[ow] = ih * W + iw;
        };
        if (oh < in_r0 || oh >= in_r1) {
          for (int64_t ow = 0; ow < OW; ++ow) checked(ow);
          continue;
        }
        for (int64_t ow = 0; ow < in_c0; ++ow) checked(ow);
        const int64_t corner = (oh * sh - ph0) * W - pw0;
        for (int64_t ow = in_c0; ow < in_c1; ++ow) ir[ow] = corner + ow * sw + to[kr[ow]];
        for (int64_t ow = in_c1; ow < OW; ++ow) checked(ow);
      }
    }
  });
}

// The taps of output (oh, ow)'s window that fall on real cells, [i0, i1) x [j0, j1).
struct RealTaps {
  int64_t i0, i1, j0, j1;
};
inline int64_t taps_before(int64_t start, int64_t d) {  // taps with start + i * d < 0
  return start >= 0 ? 0 : (-start + d - 1) / d;
}
inline int64_t taps_within(int64_t start, int64_t d, int64_t k, int64_t in) {  // start + i*d < in
  return start >= in ? 0 : std::min(k, (in - start + d - 1) / d);
}
inline RealTaps real_taps(const PoolParams& p, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  return {taps_before(h0, p.dh), taps_within(h0, p.dh, p.kh, p.H), taps_before(w0, p.dw),
          taps_within(w0, p.dw, p.kw, p.W)};
}

#if defined(__x86_64__)
// One output row of a channel-blocked max pooling, 16 lanes in one vector (max_fwd_lanes);
// bfloat16 is widened exactly as it is loaded and its maxima, values of the input, narrowed
// exactly as they are stored.
template <typename X>
__attribute__((target("avx512f,avx512bw"))) void max_row_lanes_avx512(const PoolParams& p,
                                                                      const X* xp, int64_t oh, X* y,
                                                                      int64_t* idx) {
  constexpr bool bf16 = !std::is_same_v<X, float>;
  for (int64_t ow = 0; ow < p.OW; ++ow) {
    __m512 best = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __m512i bi = _mm512_set1_epi32(-1);
    bool first = true;
    const RealTaps t = real_taps(p, oh, ow);
    for (int64_t i = t.i0; i < t.i1; ++i) {
      const int64_t ih = oh * p.sh - p.ph + i * p.dh;
      for (int64_t j = t.j0; j < t.j1; ++j) {
        const int64_t iw = ow * p.sw - p.pw + j * p.dw;
        const X* src = xp + (ih * p.W + iw) * 16;
        __m512 v;
        if constexpr (bf16)
          v = _mm512_castsi512_ps(_mm512_slli_epi32(
              _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))),
              16));
        else
          v = _mm512_loadu_ps(src);
        const __m512i at = _mm512_set1_epi32(int32_t(ih * p.W + iw));
        if (first) {  // the first real cell, whatever its value
          best = v, bi = at, first = false;
          continue;
        }
        const __mmask16 take =
            _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) |
            (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q));
        best = _mm512_mask_mov_ps(best, take, v);
        bi = _mm512_mask_mov_epi32(bi, take, at);
      }
    }
    if constexpr (bf16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + ow * 16),
                          _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(best), 16)));
    else
      _mm512_storeu_ps(y + ow * 16, best);
    if (idx) {
      _mm512_storeu_si512(idx + ow * 16, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(bi)));
      _mm512_storeu_si512(idx + ow * 16 + 8,
                          _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(bi, 1)));
    }
  }
}
#endif

// Channel-blocked planes (p.lanes channels at each position): the lanes of an output are one
// vector, each tap of its window one load of all of them. max_fwd's rule (a strictly
// greater value or the first NaN wins; the first real cell of an all -inf window) and its
// indices, within each channel's plane.
template <typename X>
void max_fwd_lanes(const PoolParams& p, const X* x, X* y, int64_t* idx) {
  using T = compute_t<X>;
  constexpr int64_t V = 16;
  TANDEM_CHECK(p.lanes == V, ValueError, "max_pool2d: channel blocks of ", p.lanes,
               " are not supported (16 are)");
  const int nt = parallel_threads(p.planes * V * p.OH * p.OW * p.kh * p.kw, 1 << 14);
  // (indices as int32 in the vector form: planes of up to 2^31 cells)
  const bool wide = cpu_use_avx512() && p.H * p.W < (int64_t(1) << 31);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < p.planes * p.OH; ++r) {
      const int64_t oh = r % p.OH;
      const X* xp = x + r / p.OH * p.H * p.W * V;
#if defined(__x86_64__)
      if (wide) {
        max_row_lanes_avx512(p, xp, oh, y + r * p.OW * V, idx ? idx + r * p.OW * V : idx);
        continue;
      }
#endif
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        T best[V];
        int64_t bi[V];
        std::fill_n(best, V, -std::numeric_limits<T>::infinity());
        std::fill_n(bi, V, int64_t(-1));
        const RealTaps t = real_taps(p, oh, ow);
        for (int64_t i = t.i0; i < t.i1; ++i) {
          const int64_t ih = oh * p.sh - p.ph + i * p.dh;
          for (int64_t j = t.j0; j < t.j1; ++j) {
            const int64_t at = ih * p.W + ow * p.sw - p.pw + j * p.dw;
            const X* src = xp + at * V;
            for (int64_t l = 0; l < V; ++l) {
              const T v = ld(src[l]), cur = best[l];
              // Bitwise, not short-circuit: branches would keep the loop scalar.
              const bool take = (bi[l] < 0) | (v > cur) | ((v != v) & (cur == cur));
              best[l] = take ? v : cur;
              bi[l] = take ? at : bi[l];
            }
          }
        }
        const int64_t o = (r * p.OW + ow) * V;
        for (int64_t l = 0; l < V; ++l) y[o + l] = st<X>(best[l]);
        if (idx) std::copy_n(bi, V, idx + o);
      }
    }
  });
}

template <typename X>
void max_fwd(const PoolParams& p, const X* x, X* y, int64_t* idx) {
  using T = compute_t<X>;
  if (p.lanes > 1) return max_fwd_lanes(p, x, y, idx);
  if (p.dh == 1 && p.dw == 1 && p.H * p.W < (int64_t(1) << 31)) return max_fwd_dense(p, x, y, idx);
  int nt = threads_for(p);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const X* xp = x + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
          T best = -std::numeric_limits<T>::infinity();
          int64_t bi = -1;
          for (int64_t i = 0; i < p.kh; ++i) {
            int64_t ih = h0 + i * p.dh;
            if (ih < 0 || ih >= p.H) continue;
            for (int64_t j = 0; j < p.kw; ++j) {
              int64_t iw = w0 + j * p.dw;
              if (iw < 0 || iw >= p.W) continue;
              T v = ld(xp[ih * p.W + iw]);
              if (bi < 0 || v > best || std::isnan(v)) {
                best = v;
                bi = ih * p.W + iw;
                if (std::isnan(v)) goto done;
              }
            }
          }
        done:
          int64_t o = (pl * p.OH + oh) * p.OW + ow;
          y[o] = st<X>(best);
          if (idx) idx[o] = bi;
        }
    }
  });
}

// bfloat16 gradients are summed per plane in float32 (overlapping windows send several to
// one input) and rounded once, as the float32 kernel with converted buffers would. Each
// plane is zeroed just before its scatter, while it is in cache, and every index is checked
// as it is used (the indices are an input of the op: a wrong one must raise, not write
// outside the plane). Returns false if any index was out of range; those were skipped.
// With p.lanes > 1 (channel-blocked planes) element (o, l) of a plane is at o * lanes + l and
// its index k, within channel l's plane, sends to k * lanes + l.
template <typename X>
bool max_bwd(const PoolParams& p, const X* gy, const int64_t* idx, X* gx) {
  using T = compute_t<X>;
  constexpr bool same = std::is_same_v<T, X>;
  const int64_t HW = p.H * p.W, OHW = p.OH * p.OW, V = p.lanes;
  int nt = parallel_threads(p.planes * OHW * V, 1 << 14);
  bool ok = true;
  parallel_region(nt, [&] {
    std::vector<T> acc(same ? 0 : size_t(HW * V));
    bool mine = true;
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      T* g;
      if constexpr (same)
        g = gx + pl * HW * V;
      else
        g = acc.data();
      std::fill_n(g, HW * V, T(0));
      const int64_t* ip = idx + pl * OHW * V;
      const X* gp = gy + pl * OHW * V;
      // -1 marks an output without a window (nothing to send); one unsigned compare covers
      // both ends of the range.
      if (V == 1) {
        for (int64_t o = 0; o < OHW; ++o) {
          const int64_t k = ip[o];
          if (uint64_t(k) < uint64_t(HW))
            g[k] += ld(gp[o]);
          else if (k != -1)
            mine = false;
        }
      } else {
        for (int64_t o = 0; o < OHW * V; o += V)
          for (int64_t l = 0; l < V; ++l) {
            const int64_t k = ip[o + l];
            if (uint64_t(k) < uint64_t(HW))
              g[k * V + l] += ld(gp[o + l]);
            else if (k != -1)
              mine = false;
          }
      }
      if constexpr (!same) {
        X* out = gx + pl * HW * V;
        for (int64_t i = 0; i < HW * V; ++i) out[i] = st<X>(g[i]);
      }
    }
    if (!mine) {
#pragma omp atomic write
      ok = false;
    }
  });
  return ok;
}

// PyTorch's avg-pool window and divisor for output (oh, ow).
struct Window {
  int64_t h0, h1, w0, w1, div;
};
inline Window avg_window(const PoolParams& p, int64_t oh, int64_t ow) {
  int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  int64_t h1 = std::min(h0 + p.kh, p.H + p.ph), w1 = std::min(w0 + p.kw, p.W + p.pw);
  int64_t pool = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, p.H);
  w1 = std::min(w1, p.W);
  int64_t div = p.divisor_override    ? p.divisor_override
                : p.count_include_pad ? pool
                                      : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, div};
}

// Windows that tile the input without overlap, padding or dilation (LeNet's 2x2/2, the
// usual downsampling): rows are walked contiguously so the loops vectorize, summing in the
// same order as the general loop (bit-identical results).
bool tiles(const PoolParams& p) {
  return p.divisor_override >= 0 && p.kh == p.sh && p.kw == p.sw && p.ph == 0 && p.pw == 0 &&
         p.dh == 1 && p.dw == 1 && p.OH * p.kh <= p.H && p.OW * p.kw <= p.W;
}

template <typename T>
void avg_fwd_tiled(const PoolParams& p, const T* x, T* y) {
  const T div = T(p.divisor_override ? p.divisor_override : p.kh * p.kw);
  int nt = threads_for(p);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const T* xp = x + pl * p.H * p.W;
      if (p.kh == 2 && p.kw == 2) {  // LeNet's pool: one pass, no per-row setup
        for (int64_t oh = 0; oh < p.OH; ++oh) {
          const T *r0 = xp + 2 * oh * p.W, *r1 = r0 + p.W;
          T* yr = y + (pl * p.OH + oh) * p.OW;
          for (int64_t ow = 0; ow < p.OW; ++ow)
            yr[ow] = (((r0[2 * ow] + r0[2 * ow + 1]) + r1[2 * ow]) + r1[2 * ow + 1]) / div;
        }
        continue;
      }
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        T* yr = y + (pl * p.OH + oh) * p.OW;
        for (int64_t ow = 0; ow < p.OW; ++ow) yr[ow] = 0;
        for (int64_t i = 0; i < p.kh; ++i) {
          const T* r = xp + (oh * p.kh + i) * p.W;
          if (p.kw == 2) {
            for (int64_t ow = 0; ow < p.OW; ++ow) yr[ow] = (yr[ow] + r[2 * ow]) + r[2 * ow + 1];
          } else {
            for (int64_t ow = 0; ow < p.OW; ++ow)
              for (int64_t j = 0; j < p.kw; ++j) yr[ow] += r[ow * p.kw + j];
          }
        }
        for (int64_t ow = 0; ow < p.OW; ++ow) yr[ow] /= div;
      }
    }
  });
}

template <typename T>
void avg_bwd_tiled(const PoolParams& p, const T* gy, T* gx) {
  const T div = T(p.divisor_override ? p.divisor_override : p.kh * p.kw);
  int nt = threads_for(p);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      T* g = gx + pl * p.H * p.W;
      for (int64_t ih = 0; ih < p.H; ++ih) {
        T* r = g + ih * p.W;
        int64_t oh = ih / p.kh;
        int64_t done = 0;
        if (oh < p.OH) {
          const T* gr = gy + (pl * p.OH + oh) * p.OW;
          if (p.kw == 2) {
            for (int64_t ow = 0; ow < p.OW; ++ow) {
              T v = gr[ow] / div;
              r[2 * ow] = v;
              r[2 * ow + 1] = v;
            }
          } else {
            for (int64_t ow = 0; ow < p.OW; ++ow) {
              T v = gr[ow] / div;
              for (int64_t j = 0; j < p.kw; ++j) r[ow * p.kw + j] = v;
            }
          }
          done = p.OW * p.kw;
        }
        for (int64_t iw = done; iw < p.W; ++iw) r[iw] = 0;
      }
    }
  });
}

template <typename T>
void avg_fwd(const PoolParams& p, const T* x, T* y) {
  if (tiles(p)) return avg_fwd_tiled(p, x, y);
  int nt = threads_for(p);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const T* xp = x + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          Window w = avg_window(p, oh, ow);
          T s = 0;
          for (int64_t ih = w.h0; ih < w.h1; ++ih)
            for (int64_t iw = w.w0; iw < w.w1; ++iw) s += xp[ih * p.W + iw];
          y[(pl * p.OH + oh) * p.OW + ow] = w.div != 0 ? s / T(w.div) : T(NAN);
        }
    }
  });
}

template <typename T>
void avg_bwd(const PoolParams& p, const T* gy, T* gx) {
  if (tiles(p)) return avg_bwd_tiled(p, gy, gx);
  std::memset(gx, 0, sizeof(T) * size_t(p.planes * p.H * p.W));
  int nt = threads_for(p);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      T* g = gx + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          Window w = avg_window(p, oh, ow);
          if (w.div == 0)
            continue;  // a window of padding only (a negative divisor_override divides)
          T v = gy[(pl * p.OH + oh) * p.OW + ow] / T(w.div);
          for (int64_t ih = w.h0; ih < w.h1; ++ih)
            for (int64_t iw = w.w0; iw < w.w1; ++iw) g[ih * p.W + iw] += v;
        }
    }
  });
}

inline int64_t ad_start(int64_t o, int64_t in, int64_t out) {
  return (o * in) / out;
}
inline int64_t ad_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename T>
void adaptive_avg_fwd(const PoolParams& p, const T* x, T* y) {
  int nt = parallel_threads(p.planes * p.H * p.W, 1 << 14);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const T* xp = x + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        int64_t h0 = ad_start(oh, p.H, p.OH), h1 = ad_end(oh, p.H, p.OH);
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t w0 = ad_start(ow, p.W, p.OW), w1 = ad_end(ow, p.W, p.OW);
          T s = 0;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) s += xp[ih * p.W + iw];
          y[(pl * p.OH + oh) * p.OW + ow] = s / T((h1 - h0) * (w1 - w0));
        }
      }
    }
  });
}

template <typename T>
void adaptive_avg_bwd(const PoolParams& p, const T* gy, T* gx) {
  std::memset(gx, 0, sizeof(T) * size_t(p.planes * p.H * p.W));
  int nt = parallel_threads(p.planes * p.H * p.W, 1 << 14);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      T* g = gx + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        int64_t h0 = ad_start(oh, p.H, p.OH), h1 = ad_end(oh, p.H, p.OH);
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t w0 = ad_start(ow, p.W, p.OW), w1 = ad_end(ow, p.W, p.OW);
          T v = gy[(pl * p.OH + oh) * p.OW + ow] / T((h1 - h0) * (w1 - w0));
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) g[ih * p.W + iw] += v;
        }
      }
    }
  });
}

template <typename T>
void adaptive_max_fwd(const PoolParams& p, const T* x, T* y, int64_t* idx) {
  int nt = parallel_threads(p.planes * p.H * p.W, 1 << 14);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      const T* xp = x + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        int64_t h0 = ad_start(oh, p.H, p.OH), h1 = ad_end(oh, p.H, p.OH);
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t w0 = ad_start(ow, p.W, p.OW), w1 = ad_end(ow, p.W, p.OW);
          T best = xp[h0 * p.W + w0];
          int64_t bi = h0 * p.W + w0;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) {
              T v = xp[ih * p.W + iw];
              if ((v > best || std::isnan(v)) && !std::isnan(best)) {
                best = v;
                bi = ih * p.W + iw;
              }
            }
          y[(pl * p.OH + oh) * p.OW + ow] = best;
          idx[(pl * p.OH + oh) * p.OW + ow] = bi;
        }
      }
    }
  });
}

template <typename F>
void by_float(DType dt, const char* op, F&& f) {
  if (dt == DType::Float32) return f(float{});
  if (dt == DType::Float64) return f(double{});
  throw_error<TypeError>(op, ": expected float32 or float64, got ", dtype_name(dt));
}

// by_float, and bfloat16 (read and written as such) for the max-pool kernels.
template <typename F>
void by_float_or_bf16(DType dt, const char* op, F&& f) {
  if (dt == DType::BFloat16) return f(BFloat16{});
  by_float(dt, op, std::forward<F>(f));
}

}  // namespace

#define TANDEM_PTR(T, p) static_cast<T*>(p)
#define TANDEM_CPTR(T, p) static_cast<const T*>(p)

void max_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y, int64_t* idx) {
  by_float_or_bf16(dt, "max_pool2d", [&](auto z) {
    using T = decltype(z);
    max_fwd<T>(p, TANDEM_CPTR(T, x), TANDEM_PTR(T, y), idx);
  });
}
bool max_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, const int64_t* idx, void* gx) {
  bool ok = true;
  by_float_or_bf16(dt, "max_pool2d_backward", [&](auto z) {
    using T = decltype(z);
    ok = max_bwd<T>(p, TANDEM_CPTR(T, gy), idx, TANDEM_PTR(T, gx));
  });
  return ok;
}
void avg_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y) {
  by_float(dt, "avg_pool2d", [&](auto z) {
    using T = decltype(z);
    avg_fwd<T>(p, TANDEM_CPTR(T, x), TANDEM_PTR(T, y));
  });
}
void avg_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, void* gx) {
  by_float(dt, "avg_pool2d_backward", [&](auto z) {
    using T = decltype(z);
    avg_bwd<T>(p, TANDEM_CPTR(T, gy), TANDEM_PTR(T, gx));
  });
}
void adaptive_avg_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y) {
  by_float(dt, "adaptive_avg_pool2d", [&](auto z) {
    using T = decltype(z);
    adaptive_avg_fwd<T>(p, TANDEM_CPTR(T, x), TANDEM_PTR(T, y));
  });
}
void adaptive_avg_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, void* gx) {
  by_float(dt, "adaptive_avg_pool2d_backward", [&](auto z) {
    using T = decltype(z);
    adaptive_avg_bwd<T>(p, TANDEM_CPTR(T, gy), TANDEM_PTR(T, gx));
  });
}
void adaptive_max_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y, int64_t* idx) {
  by_float(dt, "adaptive_max_pool2d", [&](auto z) {
    using T = decltype(z);
    adaptive_max_fwd<T>(p, TANDEM_CPTR(T, x), TANDEM_PTR(T, y), idx);
  });
}

}  // namespace tandem
