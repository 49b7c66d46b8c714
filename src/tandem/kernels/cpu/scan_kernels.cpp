#include "tandem/kernels/cpu/scan_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

template <typename T, ScanKind K>
T scan_step(T acc, T x) {
  if constexpr (K == ScanKind::Sum) return T(acc + x);
  if constexpr (K == ScanKind::Prod) return T(acc * x);
  if constexpr (K == ScanKind::LogSumExp) {
    if (is_nan(acc) || is_nan(x)) return std::numeric_limits<T>::quiet_NaN();
    T hi = std::max(acc, x), lo = std::min(acc, x);
    // -inf + -inf and anything + inf would give inf - inf = nan below.
    if (std::isinf(lo) || std::isinf(hi)) return hi;
    return hi + std::log1p(std::exp(lo - hi));
  }
}

// Block of inner elements one thread scans together, so the inner loop vectorizes.
constexpr int64_t kInnerBlock = 1024;

template <typename T, ScanKind K>
void scan_typed(const T* x, int64_t O, int64_t R, int64_t I, T* out) {
  if (R == 0) return;
  int nt = parallel_threads(O * R * I);
  if (I == 1) {
    parallel_region(nt, [&] {
#pragma omp for schedule(static)
      for (int64_t o = 0; o < O; ++o) {
        const T* xr = x + o * R;
        T* yr = out + o * R;
        T acc = xr[0];
        yr[0] = acc;
        for (int64_t r = 1; r < R; ++r) yr[r] = acc = scan_step<T, K>(acc, xr[r]);
      }
    });
    return;
  }
  int64_t nb = (I + kInnerBlock - 1) / kInnerBlock;
  parallel_region(nt, [&] {
#pragma omp for schedule(static) collapse(2)
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t b = 0; b < nb; ++b) {
        int64_t ib = b * kInnerBlock, ie = std::min(I, ib + kInnerBlock);
        const T* xo = x + o * R * I;
        T* yo = out + o * R * I;
        for (int64_t i = ib; i < ie; ++i) yo[i] = xo[i];
        for (int64_t r = 1; r < R; ++r) {
          const T* prev = yo + (r - 1) * I;
          const T* xr = xo + r * I;
          T* yr = yo + r * I;
          for (int64_t i = ib; i < ie; ++i) yr[i] = scan_step<T, K>(prev[i], xr[i]);
        }
      }
    }
  });
}

template <typename T, bool IsMax>
void cum_extreme_typed(const T* x, int64_t O, int64_t R, int64_t I, T* vals, int64_t* idx) {
  // PyTorch's rule: take x when it is NaN, or when the running value is not NaN and x >= it
  // (<= for min).
  auto take = [](T v, T best) {
    if (is_nan(v)) return true;
    if (is_nan(best)) return false;
    return IsMax ? v >= best : v <= best;
  };
  if (R == 0) return;
  int nt = parallel_threads(O * R * I);
  parallel_region(nt, [&] {
#pragma omp for schedule(static) collapse(2)
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t i = 0; i < I; ++i) {
        const T* p = x + o * R * I + i;
        T* vp = vals + o * R * I + i;
        int64_t* ip = idx + o * R * I + i;
        T best = p[0];
        int64_t bi = 0;
        for (int64_t r = 0; r < R; ++r) {
          T v = p[r * I];
          if (take(v, best)) {
            best = v;
            bi = r;
          }
          vp[r * I] = best;
          ip[r * I] = bi;
        }
      }
    }
  });
}

}  // namespace

void scan_kernel(ScanKind kind, const Tensor& x, int64_t O, int64_t R, int64_t I,
                 const Tensor& out) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "scan", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* yp = out.data<scalar_t>();
    switch (kind) {
      case ScanKind::Sum:
        scan_typed<scalar_t, ScanKind::Sum>(xp, O, R, I, yp);
        break;
      case ScanKind::Prod:
        scan_typed<scalar_t, ScanKind::Prod>(xp, O, R, I, yp);
        break;
      case ScanKind::LogSumExp:
        if constexpr (std::is_floating_point_v<scalar_t>)
          scan_typed<scalar_t, ScanKind::LogSumExp>(xp, O, R, I, yp);
        else
          throw_error<TypeError>("logcumsumexp: expected a floating point tensor, got ",
                                 dtype_name(x.dtype()));
        break;
    }
  });
}

void cum_extreme_kernel(bool is_max, const Tensor& x, int64_t O, int64_t R, int64_t I,
                        const Tensor& values, const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), is_max ? "cummax" : "cummin", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    if (is_max)
      cum_extreme_typed<scalar_t, true>(xp, O, R, I, values.data<scalar_t>(),
                                        indices.data<int64_t>());
    else
      cum_extreme_typed<scalar_t, false>(xp, O, R, I, values.data<scalar_t>(),
                                         indices.data<int64_t>());
  });
}

}  // namespace tandem
