#include "tandem/graph/executor.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/graph/passes.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"

namespace tandem::graph {
namespace {

// A dense tensor of val's shape and dtype at byte offset `off` of the arena.
Tensor slice(const Tensor& arena, int64_t off, const Value& val) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = val.shape;
  impl->strides = contiguous_strides(val.shape);
  impl->offset = off / int64_t(itemsize(val.dtype));
  impl->dtype = val.dtype;
  impl->storage = arena.storage();
  return Tensor(std::move(impl));
}

}  // namespace

Executable::Executable(Graph g, bool outputs_require_grad)
    : g_(std::move(g)), outputs_require_grad_(outputs_require_grad) {
  g_.verify();
  const bool guarded = !g_.guards.empty();
  if (guarded) {
    g_ = optimize_guarded(std::move(g_));
    g_.verify();
    // A guard's value must outlive the node after which it is checked: a hidden output.
    for (const Graph::Guard& gd : g_.guards) {
      g_.outputs.push_back(gd.value);
      g_.num_hidden_outputs++;
    }
    guards_after_.resize(g_.nodes.size());
    for (size_t i = 0; i < g_.guards.size(); ++i) {
      size_t after = g_.guards[i].after_node;
      (after == 0 ? guards_before_ : guards_after_[after - 1]).push_back(i);
    }
  }
  std::vector<int64_t> last(g_.values.size(), -1);
  for (size_t i = 0; i < g_.nodes.size(); ++i)
    for (int64_t v : g_.nodes[i].inputs) last[size_t(v)] = int64_t(i);
  std::vector<bool> pinned(g_.values.size(), false);  // outputs and write-backs live to the end
  for (int64_t v : g_.outputs) pinned[size_t(v)] = true;
  for (auto& w : g_.writebacks) pinned[size_t(w.second)] = true;
  free_after_.resize(g_.nodes.size());
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0 && !pinned[v]) free_after_[size_t(last[v])].push_back(int64_t(v));

  donor_ = inplace_donors(g_);
  into_capture_ = inplace_writebacks(g_);
  // With guards, nothing may be written into a captured tensor before the last one holds.
  if (!pass_enabled("inplace") || guarded)
    std::fill(into_capture_.begin(), into_capture_.end(), -1);
  if (!pass_enabled("inplace")) std::fill(donor_.begin(), donor_.end(), -1);
  plan_ = plan_memory(g_, donor_, into_capture_);
  output_slot_.assign(g_.values.size(), -1);
  for (size_t k = g_.outputs.size(); k-- > 0;) output_slot_[size_t(g_.outputs[k])] = int64_t(k);
  if (!pass_enabled("arena")) plan_ = MemoryPlan{std::vector<int64_t>(g_.values.size(), -1)};
}

bool Executable::grad_guards_hold() const {
  for (const Graph::GradGuard& gd : g_.grad_guards) {
    Tensor now = grad(Tensor(gd.leaf));
    if (now.defined() != gd.defined) return false;
    if (gd.same && now.impl() != gd.same.get()) return false;
  }
  return true;
}

bool Executable::captures_unchanged() const {
  for (const auto& [v, impl] : g_.captures) {
    const Value& want = g_.values[size_t(v)];
    if (impl->dtype != want.dtype || impl->shape != want.shape) return false;
  }
  return true;
}

size_t Executable::num_inplace_writebacks() const {
  return size_t(
      std::count_if(into_capture_.begin(), into_capture_.end(), [](int64_t v) { return v >= 0; }));
}

size_t Executable::num_inplace_candidates() const {
  return size_t(std::count_if(donor_.begin(), donor_.end(), [](int64_t v) { return v >= 0; }));
}

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs) const {
  if (g_.guards.empty()) return run_timed(inputs, nullptr);
  // A failed guard leaves no trace: nothing is written back (commit comes last) and the
  // random numbers drawn so far are drawn again by the path that runs instead.
  const auto rng = get_rng_state();
  try {
    return run_timed(inputs, nullptr);
  } catch (const GuardFailed&) {
    set_rng_state(rng.first, rng.second);
    throw;
  }
}

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs, RunBuffers& buffers) const {
  return run_timed(inputs, nullptr, &buffers);
}

std::vector<double> Executable::profile(const std::vector<Tensor>& inputs, int reps) const {
  TANDEM_CHECK(reps >= 1, ValueError, "jit.profile: reps must be >= 1, got ", reps);
  std::vector<std::vector<double>> t(g_.nodes.size(), std::vector<double>(size_t(reps)));
  std::vector<double> once(g_.nodes.size());
  run_timed(inputs, once.data());  // warm-up: caches, primitives, allocator
  for (int r = 0; r < reps; ++r) {
    run_timed(inputs, once.data());
    for (size_t i = 0; i < once.size(); ++i) t[i][size_t(r)] = once[i];
  }
  std::vector<double> med(g_.nodes.size());
  for (size_t i = 0; i < t.size(); ++i) {
    std::nth_element(t[i].begin(), t[i].begin() + reps / 2, t[i].end());
    med[i] = t[i][size_t(reps / 2)];
  }
  return med;
}

namespace {
// The tensor kept from the last run for this output, when nothing else holds it any more and
// it has the output's type.
Tensor reusable(const RunBuffers* b, int64_t slot, const Value& val) {
  if (!b || slot < 0 || size_t(slot) >= b->outputs.size()) return Tensor();
  const Tensor& t = b->outputs[size_t(slot)];
  if (!t.defined() || t.impl_shared().use_count() != 1 || !t.storage() ||
      t.storage().use_count() != 1 || t.offset() != 0 || t.shape() != val.shape ||
      t.dtype() != val.dtype || !t.is_contiguous())
    return Tensor();
  return t;
}
}  // namespace

