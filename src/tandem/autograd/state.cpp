// Per-tensor autograd state and grad mode. Part of libtandem_runtime (ops read these flags);
// the tape and the engine are not.
#include "tandem/autograd/node.h"
#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/hooks.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {
thread_local bool grad_enabled = true;
}  // namespace

bool is_grad_enabled() {
  return grad_enabled;
}
void set_grad_enabled(bool enabled) {
  grad_enabled = enabled;
}

AutogradMeta& meta_of(const Tensor& t) {
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

bool requires_grad(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return m && (m->requires_grad || m->grad_fn);
}

bool is_leaf(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return !m || !m->grad_fn;
}

void set_requires_grad(const Tensor& t, bool value) {
  TANDEM_CHECK(t.defined(), ValueError, "requires_grad_: tensor is undefined");
  if (!is_leaf(t)) {
    TANDEM_CHECK(value, Error,
                 "you can only change requires_grad flags of leaf variables; to use a non-leaf "
                 "without gradient, use .detach()");
    return;
  }
  TANDEM_CHECK(!value || is_floating(t.dtype()), Error,
               "only Tensors of floating point dtype can require gradients, got ",
               dtype_name(t.dtype()));
  meta_of(t).requires_grad = value;
}

Tensor grad(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return m ? m->grad : Tensor();
}

void set_grad(const Tensor& t, const Tensor& g) {
  if (g.defined()) {
    TANDEM_CHECK(g.shape() == t.shape(), ValueError, "assigned grad has shape ",
                 shape_str(g.shape()), " but the tensor has shape ", shape_str(t.shape()));
    TANDEM_CHECK(g.dtype() == t.dtype(), TypeError, "assigned grad has dtype ",
                 dtype_name(g.dtype()), " but the tensor has dtype ", dtype_name(t.dtype()));
  }
  if (!g.defined() && !meta_if(t)) return;
  if (TraceRecorder* tr = active_trace_recorder()) tr->note_grad_write(t);
  meta_of(t).grad = g;
}

std::string grad_fn_name(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m || !m->grad_fn || !m->grad_fn->op) return "";
  return m->grad_fn->op->name;
}

Tensor detach(const Tensor& t) {
  Tensor d = Tensor::make_view(t, t.shape(), t.strides(), t.offset());
  d.impl()->sym_value = t.impl()->sym_value;  // a traced value stays the same graph value
  d.impl()->sym_graph = t.impl()->sym_graph;
  return d;
}

void detach_(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m) return;
  m->grad_fn.reset();
  m->requires_grad = false;
  m->is_view = false;
}

void retain_grad(const Tensor& t) {
  TANDEM_CHECK(requires_grad(t), Error,
               "can't retain_grad on a Tensor that has requires_grad=False");
  if (!is_leaf(t)) meta_of(t).retains_grad = true;
}
bool retains_grad(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return m && m->retains_grad;
}

void register_hook(const Tensor& t, GradHook fn) {
  TANDEM_CHECK(requires_grad(t), Error,
               "cannot register a hook on a tensor that doesn't require gradient");
  meta_of(t).hooks.push_back(std::move(fn));
}

void register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateHook fn) {
  TANDEM_CHECK(requires_grad(t), Error,
               "cannot register a post-accumulate-grad hook on a tensor that doesn't require "
               "gradient");
  TANDEM_CHECK(is_leaf(t), Error,
               "post-accumulate-grad hooks can only be registered on leaf tensors (they run "
               "after .grad is written, which only leaves have)");
  meta_of(t).post_accumulate_hooks.push_back(std::move(fn));
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  int64_t lead = g.dim() - int64_t(shape.size());
  TANDEM_CHECK(lead >= 0, Error, "internal: gradient of shape ", shape_str(g.shape()),
               " can't be reduced to ", shape_str(shape));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[size_t(d - lead)] == 1 && g.shape()[size_t(d)] != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return reshape(r, shape);
}

}  // namespace tandem
