// Internal to the model format: the graph JSON reader and shared helpers.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "tandem/io/safetensors.h"
#include "tandem/runtime/model_format.h"

namespace tandem::runtime {

// Bounds the format puts on numbers, so shape and attribute arithmetic cannot overflow:
// integers (dims, attributes) within +-2^40, batch coefficients within +-2^24, batch sizes
// up to 2^24, and no value larger than 2^40 bytes.
constexpr int64_t kMaxModelInt = int64_t(1) << 40;
constexpr int64_t kMaxSymMul = int64_t(1) << 24;
constexpr int64_t kMaxBatch = int64_t(1) << 24;
constexpr int64_t kMaxValueBytes = int64_t(1) << 40;

// The dtype with this short name ("float32"), if any.
std::optional<DType> dtype_from_name(std::string_view name);

// Parses and checks the graph JSON against the op-set and the file's tensors (each used by
// exactly one constant). `where` prefixes messages. Types are checked by instantiate().
ModelGraph parse_graph_json(std::string_view text, const std::string& where,
                            const io::NamedTensors& tensors);

}  // namespace tandem::runtime
