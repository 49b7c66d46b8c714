// Element types, their sizes and names, and PyTorch's type-promotion lattice.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

namespace tandem {

enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};
constexpr int kNumDTypes = 10;

// 16-bit floats are storage types: arithmetic converts to float32 and back.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t float_to_bf16(float f) {  // round to nearest even, NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

// Inline: data_ptr() and every kernel's address arithmetic ask, on each eager op.
inline size_t itemsize(DType t) {
  constexpr unsigned char sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return unsigned(t) < unsigned(kNumDTypes) ? sizes[int(t)] : 0;
}
// MindSpore-style name used in reprs: "Float32", "Int64", "Bool".
const char* dtype_name(DType t);
// PyTorch-style short name: "float32", "int64", "bool".
const char* dtype_short_name(DType t);
inline bool is_floating(DType t) {
  return t >= DType::Float16;
}
// The type arithmetic on dtype t runs in (PyTorch's opmath type): float32 for the 16-bit
// floats, which are stored but not computed in, t itself otherwise.
inline DType opmath_dtype(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t;
}
inline bool is_integral(DType t, bool include_bool = false) {
  return t == DType::Bool ? include_bool : t <= DType::Int64;
}
inline bool is_signed(DType t) {
  return t != DType::Bool && t != DType::UInt8;
}

// The promoted type of a and b (PyTorch's table; see docs in dtype.cpp).
DType promote_types(DType a, DType b);
// Whether a value of `from` may be written into `to` by an in-place op (PyTorch's canCast).
bool can_cast(DType from, DType to);

// Compile-time mapping between C++ element types and DType.
template <typename T>
struct dtype_of;
#define TANDEM_DTYPE_OF(T, D)                \
  template <>                                \
  struct dtype_of<T> {                       \
    static constexpr DType value = DType::D; \
  };
TANDEM_DTYPE_OF(bool, Bool)
TANDEM_DTYPE_OF(uint8_t, UInt8)
TANDEM_DTYPE_OF(int8_t, Int8)
TANDEM_DTYPE_OF(int16_t, Int16)
TANDEM_DTYPE_OF(int32_t, Int32)
TANDEM_DTYPE_OF(int64_t, Int64)
TANDEM_DTYPE_OF(Half, Float16)
TANDEM_DTYPE_OF(BFloat16, BFloat16)
TANDEM_DTYPE_OF(float, Float32)
TANDEM_DTYPE_OF(double, Float64)
#undef TANDEM_DTYPE_OF

}  // namespace tandem

// Runs the body with `scalar_t` bound to the C++ type of `dt`. The _COMPUTE variant
// omits the 16-bit floats, which kernels compute in float32 (the driver converts).
#define TANDEM_DT_CASE(D, T, ...) \
  case ::tandem::DType::D: {      \
    using scalar_t = T;           \
    __VA_ARGS__();                \
    break;                        \
  }
#define TANDEM_DISPATCH_COMPUTE(dt, NAME, ...)                                     \
  [&] {                                                                            \
    switch (dt) {                                                                  \
      TANDEM_DT_CASE(Bool, bool, __VA_ARGS__)                                      \
      TANDEM_DT_CASE(UInt8, uint8_t, __VA_ARGS__)                                  \
      TANDEM_DT_CASE(Int8, int8_t, __VA_ARGS__)                                    \
      TANDEM_DT_CASE(Int16, int16_t, __VA_ARGS__)                                  \
      TANDEM_DT_CASE(Int32, int32_t, __VA_ARGS__)                                  \
      TANDEM_DT_CASE(Int64, int64_t, __VA_ARGS__)                                  \
      TANDEM_DT_CASE(Float32, float, __VA_ARGS__)                                  \
      TANDEM_DT_CASE(Float64, double, __VA_ARGS__)                                 \
      default:                                                                     \
        ::tandem::throw_error<::tandem::TypeError>(NAME, ": no kernel for dtype ", \
                                                   ::tandem::dtype_name(dt));      \
    }                                                                              \
  }()
