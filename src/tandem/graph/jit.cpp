#include "tandem/graph/jit.h"

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"

namespace tandem {
namespace {

std::string signature(const std::vector<Tensor>& inputs) {
  std::string key = is_grad_enabled() ? "g1" : "g0";
  for (const Tensor& t : inputs) {
    TANDEM_CHECK(t.defined(), ValueError, "jit: an argument is an undefined tensor");
    key += "|" + std::string(dtype_name(t.dtype())) + shape_str(t.shape()) +
           (requires_grad(t) ? "r" : "");
  }
  return key;
}

}  // namespace

JitFunction::Entry& JitFunction::entry_for(const std::vector<Tensor>& inputs) {
  std::string key = signature(inputs);
  auto it = cache_->find(key);
  if (it != cache_->end() && it->second.exe->grad_guards_hold()) return it->second;
  if (it != cache_->end()) cache_->erase(it);  // traced with other .grad state: retrace
  Entry e;
  e.exe = std::make_unique<graph::Executable>(
      graph::compile(fn_, inputs, &e.traced_text, &e.traced_cost));
  return cache_->emplace(key, std::move(e)).first->second;
}

std::vector<Tensor> JitFunction::operator()(const std::vector<Tensor>& inputs) {
  Entry& e = entry_for(inputs);
  // Outputs with autograd history: run eagerly so the caller can differentiate them.
  if (e.exe->outputs_require_grad() && is_grad_enabled()) return fn_(inputs);
  return e.exe->run(inputs);
}

std::string JitFunction::explain(const std::vector<Tensor>& inputs) {
  Entry& e = entry_for(inputs);
  return "traced graph:\n" + e.traced_text + "\noptimized graph:\n" + e.exe->graph().str() +
         "\neager:    " + graph::cost_str(e.traced_cost) +
         "\ncompiled: " + graph::cost_str(graph::estimate_cost(e.exe->graph(), true)) +
         (graph::arena_str(e.exe->memory_plan()).empty()
              ? ""
              : "; " + graph::arena_str(e.exe->memory_plan())) +
         "\n";
}

JitFunction jit(GraphFn fn) {
  return JitFunction(std::move(fn));
}

}  // namespace tandem
