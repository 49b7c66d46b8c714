#include "tandem/kernels/cpu/softmax_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/simd.h"

namespace tandem {
namespace {

// One contiguous row: max, exp-sum, normalise, with SIMD exp.
template <typename T>
void row(bool log, const T* x, T* y, int64_t R) {
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
  for (; r < R; ++r) {
    T e = std::exp(x[r] - m);
    if (!log) y[r] = e;
    s += e;
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

// Columns: reduce over r for each of I contiguous lanes (vectorizes across i).
template <typename T>
void cols(bool log, const T* x, T* y, int64_t R, int64_t I, T* m, T* s) {
  for (int64_t i = 0; i < I; ++i) {
    m[i] = -std::numeric_limits<T>::infinity();
    s[i] = 0;
  }
  for (int64_t r = 0; r < R; ++r)
    for (int64_t i = 0; i < I; ++i) {
      T v = x[r * I + i];
      m[i] = (v > m[i] || v != v) ? v : m[i];
    }
  for (int64_t i = 0; i < I; ++i)
    if (std::isinf(m[i]) && m[i] < 0) m[i] = 0;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t i = 0; i < I; ++i) {
      T e = std::exp(x[r * I + i] - m[i]);
      if (!log) y[r * I + i] = e;
      s[i] += e;
    }
  for (int64_t i = 0; i < I; ++i) s[i] = log ? std::log(s[i]) : T(1) / s[i];
  for (int64_t r = 0; r < R; ++r)
    for (int64_t i = 0; i < I; ++i) {
      if (log)
        y[r * I + i] = (x[r * I + i] - m[i]) - s[i];
      else
        y[r * I + i] *= s[i];
    }
}

template <typename T>
void run(bool log, const T* x, T* y, int64_t O, int64_t R, int64_t I) {
  int nt = parallel_threads(O * R * I, 1 << 14);
  if (I == 1) {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t o = 0; o < O; ++o) row<T>(log, x + o * R, y + o * R, R);
    return;
  }
  constexpr int64_t IB = 256;  // lanes per block, keeps m / s in L1
  int64_t nib = (I + IB - 1) / IB;
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2) if (nt > 1)
  for (int64_t o = 0; o < O; ++o)
    for (int64_t b = 0; b < nib; ++b) {
      T m[IB], s[IB];
      int64_t i0 = b * IB, n = std::min(IB, I - i0);
      // Gather the block into dense columns so the inner loops stay contiguous.
      std::vector<T> xs(size_t(R * n)), ys(size_t(R * n));
      for (int64_t r = 0; r < R; ++r)
        for (int64_t i = 0; i < n; ++i) xs[r * n + i] = x[(o * R + r) * I + i0 + i];
      cols<T>(log, xs.data(), ys.data(), R, n, m, s);
      for (int64_t r = 0; r < R; ++r)
        for (int64_t i = 0; i < n; ++i) y[(o * R + r) * I + i0 + i] = ys[r * n + i];
    }
}

}  // namespace

void softmax_kernel(DType dt, bool log, const void* x, void* y, int64_t O, int64_t R, int64_t I) {
  if (dt == DType::Float32)
    return run<float>(log, static_cast<const float*>(x), static_cast<float*>(y), O, R, I);
  if (dt == DType::Float64)
    return run<double>(log, static_cast<const double*>(x), static_cast<double*>(y), O, R, I);
  throw_error<TypeError>(log ? "log_softmax" : "softmax", ": expected float32 or float64, got ",
                         dtype_name(dt));
}

}  // namespace tandem

namespace tandem {
namespace {

template <typename T>
void backward_rows(bool log, const T* y, const T* gy, T* gx, int64_t rows, int64_t R) {
  using V = typename simd::VecOf<T>::type;
  constexpr int W = V::W;
  int nt = parallel_threads(rows * R, 1 << 14);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t o = 0; o < rows; ++o) {
    const T* yr = y + o * R;
    const T* gr = gy + o * R;
    T* xr = gx + o * R;
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
    for (; r < R; ++r) xr[r] = log ? gr[r] - std::exp(yr[r]) * s : yr[r] * (gr[r] - s);
  }
}

}  // namespace

void softmax_backward_rows(DType dt, bool log, const void* y, const void* gy, void* gx,
                           int64_t rows, int64_t R) {
  if (dt == DType::Float32)
    return backward_rows<float>(log, static_cast<const float*>(y), static_cast<const float*>(gy),
                                static_cast<float*>(gx), rows, R);
  if (dt == DType::Float64)
    return backward_rows<double>(log, static_cast<const double*>(y), static_cast<const double*>(gy),
                                 static_cast<double*>(gx), rows, R);
  throw_error<TypeError>("softmax_backward: expected float32 or float64, got ", dtype_name(dt));
}

}  // namespace tandem
