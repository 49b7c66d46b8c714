#include "tandem/kernels/cpu/rnn_kernels.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tandem/core/dtype.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/kernels/cpu/gemm_packed.h"
#include "tandem/kernels/cpu/simd.h"

// GCC 12 reports the _mm512_undefined_* pass-through operand of the max intrinsics as
// uninitialized once they are inlined into an OpenMP region (GCC bug 105593): noise.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tandem::rnn_cpu {
namespace {

// Gate elements per parallel task: gates cost a few transcendentals each, so a step of a
// D2L-sized LSTM (32 x 1024 gates) is worth two threads, a toy one (4 x 64) is not.
constexpr int64_t kGateGrain = 8192;

template <typename T>
constexpr DType dtype_of() {
  return sizeof(T) == 8 ? DType::Float64 : DType::Float32;
}

// Runs row(n) for n in [0, rows), on several threads when the step is large enough.
template <typename F>
void for_rows(int64_t rows, int64_t per_row, const F& row) {
  const int nt = int(std::min<int64_t>(parallel_threads(rows * per_row, kGateGrain), rows));
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t n = 0; n < rows; ++n) row(n);
  });
}

// f(j, w) over [0, n) in vectors of V::W lanes, the last w < V::W lanes partial.
template <typename V, typename F>
inline void lanes(int64_t n, const F& f) {
  int64_t j = 0;
  for (; j + V::W <= n; j += V::W) f(j, V::W);
  if (j < n) f(j, int(n - j));
}

template <typename V>
inline V ld(const typename V::T* p, int w) {
  return w == V::W ? V::load(p) : V::load_partial(p, w);
}
template <typename V>
inline V ld_or0(const typename V::T* p, int w) {  // p null -> 0 (no bias)
  return p ? ld<V>(p, w) : V::set1(0);
}
template <typename V>
inline void st(V v, typename V::T* p, int w) {
  if (w == V::W)
    v.store(p);
  else
    v.store_partial(p, w);
}
// The same formulas as the eager sigmoid and tanh kernels (unary_functors.h), so the fused
// layer and the composite one agree to the last bits of the activations.
template <typename V>
inline V sig(V x) {
  return V::set1(1) / (V::set1(1) + simd::vexp(-x));
}

// C[M, N] = A[M, K] op(B) (+ C when accumulate), dense row-major, B [N, K] when trans_b.
template <typename T>
void mm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda,
        const T* B, int64_t ldb, bool accumulate, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill_n(C + i * ldc, N, T(0));
    return;
  }
  gemm(dtype_of<T>(), trans_a, trans_b, M, N, K, 1.0, A, lda, B, ldb, accumulate ? 1.0 : 0.0, C,
       ldc);
}

// Step t's previous state: the initial one for the first step processed, else the
// neighbouring step's output.
template <typename T>
const T* prev_of(const Dims& d, int64_t t, const T* init, const T* seq) {
  const int64_t first = d.reverse ? d.L - 1 : 0;
  if (t == first) return init;
  return seq + (d.reverse ? t + 1 : t - 1) * d.N * d.H;
}

// --- forward gates, one row of one step ------------------------------------------------
// gh: the recurrent projection h_{t-1} W_hh^T of this row (without b_hh); x: xw's row.

template <typename T>
void lstm_row(int64_t H, T* gh, const T* x, const T* b, const T* cprev, T* c, T* h) {
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    auto pre = [&](int k) {
      return ld<V>(gh + k * H + j, w) + ld<V>(x + k * H + j, w) +
             ld_or0<V>(b ? b + k * H + j : b, w);
    };
    V i = sig(pre(0)), f = sig(pre(1)), g = simd::vtanh(pre(2)), o = sig(pre(3));
    V cn = f * ld<V>(cprev + j, w) + i * g;
    st(cn, c + j, w);
    st(o * simd::vtanh(cn), h + j, w);
    st(i, gh + j, w);  // the saved activations overwrite the projection in place
    st(f, gh + H + j, w);
    st(g, gh + 2 * H + j, w);
    st(o, gh + 3 * H + j, w);
  });
}

template <typename T>
void gru_row(int64_t H, const T* gh, const T* x, const T* b, const T* hprev, T* h, T* saved) {
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    auto hk = [&](int k) { return ld<V>(gh + k * H + j, w) + ld_or0<V>(b ? b + k * H + j : b, w); };
    V r = sig(ld<V>(x + j, w) + hk(0));
    V z = sig(ld<V>(x + H + j, w) + hk(1));
    V hn = hk(2);
    V n = simd::vtanh(ld<V>(x + 2 * H + j, w) + r * hn);
    st(n + z * (ld<V>(hprev + j, w) - n), h + j, w);
    st(r, saved + j, w);
    st(z, saved + H + j, w);
    st(n, saved + 2 * H + j, w);
    st(hn, saved + 3 * H + j, w);
  });
}

