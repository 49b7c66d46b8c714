#include "tandem/graph/tracer.h"

#include "tandem/core/error.h"
#include "tandem/ops/dispatch.h"

namespace tandem::graph {
namespace {
thread_local Tracer* current = nullptr;

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
  if (active_) current = prev_;
}

Tracer* Tracer::active() {
  return current;
}

TracePause::TracePause() : saved_(current) {
  current = nullptr;
}
TracePause::~TracePause() {
  current = saved_;
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

std::vector<Tensor> Tracer::begin(const std::vector<Tensor>& examples) {
  TANDEM_CHECK(!active_, Error, "internal: tracer started twice");
  std::vector<Tensor> out;
  for (const Tensor& e : examples) {
    int64_t v = g_.add_value(e.shape(), e.dtype());
    g_.inputs.push_back(v);
    out.push_back(symbolic(v));
  }
  prev_ = current;
  current = this;
  active_ = true;
  return out;
}

int64_t Tracer::value_of(const Tensor& t) {
  const TensorImpl* impl = t.impl();
  if (impl->sym_graph == this) return impl->sym_value;
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
  if (op.view) {
    std::vector<Tensor> ins;
    for (const Tensor& t : inputs) ins.push_back(meta_like(t));
    Tensor v = op.view(op, ins, attrs);
    metas.push_back({v.shape(), v.dtype()});
  } else {
    metas = op.infer(op, inputs, attrs);
  }
  std::vector<Tensor> outs;
  for (auto& m : metas) {
    int64_t v = g_.add_value(m.shape, m.dtype);
    n.outputs.push_back(v);
    if (op.view) views_.insert(v);
    outs.push_back(symbolic(v));
  }
  g_.nodes.push_back(std::move(n));
  return outs;
}

void Tracer::record_inplace(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                            const Tensor& out) {
  if (out.is_symbolic())
    TANDEM_CHECK(!views_.count(value_of(out)), NotImplementedError, "jit: in-place ", op.name,
                 " on a view (e.g. x[0] += 1 or x[mask] = v) is not supported inside jit yet; "
                 "build the value functionally (mint.where, index_put, cat)");
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
    out.impl()->sym_value = v;  // later reads of `out` see the new value
    return;
  }
  // A captured tensor (parameter, buffer): write the new value back after each call.
  captured_[out.impl()] = v;
  for (auto& w : g_.writebacks)
    if (w.first.get() == out.impl()) {
      w.second = v;
      return;
    }
  g_.writebacks.emplace_back(out.impl_shared(), v);
}

Graph Tracer::finish(const std::vector<Tensor>& outputs) {
  TANDEM_CHECK(active_, Error, "internal: tracer finished twice");
  current = prev_;
  active_ = false;
  for (const Tensor& t : outputs) g_.outputs.push_back(value_of(t));
  g_.verify();
  return std::move(g_);
}

}  // namespace tandem::graph
