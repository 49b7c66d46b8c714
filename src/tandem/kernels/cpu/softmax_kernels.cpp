#include "tandem/kernels/cpu/softmax_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/avx512_kernels.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/softmax_rows.h"

namespace tandem {
namespace {

// The row kernels for T: the AVX-512 forms where the CPU runs them, else this file's.
template <typename T>
struct RowKernels {
  void (*forward)(bool, const T*, T*, int64_t);
  void (*backward)(bool, const T*, const T*, T*, int64_t);
};
template <typename T>
RowKernels<T> row_kernels() {
  if (const SoftmaxRowKernels* k = avx512_softmax_rows()) {
    if constexpr (sizeof(T) == 8)
      return {k->forward_f64, k->backward_f64};
    else
      return {k->forward_f32, k->backward_f32};
  }
  return {&softmax_cpu::softmax_row<T>, &softmax_cpu::softmax_backward_row<T>};
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
  int nt = parallel_threads(O * R * I, 1 << 12);  // an exp per element: worth a thread early
  if (I == 1) {
    const auto fn = row_kernels<T>().forward;
    parallel_region(nt, [&] {
#pragma omp for schedule(static)
      for (int64_t o = 0; o < O; ++o) fn(log, x + o * R, y + o * R, R);
    });
    return;
  }
  constexpr int64_t IB = 256;  // lanes per block, keeps m / s in L1
  int64_t nib = (I + IB - 1) / IB;
  parallel_region(nt, [&] {
#pragma omp for schedule(static) collapse(2)
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
  });
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
  const auto fn = row_kernels<T>().backward;
  int nt = parallel_threads(rows * R, 1 << 14);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t o = 0; o < rows; ++o) fn(log, y + o * R, gy + o * R, gx + o * R, R);
  });
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
