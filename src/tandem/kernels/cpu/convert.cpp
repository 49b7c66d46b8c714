// Strided dtype conversion: the gather / scatter step of the elementwise driver and the
// body of copy_ and .to(dtype).
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {
namespace {

// Values pass through float for the 16-bit types and through their own type otherwise.
template <typename T>
struct Repr {
  using type = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
template <>
struct Repr<Half> {
  using type = float;
  static float load(Half h) { return half_to_float(h.bits); }
  static Half store(float f) { return Half{float_to_half(f)}; }
};
template <>
struct Repr<BFloat16> {
  using type = float;
  static float load(BFloat16 h) { return bf16_to_float(h.bits); }
  static BFloat16 store(float f) { return BFloat16{float_to_bf16(f)}; }
};

template <typename D, typename S>
D cast_value(S s) {
  auto v = Repr<S>::load(s);
  if constexpr (std::is_same_v<D, bool>) {
    return v != decltype(v)(0);
  } else {
    using DR = typename Repr<D>::type;
    return Repr<D>::store(static_cast<DR>(v));
  }
}

template <typename S, typename D>
void convert_loop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if (ss == sizeof(S) && ds == sizeof(D)) {
    const S* s = reinterpret_cast<const S*>(src);
    D* d = reinterpret_cast<D*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = cast_value<D>(s[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    S s;
    std::memcpy(&s, src + i * ss, sizeof(S));
    D d = cast_value<D>(s);
    std::memcpy(dst + i * ds, &d, sizeof(D));
  }
}

void copy_same(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n, size_t size) {
  if (ss == int64_t(size) && ds == int64_t(size)) {
    std::memcpy(dst, src, n * size);
    return;
  }
  switch (size) {
    case 1:
      for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
      break;
    case 2:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 2);
      break;
    case 4:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 4);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 8);
  }
}

#define TANDEM_ALL_STORAGE_TYPES(X) \
  X(Bool, bool)                     \
  X(UInt8, uint8_t)                 \
  X(Int8, int8_t)                   \
  X(Int16, int16_t)                 \
  X(Int32, int32_t)                 \
  X(Int64, int64_t)                 \
  X(Float16, Half)                  \
  X(BFloat16, BFloat16)             \
  X(Float32, float)                 \
  X(Float64, double)

template <typename S>
void convert_from(const char* src, int64_t ss, char* dst, int64_t ds, DType ddt, int64_t n) {
  switch (ddt) {
#define X(D, T)                              \
  case DType::D:                             \
    convert_loop<S, T>(src, ss, dst, ds, n); \
    return;
    TANDEM_ALL_STORAGE_TYPES(X)
#undef X
  }
}

}  // namespace

void convert_strided(const char* src, int64_t ss, DType sdt, char* dst, int64_t ds, DType ddt,
                     int64_t n) {
  if (sdt == ddt) return copy_same(src, ss, dst, ds, n, itemsize(sdt));
  switch (sdt) {
#define X(D, T)                                \
  case DType::D:                               \
    convert_from<T>(src, ss, dst, ds, ddt, n); \
    return;
    TANDEM_ALL_STORAGE_TYPES(X)
#undef X
  }
}

}  // namespace tandem
