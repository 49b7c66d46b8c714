#include "tandem/kernels/cpu/norm_kernels.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/storage_io.h"

namespace tandem::norm_cpu {
namespace {

// Channels per task when S == 1 ((N, C) input): there the contiguous axis is the channel
// axis, so a block of channels is walked row by row and the inner loop vectorizes.
constexpr int64_t kChanBlock = 64;

// The (N, C, S) arrays are plain (L == 1: element (n, c, s) at (n * C + c) * S + s) or
// channel-blocked (L lanes, oneDNN's nChw16c for L == 16: channel c = cb * L + l at
// ((n * C / L + cb) * S + s) * L + l, as a compiled graph keeps convolution activations).
// A blocked array is walked a block of L channels at a time, its L lanes contiguous, as the
// (N, C) case is.
int64_t channel_block(int64_t S, int64_t L) {
  return L > 1 ? L : S == 1 ? kChanBlock : 1;
}

// The index of channel c's first element.
int64_t first_of_channel(int64_t c, int64_t S, int64_t L) {
  return L > 1 ? (c / L) * S * L + c % L : c * S;
}

// Runs body(c0, c1) for blocks of channels, in parallel when the work is large enough.
template <typename F>
void for_channel_blocks(int64_t N, int64_t C, int64_t S, int64_t L, F body) {
  const int64_t bs = channel_block(S, L), nb = (C + bs - 1) / bs;
  const int nt = int(std::max<int64_t>(1, std::min<int64_t>(parallel_threads(N * C * S), nb)));
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; ++b) body(b * bs, std::min(C, (b + 1) * bs));
  });
}

// Calls row(base) for each run of channels [c0, c1) stored contiguously (element of channel c
// at base + c): one per (n, s) in the blocked layout, one per n when S == 1; false for the
// plain layout with S > 1, whose runs are along s instead.
template <typename F>
bool for_channel_rows(int64_t N, int64_t C, int64_t S, int64_t L, int64_t c0, F row) {
  if (L > 1) {
    const int64_t CB = C / L, cb = c0 / L;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) row(((n * CB + cb) * S + s) * L - c0);
    return true;
  }
  if (S != 1) return false;
  for (int64_t n = 0; n < N; ++n) row(n * C);
  return true;
}

// a1[c - c0] += sum of t1(c, i) and a2[c - c0] += sum of t2(c, i), in one pass over the
// elements (each is read once for both sums), i being the element's index.
// t1, t2 (and f below) must capture by value: GCC turns loads through a by-reference capture
// into gathers, which made these loops ~10x slower.
template <typename F1, typename F2>
void reduce_channels2(int64_t N, int64_t C, int64_t S, int64_t L, int64_t c0, int64_t c1,
                      double* a1, double* a2, F1 t1, F2 t2) {
  if (for_channel_rows(N, C, S, L, c0, [=](int64_t base) {
#pragma omp simd
        for (int64_t c = c0; c < c1; ++c) {
          a1[c - c0] += t1(c, base + c);
          a2[c - c0] += t2(c, base + c);
        }
      }))
    return;
  for (int64_t c = c0; c < c1; ++c) {
    double s1 = 0, s2 = 0;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t base = (n * C + c) * S;
#pragma omp simd reduction(+ : s1, s2)
      for (int64_t k = 0; k < S; ++k) {
        s1 += t1(c, base + k);
        s2 += t2(c, base + k);
      }
    }
    a1[c - c0] += s1;
    a2[c - c0] += s2;
  }
}

// f(c, i) for every element of channels [c0, c1).
template <typename F>
void map_channels(int64_t N, int64_t C, int64_t S, int64_t L, int64_t c0, int64_t c1, F f) {
  if (for_channel_rows(N, C, S, L, c0, [=](int64_t base) {
#pragma omp simd
        for (int64_t c = c0; c < c1; ++c) f(c, base + c);
      }))
    return;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (n * C + c) * S;
#pragma omp simd
      for (int64_t i = base; i < base + S; ++i) f(c, i);
    }
  }
}

// Mean and 1 / sqrt(biased variance + eps) of n contiguous values.
template <typename T>
void moments(const T* x, int64_t n, double eps, double& mean, double& rstd) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += double(x[i]);
  mean = s / double(n);
  const double m = mean;
  double v = 0;
#pragma omp simd reduction(+ : v)
  for (int64_t i = 0; i < n; ++i) {
    const double d = double(x[i]) - m;
    v += d * d;
  }
  rstd = 1.0 / std::sqrt(v / double(n) + eps);
}

// p, or a buffer of n copies of fill when p is null (absent weight or bias).
template <typename T>
const T* or_fill(const T* p, int64_t n, T fill, std::vector<T>& buf) {
  if (p) return p;
  buf.assign(size_t(n), fill);
  return buf.data();
}

}  // namespace

