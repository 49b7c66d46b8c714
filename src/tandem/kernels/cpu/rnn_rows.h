// The per-row gate kernels of the fused recurrent layer (rnn_kernels.cpp), compiled per
// instruction set (simd.h's TANDEM_SIMD_NS): rnn_kernels.cpp instantiates the baseline forms,
// avx512_kernels.cpp the AVX-512 ones, and the layer calls them through RnnRowKernels
// (avx512_kernels.h). A row is one batch element of one time step: H hidden units, every
// gate's block of H contiguous.
#pragma once
#include <cstdint>

#include "tandem/kernels/cpu/simd.h"

namespace tandem::rnn_cpu {
inline namespace TANDEM_SIMD_NS {
namespace rows_detail {

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
inline V ld_or0(const typename V::T* p, int w) {  // p null -> 0 (no bias, no gradient)
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
template <typename T>
const T* at(const T* p, int64_t k) {  // p + k, or null for an absent operand
  return p ? p + k : p;
}

}  // namespace rows_detail

// --- forward, one row of one step --------------------------------------------------------
// gh: the recurrent projection h_{t-1} W_hh^T of this row (without b_hh); x: xw's row.

template <typename T>
void lstm_row(int64_t H, T* gh, const T* x, const T* b, const T* cprev, T* c, T* h) {
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    auto pre = [&](int k) {
      return ld<V>(gh + k * H + j, w) + ld<V>(x + k * H + j, w) + ld_or0<V>(at(b, k * H + j), w);
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
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    auto hk = [&](int k) { return ld<V>(gh + k * H + j, w) + ld_or0<V>(at(b, k * H + j), w); };
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
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    V pre = ld<V>(h + j, w) + ld<V>(x + j, w) + ld_or0<V>(at(b, j), w);
    st(relu ? simd::vmax(pre, V::set1(0)) : simd::vtanh(pre), h + j, w);
  });
}

// --- backward, one row of one step -------------------------------------------------------
// dL/dh_t of this row is dh (the recurrent gradient from step t+1) plus go (the output's
// own gradient); the kernels write the pre-activation gradients.

template <typename T>
void lstm_row_bwd(int64_t H, const T* dh, const T* go, const T* gc, T* dc, const T* act, const T* c,
                  const T* cprev, T* dg) {
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  const V one = V::set1(1);
  lanes<V>(H, [&](int64_t j, int w) {
    V i = ld<V>(act + j, w), f = ld<V>(act + H + j, w), g = ld<V>(act + 2 * H + j, w),
      o = ld<V>(act + 3 * H + j, w);
    V tc = simd::vtanh(ld<V>(c + j, w));
    V dhv = ld<V>(dh + j, w) + ld<V>(go + j, w);
    V dcv = ld<V>(dc + j, w) + ld_or0<V>(at(gc, j), w) + dhv * o * (one - tc * tc);
    st(dcv * g * i * (one - i), dg + j, w);
    st(dcv * ld<V>(cprev + j, w) * f * (one - f), dg + H + j, w);
    st(dcv * i * (one - g * g), dg + 2 * H + j, w);
    st(dhv * tc * o * (one - o), dg + 3 * H + j, w);
    st(dcv * f, dc + j, w);  // dL/dc_{t-1}, carried to the previous step
  });
}

template <typename T>
void gru_row_bwd(int64_t H, const T* dh, const T* go, const T* saved, const T* hprev, T* dx, T* dgh,
                 T* dh_direct) {
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  const V one = V::set1(1);
  lanes<V>(H, [&](int64_t j, int w) {
    V r = ld<V>(saved + j, w), z = ld<V>(saved + H + j, w), n = ld<V>(saved + 2 * H + j, w),
      hn = ld<V>(saved + 3 * H + j, w);
    V dhv = ld<V>(dh + j, w) + ld<V>(go + j, w);
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
void elman_row_bwd(int64_t H, bool relu, const T* dh, const T* go, const T* h, T* dpre) {
  using namespace rows_detail;
  using V = typename simd::VecOf<T>::type;
  lanes<V>(H, [&](int64_t j, int w) {
    V hv = ld<V>(h + j, w), dhv = ld<V>(dh + j, w) + ld<V>(go + j, w);
    V d = relu ? simd::select(simd::gt(hv, V::set1(0)), dhv, V::set1(0))
               : dhv * (V::set1(1) - hv * hv);
    st(d, dpre + j, w);
  });
}

// The kernels of T in this instruction set, for RnnRowKernels.
template <typename T, typename K>
K row_kernels() {
  return {&lstm_row<T>,     &gru_row<T>,     &elman_row<T>,
          &lstm_row_bwd<T>, &gru_row_bwd<T>, &elman_row_bwd<T>};
}

}  // namespace TANDEM_SIMD_NS
}  // namespace tandem::rnn_cpu
