#include "tandem/kernels/cpu/rnn_kernels.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tandem/core/dtype.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/avx512_kernels.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/kernels/cpu/gemm_packed.h"
#include "tandem/kernels/cpu/rnn_rows.h"

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

// The gate kernels of T: the AVX-512 forms where the CPU runs them, else this file's.
template <typename T>
const RnnRowKernels<T>& gate_kernels() {
  static const RnnRowKernels<T> k = [] {
    const RnnRowKernels<T>* wide;
    if constexpr (sizeof(T) == 8)
      wide = avx512_rnn_rows_f64();
    else
      wide = avx512_rnn_rows_f32();
    return wide ? *wide : rnn_cpu::row_kernels<T, RnnRowKernels<T>>();
  }();
  return k;
}

// db[j] = sum over the rows of g [rows, G] of g[r, j], the columns split between threads.
template <typename T>
void column_sums(const T* g, int64_t rows, int64_t G, T* db) {
  const int64_t chunks = (G + 63) / 64;
  const int nt = int(std::min<int64_t>(parallel_threads(rows * G, kGateGrain), chunks));
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t j0 = c * 64, j1 = std::min(G, j0 + 64);
      T acc[64] = {};
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = g + r * G;
#pragma omp simd
        for (int64_t j = j0; j < j1; ++j) acc[j - j0] += row[j];
      }
      std::copy(acc, acc + (j1 - j0), db + j0);
    }
  });
}

}  // namespace

template <typename T>
void forward(const Dims& d, const T* xw, const T* h0, const T* c0, const T* w_hh, const T* b_hh,
             T* out, T* cseq, T* saved) {
  const int64_t N = d.N, H = d.H, G = gates_of(d.mode) * H, S = saved_of(d.mode) * H;
  std::vector<T> gh(d.mode == Mode::Gru ? size_t(N * G) : 0);
  const RnnRowKernels<T>& k = gate_kernels<T>();
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
          k.lstm(H, proj + n * S, x + n * G, b_hh, cprev + n * H, c + n * H, h + n * H);
        });
        break;
      }
      case Mode::Gru: {
        proj_of.run(hprev, H, gh.data(), G, false);
        T* sv = saved + t * N * S;
        for_rows(N, G, [&](int64_t n) {
          k.gru(H, gh.data() + n * G, x + n * G, b_hh, hprev + n * H, h + n * H, sv + n * S);
        });
        break;
      }
      default: {
        proj_of.run(hprev, H, h, H, false);
        const bool relu = d.mode == Mode::Relu;
        for_rows(N, H, [&](int64_t n) { k.elman(H, relu, h + n * H, x + n * H, b_hh); });
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
  const RnnRowKernels<T>& k = gate_kernels<T>();
  const PackedGemm back_of(dtype_of<T>(), false, N, H, G, w_hh, H);  // dgh_t W_hh
  for (int64_t s = 0; s < L; ++s) {
    const int64_t t = d.reverse ? s : L - 1 - s;  // the forward's steps, last first
    const T* go = g_out + t * N * H;
    T* dx = dxw + t * N * G;
    switch (d.mode) {
      case Mode::Lstm: {
        const T* act = saved + t * N * S;
        const T* c = cseq + t * N * H;
        const T* cprev = prev_of(d, t, c0, cseq);
        const T* gc = g_c ? g_c + t * N * H : nullptr;
        for_rows(N, G, [&](int64_t n) {
          k.lstm_bwd(H, dh.data() + n * H, go + n * H, gc ? gc + n * H : gc, dc.data() + n * H,
                     act + n * S, c + n * H, cprev + n * H, dx + n * G);
        });
        back_of.run(dx, G, dh.data(), H, false);
        break;
      }
      case Mode::Gru: {
        const T* hprev = prev_of(d, t, h0, out);
        T* dg = dgh + t * N * G;
        const T* sv = saved + t * N * S;
        for_rows(N, G, [&](int64_t n) {
          k.gru_bwd(H, dh.data() + n * H, go + n * H, sv + n * S, hprev + n * H, dx + n * G,
                    dg + n * G, dh_next.data() + n * H);
        });
        back_of.run(dg, G, dh_next.data(), H, true);
        dh.swap(dh_next);
        break;
      }
      default: {
        const bool relu = d.mode == Mode::Relu;
        const T* h = out + t * N * H;
        for_rows(N, H, [&](int64_t n) {
          k.elman_bwd(H, relu, dh.data() + n * H, go + n * H, h + n * H, dx + n * H);
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
  if (db_hh) column_sums(dgh, L * N, G, db_hh);
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
