// Element loads and stores between a storage type and the type a kernel computes in:
// bfloat16 arrays are read and written as such and computed in float32 (the conversions
// vectorize), float and double pass through. Lets one kernel body serve every dtype.
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
