// Recording op calls into the graph (called by dispatch), including in-place writes.
#include <atomic>

#include "tandem/autograd/node.h"
#include "tandem/autograd/view_scatter.h"
#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/hooks.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {
std::atomic<uint64_t> next_seq{1};
thread_local autograd::ReadProbe* read_probe = nullptr;
}  // namespace

Node::~Node() {
  // What this node holds (the nodes and tensors of its inputs) may be the last reference to
  // the rest of the graph; dropping it here would destroy the chain recursively and overflow
  // the stack. The outermost destructor instead drains a worklist that nested ones feed.
  struct Pending {
    std::vector<std::shared_ptr<void>> items;
    bool draining = false;
  };
  thread_local Pending pending;
  for (Edge& e : next)
    if (e.fn) pending.items.push_back(std::move(e.fn));
  for (Tensor& t : inputs)
    if (t.defined()) pending.items.push_back(t.impl_shared());
  next.clear();
  inputs.clear();
  if (pending.draining) return;
  pending.draining = true;
  while (!pending.items.empty()) {
    std::shared_ptr<void> item = std::move(pending.items.back());
    pending.items.pop_back();
    item.reset();  // may run nested ~Node, which only appends
  }
  pending.draining = false;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::shared_ptr<Node> acc = m->accumulator.lock();
  if (!acc) {
    acc = std::make_shared<Node>();
    acc->leaf = t.impl_shared();
    acc->seq = next_seq++;
    acc->output_meta.push_back({t.shape(), t.dtype()});
    m->accumulator = acc;
  }
  return {acc, 0};
}

namespace autograd {

void set_read_probe(ReadProbe* probe) {
  read_probe = probe;
}

namespace {
void note_read(const Tensor& t) {
  if (!read_probe || read_probe->hit) return;
  for (const Storage* s : read_probe->watched)
    if (t.storage().get() == s) {
      read_probe->hit = s;
      return;
    }
}
}  // namespace

void note_reads(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) note_read(t);
}

bool should_record(const OpDef& op, const std::vector<Tensor>& inputs) {
  // dispatch calls this for every op, so it is where a vjp's reads are observed.
  if (read_probe) note_reads(inputs);
  if (!is_grad_enabled() || op.non_differentiable) return false;
  for (const Tensor& t : inputs)
    if (requires_grad(t)) return true;
  return false;
}

bool should_record_ptrs(const OpDef& op, const Tensor* const* inputs, int n) {
  if (read_probe)
    for (int i = 0; i < n; ++i) note_read(*inputs[i]);
  if (!is_grad_enabled() || op.non_differentiable) return false;
  for (int i = 0; i < n; ++i)
    if (requires_grad(*inputs[i])) return true;
  return false;
}

void record(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
            const std::vector<Tensor>& outputs) {
  auto node = std::make_shared<Node>();
  node->op = &op;
  node->attrs = attrs;
  node->inputs = inputs;
  node->seq = next_seq++;
  for (const Tensor& t : inputs) {
    node->input_versions.push_back(t.storage() ? t.storage()->version() : 0);
    bool need = requires_grad(t);
    node->needs_grad.push_back(need);
    node->next.push_back(need ? gradient_edge(t) : Edge{});
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& y = outputs[k];
    node->outputs.push_back(detach(y));
    node->output_impls.push_back(y.impl_shared());
    node->output_versions.push_back(y.storage() ? y.storage()->version() : 0);
    node->output_meta.push_back({y.shape(), y.dtype()});
    if (!is_floating(y.dtype())) continue;  // indices and masks carry no gradient
    AutogradMeta& m = meta_of(y);
    m.grad_fn = node;
    m.output_nr = int(k);
    m.is_view = op.view != nullptr;
    if (m.is_view) {  // remember the root tensor this view aliases
      AutogradMeta* im = meta_if(inputs[0]);
      m.view_base = im && im->view_base ? im->view_base : inputs[0].impl_shared();
    }
  }
}

