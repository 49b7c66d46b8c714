// The op-set of the model file format: which ops a model file may contain, how many inputs
// and outputs each takes and which attributes of which types. The file format's contract,
// checked when a model loads, before any op's infer function sees the node (infer then
// checks the values: shapes, ranges, dtypes). Version 1 covers the D2L zoo and the
// MindSpore tutorials' vision models and the recurrent ones: convolutions, pooling,
// normalization, matmul, fused RNN / LSTM / GRU layers, elementwise and activation ops,
// reductions, softmax, shape and view ops.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/ops/attrs.h"

namespace tandem::runtime {

// Model file and op-set versions this build writes and reads.
constexpr int kFormatVersion = 1;
constexpr int kOpsetVersion = 1;

// Allowed types of one attribute (a bit set of the AttrValue alternatives).
enum AttrTypes : uint8_t {
  kAttrNone = 1,
  kAttrBool = 2,
  kAttrInt = 4,
  kAttrFloat = 8,
  kAttrInts = 16,
  kAttrStr = 32,
  kAttrNumber = kAttrInt | kAttrFloat,
};

struct AttrSpec {
  const char* name;
  uint8_t types;
  bool required = true;
  bool is_dtype = false;                  // an Int holding a DType, written as its name
  std::vector<std::string> choices = {};  // for strings: the allowed values
};

struct OpSpec {
  const char* name;
  int min_inputs, max_inputs;
  int num_outputs;
  std::vector<AttrSpec> attrs;
  // Extra checks relating attributes to the input count (batch_norm's optional inputs).
  void (*check)(const OpSpec& spec, const Attrs& attrs, size_t num_inputs) = nullptr;
};

// The spec of `name` in this op-set, or null.
const OpSpec* find_op_spec(std::string_view name);
const AttrSpec* find_attr_spec(const OpSpec& spec, std::string_view attr);
// Every op of the op-set, sorted by name.
std::vector<const OpSpec*> opset_ops();

// Checks a node's input count and attributes against its spec; throws ValueError naming
// `where`, the op and the problem.
void check_node(const OpSpec& spec, const Attrs& attrs, size_t num_inputs, size_t num_outputs,
                const std::string& where);

}  // namespace tandem::runtime
