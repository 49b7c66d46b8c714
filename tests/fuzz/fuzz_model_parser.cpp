// libFuzzer target for the model file parser (runtime/model_format.h): any bytes must load
// or throw a tandem::Error, never crash, hang or read out of bounds. Inputs that load and are
// small are also lowered, planned and run once on zeros, so the checks that gate execution
// are covered too. Built and run by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstdint>
#include <cstring>
#include <string_view>

#include "tandem/core/error.h"
#include "tandem/runtime/model.h"

namespace {

// Bytes of all values at the export batch size, for skipping models too big to run here.
int64_t graph_bytes(const tandem::runtime::ModelGraph& g) {
  const int64_t cap = int64_t(1) << 26;
  int64_t total = 0;
  for (const auto& v : g.values) {
    int64_t n = int64_t(tandem::itemsize(v.dtype));
    for (const auto& d : v.shape) {
      n *= std::max<int64_t>(d.at(g.batch), 1);  // dims <= 2^40 (the format's bound)
      if (n > cap) return n;
    }
    total += n;
    if (total > cap) return total;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tandem::runtime::ModelFile m = tandem::runtime::parse_model(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    if (graph_bytes(m.graph) > (int64_t(1) << 26)) return 0;
    tandem::runtime::Model model(std::move(m), tandem::runtime::ModelOptions{1});
    std::vector<tandem::Tensor> xs;
    for (size_t i = 0; i < model.num_inputs(); ++i) {
      tandem::Tensor x =
          tandem::Tensor::empty(model.input_shape(i, model.export_batch()), model.input_dtype(i));
      std::memset(x.data_ptr(), 0, size_t(x.numel()) * x.itemsize());
      xs.push_back(x);
    }
    model.run(xs);
  } catch (const tandem::Error&) {
  }
  return 0;
}
