#include "tandem/kernels/cpu/cpu_features.h"

#include <strings.h>

#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>

namespace tandem {
namespace {

// Below AVX2 the baseline build does not load at all (the Python package checks the
// CPU's flags before importing the library and says so).
enum class Cap { Avx2, Avx512 };

// Function-level target attributes ask for AVX-512 F/BW/DQ/VL together (x86-64-v4's set).
Cap cpu_has() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return Cap::Avx512;
  return Cap::Avx2;
}

// TANDEM_ISA's cap: unset or "avx512" leaves the CPU's choice; "avx2" lowers it.
Cap env_cap() {
  const char* e = std::getenv("TANDEM_ISA");
  if (e && !strcasecmp(e, "avx2")) return Cap::Avx2;
  return Cap::Avx512;
}

Cap chosen() {
  static const Cap c = [] {
    const Cap have = cpu_has(), cap = env_cap();
    const Cap use = int(cap) < int(have) ? cap : have;
    // oneDNN dispatches on its own; hold it to the same cap. This runs when the library
    // loads (below), before oneDNN's first primitive or sgemm.
    if (use != have) {
      try {
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
      } catch (const dnnl::error&) {
        // oneDNN already dispatched (a primitive made outside the shared engine): its
        // kernels keep their choice, ours still follow the cap.
      }
    }
    return use;
  }();
  return c;
}

[[maybe_unused]] const bool applied_at_load = (chosen(), true);

}  // namespace

bool cpu_use_avx512() {
  return chosen() == Cap::Avx512;
}

const char* cpu_capability() {
  return chosen() == Cap::Avx512 ? "AVX512" : "AVX2";
}

const char* build_isa() {
#if defined(TANDEM_BUILD_ISA)
  return TANDEM_BUILD_ISA;
#else
  return "unknown";
#endif
}

}  // namespace tandem
