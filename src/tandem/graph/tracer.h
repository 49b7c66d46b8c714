// Tracing: while a Tracer is active on a thread, dispatch records op calls into a Graph and
// returns symbolic tensors (shape and dtype, no data) instead of running kernels.
#pragma once
#include <unordered_map>
#include <unordered_set>

#include "tandem/graph/ir.h"

namespace tandem::graph {

class Tracer {
 public:
  Tracer();
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer active on this thread, or null.
  static Tracer* active();
  // Starts tracing; returns one symbolic tensor per example input (same shape and dtype).
  std::vector<Tensor> begin(const std::vector<Tensor>& examples);
  // Records an op call (dispatch calls this instead of running the kernel).
  std::vector<Tensor> record(const OpDef& op, const std::vector<Tensor>& inputs,
                             const Attrs& attrs);
  // Records an in-place write into `out` functionally: out now names the new value (or,
  // for a captured tensor, the value is written back after each call).
  void record_inplace(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                      const Tensor& out);
  // Stops tracing and returns the graph computing `outputs`.
  Graph finish(const std::vector<Tensor>& outputs);

 private:
  int64_t value_of(const Tensor& t);
  Tensor symbolic(int64_t value);

  Graph g_;
  std::unordered_map<const TensorImpl*, int64_t> captured_;
  std::unordered_set<int64_t> views_;  // values produced by view ops
  Tracer* prev_ = nullptr;
  bool active_ = false;
};

// Suspends tracing on this thread for its lifetime, so ops run eagerly. For building
// constants from host data inside a traced function (tandem.tensor(numpy) under jit).
class TracePause {
 public:
  TracePause();
  ~TracePause();
  TracePause(const TracePause&) = delete;
  TracePause& operator=(const TracePause&) = delete;

 private:
  Tracer* saved_;
};

}  // namespace tandem::graph