template <typename X, typename T>
void batch_norm_stats(const X* x, int64_t N, int64_t C, int64_t S, double eps, T* mean, T* invstd,
                      int64_t L) {
  const double cnt = double(N * S);
  for_channel_blocks(N, C, S, L, [&](int64_t c0, int64_t c1) {
    // One pass over x, on values shifted by one of the channel's own (its first): the sums
    // of d = x - k and d * d in double give mean = k + E[d] and var = E[d^2] - E[d]^2
    // without the cancellation E[x^2] - E[x]^2 suffers when |mean| >> std.
    double k[kChanBlock], m[kChanBlock] = {}, v[kChanBlock] = {};
    for (int64_t c = c0; c < c1; ++c)
      k[c - c0] = N * S > 0 ? double(ld(x[first_of_channel(c, S, L)])) : 0.0;
    const double* kp = k;
    reduce_channels2(
        N, C, S, L, c0, c1, m, v,
        [x, kp, c0](int64_t c, int64_t i) { return double(ld(x[i])) - kp[c - c0]; },
        [x, kp, c0](int64_t c, int64_t i) {
          const double d = double(ld(x[i])) - kp[c - c0];
          return d * d;
        });
    for (int64_t c = c0; c < c1; ++c) {
      const double md = m[c - c0] / cnt;
      mean[c] = T(k[c - c0] + md);
      invstd[c] = T(1.0 / std::sqrt(std::max(v[c - c0] / cnt - md * md, 0.0) + eps));
    }
  });
}

template <typename T>
void invstd_from_var(const T* var, int64_t C, double eps, T* invstd) {
  for (int64_t c = 0; c < C; ++c) invstd[c] = T(1.0 / std::sqrt(double(var[c]) + eps));
}

template <typename X, typename T>
void batch_norm_apply(const X* x, int64_t N, int64_t C, int64_t S, const T* mean, const T* invstd,
                      const T* w, const T* b, X* y, bool relu, int64_t L) {
  // y = (x - mean) * scale + b: centring first keeps float32 precise when |mean| >> std.
  std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    scale[c] = T(double(invstd[c]) * (w ? double(w[c]) : 1.0));
    shift[c] = b ? b[c] : T(0);
  }
  const T *sc = scale.data(), *sh = shift.data();
  for_channel_blocks(N, C, S, L, [&](int64_t c0, int64_t c1) {
    if (relu)  // relu's own rule (x < 0 ? 0 : x), applied before the value leaves registers
      map_channels(N, C, S, L, c0, c1, [=](int64_t c, int64_t i) {
        T v = (ld(x[i]) - mean[c]) * sc[c] + sh[c];
        y[i] = st<X>(v < T(0) ? T(0) : v);
      });
    else
      map_channels(N, C, S, L, c0, c1, [=](int64_t c, int64_t i) {
        y[i] = st<X>((ld(x[i]) - mean[c]) * sc[c] + sh[c]);
      });
  });
}

namespace {

// The body of batch_norm_backward for a gy read through g(i) (gy itself, or masked by a
// relu's output).
template <typename X, typename T, typename G>
void bn_backward_body(G g, const X* x, int64_t N, int64_t C, int64_t S, const T* mean,
                      const T* invstd, const T* w, bool training, X* gx, T* gw, T* gb, int64_t L) {
  const double cnt = double(N * S);
  for_channel_blocks(N, C, S, L, [&](int64_t c0, int64_t c1) {
    double sg[kChanBlock] = {}, sgx[kChanBlock] = {};
    reduce_channels2(
        N, C, S, L, c0, c1, sg, sgx, [g](int64_t, int64_t i) { return double(g(i)); },
        [g, x, mean](int64_t c, int64_t i) {
          return double(g(i)) * (double(ld(x[i])) - double(mean[c]));
        });
    // gx = k1 * gy + k2 * (x - mean) + k3; the k2, k3 terms are the paths through the
    // batch mean and variance, absent when the statistics were constants.
    T k1[kChanBlock], k2[kChanBlock], k3[kChanBlock];
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t j = c - c0;
      const double is = double(invstd[c]), wc = w ? double(w[c]) : 1.0;
      gb[c] = T(sg[j]);
      gw[c] = T(sgx[j] * is);
      k1[j] = T(wc * is);
      k2[j] = training ? T(-wc * is * is * is * sgx[j] / cnt) : T(0);
      k3[j] = training ? T(-wc * is * sg[j] / cnt) : T(0);
    }
    map_channels(N, C, S, L, c0, c1,
                 [=, a1 = &k1[0], a2 = &k2[0], a3 = &k3[0]](int64_t c, int64_t i) {
                   const int64_t j = c - c0;
                   gx[i] = st<X>(a1[j] * g(i) + a2[j] * (ld(x[i]) - mean[c]) + a3[j]);
                 });
  });
}

}  // namespace

