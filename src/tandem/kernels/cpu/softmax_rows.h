// The per-row softmax kernels, compiled per instruction set (simd.h's TANDEM_SIMD_NS):
// softmax_kernels.cpp instantiates the baseline forms, avx512_kernels.cpp the AVX-512 ones.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "tandem/kernels/cpu/simd.h"

namespace tandem::softmax_cpu {
inline namespace TANDEM_SIMD_NS {

// One contiguous row: max, exp-sum, normalise, with SIMD exp.
template <typename T>
void softmax_row(bool log, const T* x, T* y, int64_t R) {
  using V = typename simd::VecOf<T>::type;
  constexpr int W = V::W;
  // Row max with SIMD; a NaN anywhere makes the row NaN (tracked apart: vmax drops NaN).
  V vmx = V::set1(-std::numeric_limits<T>::infinity());
  unsigned nan = 0;
  int64_t r = 0;
  for (; r + W <= R; r += W) {
    V v = V::load(x + r);
    vmx = simd::vmax(vmx, v);
    nan |= unsigned(simd::isnan_mask(v));
  }
  alignas(64) T lanes[W];
  vmx.store(lanes);
  T m = lanes[0];
  for (int k = 1; k < W; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; r < R; ++r) {
    m = x[r] > m ? x[r] : m;
    nan |= unsigned(std::isnan(x[r]));
  }
  if (nan) m = std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(m) && m < 0) m = 0;  // all -inf: exp gives 0s, result nan like PyTorch
  V vm = V::set1(m), acc = V::set1(T(0));
  r = 0;
  for (; r + W <= R; r += W) {
    V e = simd::vexp(V::load(x + r) - vm);
    if (!log) e.store(y + r);
    acc = acc + e;
  }
  acc.store(lanes);
  T s = 0;
  for (int k = 0; k < W; ++k) s += lanes[k];
  if (r < R) {  // the tail as one partial vector: a row shorter than W (attention's 10
                // keys) would otherwise be all scalar exp calls
    const int n = int(R - r);
    V e = simd::vexp(V::load_partial(x + r, n) - vm);
    if (!log) e.store_partial(y + r, n);
    e.store(lanes);  // lanes past n hold exp(-m) of the zero fill: not summed
    for (int k = 0; k < n; ++k) s += lanes[k];
  }
  if (log) {
    // (x - m) - log(s), not x - (m + log(s)): for large |m| the sum would round away
    // log(s)'s low bits.
    T ls = std::log(s);
    for (int64_t k = 0; k < R; ++k) y[k] = (x[k] - m) - ls;
  } else {
    T inv = T(1) / s;
    for (int64_t k = 0; k < R; ++k) y[k] *= inv;
  }
}

// One row of the backward: gx = y * (gy - sum(gy * y)), or gy - exp(y) * sum(gy) for
// log_softmax (y is then log-probabilities).
template <typename T>
void softmax_backward_row(bool log, const T* yr, const T* gr, T* xr, int64_t R) {
  using V = typename simd::VecOf<T>::type;
  constexpr int W = V::W;
  V acc = V::set1(T(0));
  int64_t r = 0;
  for (; r + W <= R; r += W) {
    V g = V::load(gr + r);
    acc = acc + (log ? g : g * V::load(yr + r));
  }
  alignas(64) T lanes[W];
  acc.store(lanes);
  T s = 0;
  for (int k = 0; k < W; ++k) s += lanes[k];
  for (; r < R; ++r) s += log ? gr[r] : gr[r] * yr[r];
  V vs = V::set1(s);
  r = 0;
  for (; r + W <= R; r += W) {
    V yv = V::load(yr + r), g = V::load(gr + r);
    (log ? g - simd::vexp(yv) * vs : yv * (g - vs)).store(xr + r);
  }
  if (r < R) {  // the tail as one partial vector (log_softmax's exp, as above)
    const int n = int(R - r);
    V yv = V::load_partial(yr + r, n), g = V::load_partial(gr + r, n);
    (log ? g - simd::vexp(yv) * vs : yv * (g - vs)).store_partial(xr + r, n);
  }
}

}  // namespace TANDEM_SIMD_NS
}  // namespace tandem::softmax_cpu
