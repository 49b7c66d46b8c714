// graph::compile: trace, optimize, build the Executable. Part of libtandem, not of the
// runtime layer, since it needs the tracer.
#include <algorithm>

#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/passes.h"
#include "tandem/graph/tracer.h"

namespace tandem::graph {

Executable compile(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                   const std::vector<Tensor>& examples, std::string* before,
                   CostReport* before_cost) {
  Tracer tracer;
  std::vector<Tensor> sym = tracer.begin(examples);
  // An argument that requires grad makes the results depend on it through the tape, as
  // eagerly: the call then runs eagerly (below), so the caller can differentiate them.
  if (is_grad_enabled())
    for (size_t i = 0; i < sym.size(); ++i)
      if (requires_grad(examples[i]) && is_floating(examples[i].dtype()))
        set_requires_grad(sym[i], true);
  std::vector<Tensor> outs = fn(sym);  // on error, ~Tracer stops tracing
  // A step that ran backward() itself returns plain values (its grads are set on the
  // leaves); other results with history are differentiated by the caller: run eagerly.
  bool outs_grad = !tracer.wrote_grads() &&
                   std::any_of(outs.begin(), outs.end(),
                               [](const Tensor& t) { return t.defined() && requires_grad(t); });
  Graph g = tracer.finish(outs);
  if (before) *before = g.str();
  if (before_cost) *before_cost = estimate_cost(g);
  // A graph with guards is cut at them first and each segment optimized alone (segments.cpp).
  if (g.guards.empty()) optimize(g);
  return Executable(std::move(g), outs_grad);
}

}  // namespace tandem::graph