template <typename X, typename T>
void batch_norm_backward(const X* gy, const X* x, int64_t N, int64_t C, int64_t S, const T* mean,
                         const T* invstd, const T* w, bool training, X* gx, T* gw, T* gb,
                         const X* relu_out, int64_t L) {
  if (relu_out)  // relu_backward's rule: out <= 0 ? 0 : grad (a NaN output passes grad)
    bn_backward_body<X, T>(
        [gy, relu_out](int64_t i) {
          // A bit mask, not a select: GCC keeps a select inside the double reductions scalar
          // (5-10x slower), and multiplying by 0 / 1 would turn an inf grad into NaN.
          using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
          const U keep = U(0) - U(!(ld(relu_out[i]) <= T(0)));
          return std::bit_cast<T>(std::bit_cast<U>(T(ld(gy[i]))) & keep);
        },
        x, N, C, S, mean, invstd, w, training, gx, gw, gb, L);
  else
    bn_backward_body<X, T>([gy](int64_t i) { return T(ld(gy[i])); }, x, N, C, S, mean, invstd, w,
                           training, gx, gw, gb, L);
}

template <typename T>
void layer_norm_forward(const T* x, int64_t M, int64_t D, double eps, const T* w, const T* b, T* y,
                        T* mean, T* rstd) {
  std::vector<T> ones, zeros;
  const T* wp = or_fill(w, D, T(1), ones);
  const T* bp = or_fill(b, D, T(0), zeros);
  const int nt = parallel_threads(M * D);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < M; ++r) {
      const T* xr = x + r * D;
      T* yr = y + r * D;
      double m, rs;
      moments(xr, D, eps, m, rs);
      mean[r] = T(m);
      rstd[r] = T(rs);
      const T mt = T(m), rt = T(rs);
#pragma omp simd
      for (int64_t j = 0; j < D; ++j) yr[j] = (xr[j] - mt) * rt * wp[j] + bp[j];
    }
  });
}

template <typename T>
void layer_norm_backward(const T* gy, const T* x, int64_t M, int64_t D, const T* mean,
                         const T* rstd, const T* w, T* gx, T* gw, T* gb) {
  std::vector<T> ones;
  const T* wp = or_fill(w, D, T(1), ones);
  const int nt = parallel_threads(M * D);
  // Per-thread partial sums of grad_weight / grad_bias, added up after the row loop.
  std::vector<double> part(size_t(nt) * 2 * size_t(D), 0.0);
  parallel_region(nt, [&] {
    double* pw = part.data() + size_t(omp_get_thread_num()) * 2 * size_t(D);
    double* pb = pw + D;
#pragma omp for schedule(static)
    for (int64_t r = 0; r < M; ++r) {
      const T *g = gy + r * D, *xr = x + r * D;
      const double m = double(mean[r]), rs = double(rstd[r]);
      double sg = 0, sgx = 0;
#pragma omp simd reduction(+ : sg, sgx)
      for (int64_t j = 0; j < D; ++j) {
        const double gj = double(g[j]), xh = (double(xr[j]) - m) * rs, gw_j = gj * double(wp[j]);
        sg += gw_j;
        sgx += gw_j * xh;
        pw[j] += gj * xh;
        pb[j] += gj;
      }
      // gx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gy * w.
      const double a = sg / double(D), c = sgx / double(D);
      T* o = gx + r * D;
#pragma omp simd
      for (int64_t j = 0; j < D; ++j) {
        const double xh = (double(xr[j]) - m) * rs;
        o[j] = T(rs * (double(g[j]) * double(wp[j]) - a - xh * c));
      }
    }
  });
  for (int64_t j = 0; j < D; ++j) {
    double sw = 0, sb = 0;
    for (int t = 0; t < nt; ++t) {
      sw += part[size_t(t) * 2 * D + j];
      sb += part[size_t(t) * 2 * D + D + j];
    }
    gw[j] = T(sw);
    gb[j] = T(sb);
  }
}

template <typename T>
void group_norm_forward(const T* x, int64_t N, int64_t C, int64_t S, int64_t G, double eps,
                        const T* w, const T* b, T* y, T* mean, T* rstd) {
  const int64_t Cg = C / G, D = Cg * S;
  const int nt = parallel_threads(N * C * S);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t ng = 0; ng < N * G; ++ng) {
      const T* xg = x + ng * D;
      T* yg = y + ng * D;
      double m, rs;
      moments(xg, D, eps, m, rs);
      mean[ng] = T(m);
      rstd[ng] = T(rs);
      const T mt = T(m);
      for (int64_t cc = 0; cc < Cg; ++cc) {
        const int64_t c = (ng % G) * Cg + cc;
        const T a = T(rs * (w ? double(w[c]) : 1.0)), bc = b ? b[c] : T(0);
        const T* xs = xg + cc * S;
        T* ys = yg + cc * S;
#pragma omp simd
        for (int64_t s = 0; s < S; ++s) ys[s] = (xs[s] - mt) * a + bc;
      }
    }
  });
}

