// libFuzzer target for the IDX reader (data/idx.h, MNIST's format, raw or gzip-compressed): any
// bytes must load or throw a tandem::Error, never crash, hang, leak or read out of bounds, and
// a small file must never make the reader allocate much more than its header can justify (the
// gzip-bomb check). read_idx takes a path, so each input is written to a file first.
// Built and run by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "tandem/core/error.h"
#include "tandem/data/idx.h"

namespace {

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tandem_fuzz_idx." + std::to_string(getpid());
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch_path();
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    tandem::Tensor t = tandem::data::read_idx(path);
    (void)t.numel();
  } catch (const tandem::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
