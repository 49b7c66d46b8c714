// The model file (.tdm): a compiled inference graph and its weights in one file.
//
// The file is a safetensors file (io/safetensors.h): the weights are its tensors, and its
// "__metadata__" holds
//   "format": "tandem.model", "format_version": "1", "opset_version": "1",
//   "producer": "tandem 0.1.0", "graph": <the graph as JSON>, "export_log": <what export did>
// so the weights read with any safetensors reader. The graph is stored after the inference
// passes (dropout removed, batch norm folded, constants folded, common subexpressions merged)
// and before elementwise fusion and memory planning, which the loader runs: the file does not
// depend on how fused kernels are represented.
//
// Graph JSON (format version 1):
//   {"batch": 2,                               the batch size N the concrete numbers are at
//    "values": [["float32", ["N", 1, 28, 28]], ...],      dtype and shape per value id
//    "inputs": [{"value": 0, "name": "input0"}],
//    "outputs": [{"value": 9, "name": "output0"}],
//    "constants": [{"value": 1, "tensor": "conv1.weight"}, {"value": 5, "tensor": "k5",
//                  "wrapped": true}],         (a Python number: promotes like a scalar)
//    "nodes": [{"op": "conv2d", "inputs": [0, 1, 2], "outputs": [3],
//               "attrs": {"stride": [1, 1], "groups": 1, ...}}]}
// Shape dims and integer attributes are integers or, in a graph exported with a dynamic
// batch dimension, affine expressions of the batch size: "N", "2N", "4N+1", "-N+3".
// Floats are JSON numbers with a '.' or exponent (or "inf", "-inf", "nan"); dtype attributes
// are dtype names. Every value is defined once (input, constant or node output) before use.
//
// Loading checks everything: the safetensors layout, the metadata and versions, the JSON
// schema, value ids, the op-set (opset.h: ops, input counts, attribute names and types),
// that weights match their declared types and are each used once, and finally each node's
// declared output types against its op's infer function. Any problem throws ValueError
// naming the file, the node and the fix; nothing is read out of bounds.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tandem/graph/ir.h"

namespace tandem::runtime {

// mul * N + add, N the batch size; mul == 0 for a plain number.
struct SymInt {
  int64_t mul = 0;
  int64_t add = 0;
  bool symbolic() const { return mul != 0; }
  int64_t at(int64_t n) const { return mul * n + add; }
  bool operator==(const SymInt& o) const { return mul == o.mul && add == o.add; }
};
// "N", "2N+1", or the number.
std::string sym_str(const SymInt& s);

struct ModelValue {
  DType dtype;
  std::vector<SymInt> shape;
};

// An integer attribute (index -1) or one element of an integer-list attribute that depends on
// the batch size.
struct SymAttr {
  std::string name;
  int64_t index = -1;
  SymInt value;
};

struct ModelNode {
  const OpDef* op = nullptr;
  Attrs attrs;  // at the graph's reference batch size
  std::vector<SymAttr> sym_attrs;
  std::vector<int64_t> inputs, outputs;
};

struct ModelGraph {
  struct Port {
    int64_t value;
    std::string name;
  };
  struct Constant {
    int64_t value;
    std::string name;  // the safetensors tensor
    Tensor tensor;     // wrapped-number tensors keep that flag
  };
  std::vector<ModelValue> values;
  std::vector<ModelNode> nodes;
  std::vector<Port> inputs, outputs;
  std::vector<Constant> constants;
  int64_t batch = 1;  // the batch size `attrs` and concrete dims are at

  bool dynamic() const;
  // The concrete graph at batch size n (any n >= 1 when dynamic(), else batch), every node
  // checked against its op's infer function. Constants become captures.
  graph::Graph instantiate(int64_t n) const;
  // One line per node, with symbolic dims ("%3 = conv2d(%0, %1, %2) : float32[N, 6, 28, 28]").
  std::string str() const;
};

struct ModelFile {
  ModelGraph graph;
  int format_version = 0;
  int opset_version = 0;
  std::string producer;
  std::string export_log;
};

// The graph part of the file, as JSON.
std::string graph_to_json(const ModelGraph& g);

// Writes the file (crash-safe, as save_safetensors). The graph is verified first.
void save_model(const std::string& path, const ModelFile& m);
// Reads and validates a file; throws ValueError (IoError for system errors).
ModelFile load_model(const std::string& path);
// The same from the file's bytes in memory (`name` for messages); the fuzzing entry point.
ModelFile parse_model(std::string_view bytes, const std::string& name);

}  // namespace tandem::runtime
