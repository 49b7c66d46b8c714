// OpDef: the single definition of an op. Eager execution, tracing (graph mode) and
// autodiff all read the same record, so they agree by construction.
#pragma once
#include <string>
#include <vector>

#include "tandem/core/tensor.h"
#include "tandem/ops/attrs.h"

namespace tandem {

struct OpDef;

struct TensorMeta {
  Shape shape;
  DType dtype;
};

// Output shapes/dtypes from the inputs' metadata; validates arguments and throws with the
// op's name. Must not read tensor data (inputs may be symbolic in graph mode).
using InferFn = std::vector<TensorMeta> (*)(const OpDef& op, const std::vector<Tensor>& inputs,
                                            const Attrs& attrs);
// Computes into preallocated outputs (dense, or any strides when called through dispatch_out).
using KernelFn = void (*)(const OpDef& op, const std::vector<Tensor>& inputs,
                          std::vector<Tensor>& outputs, const Attrs& attrs);
// For view ops: the output as a view of inputs[0] (may fall back to a copy, as reshape does).
using ViewFn = Tensor (*)(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs);
// infer + allocate + kernel of a single-output op in one call, over operands passed by
// pointer: an eager call with nothing to trace or record then builds no vectors.
using EagerFn = Tensor (*)(const OpDef& op, const Tensor* const* inputs, int n, const Attrs& attrs);

// What a backward rule sees: the forward call's inputs, outputs and attributes, and which
// inputs need a gradient.
struct VjpCtx {
  const OpDef& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  const std::vector<bool>& needs_grad;
};
// Gradients of the inputs (undefined where not needed or not differentiable) from the
// gradients of the outputs (undefined for outputs that received none). Written with tandem
// ops, so it traces in graph mode and differentiates again for higher-order gradients.
using VjpFn = std::vector<Tensor> (*)(const VjpCtx& ctx, const std::vector<Tensor>& grads);

struct OpDef {
  std::string name;
  InferFn infer = nullptr;
  KernelFn kernel = nullptr;   // null for pure view ops
  ViewFn view = nullptr;       // non-null for ops whose output aliases input 0
  const void* data = nullptr;  // op-family table read by shared kernels (e.g. elementwise fns)
  // Optional; must give what infer + kernel give (elementwise ops set it).
  EagerFn eager = nullptr;
  // The kernel writes any output strides and dtypes itself (elementwise ops); otherwise
  // dispatch_out computes into a dense temporary and copies.
  bool kernel_writes_any_out = false;
  // Dense outputs take the inputs' memory layout (Tensor::empty_following) instead of
  // row-major: elementwise ops, as PyTorch's.
  bool out_follows_layout = false;
  // Backward rule, set next to the op's definition with TANDEM_DEFINE_VJP (mutable so the
  // rule can follow the const definition in the same file).
  mutable VjpFn vjp = nullptr;
  // Outputs carry no gradient (comparisons, argmax, random draws): never recorded.
  mutable bool non_differentiable = false;
  // Reads or advances global state (the random generator): never merged or folded by the
  // graph compiler, and run on every call.
  mutable bool stateful = false;
  // The last output holds activations saved for the backward op (fused RNN layers): it never
  // carries a gradient, so the engine does not materialize zeros for it.
  mutable bool last_output_saved = false;
};

// An OpDef with the given infer and kernel; `data` is the op-family table, if any.
inline OpDef make_op(const char* name, InferFn infer, KernelFn kernel,
                     bool kernel_writes_any_out = false, const void* data = nullptr) {
  OpDef op;
  op.name = name;
  op.infer = infer;
  op.kernel = kernel;
  op.kernel_writes_any_out = kernel_writes_any_out;
  op.data = data;
  return op;
}

// Registry by name, for graph deserialization and introspection.
void register_op(const OpDef* op);
const OpDef* find_op(const std::string& name);
std::vector<const OpDef*> all_ops();

}  // namespace tandem

// Attaches a backward rule to an OpDef defined earlier in the same file.
#define TANDEM_DEFINE_VJP(var, fn)      \
  static const int var##_vjp_set = [] { \
    (var).vjp = (fn);                   \
    return 0;                           \
  }();
// Marks an OpDef whose outputs never carry gradients.
#define TANDEM_NOT_DIFFERENTIABLE(var)      \
  static const int var##_nondiff_set = [] { \
    (var).non_differentiable = true;        \
    return 0;                               \
  }();

// Marks an OpDef that draws from the random generator.
#define TANDEM_STATEFUL(var)                 \
  static const int var##_stateful_set = [] { \
    (var).stateful = true;                   \
    return 0;                                \
  }();

// Defines and registers an OpDef at static-initialisation time.
#define TANDEM_REGISTER_OP(var)            \
  static const int var##_registered = [] { \
    ::tandem::register_op(&var);           \
    return 0;                              \
  }();
