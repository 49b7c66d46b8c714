// The one oneDNN CPU engine every oneDNN call of the kernels uses (convolution, bf16 and
// packed matmul): created on first use, shared by all of them.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace tandem {

inline dnnl::engine& dnnl_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Whether oneDNN runs bfloat16 on this CPU's dot-product instructions (AVX512_BF16 or
// AMX). Elsewhere it emulates them, slower than float32, so callers compute in float32.
inline bool dnnl_native_bf16() {
  static const bool yes = [] {
    const unsigned want = unsigned(dnnl::cpu_isa::avx512_core_bf16);
    return (unsigned(dnnl::get_effective_cpu_isa()) & want) == want;
  }();
  return yes;
}

}  // namespace tandem
