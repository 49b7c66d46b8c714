#include "tandem/core/dtype.h"

#include "tandem/core/error.h"

namespace tandem {

// IEEE half conversion without relying on F16C so the library builds anywhere.
float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t u;
  if (exp == 0) {
    if (man == 0) {
      u = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) {
        man <<= 1;
        --exp;
      }
      man &= 0x3ff;
      u = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000 | (man << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t abs = u & 0x7fffffff;
  if (abs > 0x7f800000) return uint16_t(sign | 0x7e00);   // NaN
  if (abs >= 0x477ff000) return uint16_t(sign | 0x7c00);  // overflow -> inf
  if (abs < 0x38800000) {                                 // subnormal or zero
    if (abs < 0x33000000) return uint16_t(sign);
    uint32_t exp = abs >> 23;
    uint32_t man = (abs & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exp;  // 14..24
    uint32_t r = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
    return uint16_t(sign | r);
  }
  uint32_t r = abs + 0xfff + ((abs >> 13) & 1) - (112u << 23);  // round to nearest even
  return uint16_t(sign | (r >> 13));
}

const char* dtype_name(DType t) {
  static const char* names[] = {"Bool",  "UInt8",   "Int8",     "Int16",   "Int32",
                                "Int64", "Float16", "BFloat16", "Float32", "Float64"};
  return names[int(t)];
}

const char* dtype_short_name(DType t) {
  static const char* names[] = {"bool",  "uint8",   "int8",     "int16",   "int32",
                                "int64", "float16", "bfloat16", "float32", "float64"};
  return names[int(t)];
}

// PyTorch's promotion lattice, without complex types:
//   bool < integers < floating; within integers the wider wins, and uint8 with a signed
//   type of the same width goes to the next wider signed type (uint8 + int8 -> int16);
//   within floating the wider wins, and float16 + bfloat16 -> float32.
DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    if ((a == DType::Float16 && b == DType::BFloat16) ||
        (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return a > b ? a : b;
  }
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;
  }
  return a > b ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

}  // namespace tandem
