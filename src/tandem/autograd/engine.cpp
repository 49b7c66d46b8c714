// The backward engine: runs recorded nodes in reverse creation order once all gradient
// contributions to their outputs have arrived, then accumulates into the leaves.
#include <algorithm>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tandem/autograd/node.h"
#include "tandem/core/error.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

struct BySeq {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->seq < b->seq;  // max-heap: latest node first
  }
};

void add_into(Tensor& slot, const Tensor& g) {
  slot = slot.defined() ? add(slot, g) : g;
}

Tensor apply_hooks(AutogradMeta* m, Tensor g) {
  if (!m) return g;
  for (auto& h : m->hooks) {
    Tensor r = h(g);
    if (!r.defined()) continue;
    TANDEM_CHECK(r.shape() == g.shape(), ValueError, "a gradient hook returned a tensor of shape ",
                 shape_str(r.shape()), " for a gradient of shape ", shape_str(g.shape()),
                 "; hooks must keep the gradient's shape");
    g = r;
  }
  return g;
}

void release(Node& n) {
  n.inputs.clear();
  n.outputs.clear();
  n.released = true;
}

// Saved tensors written in place since the forward: (storage, description) pairs.
std::vector<std::pair<const Storage*, std::string>> stale_saved(const Node& n) {
  std::vector<std::pair<const Storage*, std::string>> out;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i].storage() && n.inputs[i].storage()->version() != n.input_versions[i])
      out.push_back({n.inputs[i].storage().get(), "input " + std::to_string(i)});
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i].storage() && n.outputs[i].storage()->version() != n.output_versions[i])
      out.push_back({n.outputs[i].storage().get(), "output " + std::to_string(i)});
  return out;
}

// Runs n's rule. When saved tensors were modified in place, the rule runs under a read
// probe and fails only if it actually reads one (PyTorch saves only what a rule needs;
// here every input and output is saved, so staleness alone proves nothing).
std::vector<Tensor> call_vjp(const Node& n, const VjpCtx& ctx, const std::vector<Tensor>& grads) {
  auto stale = stale_saved(n);
  if (stale.empty()) return n.op->vjp(ctx, grads);
  autograd::ReadProbe probe;
  for (auto& s : stale) probe.watched.push_back(s.first);
  struct Reset {
    ~Reset() { autograd::set_read_probe(nullptr); }
  } reset;
  autograd::set_read_probe(&probe);
  std::vector<Tensor> r = n.op->vjp(ctx, grads);
  if (probe.hit) {
    std::string what;
    for (auto& s : stale)
      if (s.first == probe.hit) what = s.second;
    TANDEM_CHECK(false, Error,
                 "one of the variables needed for gradient computation has been "
                 "modified by an inplace operation: ",
                 what, " of ", n.op->name,
                 " (saved for its backward) was written in place after the forward; clone "
                 "it before modifying it in place");
  }
  return r;
}

// Accumulates into a leaf's .grad: the first gradient is kept if nothing else holds it.
void accumulate(const std::shared_ptr<TensorImpl>& leaf, Tensor g, bool create_graph) {
  Tensor t(leaf);
  AutogradMeta& m = meta_of(t);
  if (graph::Tracer* tr = graph::Tracer::active()) tr->note_grad_write(t);
  g = apply_hooks(&m, g);
  if (g.dtype() != t.dtype()) g = to_dtype(g, t.dtype());
  if (!m.grad.defined()) {
    bool exclusive = g.impl_shared().use_count() == 1 && g.storage().use_count() == 1 &&
                     g.is_contiguous() && g.shape() == t.shape();
    m.grad = (exclusive || create_graph) ? g : clone(g);
    if (m.grad.shape() != t.shape()) m.grad = clone(expand(m.grad, t.shape()));
    if (!create_graph) detach_(m.grad);
  } else if (create_graph) {
    m.grad = add(m.grad, g);
  } else {
    GradModeGuard off(false);
    apply_inplace("add", m.grad, g);
  }
  for (auto& h : m.post_accumulate_hooks) h(t);
}

// Callbacks queued by queue_backward_callback during the outermost backward of this thread.
thread_local int backward_depth = 0;
thread_local std::vector<std::function<void()>> backward_callbacks;

// Runs the outermost backward's queued callbacks after it finished (a callback may queue
// more); drops them when the backward throws.
struct CallbackScope {
  CallbackScope() { ++backward_depth; }
  ~CallbackScope() {
    if (--backward_depth == 0) backward_callbacks.clear();
  }
  void finish() {
    if (backward_depth != 1) return;
    for (size_t i = 0; i < backward_callbacks.size(); ++i) {
      std::function<void()> fn = std::move(backward_callbacks[i]);
      fn();
    }
    backward_callbacks.clear();
  }
};

struct Run {
  std::vector<Tensor> captured;
  std::unordered_map<const Node*, std::vector<std::pair<int, size_t>>> capture_slots;
};

