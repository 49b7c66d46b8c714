// Reverse-mode automatic differentiation. dispatch records a Node per op call when grad mode
// is on and an input requires grad; backward walks the recorded graph and calls each op's
// vjp rule (written with tandem ops, so gradients of gradients work).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tandem/ops/op_def.h"

namespace tandem {

// --- grad mode ---------------------------------------------------------------------------
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
// Sets grad mode for a scope (no_grad: GradModeGuard g(false)).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

// --- per-tensor state ----------------------------------------------------------------------
bool requires_grad(const Tensor& t);
// Marks a leaf tensor as requiring grad; throws for non-floating dtypes or non-leaves.
void set_requires_grad(const Tensor& t, bool value);
bool is_leaf(const Tensor& t);
// The accumulated gradient of a leaf (undefined until a backward reaches it).
Tensor grad(const Tensor& t);
void set_grad(const Tensor& t, const Tensor& g);
// Name of the op that produced t ("" for leaves), like grad_fn's class in PyTorch.
std::string grad_fn_name(const Tensor& t);
// A tensor sharing t's data with no autograd history.
Tensor detach(const Tensor& t);
// Drops t's history in place (and requires_grad).
void detach_(const Tensor& t);
// Keeps .grad for a non-leaf tensor during backward.
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
// fn(grad) runs when the gradient of t is computed; a defined return value replaces it.
using GradHook = std::function<Tensor(const Tensor&)>;
void register_hook(const Tensor& t, GradHook fn);
// fn(leaf) runs after a backward has accumulated a gradient into leaf's .grad (PyTorch's
// register_post_accumulate_grad_hook): data-parallel training reduces .grad from there.
using PostAccumulateHook = std::function<void(const Tensor&)>;
void register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateHook fn);
// Queues fn to run when the backward running on this thread has finished (after every
// leaf's .grad is written; PyTorch's engine.queue_callback). Throws outside a backward.
// Callbacks are dropped, not run, when the backward fails.
void queue_backward_callback(std::function<void()> fn);

// --- backward ------------------------------------------------------------------------------
// Accumulates d(sum_i roots[i] * grads[i]) / d(leaf) into each leaf's .grad. grads may be
// empty for scalar roots (then ones).
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads = {},
              bool retain_graph = false, bool create_graph = false);
// Returns d(sum_i outputs[i] * grad_outputs[i]) / d(inputs[j]) without touching .grad.
// An input the outputs don't depend on gives an undefined tensor when allow_unused, else
// an error.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool create_graph = false, bool allow_unused = false);

// --- functional API (MindSpore's value_and_grad / grad, in C++) -----------------------------
// What differentiate() returns: fn's outputs, the arguments as fn saw them, and the
// gradients of the sum of fn's outputs (each with sensitivity ones) with respect to those
// arguments and then to `weights` (zeros where an output does not depend on one).
struct Differentiation {
  std::vector<Tensor> outputs;
  std::vector<Tensor> leaves;
  std::vector<Tensor> grads;
  bool nested = false;  // an outer differentiation records through the arguments
};
// The core of value_and_grad, shared by C++ and by Python's tandem.value_and_grad / grad:
// each argument becomes a leaf that requires grad, unless it already carries history
// (an outer grad is differentiating through this one: then the gradients are built with
// create_graph so the outer one sees through them); fn runs with grad mode on.
Differentiation differentiate(
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
    const std::vector<Tensor>& args, const std::vector<Tensor>& weights);

using DiffFn = std::function<Tensor(const std::vector<Tensor>&)>;
// A function returning (fn(args), gradients of fn's scalar output with respect to the
// arguments at grad_positions, then with respect to each of `weights`).
std::function<std::pair<Tensor, std::vector<Tensor>>(const std::vector<Tensor>&)> value_and_grad(
    DiffFn fn, std::vector<int> grad_positions = {0}, std::vector<Tensor> weights = {});
// The gradients only.
std::function<std::vector<Tensor>(const std::vector<Tensor>&)> grad(
    DiffFn fn, std::vector<int> grad_positions = {0}, std::vector<Tensor> weights = {});

// --- used by dispatch ----------------------------------------------------------------------
namespace autograd {
// Whether dispatch must record this call.
bool should_record(const OpDef& op, const std::vector<Tensor>& inputs);
bool should_record_ptrs(const OpDef& op, const Tensor* const* inputs, int n);
// Records the call: outputs get a grad_fn (and requires_grad) for their floating outputs.
void record(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
            const std::vector<Tensor>& outputs);
// Before an in-place write into `out`: when the write must be recorded, validates it (leaf
// and view rules) and returns a snapshot of out's old value carrying out's old history;
// undefined when nothing is recorded.
Tensor prepare_inplace(const OpDef& op, const Tensor& out, const std::vector<Tensor>& inputs);
// Declares `view` an alias of `base` so an in-place write through it is recorded against
// base too (used by __setitem__, whose view of a plain tensor carries no history yet).
void mark_view(const Tensor& view, const Tensor& base);
// After the write: records the op with `old` standing for out among the inputs and makes
// it out's new history.
void record_inplace(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs,
                    const Tensor& out, const Tensor& old);
}  // namespace autograd

// A vjp for ops whose outputs also follow from a composite of simpler ops: re-runs
// `composite` on fresh leaves and differentiates it. Exact for the first derivative of the
// op (so second order through the op's use as a backward), without history beyond that.
std::vector<Tensor> vjp_via_composite(
    const VjpCtx& c, const std::vector<Tensor>& grads,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& composite);

// Reduces a broadcast gradient back to `shape` (sums the broadcast dims).
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace tandem
