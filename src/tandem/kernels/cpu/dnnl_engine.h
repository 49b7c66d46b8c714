// The one oneDNN CPU engine every oneDNN call of the kernels uses (convolution, bf16 and
// packed matmul): created on first use, shared by all of them.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace tandem {

inline dnnl::engine& dnnl_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

}  // namespace tandem