void run_engine(const std::vector<Edge>& roots, const std::vector<Tensor>& root_grads,
                bool retain_graph, bool create_graph, bool accumulate_leaves, Run* run) {
  // Backward runs in the dtypes the forward chose: autocast is off inside vjps (PyTorch).
  AutocastGuard no_autocast({AutocastMode::Off, DType::BFloat16});
  GradModeGuard mode(create_graph);
  std::vector<std::shared_ptr<Node>> nodes;  // everything reachable from the roots
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> stack;
  for (const Edge& e : roots)
    if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn);
  while (!stack.empty()) {
    std::shared_ptr<Node> n = stack.back();
    stack.pop_back();
    nodes.push_back(n);
    for (const Edge& e : n->next)
      if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn);
  }
  // The nodes whose rules run: all of them for backward; for grad only those on a path to
  // a requested input, so that grad neither frees nor needs (a vjp for) the rest of the
  // graph. A node's inputs come from earlier nodes (smaller seq); accumulators have no
  // edges, so one ascending pass settles every node after its children.
  std::unordered_set<const Node*> active;
  if (!run) {
    for (auto& n : nodes) active.insert(n.get());
  } else {
    std::sort(nodes.begin(), nodes.end(),
              [](const auto& a, const auto& b) { return a->seq < b->seq; });
    for (auto& n : nodes)
      for (const Edge& e : n->next)
        if (e.fn && (run->capture_slots.count(e.fn.get()) || active.count(e.fn.get()))) {
          active.insert(n.get());
          break;
        }
  }
  // Dependencies: how many edges from active nodes point at each node.
  std::unordered_map<const Node*, int> deps;
  for (auto& n : nodes)
    if (active.count(n.get()))
      for (const Edge& e : n->next)
        if (e.fn) deps[e.fn.get()]++;
  std::unordered_map<const Node*, std::vector<Tensor>> buffers;
  auto slot_of = [&](const Edge& e) -> Tensor& {
    auto& b = buffers[e.fn.get()];
    if (b.size() < e.fn->output_meta.size()) b.resize(e.fn->output_meta.size());
    return b[size_t(e.slot)];
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, BySeq> ready;
  std::unordered_set<const Node*> queued;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].fn) continue;
    add_into(slot_of(roots[i]), root_grads[i]);
    if (deps[roots[i].fn.get()] == 0 && queued.insert(roots[i].fn.get()).second)
      ready.push(roots[i].fn);
  }
  while (!ready.empty()) {
    std::shared_ptr<Node> n = ready.top();
    ready.pop();
    std::vector<Tensor> grads = std::move(buffers[n.get()]);
    buffers.erase(n.get());
    grads.resize(n->output_meta.size());
    // Hooks and retain_grad of the output tensors, when they are still alive.
    for (size_t k = 0; k < grads.size() && n->op; ++k) {
      std::shared_ptr<TensorImpl> impl =
          k < n->output_impls.size() ? n->output_impls[k].lock() : nullptr;
      if (!impl || !grads[k].defined()) continue;
      Tensor y(impl);
      AutogradMeta* m = meta_if(y);
      // After an in-place op y's history moved on: its hooks belong to the new version.
      if (!m || m->grad_fn.get() != n.get() || m->output_nr != int(k)) continue;
      grads[k] = apply_hooks(m, grads[k]);
      if (m && m->retains_grad && accumulate_leaves)
        m->grad = m->grad.defined() ? add(m->grad, grads[k]) : grads[k];
    }
    if (run) {
      auto it = run->capture_slots.find(n.get());
      if (it != run->capture_slots.end())
        for (auto [slot, idx] : it->second)
          if (grads[size_t(slot)].defined()) add_into(run->captured[idx], grads[size_t(slot)]);
    }
    if (!active.count(n.get())) continue;  // only captured (grad past the requested inputs)
    std::vector<Tensor> in_grads;
    if (!n->op) {  // a leaf's accumulator
      if (accumulate_leaves && grads[0].defined())
        accumulate(n->leaf, std::move(grads[0]), create_graph);
    } else {
      bool any = false;
      for (auto& g : grads) any |= g.defined();
      if (any) {
        TANDEM_CHECK(!n->released, Error,
                     "trying to backward through the graph a second time (or access saved "
                     "tensors after they were freed); pass retain_graph=True the first time");
        TANDEM_CHECK(n->op->vjp, NotImplementedError, "backward is not implemented for op '",
                     n->op->name, "'");
        const size_t with_grad = grads.size() - (n->op->last_output_saved ? 1 : 0);
        for (size_t k = 0; k < with_grad; ++k)  // missing gradients of float outputs are 0
          if (!grads[k].defined() && is_floating(n->output_meta[k].dtype))
            grads[k] = zeros(n->output_meta[k].shape, n->output_meta[k].dtype);
        // Saved outputs come back with their history when they still exist, so that a
        // create_graph backward can differentiate through them.
        std::vector<Tensor> outs = n->outputs;
        if (create_graph)
          for (size_t k = 0; k < outs.size(); ++k)
            if (auto impl = n->output_impls[k].lock()) outs[k] = Tensor(impl);
        // A Python number (a wrapped 0-d float64) reaches the vjp as a plain 0-d tensor of
        // its dtype: wrapped with wrapped (pow's b - 1) would fall to the default float32 and
        // round 1/3 to float32 precision in a float64 gradient.
        const std::vector<Tensor>* ins = &n->inputs;
        std::vector<Tensor> unwrapped;
        for (size_t k = 0; k < n->inputs.size(); ++k)
          if (n->inputs[k].defined() && n->inputs[k].is_wrapped_number()) {
            if (unwrapped.empty()) unwrapped = n->inputs;
            unwrapped[k] = to_dtype(n->inputs[k], n->inputs[k].dtype(), /*copy=*/true);
            ins = &unwrapped;
          }
        VjpCtx ctx{*n->op, n->attrs, *ins, outs, n->needs_grad};
        in_grads = call_vjp(*n, ctx, grads);
        TANDEM_CHECK(in_grads.size() <= n->inputs.size(), Error, "internal: vjp of ", n->op->name,
                     " returned ", in_grads.size(), " gradients for ", n->inputs.size(), " inputs");
      }
      for (size_t i = 0; i < n->next.size(); ++i) {
        const Edge& e = n->next[i];
        if (!e.fn || i >= in_grads.size() || !in_grads[i].defined()) continue;
        Tensor g = in_grads[i];
        const Tensor& x = n->inputs[i];
        if (g.shape() != x.shape()) g = sum_to(g, x.shape());
        if (g.dtype() != x.dtype()) g = to_dtype(g, x.dtype());
        add_into(slot_of(e), g);
      }
      if (!retain_graph) release(*n);
    }
    for (const Edge& e : n->next) {
      if (!e.fn) continue;
      if (--deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn);
    }
  }
}