template <typename T>
void group_norm_backward(const T* gy, const T* x, int64_t N, int64_t C, int64_t S, int64_t G,
                         const T* mean, const T* rstd, const T* w, T* gx, T* gw, T* gb) {
  const int64_t Cg = C / G, D = Cg * S;
  // Per (n, c): sum of gy and rstd * sum of gy * (x - mean), for grad_weight / grad_bias.
  std::vector<double> db(static_cast<size_t>(N * C)), dsx(static_cast<size_t>(N * C));
  const int nt = parallel_threads(N * C * S);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t ng = 0; ng < N * G; ++ng) {
      const int64_t n = ng / G, g = ng % G;
      const double m = double(mean[ng]), rs = double(rstd[ng]);
      double sum_g = 0, sum_gxh = 0;  // over the group, of g = gy * w and of g * xhat
      for (int64_t cc = 0; cc < Cg; ++cc) {
        const int64_t c = g * Cg + cc, off = ng * D + cc * S;
        double s1 = 0, s2 = 0;
#pragma omp simd reduction(+ : s1, s2)
        for (int64_t s = 0; s < S; ++s) {
          s1 += double(gy[off + s]);
          s2 += double(gy[off + s]) * (double(x[off + s]) - m);
        }
        const double wc = w ? double(w[c]) : 1.0;
        db[n * C + c] = s1;
        dsx[n * C + c] = s2 * rs;
        sum_g += wc * s1;
        sum_gxh += wc * s2 * rs;
      }
      // gx = rstd * (w * gy - mean(g) - xhat * mean(g * xhat)).
      const double a = sum_g / double(D), k = sum_gxh / double(D);
      for (int64_t cc = 0; cc < Cg; ++cc) {
        const int64_t c = g * Cg + cc, off = ng * D + cc * S;
        const T k1 = T(rs * (w ? double(w[c]) : 1.0)), k2 = T(-rs * rs * k), k3 = T(-rs * a);
        const T mt = T(m);
#pragma omp simd
        for (int64_t s = 0; s < S; ++s)
          gx[off + s] = k1 * gy[off + s] + k2 * (x[off + s] - mt) + k3;
      }
    }
  });
  for (int64_t c = 0; c < C; ++c) {
    double sw = 0, sb = 0;
    for (int64_t n = 0; n < N; ++n) {
      sw += dsx[n * C + c];
      sb += db[n * C + c];
    }
    gw[c] = T(sw);
    gb[c] = T(sb);
  }
}

#define TANDEM_BATCH_NORM_INSTANTIATE(X, T)                                                        \
  template void batch_norm_stats<X, T>(const X*, int64_t, int64_t, int64_t, double, T*, T*,        \
                                       int64_t);                                                   \
  template void batch_norm_apply<X, T>(const X*, int64_t, int64_t, int64_t, const T*, const T*,    \
                                       const T*, const T*, X*, bool, int64_t);                     \
  template void batch_norm_backward<X, T>(const X*, const X*, int64_t, int64_t, int64_t, const T*, \
                                          const T*, const T*, bool, X*, T*, T*, const X*,          \
                                          int64_t);
TANDEM_BATCH_NORM_INSTANTIATE(float, float)
TANDEM_BATCH_NORM_INSTANTIATE(double, double)
TANDEM_BATCH_NORM_INSTANTIATE(BFloat16, float)
#undef TANDEM_BATCH_NORM_INSTANTIATE

#define TANDEM_NORM_INSTANTIATE(T)                                                                \
  template void invstd_from_var<T>(const T*, int64_t, double, T*);                                \
  template void layer_norm_forward<T>(const T*, int64_t, int64_t, double, const T*, const T*, T*, \
                                      T*, T*);                                                    \
  template void layer_norm_backward<T>(const T*, const T*, int64_t, int64_t, const T*, const T*,  \
                                       const T*, T*, T*, T*);                                     \
  template void group_norm_forward<T>(const T*, int64_t, int64_t, int64_t, int64_t, double,       \
                                      const T*, const T*, T*, T*, T*);                            \
  template void group_norm_backward<T>(const T*, const T*, int64_t, int64_t, int64_t, int64_t,    \
                                       const T*, const T*, const T*, T*, T*, T*);
TANDEM_NORM_INSTANTIATE(float)
TANDEM_NORM_INSTANTIATE(double)
#undef TANDEM_NORM_INSTANTIATE

}  // namespace tandem::norm_cpu
