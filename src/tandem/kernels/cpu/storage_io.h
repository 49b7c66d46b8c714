// Element loads and stores between a storage type and the type a kernel computes in:
// bfloat16 and float16 values are computed in float32 (bfloat16's conversions vectorize),
// every other type in itself. Lets one kernel body serve every dtype; dtype conversion
// (convert.cpp) goes through it too.
#pragma once
#include "tandem/core/dtype.h"

namespace tandem {

template <typename S>
struct StorageIo {
  using compute = S;
  static S load(S v) { return v; }
  static S store(S v) { return v; }
};

template <>
struct StorageIo<Half> {
  using compute = float;
  static float load(Half v) { return half_to_float(v.bits); }
  static Half store(float v) { return Half{float_to_half(v)}; }
};

template <>
struct StorageIo<BFloat16> {
  using compute = float;
  static float load(BFloat16 v) { return bf16_to_float(v.bits); }
  static BFloat16 store(float v) { return BFloat16{float_to_bf16(v)}; }
};

// The type S computes in.
template <typename S>
using compute_t = typename StorageIo<S>::compute;

template <typename S>
inline compute_t<S> ld(S v) {
  return StorageIo<S>::load(v);
}
template <typename S>
inline S st(compute_t<S> v) {
  return StorageIo<S>::store(v);
}

}  // namespace tandem
