// Dead-code elimination: walk back from the outputs and write-backs.
#include "tandem/graph/passes.h"

namespace tandem::graph {

void eliminate_dead_code(Graph& g) {
  std::vector<bool> live(g.values.size(), false);
  for (int64_t v : g.outputs) live[size_t(v)] = true;
  for (auto& w : g.writebacks) live[size_t(w.second)] = true;
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    bool used = n.op->stateful;
    for (int64_t v : n.outputs) used |= live[size_t(v)];
    if (!used) continue;
    keep[i] = true;
    for (int64_t v : n.inputs) live[size_t(v)] = true;
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
  // Captures nothing reads any more are dropped too (they pin tensors alive).
  std::vector<std::pair<int64_t, std::shared_ptr<TensorImpl>>> caps;
  for (auto& c : g.captures)
    if (live[size_t(c.first)]) caps.push_back(c);
  g.captures = std::move(caps);
}

}  // namespace tandem::graph
