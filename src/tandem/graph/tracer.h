// Tracing: while a Tracer is active on a thread, dispatch records op calls into a Graph and
// returns symbolic tensors (shape and dtype, no data) instead of running kernels.
#pragma once
#include <unordered_map>
#include <unordered_set>

#include "tandem/graph/ir.h"
#include "tandem/ops/hooks.h"

namespace tandem::graph {

// dispatch reaches it through the TraceRecorder interface (ops/hooks.h), so the runtime layer
// does not link the tracer.
class Tracer : public TraceRecorder {
 public:
  Tracer();
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer active on this thread, or null.
  static Tracer* active();
  // Starts tracing; returns one symbolic tensor per example input (same shape and dtype).
  std::vector<Tensor> begin(const std::vector<Tensor>& examples);
  // Records an op call (dispatch calls this instead of running the kernel).
  std::vector<Tensor> record(const OpDef& op, const std::vector<Tensor>& inputs,
                             const Attrs& attrs) override;
  // Records an in-place write into `out` functionally: out now names the new value (or,
  // for a captured tensor, the value is written back after each call).
  void record_inplace(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                      const Tensor& out) override;
  // Called before a leaf's .grad is replaced while tracing (backward, zero_grad, p.grad =):
  // remembers the grad it had when the trace began.
  void note_grad_write(const Tensor& leaf) override;
  // Whether `t` is real data that existed before the trace began (state the compiled
  // function captures, as opposed to constants the traced code made from host data).
  bool captures_state(const Tensor& t) const;
  // The value of `t` (traced or captured) for Python code that reads it while tracing
  // (a condition, int(t), .item(), .numpy()): the recorded ops are evaluated up to it on the
  // arguments and captured tensors as they are now (nothing real is written), and a guard
  // ties the compiled path to this value. `where` names the read (source line, construct).
  Tensor read(const Tensor& t, const std::string& where);
  // Whether the traced code assigned any .grad (a training step with backward()).
  bool wrote_grads() const { return !grad_before_.empty(); }
  // Stops tracing and returns the graph computing `outputs`.
  Graph finish(const std::vector<Tensor>& outputs);

 private:
  int64_t value_of(const Tensor& t);
  Tensor symbolic(int64_t value);

  // A value made by view ops: the tensor it views (a traced value or a captured tensor) and
  // its geometry relative to that tensor laid out densely.
  struct ViewInfo {
    std::shared_ptr<TensorImpl> base;
    Shape shape;
    Strides strides;
    int64_t offset = 0;
    int64_t base_value = -1;  // the base's value when this view was last derived
  };
  // The base's current value (traced values and captures are renamed by in-place writes).
  Tensor value_now(const std::shared_ptr<TensorImpl>& base);
  // `t` (a traced value or a captured tensor) now names value v.
  void rename(const std::shared_ptr<TensorImpl>& t, int64_t v);

  // The concrete value of v, evaluating recorded nodes in order as far as needed.
  Tensor concrete(int64_t v);

  Graph g_;
  std::vector<std::shared_ptr<TensorImpl>> arguments_;  // the symbolic arguments begin() made
  std::vector<Tensor> examples_;                        // the real arguments
  std::vector<Tensor> concrete_;                        // by value id, once evaluated (see read)
  std::vector<int64_t> defined_by_;  // by value id: the node that produced it, or -1
  size_t evaluated_ = 0;             // nodes evaluated so far
  std::pair<uint64_t, uint64_t> rng_at_begin_{0, 0};  // evaluation draws; the run redraws
  std::vector<std::pair<std::shared_ptr<TensorImpl>, Tensor>> grad_before_;  // leaf, its grad
  std::unordered_map<const TensorImpl*, int64_t> captured_;
  std::unordered_map<int64_t, ViewInfo> views_;  // values produced by view ops
  TraceRecorder* prev_ = nullptr;
  bool active_ = false;
  uint64_t first_serial_ = 0;  // storages from here on were made during the trace
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
  TraceRecorder* saved_;
};

}  // namespace tandem::graph
