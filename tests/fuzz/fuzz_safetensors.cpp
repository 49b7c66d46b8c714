// libFuzzer target for the safetensors loader (io/safetensors.h): any bytes must load or throw a
// tandem::Error, never crash, hang, leak or read out of bounds. Tensors that load are read
// through (summed as float64) so a header whose shape, dtype and offsets disagree with the
// bytes behind them shows up as an out-of-bounds read here, not in a user's first op.
// Built and run by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstdint>
#include <string_view>

#include "tandem/core/error.h"
#include "tandem/io/safetensors.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto [tensors, meta] = tandem::io::load_safetensors_bytes(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
    for (auto& [name, t] : tensors) {
      if (t.numel() > (int64_t(1) << 22)) continue;
      (void)tandem::sum(tandem::to_dtype(t, tandem::DType::Float64)).item_double();
    }
  } catch (const tandem::Error&) {
  }
  return 0;
}
