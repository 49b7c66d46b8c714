// How the layers above the runtime plug into dispatch. libtandem_runtime (core, kernels, ops,
// the graph IR, passes and executor) runs ops; graph tracing and autograd's tape and engine
// live in libtandem, which registers them here when it loads. In a program that links the
// runtime alone nothing is registered: ops run eagerly and record nothing.
#pragma once
#include <functional>
#include <vector>

#include "tandem/ops/op_def.h"

namespace tandem {

// The graph tracer's side of dispatch (graph::Tracer implements it).
class TraceRecorder {
 public:
  virtual ~TraceRecorder() = default;
  // Records an op call instead of running it; returns symbolic outputs.
  virtual std::vector<Tensor> record(const OpDef& op, const std::vector<Tensor>& inputs,
                                     const Attrs& attrs) = 0;
  // Records an in-place write into `out`.
  virtual void record_inplace(const OpDef& op, const std::vector<Tensor>& inputs,
                              const Attrs& attrs, const Tensor& out) = 0;
  // Called before a leaf's .grad is replaced while tracing.
  virtual void note_grad_write(const Tensor& leaf) = 0;
};

// The recorder tracing on this thread, or null.
TraceRecorder* active_trace_recorder();
void set_active_trace_recorder(TraceRecorder* recorder);

// autograd's tape and engine (installed by autograd/record.cpp); see autograd.h for what
// each does.
struct AutogradHooks {
  bool (*should_record)(const OpDef& op, const std::vector<Tensor>& inputs);
  // should_record for operands passed by pointer (dispatch's eager path).
  bool (*should_record_ptrs)(const OpDef& op, const Tensor* const* inputs, int n);
  void (*record)(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                 const std::vector<Tensor>& outputs);
  Tensor (*prepare_inplace)(const OpDef& op, const Tensor& out, const std::vector<Tensor>& inputs);
  void (*record_inplace)(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs,
                         const Tensor& out, const Tensor& old);
  std::vector<Tensor> (*vjp_via_composite)(
      const VjpCtx& c, const std::vector<Tensor>& grads,
      const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& composite);
};

// The installed hooks, or null (the runtime alone).
const AutogradHooks* autograd_hooks();
void install_autograd_hooks(const AutogradHooks* hooks);

}  // namespace tandem
