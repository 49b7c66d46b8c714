// Internal: the recorded graph. A Node is one op call; its edges point at the nodes that
// produced its inputs (or at a leaf's accumulator).
#pragma once
#include <memory>
#include <vector>

#include "tandem/autograd/autograd.h"

namespace tandem {

struct Node;

struct Edge {
  std::shared_ptr<Node> fn;  // null: this input needs no gradient
  int slot = 0;              // which output of fn
};

struct Node {
  const OpDef* op = nullptr;  // null for a leaf's accumulator
  Attrs attrs;
  std::vector<Tensor> inputs;                           // saved forward inputs
  std::vector<uint64_t> input_versions;                 // storage versions when saved
  std::vector<Tensor> outputs;                          // detached aliases of the outputs
  std::vector<std::weak_ptr<TensorImpl>> output_impls;  // the outputs themselves, weakly
  std::vector<uint64_t> output_versions;
  std::vector<TensorMeta> output_meta;
  std::vector<Edge> next;            // one per input
  std::vector<bool> needs_grad;      // per input
  std::shared_ptr<TensorImpl> leaf;  // accumulator: the leaf it feeds
  uint64_t seq = 0;                  // creation order (later runs first)
  bool released = false;

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Iterative: freeing a long chain (a loss summed over 100k steps) must not recurse.
  ~Node();
};

struct AutogradMeta {
  bool requires_grad = false;  // user flag on leaves; implied for tensors with a grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  int output_nr = 0;
  std::weak_ptr<Node> accumulator;
  bool retains_grad = false;
  bool is_view = false;                   // produced by a view op from a tensor with history
  std::shared_ptr<TensorImpl> view_base;  // for views: the tensor they alias (the root base)
  std::vector<GradHook> hooks;
  std::vector<PostAccumulateHook> post_accumulate_hooks;  // leaves only
};

// The meta of t, created on demand.
AutogradMeta& meta_of(const Tensor& t);
inline AutogradMeta* meta_if(const Tensor& t) {
  return t.defined() ? t.impl()->autograd.get() : nullptr;
}
// Where the gradient of t goes: its grad_fn slot, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

namespace autograd {
// While a vjp runs with saved tensors that were modified in place since the forward, the
// engine watches their storages: every op dispatched meanwhile reports its inputs, so a
// rule that actually reads a stale tensor is caught while one that only saved it (mul's
// output, say) still runs. Thread-local; null when nothing is watched.
struct ReadProbe {
  std::vector<const Storage*> watched;
  const Storage* hit = nullptr;  // the first watched storage an op read
};
void set_read_probe(ReadProbe* probe);
// Reports an op's inputs to the active probe, if any.
void note_reads(const std::vector<Tensor>& inputs);
// vjp_via_composite's implementation (installed in the AutogradHooks, ops/hooks.h).
std::vector<Tensor> composite_vjp(
    const VjpCtx& c, const std::vector<Tensor>& grads,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& composite);
}  // namespace autograd

}  // namespace tandem
