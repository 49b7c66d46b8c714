// Turns an elementwise functor into the dense ArrayFn the driver calls. A functor has
//   template <class T> static T s(T x, const EwP& p)      // scalar form (every dtype)
// and optionally
//   template <class V> static V v(V x, const EwP& p)      // SIMD form (float32 / float64)
// Binary functors take (a, b); ternary (a, b, c). Loops without a SIMD form are simple
// enough for the compiler to vectorize.
#pragma once
#include <type_traits>

#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/ew_table.h"
#include "tandem/kernels/cpu/simd.h"

namespace tandem {
// Everything below is compiled per instruction set (see simd.h's TANDEM_SIMD_NS).
inline namespace TANDEM_SIMD_NS {

template <typename F, typename T>
concept HasVec1 = std::is_floating_point_v<T> && requires(typename simd::VecOf<T>::type x) {
  F::v(x, EwP{});
};
template <typename F, typename T>
concept HasVec2 = std::is_floating_point_v<T> && requires(typename simd::VecOf<T>::type x) {
  F::v(x, x, EwP{});
};

inline EwP load_params(const double* p) {
  return p ? EwP{p[0], p[1], p[2]} : EwP{};
}

template <typename F, typename T, typename O = T>
void unary_fn(int64_t n, void* out, const void* const* in, const double* params) {
  O* __restrict o = static_cast<O*>(out);
  const T* __restrict a = static_cast<const T*>(in[0]);
  const EwP p = load_params(params);
  if constexpr (HasVec1<F, T> && std::is_same_v<T, O>) {
    using V = typename simd::VecOf<T>::type;
    int64_t i = 0;
    for (; i + V::W <= n; i += V::W) F::v(V::load(a + i), p).store(o + i);
    if (i < n) F::v(V::load_partial(a + i, int(n - i)), p).store_partial(o + i, int(n - i));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = F::template s<T>(a[i], p);
  }
}

template <typename F, typename T, typename O = T>
void binary_fn(int64_t n, void* out, const void* const* in, const double* params) {
  O* __restrict o = static_cast<O*>(out);
  const T* __restrict a = static_cast<const T*>(in[0]);
  const T* __restrict b = static_cast<const T*>(in[1]);
  const EwP p = load_params(params);
  if constexpr (HasVec2<F, T> && std::is_same_v<T, O>) {
    using V = typename simd::VecOf<T>::type;
    int64_t i = 0;
    for (; i + V::W <= n; i += V::W) F::v(V::load(a + i), V::load(b + i), p).store(o + i);
    if (i < n) {
      int r = int(n - i);
      F::v(V::load_partial(a + i, r), V::load_partial(b + i, r), p).store_partial(o + i, r);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = F::template s<T>(a[i], b[i], p);
  }
}

template <typename F, typename T, typename O = T>
void ternary_fn(int64_t n, void* out, const void* const* in, const double* params) {
  O* __restrict o = static_cast<O*>(out);
  const T* __restrict a = static_cast<const T*>(in[0]);
  const T* __restrict b = static_cast<const T*>(in[1]);
  const T* __restrict c = static_cast<const T*>(in[2]);
  const EwP p = load_params(params);
  for (int64_t i = 0; i < n; ++i) o[i] = F::template s<T>(a[i], b[i], c[i], p);
}

#if TANDEM_SIMD_VECTOR
template <typename F>
void unary_vec32(float* io, const double* params) {
  const EwP p = load_params(params);
  for (int k = 0; k < 16; k += simd::VF::W) F::v(simd::VF::load(io + k), p).store(io + k);
}
template <typename F>
void binary_vec32(float* io, const double* params) {
  const EwP p = load_params(params);
  for (int k = 0; k < 16; k += simd::VF::W)
    F::v(simd::VF::load(io + k), simd::VF::load(io + 16 + k), p).store(io + k);
}
#endif

// Instantiates Loop<F, T> for each listed C++ type.
template <template <typename, typename, typename> class Loop, typename F, typename Out,
          typename... Ts>
EwFnTable make_table() {
  EwFnTable t;
  ((t.fn[int(dtype_of<Ts>::value)] =
        &Loop<F, Ts, std::conditional_t<std::is_void_v<Out>, Ts, Out>>::run),
   ...);
  ((t.vec32 =
        t.vec32 ? t.vec32 : Loop<F, Ts, std::conditional_t<std::is_void_v<Out>, Ts, Out>>::vec32()),
   ...);
  return t;
}

template <typename F, typename T, typename O>
struct UnaryLoop {
  static void run(int64_t n, void* o, const void* const* i, const double* p) {
    unary_fn<F, T, O>(n, o, i, p);
  }
  static VecFn32 vec32() {
#if TANDEM_SIMD_VECTOR
    if constexpr (std::is_same_v<T, float> && std::is_same_v<O, float> && HasVec1<F, T>)
      return &unary_vec32<F>;
#endif
    return nullptr;
  }
};
template <typename F, typename T, typename O>
struct BinaryLoop {
  static void run(int64_t n, void* o, const void* const* i, const double* p) {
    binary_fn<F, T, O>(n, o, i, p);
  }
  static VecFn32 vec32() {
#if TANDEM_SIMD_VECTOR
    if constexpr (std::is_same_v<T, float> && std::is_same_v<O, float> && HasVec2<F, T>)
      return &binary_vec32<F>;
#endif
    return nullptr;
  }
};
template <typename F, typename T, typename O>
struct TernaryLoop {
  static void run(int64_t n, void* o, const void* const* i, const double* p) {
    ternary_fn<F, T, O>(n, o, i, p);
  }
  static VecFn32 vec32() { return nullptr; }
};

}  // namespace TANDEM_SIMD_NS

#define TANDEM_FLOAT_TYPES float, double
#define TANDEM_INT_TYPES uint8_t, int8_t, int16_t, int32_t, int64_t
#define TANDEM_NUMERIC_TYPES TANDEM_INT_TYPES, TANDEM_FLOAT_TYPES
#define TANDEM_ALL_TYPES bool, TANDEM_NUMERIC_TYPES

}  // namespace tandem
