#include "tandem/graph/tracer.h"

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"

namespace tandem::graph {
namespace {
// A dense, storage-less stand-in with t's shape and dtype, for replaying view functions.
Tensor meta_like(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = t.shape();
  impl->strides = contiguous_strides(t.shape());
  impl->dtype = t.dtype();
  return Tensor(impl);
}
}  // namespace

Tracer::Tracer() = default;
Tracer::~Tracer() {
  if (!active_) return;
  // Abandoned (the traced code raised): leaves must not keep symbolic grads, and reads'
  // evaluation must not have consumed random numbers.
  set_active_trace_recorder(prev_);
  if (evaluated_ > 0) set_rng_state(rng_at_begin_.first, rng_at_begin_.second);
  for (auto& [leaf, before] : grad_before_) set_grad(Tensor(leaf), before);
}

Tracer* Tracer::active() {
  // Tracer is the only TraceRecorder.
  return static_cast<Tracer*>(active_trace_recorder());
}

TracePause::TracePause() : saved_(active_trace_recorder()) {
  set_active_trace_recorder(nullptr);
}
TracePause::~TracePause() {
  set_active_trace_recorder(saved_);
}

Tensor Tracer::symbolic(int64_t value) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = g_.values[size_t(value)].shape;
  impl->strides = contiguous_strides(impl->shape);
  impl->dtype = g_.values[size_t(value)].dtype;
  impl->sym_value = value;
  impl->sym_graph = this;
  return Tensor(impl);
}

bool Tracer::captures_state(const Tensor& t) const {
  return !t.is_symbolic() && !t.is_wrapped_number() && t.storage() &&
         t.storage()->serial() < first_serial_;
}

std::vector<Tensor> Tracer::begin(const std::vector<Tensor>& examples) {
  TANDEM_CHECK(!active_, Error, "internal: tracer started twice");
  first_serial_ = Storage::next_serial();
  examples_ = examples;
  rng_at_begin_ = get_rng_state();
  std::vector<Tensor> out;
  for (const Tensor& e : examples) {
    int64_t v = g_.add_value(e.shape(), e.dtype());
    g_.inputs.push_back(v);
    out.push_back(symbolic(v));
    arguments_.push_back(out.back().impl_shared());
  }
  prev_ = active_trace_recorder();
  set_active_trace_recorder(this);
  active_ = true;
  return out;
}

int64_t Tracer::value_of(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (impl->sym_graph == this) {
    auto it = views_.find(impl->sym_value);
    if (it != views_.end() &&
        value_now(it->second.base).impl()->sym_value != it->second.base_value) {
      // The base was written (through another view, or in place) since this view was made:
      // read the window again from the base's current value.
      ViewInfo info = it->second;
      const OpDef* strided = find_op("as_strided");
      Tensor fresh =
          record(*strided, {value_now(info.base)},
                 {{"shape", info.shape}, {"strides", info.strides}, {"offset", info.offset}})[0];
      int64_t v = fresh.impl()->sym_value;
      info.base_value = value_now(info.base).impl()->sym_value;
      views_[v] = info;
      impl->sym_value = v;
    }
    return impl->sym_value;
  }
  TANDEM_CHECK(!t.is_symbolic(), Error,
               "jit: a tensor from another traced function was used here; return it from that "
               "function instead of storing it");
  auto it = captured_.find(impl);
  if (it != captured_.end()) return it->second;
  int64_t v = g_.add_value(t.shape(), t.dtype());
  g_.captures.emplace_back(v, t.impl_shared());
  captured_[impl] = v;
  return v;
}

