#include "tandem/kernels/cpu/reduce.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/simd.h"

namespace tandem {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

template <typename T, ReduceKind K>
struct Op {
  static T init() {
    if constexpr (K == ReduceKind::Sum || K == ReduceKind::Any) return T(0);
    if constexpr (K == ReduceKind::Prod || K == ReduceKind::All) return T(1);
    if constexpr (K == ReduceKind::Max) {
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    }
    if constexpr (K == ReduceKind::Min) {
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    }
  }
  static T step(T acc, T x) {
    // Integers wrap on overflow like numpy's (signed overflow would be undefined behaviour).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                  (K == ReduceKind::Sum || K == ReduceKind::Prod)) {
      // At least unsigned int wide: narrower unsigned types promote to (signed) int.
      using U =
          std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return K == ReduceKind::Sum ? T(U(acc) + U(x)) : T(U(acc) * U(x));
    }
    if constexpr (K == ReduceKind::Sum) return T(acc + x);
    if constexpr (K == ReduceKind::Prod) return T(acc * x);
    if constexpr (K == ReduceKind::Max) return (is_nan(x) || x > acc) ? x : acc;
    if constexpr (K == ReduceKind::Min) return (is_nan(x) || x < acc) ? x : acc;
    if constexpr (K == ReduceKind::All) return T(acc && x);
    if constexpr (K == ReduceKind::Any) return T(acc || x);
  }
};

// Reduces n contiguous elements. Floats use 4 SIMD accumulators for sum / prod (which also
// shortens the rounding-error chain); max / min track NaN explicitly.
template <typename T, ReduceKind K>
T reduce_row(const T* x, int64_t n) {
  using O = Op<T, K>;
  if constexpr (std::is_floating_point_v<T> && (K == ReduceKind::Sum || K == ReduceKind::Prod ||
                                                K == ReduceKind::Max || K == ReduceKind::Min)) {
    using V = typename simd::VecOf<T>::type;
    constexpr int W = V::W;
    if (n >= 4 * W) {
      V a0 = V::set1(O::init()), a1 = a0, a2 = a0, a3 = a0;
      unsigned nanflag = 0;
      int64_t i = 0;
      auto comb = [](V a, V b) {
        if constexpr (K == ReduceKind::Sum) return a + b;
        if constexpr (K == ReduceKind::Prod) return a * b;
        if constexpr (K == ReduceKind::Max) return simd::vmax(a, b);
        if constexpr (K == ReduceKind::Min) return simd::vmin(a, b);
      };
      for (; i + 4 * W <= n; i += 4 * W) {
        V x0 = V::load(x + i), x1 = V::load(x + i + W), x2 = V::load(x + i + 2 * W),
          x3 = V::load(x + i + 3 * W);
        a0 = comb(a0, x0);
        a1 = comb(a1, x1);
        a2 = comb(a2, x2);
        a3 = comb(a3, x3);
        if constexpr (K == ReduceKind::Max || K == ReduceKind::Min)
          nanflag |= unsigned(simd::isnan_mask(x0)) | unsigned(simd::isnan_mask(x1)) |
                     unsigned(simd::isnan_mask(x2)) | unsigned(simd::isnan_mask(x3));
      }
      V a = comb(comb(a0, a1), comb(a2, a3));
      alignas(64) T lanes[W];
      a.store(lanes);
      T acc = lanes[0];
      for (int k = 1; k < W; ++k) acc = O::step(acc, lanes[k]);
      if constexpr (K == ReduceKind::Max || K == ReduceKind::Min)
        if (nanflag) return std::numeric_limits<T>::quiet_NaN();
      for (; i < n; ++i) acc = O::step(acc, x[i]);
      return acc;
    }
  }
  T acc = O::init();
  for (int64_t i = 0; i < n; ++i) acc = O::step(acc, x[i]);
  return acc;
}

