// Outputs that the passes made aliases: x * 1, neg(neg(x)) or a cast to the same dtype of an
// argument fold to the argument itself, and CSE merges two equal results into one value. Eager
// execution returned fresh tensors there, so the compiled function must too: an output that
// became an argument or capture (which the call may write back into: x.add_(1) after
// y = -(-x) would change the y returned), or the same value as an earlier output, gets a copy
// of its own. Outputs that were aliases in the trace itself (return x, or return a, a) stay.
#include <unordered_set>

#include "tandem/graph/passes.h"

namespace tandem::graph {

void dealias_outputs(Graph& g, const std::vector<int64_t>& traced_outputs) {
  std::unordered_set<int64_t> external(g.inputs.begin(), g.inputs.end());
  for (const auto& c : g.captures) external.insert(c.first);
  const OpDef* cast = find_op("cast");
  std::vector<int64_t> seen;  // (value, traced value) of the outputs before k
  std::vector<int64_t> seen_traced;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    int64_t v = g.outputs[k];
    int64_t traced = k < traced_outputs.size() ? traced_outputs[k] : v;
    bool copy = external.count(v) && !external.count(traced);
    for (size_t j = 0; j < seen.size() && !copy; ++j)
      copy = seen[j] == v && seen_traced[j] != traced;
    seen.push_back(v);
    seen_traced.push_back(traced);
    if (!copy) continue;
    Value val = g.values[size_t(v)];
    int64_t fresh = g.add_value(val.shape, val.dtype);
    g.nodes.push_back(Node{cast, {{"dtype", int64_t(val.dtype)}}, {v}, {fresh}});
    g.outputs[k] = fresh;
  }
}

}  // namespace tandem::graph