std::vector<Tensor> Tracer::record(const OpDef& op, const std::vector<Tensor>& inputs,
                                   const Attrs& attrs) {
  Node n{&op, attrs, {}, {}};
  for (const Tensor& t : inputs) n.inputs.push_back(value_of(t));
  std::vector<TensorMeta> metas;
  ViewInfo info;
  bool is_view = op.view != nullptr;
  if (op.view) {
    // Replay the view on a storage-less stand-in laid out as the input is relative to its
    // base, so the result's geometry relative to that base is known (writes through it).
    std::vector<Tensor> ins;
    for (const Tensor& t : inputs) ins.push_back(meta_like(t));
    info.base = inputs[0].impl_shared();
    Tensor v;
    auto parent = views_.find(n.inputs[0]);
    if (parent != views_.end()) {
      std::vector<Tensor> geo = ins;
      geo[0] = meta_like(inputs[0]);
      geo[0].impl()->strides = parent->second.strides;
      geo[0].impl()->offset = parent->second.offset;
      try {
        v = op.view(op, geo, attrs);
        info.base = parent->second.base;
      } catch (const Error&) {
        // reshape of a layout that no view can express copies at run time: the result is a
        // new tensor, not a window on the parent's base.
        is_view = false;
      }
    }
    if (!v.defined()) v = op.view(op, ins, attrs);
    info.base_value = value_now(info.base).impl()->sym_value;
    info.shape = v.shape();
    info.strides = v.strides();
    info.offset = v.offset();
    metas.push_back({v.shape(), v.dtype()});
  } else {
    metas = op.infer(op, inputs, attrs);
  }
  std::vector<Tensor> outs;
  for (auto& m : metas) {
    int64_t v = g_.add_value(m.shape, m.dtype);
    if (defined_by_.size() <= size_t(v)) defined_by_.resize(size_t(v) + 1, -1);
    defined_by_[size_t(v)] = int64_t(g_.nodes.size());
    n.outputs.push_back(v);
    outs.push_back(symbolic(v));
    if (is_view) {
      views_[v] = info;
      // Eager geometry (relative to the base), for code that reads strides or offsets of
      // views, such as autograd's record of writes through a view.
      outs.back().impl()->strides = info.strides;
      outs.back().impl()->offset = info.offset;
    }
  }
  g_.nodes.push_back(std::move(n));
  return outs;
}

Tensor Tracer::value_now(const std::shared_ptr<TensorImpl>& base) {
  if (base->sym_graph == this) return symbolic(base->sym_value);
  return symbolic(value_of(Tensor(base)));
}

void Tracer::record_inplace(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                            const Tensor& out) {
  Tensor r = record(op, inputs, attrs)[0];
  if (r.dtype() != out.dtype()) {
    const OpDef* cast = find_op("cast");
    r = record(*cast, {r}, {{"dtype", int64_t(out.dtype())}})[0];
  }
  if (r.shape() != out.shape()) {
    const OpDef* expand = find_op("expand");
    r = record(*expand, {r}, {{"shape", out.shape()}})[0];
  }
  int64_t v = r.impl()->sym_value;
  if (out.impl()->sym_graph == this) {
    auto view = views_.find(out.impl()->sym_value);
    out.impl()->sym_value = v;  // later reads of `out` see the new value
    if (view == views_.end()) return;
    // A write through a view is a new value of its base: view_assign(base, new region).
    // (Other views of that base made earlier keep naming its old value.)
    ViewInfo info = view->second;
    views_[v] = info;
    const OpDef* assign = find_op("view_assign");
    Tensor nb = record(*assign, {value_now(info.base), r},
                       {{"view_shape", info.shape},
                        {"view_strides", info.strides},
                        {"view_offset", info.offset}})[0];
    rename(info.base, nb.impl()->sym_value);
    views_[v].base_value = nb.impl()->sym_value;  // the written view is current
    return;
  }
  rename(out.impl_shared(), v);
}

void Tracer::rename(const std::shared_ptr<TensorImpl>& t, int64_t v) {
  if (t->sym_graph == this) {
    t->sym_value = v;
    return;
  }
  // A captured tensor (parameter, buffer): write the new value back after each call.
  captured_[t.get()] = v;
  for (auto& w : g_.writebacks)
    if (w.first.get() == t.get()) {
      w.second = v;
      return;
    }
  g_.writebacks.emplace_back(t, v);
}