template <typename T>
void elman_row(int64_t H, bool relu, T* h, const T* x, const T* b) {
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    V pre = ld<V>(h + j, w) + ld<V>(x + j, w) + ld_or0<V>(b ? b + j : b, w);
    st(relu ? simd::vmax(pre, V::set1(0)) : simd::vtanh(pre), h + j, w);
  });
}

// --- backward gates, one row of one step -----------------------------------------------
// dh: dL/dh_t of this row (output gradient plus the recurrent one); writes the
// pre-activation gradients.

template <typename T>
void lstm_row_bwd(int64_t H, const T* dh, const T* gc, T* dc, const T* act, const T* c,
                  const T* cprev, T* dg) {
  using V = typename simd::VecOf<T>::type;
  const V one = V::set1(1);
  lanes<V>(H, [&](int64_t j, int w) {
    V i = ld<V>(act + j, w), f = ld<V>(act + H + j, w), g = ld<V>(act + 2 * H + j, w),
      o = ld<V>(act + 3 * H + j, w);
    V tc = simd::vtanh(ld<V>(c + j, w));
    V dhv = ld<V>(dh + j, w);
    V dcv = ld<V>(dc + j, w) + ld_or0<V>(gc ? gc + j : gc, w) + dhv * o * (one - tc * tc);
    st(dcv * g * i * (one - i), dg + j, w);
    st(dcv * ld<V>(cprev + j, w) * f * (one - f), dg + H + j, w);
    st(dcv * i * (one - g * g), dg + 2 * H + j, w);
    st(dhv * tc * o * (one - o), dg + 3 * H + j, w);
    st(dcv * f, dc + j, w);  // dL/dc_{t-1}, carried to the previous step
  });
}

template <typename T>
void gru_row_bwd(int64_t H, const T* dh, const T* saved, const T* hprev, T* dx, T* dgh,
                 T* dh_direct) {
  using V = typename simd::VecOf<T>::type;
  const V one = V::set1(1);
  lanes<V>(H, [&](int64_t j, int w) {
    V r = ld<V>(saved + j, w), z = ld<V>(saved + H + j, w), n = ld<V>(saved + 2 * H + j, w),
      hn = ld<V>(saved + 3 * H + j, w);
    V dhv = ld<V>(dh + j, w);
    V dpre_n = dhv * (one - z) * (one - n * n);
    V dpre_r = dpre_n * hn * r * (one - r);
    V dpre_z = dhv * (ld<V>(hprev + j, w) - n) * z * (one - z);
    st(dpre_r, dx + j, w);
    st(dpre_z, dx + H + j, w);
    st(dpre_n, dx + 2 * H + j, w);
    st(dpre_r, dgh + j, w);
    st(dpre_z, dgh + H + j, w);
    st(dpre_n * r, dgh + 2 * H + j, w);
    st(dhv * z, dh_direct + j, w);
  });
}

template <typename T>
void elman_row_bwd(int64_t H, bool relu, const T* dh, const T* h, T* dpre) {
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    V hv = ld<V>(h + j, w), dhv = ld<V>(dh + j, w);
    V d = relu ? simd::select(simd::gt(hv, V::set1(0)), dhv, V::set1(0))
               : dhv * (V::set1(1) - hv * hv);
    st(d, dpre + j, w);
  });
}

}  // namespace

template <typename T>
void forward(const Dims& d, const T* xw, const T* h0, const T* c0, const T* w_hh, const T* b_hh,
             T* out, T* cseq, T* saved) {
  const int64_t N = d.N, H = d.H, G = gates_of(d.mode) * H, S = saved_of(d.mode) * H;
  std::vector<T> gh(d.mode == Mode::Gru ? size_t(N * G) : 0);
  const PackedGemm proj_of(dtype_of<T>(), true, N, G, H, w_hh, H);  // h_{t-1} W_hh^T
  for (int64_t s = 0; s < d.L; ++s) {
    const int64_t t = d.reverse ? d.L - 1 - s : s;
    const T* hprev = prev_of(d, t, h0, out);
    const T* x = xw + t * N * G;
    T* h = out + t * N * H;
    switch (d.mode) {
      case Mode::Lstm: {
        T* proj = saved + t * N * S;
        proj_of.run(hprev, H, proj, S, false);
        const T* cprev = prev_of(d, t, c0, cseq);
        T* c = cseq + t * N * H;
        for_rows(N, G, [&](int64_t n) {
          lstm_row(H, proj + n * S, x + n * G, b_hh, cprev + n * H, c + n * H, h + n * H);
        });
        break;
      }
      case Mode::Gru: {
        proj_of.run(hprev, H, gh.data(), G, false);
        T* sv = saved + t * N * S;
        for_rows(N, G, [&](int64_t n) {
          gru_row(H, gh.data() + n * G, x + n * G, b_hh, hprev + n * H, h + n * H, sv + n * S);
        });
        break;
      }
      default: {
        proj_of.run(hprev, H, h, H, false);
        const bool relu = d.mode == Mode::Relu;
        for_rows(N, H, [&](int64_t n) { elman_row(H, relu, h + n * H, x + n * H, b_hh); });
      }
    }
  }
}