std::vector<Edge> root_edges(const std::vector<Tensor>& roots, std::vector<Tensor>& grads,
                             const char* op) {
  TANDEM_CHECK(grads.empty() || grads.size() == roots.size(), ValueError, op, ": got ",
               grads.size(), " gradients for ", roots.size(), " outputs");
  std::vector<Edge> edges;
  grads.resize(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    TANDEM_CHECK(requires_grad(r), Error, op, ": element ", i,
                 " of tensors does not require grad and does not have a grad_fn");
    if (!grads[i].defined()) {
      TANDEM_CHECK(r.numel() == 1, Error, op,
                   ": grad can be implicitly created only for "
                   "scalar outputs; pass a gradient of shape ",
                   shape_str(r.shape()));
      grads[i] = ones(r.shape(), r.dtype());
    } else {
      TANDEM_CHECK(grads[i].shape() == r.shape(), ValueError, op, ": gradient of shape ",
                   shape_str(grads[i].shape()), " doesn't match output shape ",
                   shape_str(r.shape()));
    }
    edges.push_back(gradient_edge(r));
  }
  return edges;
}

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph,
              bool create_graph) {
  std::vector<Tensor> g = grads;
  std::vector<Edge> edges = root_edges(roots, g, "backward");
  CallbackScope callbacks;
  run_engine(edges, g, retain_graph, create_graph, true, nullptr);
  callbacks.finish();
}

void queue_backward_callback(std::function<void()> fn) {
  TANDEM_CHECK(backward_depth > 0, Error,
               "queue_backward_callback: no backward is running on this thread; callbacks can "
               "only be queued from inside a backward (a gradient hook)");
  backward_callbacks.push_back(std::move(fn));
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused) {
  std::vector<Tensor> g = grad_outputs;
  std::vector<Edge> edges = root_edges(outputs, g, "grad");
  Run run;
  run.captured.resize(inputs.size());
  for (size_t j = 0; j < inputs.size(); ++j) {
    TANDEM_CHECK(requires_grad(inputs[j]), Error, "grad: input ", j,
                 " does not require grad; call requires_grad_() on it first");
    Edge e = gradient_edge(inputs[j]);
    run.capture_slots[e.fn.get()].push_back({e.slot, j});
  }
  CallbackScope callbacks;
  run_engine(edges, g, retain_graph, create_graph, false, &run);
  callbacks.finish();
  for (size_t j = 0; j < inputs.size(); ++j) {
    TANDEM_CHECK(run.captured[j].defined() || allow_unused, Error, "grad: input ", j,
                 " was not used in the graph of the outputs; pass allow_unused=True if "
                 "this is intended");
    if (run.captured[j].defined() && run.captured[j].shape() != inputs[j].shape())
      run.captured[j] = sum_to(run.captured[j], inputs[j].shape());
  }
  return run.captured;
}

}  // namespace tandem