namespace {
// An in-place write through a view of `base` (set by prepare, consumed by record_inplace).
struct PendingViewWrite {
  Tensor base, old_base;
  Shape shape;
  Strides strides;
  int64_t offset = 0;
};
thread_local PendingViewWrite pending_view;

// Snapshot the base (with its history) and return the view's old value as a recorded view of
// that snapshot, so the write can be recorded functionally: base' = view_assign(base, op(view)).
Tensor prepare_view_write(const OpDef& op, const Tensor& out, AutogradMeta& m) {
  Tensor base(m.view_base);
  AutogradMeta* bm = meta_if(base);
  TANDEM_CHECK(!(bm && bm->requires_grad && !bm->grad_fn), Error, op.name,
               "_: a view of a leaf Variable that requires grad is being used in an in-place "
               "operation; wrap the update in no_grad() or work on a clone");
  TANDEM_CHECK(base.is_contiguous(), NotImplementedError, op.name,
               "_: in-place write through a view of a non-contiguous tensor that requires grad "
               "is not supported; make the base contiguous first");
  Tensor old_base = clone(detach(base));
  if (bm) {
    AutogradMeta& om = meta_of(old_base);
    om.grad_fn = bm->grad_fn;
    om.output_nr = bm->output_nr;
    om.requires_grad = bm->requires_grad;
  }
  pending_view = {base, old_base, out.shape(), out.strides(), out.offset() - base.offset()};
  return as_strided(old_base, out.shape(), out.strides(), out.offset() - base.offset());
}
}  // namespace

Tensor prepare_inplace(const OpDef& op, const Tensor& out, const std::vector<Tensor>& inputs) {
  if (read_probe) note_reads(inputs);
  if (!is_grad_enabled()) return Tensor();
  bool any = requires_grad(out);
  for (const Tensor& t : inputs) any |= requires_grad(t);
  if (!any) return Tensor();
  AutogradMeta* m = meta_if(out);
  TANDEM_CHECK(!(m && m->requires_grad && !m->grad_fn), Error, op.name,
               "_: a leaf Variable that requires grad is being used in an in-place operation; "
               "wrap the update in no_grad() or work on a clone");
  if (m && m->is_view && m->view_base) return prepare_view_write(op, out, *m);
  TANDEM_CHECK(!op.non_differentiable, Error, op.name,
               "_: in-place result would require grad but the op is not differentiable");
  TANDEM_CHECK(is_floating(out.dtype()), Error, op.name,
               "_: an integer tensor cannot hold a result that requires grad");
  // The snapshot stands for out's old value: same history, its own copy of the data.
  Tensor old = clone(detach(out));
  if (m) {
    AutogradMeta& om = meta_of(old);
    om.grad_fn = m->grad_fn;
    om.output_nr = m->output_nr;
    om.requires_grad = m->requires_grad;
  }
  return old;
}

void mark_view(const Tensor& view, const Tensor& base) {
  if (view.same(base) || !view.shares_storage(base)) return;
  AutogradMeta& m = meta_of(view);
  if (m.view_base) return;
  AutogradMeta* bm = meta_if(base);
  m.is_view = true;
  m.view_base = bm && bm->view_base ? bm->view_base : base.impl_shared();
}

void record_inplace(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs,
                    const Tensor& out, const Tensor& old) {
  for (Tensor& t : inputs)
    if (t.same(out)) t = old;
  std::shared_ptr<TensorImpl> base_keep = meta_of(out).view_base;
  record(op, inputs, attrs, {out});
  AutogradMeta& om = meta_of(out);
  om.requires_grad = false;  // now a non-leaf: requires grad through grad_fn
  if (!pending_view.base.defined()) return;
  PendingViewWrite pv = std::move(pending_view);
  pending_view = {};
  // The view keeps aliasing the base; the base's new history is the functional write.
  om.is_view = true;
  om.view_base = base_keep;
  Attrs va{{"view_shape", pv.shape}, {"view_strides", pv.strides}, {"view_offset", pv.offset}};
  record(view_assign_op(), {pv.old_base, out}, va, {pv.base});
  meta_of(pv.base).requires_grad = false;
}

}  // namespace autograd

namespace {
// dispatch (in the runtime layer) reaches the tape through these.
const AutogradHooks tape_hooks{&autograd::should_record,  &autograd::should_record_ptrs,
                               &autograd::record,         &autograd::prepare_inplace,
                               &autograd::record_inplace, &autograd::composite_vjp};
const int tape_hooks_installed = [] {
  install_autograd_hooks(&tape_hooks);
  return 0;
}();
}  // namespace

}  // namespace tandem