template <typename T>
void backward(const Dims& d, const T* g_out, const T* g_c, const T* h0, const T* c0, const T* w_hh,
              const T* out, const T* cseq, const T* saved, T* dxw, T* dh0, T* dc0, T* dw_hh,
              T* db_hh) {
  const int64_t L = d.L, N = d.N, H = d.H, G = gates_of(d.mode) * H, S = saved_of(d.mode) * H;
  const bool lstm = d.mode == Mode::Lstm, gru = d.mode == Mode::Gru;
  // dgh: the gradient of the recurrent projection of every step. It equals dxw except for
  // GRU, whose n gate scales the projection by r.
  std::vector<T> dgh_buf(gru ? size_t(L * N * G) : 0);
  T* dgh = gru ? dgh_buf.data() : dxw;
  std::vector<T> dh(size_t(N * H), T(0)), dh_next(size_t(N * H)), dc(lstm ? size_t(N * H) : 0);
  const PackedGemm back_of(dtype_of<T>(), false, N, H, G, w_hh, H);  // dgh_t W_hh
  for (int64_t s = 0; s < L; ++s) {
    const int64_t t = d.reverse ? s : L - 1 - s;  // the forward's steps, last first
    const T* go = g_out + t * N * H;
    for (int64_t k = 0; k < N * H; ++k) dh[size_t(k)] += go[k];
    T* dx = dxw + t * N * G;
    switch (d.mode) {
      case Mode::Lstm: {
        const T* act = saved + t * N * S;
        const T* c = cseq + t * N * H;
        const T* cprev = prev_of(d, t, c0, cseq);
        const T* gc = g_c ? g_c + t * N * H : nullptr;
        for_rows(N, G, [&](int64_t n) {
          lstm_row_bwd(H, dh.data() + n * H, gc ? gc + n * H : gc, dc.data() + n * H, act + n * S,
                       c + n * H, cprev + n * H, dx + n * G);
        });
        back_of.run(dx, G, dh.data(), H, false);
        break;
      }
      case Mode::Gru: {
        const T* hprev = prev_of(d, t, h0, out);
        T* dg = dgh + t * N * G;
        const T* sv = saved + t * N * S;
        for_rows(N, G, [&](int64_t n) {
          gru_row_bwd(H, dh.data() + n * H, sv + n * S, hprev + n * H, dx + n * G, dg + n * G,
                      dh_next.data() + n * H);
        });
        back_of.run(dg, G, dh_next.data(), H, true);
        dh.swap(dh_next);
        break;
      }
      default: {
        const bool relu = d.mode == Mode::Relu;
        const T* h = out + t * N * H;
        for_rows(N, H, [&](int64_t n) {
          elman_row_bwd(H, relu, dh.data() + n * H, h + n * H, dx + n * H);
        });
        back_of.run(dx, G, dh.data(), H, false);
      }
    }
  }
  std::copy(dh.begin(), dh.end(), dh0);
  if (lstm) std::copy(dc.begin(), dc.end(), dc0);
  // dW_hh = sum_t dgh_t^T h_{t-1}: the first step processed pairs with h0, the others with
  // the neighbouring outputs, which lie contiguously in `out`.
  const int64_t first = d.reverse ? L - 1 : 0;
  mm(true, false, G, H, N, dgh + first * N * G, G, h0, H, false, dw_hh, H);
  if (L > 1) {
    const T* g_rest = dgh + (d.reverse ? 0 : N * G);
    const T* h_rest = out + (d.reverse ? N * H : 0);
    mm(true, false, G, H, (L - 1) * N, g_rest, G, h_rest, H, true, dw_hh, H);
  }
  if (db_hh) {
    std::fill_n(db_hh, G, T(0));
    for (int64_t r = 0; r < L * N; ++r) {
      const T* row = dgh + r * G;
#pragma omp simd
      for (int64_t j = 0; j < G; ++j) db_hh[j] += row[j];
    }
  }
}

template void forward<float>(const Dims&, const float*, const float*, const float*, const float*,
                             const float*, float*, float*, float*);
template void forward<double>(const Dims&, const double*, const double*, const double*,
                              const double*, const double*, double*, double*, double*);
template void backward<float>(const Dims&, const float*, const float*, const float*, const float*,
                              const float*, const float*, const float*, const float*, float*,
                              float*, float*, float*, float*);
template void backward<double>(const Dims&, const double*, const double*, const double*,
                               const double*, const double*, const double*, const double*,
                               const double*, double*, double*, double*, double*, double*);

}  // namespace tandem::rnn_cpu