template <typename T, ReduceKind K>
void reduce_typed(const T* x, int64_t O, int64_t R, int64_t I, T* out) {
  using Opk = Op<T, K>;
  if (I == 1) {
    if (O >= 8 || O * R < kParallelGrain) {
      int nt = parallel_threads(O * R);
      parallel_region(nt, [&] {
#pragma omp for schedule(static)
        for (int64_t o = 0; o < O; ++o) out[o] = reduce_row<T, K>(x + o * R, R);
      });
      return;
    }
    // Few long rows: split each row into parts, reduce the parts in parallel and combine
    // them in order. The parts depend on R only, so the result does not depend on the thread
    // count (threads.h may lower it under load between two runs of the same computation).
    int nt = parallel_threads(R);
    const int64_t parts = std::clamp<int64_t>(R / kParallelGrain, 1, 64);
    // Not std::vector<T>: for T = bool it packs bits, and threads writing neighbouring
    // partials would race on the same word.
    std::unique_ptr<T[]> part(new T[size_t(parts)]);
    for (int64_t o = 0; o < O; ++o) {
      const T* row = x + o * R;
      const int64_t chunk = (R + parts - 1) / parts;
      parallel_region(nt, [&] {
#pragma omp for schedule(static)
        for (int64_t q = 0; q < parts; ++q) {
          int64_t b = std::min<int64_t>(R, q * chunk), e = std::min<int64_t>(R, b + chunk);
          part[q] = b < e ? reduce_row<T, K>(row + b, e - b) : Opk::init();
        }
      });
      T acc = part[0];
      for (int64_t q = 1; q < parts; ++q) acc = Opk::step(acc, part[q]);
      out[o] = acc;
    }
    return;
  }
  // Inner dim kept: accumulate rows of I elementwise (vectorizes across I).
  int nt = parallel_threads(O * R * I);
  parallel_region(nt, [&] {
#pragma omp for schedule(static) collapse(2)
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t ib = 0; ib < I; ib += 1024) {
        int64_t ie = std::min(I, ib + 1024);
        T* acc = out + o * I;
        for (int64_t i = ib; i < ie; ++i) acc[i] = Opk::init();
        for (int64_t r = 0; r < R; ++r) {
          const T* row = x + (o * R + r) * I;
          for (int64_t i = ib; i < ie; ++i) acc[i] = Opk::step(acc[i], row[i]);
        }
      }
    }
  });
}

template <typename T, bool IsMax>
void arg_typed(const T* x, int64_t O, int64_t R, int64_t I, T* vals, int64_t* idx) {
  auto better = [](T cand, T best) {
    if (is_nan(best)) return false;
    if (is_nan(cand)) return true;
    return IsMax ? cand > best : cand < best;
  };
  int nt = parallel_threads(O * R * I);
  parallel_region(nt, [&] {
#pragma omp for schedule(static) collapse(2)
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t i = 0; i < I; ++i) {
        const T* p = x + o * R * I + i;
        T best = p[0];
        int64_t bi = 0;
        for (int64_t r = 1; r < R; ++r) {
          T v = p[r * I];
          if (better(v, best)) {
            best = v;
            bi = r;
          }
        }
        vals[o * I + i] = best;
        idx[o * I + i] = bi;
      }
    }
  });
}

}  // namespace

void reduce_kernel(ReduceKind kind, const Tensor& x, int64_t O, int64_t R, int64_t I,
                   const Tensor& out) {
  TANDEM_DISPATCH_COMPUTE(out.dtype(), "reduce", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    switch (kind) {
      case ReduceKind::Sum:
        reduce_typed<scalar_t, ReduceKind::Sum>(xp, O, R, I, op);
        break;
      case ReduceKind::Prod:
        reduce_typed<scalar_t, ReduceKind::Prod>(xp, O, R, I, op);
        break;
      case ReduceKind::Max:
        reduce_typed<scalar_t, ReduceKind::Max>(xp, O, R, I, op);
        break;
      case ReduceKind::Min:
        reduce_typed<scalar_t, ReduceKind::Min>(xp, O, R, I, op);
        break;
      case ReduceKind::All:
        reduce_typed<scalar_t, ReduceKind::All>(xp, O, R, I, op);
        break;
      case ReduceKind::Any:
        reduce_typed<scalar_t, ReduceKind::Any>(xp, O, R, I, op);
        break;
    }
  });
}

void arg_reduce_kernel(bool is_max, const Tensor& x, int64_t O, int64_t R, int64_t I,
                       const Tensor& values, const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "argmax", [&] {
    if (is_max)
      arg_typed<scalar_t, true>(x.data<scalar_t>(), O, R, I, values.data<scalar_t>(),
                                indices.data<int64_t>());
    else
      arg_typed<scalar_t, false>(x.data<scalar_t>(), O, R, I, values.data<scalar_t>(),
                                 indices.data<int64_t>());
  });
}

}  // namespace tandem
