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
  // .grad assignments a traced backward() / zero_grad() made: after a call, leaf.grad is set
  // to graph output `output` (>= 0), else to `tensor` (null: None).
  struct GradSet {
    std::shared_ptr<TensorImpl> leaf;
    int64_t output = -1;
    std::shared_ptr<TensorImpl> tensor;
  };
  std::vector<GradSet> grad_sets;
  // The .grad each of those leaves had when the trace began: the graph is valid while the
  // leaf's grad is again defined / undefined alike (and the same tensor when the graph
  // reads it, as an in-place accumulation does).
  struct GradGuard {
    std::shared_ptr<TensorImpl> leaf;
    bool defined = false;
    std::shared_ptr<TensorImpl> same;  // the grad tensor the graph captured, if any
  };
  std::vector<GradGuard> grad_guards;
  // In-place writes to the function's own arguments (x.add_(1), x[0] = v): after a call,
  // graph output `output` is copied into argument `input` (an index into inputs), as eager
  // execution would have written it.
  struct InputWrite {
    int64_t input = -1;
    int64_t output = -1;
  };
  std::vector<InputWrite> input_writes;
  size_t num_hidden_outputs = 0;  // trailing outputs that carry grads / argument writes
  // Python read a traced value (a condition, int(t), .item(), .numpy()): the path this graph
  // computes holds only while the value equals what it was when traced. The executable runs
  // in segments split at the reads and checks each guard between them (graph/segments.h).
  struct Guard {
    int64_t value = -1;     // the value read (a node output, an argument or a capture)
    Tensor expected;        // its value at trace time (a dense copy)
    size_t after_node = 0;  // how many nodes had been recorded when Python read it
    std::string where;      // "file.py:12, bool()" for explain() and warnings
  };
  std::vector<Guard> guards;

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
