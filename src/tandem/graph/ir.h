// The graph IR: a list of op calls over typed values, in execution order. Values are the
// function's inputs, captured tensors (read by reference at each call), or node outputs.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tandem/ops/op_def.h"

namespace tandem::graph {

struct Value {
  Shape shape;
  DType dtype;
};

struct Node {
  const OpDef* op;
  Attrs attrs;
  std::vector<int64_t> inputs;   // value ids
  std::vector<int64_t> outputs;  // value ids
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int64_t> inputs;  // the function's tensor arguments, in order
  // Tensors the function read without receiving them (parameters, buffers, Python numbers):
  // bound by reference, so each call sees their current value.
  std::vector<std::pair<int64_t, std::shared_ptr<TensorImpl>>> captures;
  std::vector<int64_t> outputs;
  // In-place updates of captured tensors: after a call, value `second` is copied into the
  // tensor `first` (an optimizer step, running statistics).
  std::vector<std::pair<std::shared_ptr<TensorImpl>, int64_t>> writebacks;

  int64_t add_value(const Shape& shape, DType dtype);
  // Checks ids, definition before use and single definitions; throws Error describing the
  // first problem.
  void verify() const;
  // A stable readable form: one line per node, "%3 = add(%1, %2) {alpha=2} : Float32[2, 3]".
  std::string str() const;
  // Node i's line of str(), without indentation.
  std::string node_str(size_t i) const;
};

}  // namespace tandem::graph