std::vector<Tensor> Executable::run_timed(const std::vector<Tensor>& inputs, double* node_seconds,
                                          RunBuffers* buffers) const {
  TANDEM_CHECK(inputs.size() == g_.inputs.size(), TypeError, "jit: the compiled function takes ",
               g_.inputs.size(), " tensor arguments, got ", inputs.size());
  std::vector<Tensor> env(g_.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& want = g_.values[size_t(g_.inputs[i])];
    TANDEM_CHECK(inputs[i].shape() == want.shape && inputs[i].dtype() == want.dtype, TypeError,
                 "jit: argument ", i, " is ", dtype_name(inputs[i].dtype()),
                 shape_str(inputs[i].shape()), " but the graph was compiled for ",
                 dtype_name(want.dtype), shape_str(want.shape));
    env[size_t(g_.inputs[i])] = inputs[i];
  }
  // An argument the function writes in place must be writable element by element, as the
  // eager in-place op checks; before any node runs, so nothing is written when it is not.
  for (const Graph::InputWrite& w : g_.input_writes)
    if (has_internal_overlap(inputs[size_t(w.input)]))
      check_no_internal_overlap(
          inputs[size_t(w.input)],
          "jit: argument " + std::to_string(w.input) + ", which the function writes in place,");
  TANDEM_CHECK(captures_unchanged(), ValueError,
               "jit: a tensor the compiled function captured changed shape or dtype since it "
               "was traced; call the jit function again (it retraces) instead of the graph");
  for (auto& c : g_.captures) env[size_t(c.first)] = Tensor(c.second);
  GradModeGuard no_grad(false);
  // One allocation for every intermediate (the caching allocator keeps it between runs), or
  // the caller's.
  Tensor arena;
  if (buffers && buffers->arena.defined() && buffers->arena.numel() >= plan_.arena_bytes)
    arena = buffers->arena;
  else if (plan_.arena_bytes > 0)
    arena = Tensor::empty({plan_.arena_bytes}, DType::UInt8);
  if (buffers) buffers->arena = arena;
  std::vector<Tensor> ins;
  for (size_t gi : guards_before_) check_guard(gi, env);
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    auto t0 =
        node_seconds ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    ins.clear();
    for (int64_t v : n.inputs) ins.push_back(env[size_t(v)]);
    std::vector<Tensor> outs;
    if (n.op->view) {
      outs = execute(*n.op, ins, n.attrs);
    } else {
      outs.reserve(n.outputs.size());
      for (int64_t o : n.outputs) {
        const Value& val = g_.values[size_t(o)];
        int64_t off = plan_.offset[size_t(o)];
        // No arena when every planned value is empty (a zero-size input): those get their
        // own (empty) tensors below.
        outs.push_back(off >= 0 && arena.defined() ? slice(arena, off, val) : Tensor());
      }
      for (size_t k = 0; k < outs.size(); ++k) {
        int64_t c = into_capture_[size_t(n.outputs[k])];
        if (c < 0) continue;
        // The parameter itself, unless a view or another tensor shares its buffer.
        const Tensor& t = env[size_t(c)];
        if (t.is_contiguous() && t.storage().use_count() == 1) outs[k] = t;
      }
      for (size_t k = 0; k < outs.size(); ++k)
        if (!outs[k].defined()) {
          const Value& val = g_.values[size_t(n.outputs[k])];
          outs[k] = reusable(buffers, output_slot_[size_t(n.outputs[k])], val);
          if (!outs[k].defined()) outs[k] = Tensor::empty(val.shape, val.dtype);
        }
      n.op->kernel(*n.op, ins, outs, n.attrs);
    }
    for (size_t k = 0; k < outs.size(); ++k) env[size_t(n.outputs[k])] = std::move(outs[k]);
    for (int64_t v : free_after_[i]) env[size_t(v)] = Tensor();
    if (!guards_after_.empty())
      for (size_t gi : guards_after_[i]) check_guard(gi, env);
    if (node_seconds)
      node_seconds[i] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<Tensor> out = commit(inputs, env);
  if (buffers) buffers->outputs = out;
  return out;
}

std::vector<Tensor> Executable::commit(const std::vector<Tensor>& inputs,
                                       const std::vector<Tensor>& env) const {
  for (auto& w : g_.writebacks) {
    Tensor target(w.first);
    const Tensor& v = env[size_t(w.second)];
    if (v.storage() != target.storage() || v.data_ptr() != target.data_ptr())
      copy_into(target, v);  // (an update written into its tensor needs no copy)
    if (target.storage()) target.storage()->bump_version();
  }
  std::vector<Tensor> out;
  for (int64_t v : g_.outputs) out.push_back(env[size_t(v)]);
  for (const Graph::GradSet& s : g_.grad_sets)
    set_grad(Tensor(s.leaf), s.output >= 0 ? out[size_t(s.output)]
                             : s.tensor    ? Tensor(s.tensor)
                                           : Tensor());
  for (const Graph::InputWrite& w : g_.input_writes) {
    const Tensor& target = inputs[size_t(w.input)];
    const Tensor& v = out[size_t(w.output)];
    if (v.storage() != target.storage() || v.data_ptr() != target.data_ptr()) copy_into(target, v);
    if (target.storage()) target.storage()->bump_version();
  }
  out.resize(out.size() - g_.num_hidden_outputs);
  return out;
}

}  // namespace tandem::graph