Tensor Tracer::concrete(int64_t v) {
  if (concrete_.size() < g_.values.size()) concrete_.resize(g_.values.size());
  if (concrete_[size_t(v)].defined()) return concrete_[size_t(v)];
  for (size_t i = 0; i < g_.inputs.size(); ++i)
    if (g_.inputs[i] == v) return concrete_[size_t(v)] = examples_[i];
  for (const auto& c : g_.captures)
    if (c.first == v) return concrete_[size_t(v)] = Tensor(c.second);
  int64_t def = size_t(v) < defined_by_.size() ? defined_by_[size_t(v)] : -1;
  TANDEM_CHECK(def >= 0, Error, "internal: jit value %", v, " has no definition");
  // Eagerly, on the real arguments and captures, without tracing or autograd. In-place
  // writes were recorded functionally, so this writes nothing real.
  TracePause pause;
  GradModeGuard no_grad(false);
  for (; evaluated_ <= size_t(def); ++evaluated_) {
    const Node& n = g_.nodes[evaluated_];
    std::vector<Tensor> ins;
    for (int64_t in : n.inputs) ins.push_back(concrete(in));
    std::vector<Tensor> outs = execute(*n.op, ins, n.attrs);
    for (size_t k = 0; k < outs.size(); ++k) concrete_[size_t(n.outputs[k])] = outs[k];
  }
  return concrete_[size_t(v)];
}

Tensor Tracer::read(const Tensor& t, const std::string& where) {
  int64_t v = value_of(t);
  Tensor value = concrete(v);
  Graph::Guard guard;
  guard.value = v;
  {
    TracePause pause;
    GradModeGuard no_grad(false);
    guard.expected = value.contiguous().same(value) ? clone(value) : value.contiguous();
  }
  guard.after_node = g_.nodes.size();
  guard.where = where;
  g_.guards.push_back(std::move(guard));
  return value;
}

void Tracer::note_grad_write(const Tensor& leaf) {
  for (auto& b : grad_before_)
    if (b.first.get() == leaf.impl()) return;
  grad_before_.emplace_back(leaf.impl_shared(), grad(leaf));
}

Graph Tracer::finish(const std::vector<Tensor>& outputs) {
  TANDEM_CHECK(active_, Error, "internal: tracer finished twice");
  for (const Tensor& t : outputs) g_.outputs.push_back(value_of(t));
  // The grads the traced code left on leaves become hidden outputs (or fixed tensors), and
  // the leaves get their pre-trace grads back: no symbolic tensor outlives the trace.
  for (auto& [leaf, before] : grad_before_) {
    Tensor after = grad(Tensor(leaf));
    Graph::GradSet s{leaf, -1, nullptr};
    if (after.defined() && after.impl()->sym_graph == this) {
      s.output = int64_t(g_.outputs.size());
      g_.outputs.push_back(after.impl()->sym_value);
      g_.num_hidden_outputs++;
    } else if (after.defined()) {
      TANDEM_CHECK(!after.is_symbolic(), Error,
                   "jit: a .grad from another traced function was left on a tensor");
      s.tensor = after.impl_shared();
    }
    g_.grad_sets.push_back(s);
    Graph::GradGuard gd{leaf, before.defined(), nullptr};
    if (before.defined() && captured_.count(before.impl())) gd.same = before.impl_shared();
    g_.grad_guards.push_back(gd);
    set_grad(Tensor(leaf), before);
  }
  // Arguments the traced code wrote in place now name another value: copy it back into
  // the caller's tensor after each call.
  for (size_t i = 0; i < arguments_.size(); ++i) {
    if (arguments_[i]->sym_value == g_.inputs[i]) continue;
    g_.input_writes.push_back({int64_t(i), int64_t(g_.outputs.size())});
    g_.outputs.push_back(arguments_[i]->sym_value);
    g_.num_hidden_outputs++;
  }
  // Evaluating nodes for reads drew random numbers: the compiled run draws them again.
  if (evaluated_ > 0) set_rng_state(rng_at_begin_.first, rng_at_begin_.second);
  set_active_trace_recorder(prev_);
  active_ = false;
  g_.verify();
  return std::move(g_);
}

}  // namespace tandem::graph
