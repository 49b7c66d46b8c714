// Runs a compiled graph in C++: no Python, no tracing, no autograd. Intermediate values live
// in one arena per run at offsets planned at compile time (graph/memory_plan.h), elementwise
// kernels write over an input that dies there, and updates write into their parameter.
#pragma once
#include <functional>
#include <string>

#include "tandem/core/error.h"
#include "tandem/graph/cost.h"
#include "tandem/graph/ir.h"
#include "tandem/graph/memory_plan.h"

namespace tandem::graph {

// Thrown by Executable::run when a guard does not hold: Python read a traced value and the
// path compiled for it no longer applies (nothing was written back; the caller takes
// another path or traces a new one).
class GuardFailed : public Error {
 public:
  GuardFailed(size_t index, const std::string& where)
      : Error("jit: guard " + std::to_string(index) + " (" + where + ") does not hold"),
        index(index),
        where(where) {}
  size_t index;
  std::string where;
};

// Memory a caller keeps from one run to the next (the C++ runtime's Model): the arena, and
// per graph output the tensor the last run returned, which the next run writes into again
// once nothing else holds it. Runs with the same buffers allocate no tensor memory after the
// first.
struct RunBuffers {
  Tensor arena;
  std::vector<Tensor> outputs;
};

class Executable {
 public:
  // outputs_require_grad: the traced outputs had autograd history (callers that may
  // differentiate them run the function eagerly instead; the graph records no tape).
  explicit Executable(Graph g, bool outputs_require_grad = false);
  // Runs the graph on tensors matching the traced inputs' shapes and dtypes.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;
  // The same with caller-kept memory (see RunBuffers).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, RunBuffers& buffers) const;
  // Runs `reps` times and returns the median seconds each node took, in node order (what
  // to optimize next; the graph's write-backs happen as in run()).
  std::vector<double> profile(const std::vector<Tensor>& inputs, int reps) const;
  const Graph& graph() const { return g_; }
  // Number of op calls per run.
  size_t num_kernels() const { return g_.nodes.size(); }
  // Number of elementwise nodes that may write over a dying input instead of allocating.
  size_t num_inplace_candidates() const;
  // Number of updates that may be written straight into their captured tensor.
  size_t num_inplace_writebacks() const;
  bool outputs_require_grad() const { return outputs_require_grad_; }
  // Whether the .grad state of the leaves a traced backward() touched matches the trace's
  // (else the caller retraces: the graph may accumulate into, or ignore, a grad).
  bool grad_guards_hold() const;
  // Whether every captured tensor still has the shape and dtype the graph was traced with
  // (Parameter.set_data or x.data = y may change them; the caller then retraces).
  bool captures_unchanged() const;
  const MemoryPlan& memory_plan() const { return plan_; }
  // The optimized graph as text, with the guards where they are checked.
  std::string text() const;
  // Number of guards (Python reads of traced values) the path depends on.
  size_t num_guards() const { return g_.guards.size(); }
  CostReport cost() const { return estimate_cost(g_, true); }
  std::string arena_text() const { return arena_str(plan_); }

 private:
  void check_guard(size_t i, const std::vector<Tensor>& env) const;
  // After a run: the write-backs, argument writes and .grad assignments, then the results.
  std::vector<Tensor> commit(const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& env) const;

  std::vector<Tensor> run_timed(const std::vector<Tensor>& inputs, double* node_seconds,
                                RunBuffers* buffers = nullptr) const;

  Graph g_;
  bool outputs_require_grad_ = false;
  std::vector<std::vector<int64_t>> free_after_;  // values whose last use is node i
  // Per output value of an elementwise node, an input value that dies there with its shape
  // and dtype: its buffer becomes the output (the plan gives both one arena slot).
  std::vector<int64_t> donor_;
  // Per output value, a captured value whose tensor receives it directly (an update
  // written into its parameter; see inplace_writebacks), else -1.
  std::vector<int64_t> into_capture_;
  MemoryPlan plan_;
  std::vector<int64_t> output_slot_;  // per value: its first index among the graph outputs, or -1
  // Per node, the guards checked right after it (guards_before_: before the first node).
  std::vector<std::vector<size_t>> guards_after_;
  std::vector<size_t> guards_before_;
};

// A traced graph with guards, cut at the reads, each segment optimized alone and joined again
// (segments.cpp).
Graph optimize_guarded(Graph g);

// Traces fn on symbolic versions of `examples`, optimizes, and compiles it (graph/compile.cpp:
// libtandem, not the runtime layer, since it traces). `before` and
// `before_cost` (if given) receive the traced graph's text and cost before optimization,
// i.e. what eager mode runs.
Executable compile(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                   const std::vector<Tensor>& examples, std::string* before = nullptr,
                   CostReport* before_cost = nullptr);

}  // namespace tandem::graph
