// Checkpoints in the safetensors layout (https://github.com/huggingface/safetensors):
//   8-byte little-endian header length N | N bytes of UTF-8 JSON | tensor bytes
// The JSON maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the first byte after the header) plus an optional "__metadata__" object of
// string -> string. Files written here load with the safetensors package and vice versa.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/tensor.h"

namespace tandem::io {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::map<std::string, std::string>;

// A failed system call (open, write, fsync, rename). Python sees OSError carrying errno and
// the file name, so a missing file raises FileNotFoundError.
class IoError : public Error {
 public:
  IoError(int error_code, std::string filename, const std::string& message)
      : Error(message), error_code_(error_code), filename_(std::move(filename)) {}
  int error_code() const { return error_code_; }
  const std::string& filename() const { return filename_; }

 private:
  int error_code_;
  std::string filename_;
};

// Writes `tensors` (any strides; names unique, not "__metadata__") and `metadata` to `path`.
// Crash-safe: the bytes go to "<path>.tmp.<pid>" in the same directory, which is fsynced and
// renamed over `path`, and the directory is fsynced; a crash leaves the old file intact, and
// the next save to `path` removes temporaries whose writer process is gone.
// Bad arguments throw ValueError, failed system calls IoError.
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata = {});

// Reads a file written by save_safetensors or any safetensors writer; tensors come back in
// header order. Every inconsistency (truncation, malformed or non-UTF-8 JSON, unknown dtype,
// missing fields, sizes that disagree with shapes, offsets that overlap, leave gaps or run past
// the end, duplicate names) throws ValueError naming the file and the problem.
std::pair<NamedTensors, Metadata> load_safetensors(const std::string& path);
// The same from a file's bytes held in memory (`name` names them in messages).
std::pair<NamedTensors, Metadata> load_safetensors_bytes(std::string_view bytes,
                                                         const std::string& name);

}  // namespace tandem::io
