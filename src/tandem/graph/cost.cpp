#include "tandem/graph/cost.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

namespace tandem::graph {

CostReport estimate_cost(const Graph& g) {
  auto bytes = [&](int64_t v) {
    const Value& val = g.values[size_t(v)];
    return numel_of(val.shape) * int64_t(itemsize(val.dtype));
  };
  auto is_array = [&](int64_t v) { return numel_of(g.values[size_t(v)].shape) > 1; };

  std::vector<int64_t> last_use(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t v : g.nodes[i].inputs) last_use[size_t(v)] = int64_t(i);
  std::unordered_set<int64_t> kept(g.outputs.begin(), g.outputs.end());
  for (auto& wb : g.writebacks) kept.insert(wb.second);
  // A view shares its base's buffer: it keeps the base alive and costs no bytes itself.
  std::vector<int64_t> owner(g.values.size());
  for (size_t v = 0; v < owner.size(); ++v) owner[v] = int64_t(v);

  CostReport c;
  std::vector<int64_t> allocated(g.values.size(), 0);
  std::vector<int64_t> owner_last(g.values.size(), -1);
  int64_t live = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op->view) {
      int64_t base = owner[size_t(n.inputs[0])];
      for (int64_t o : n.outputs) owner[size_t(o)] = base;
    } else {
      ++c.kernels;
      std::unordered_set<int64_t> read(n.inputs.begin(), n.inputs.end());
      for (int64_t v : read) {
        c.bytes_moved += bytes(v);
        c.array_passes += is_array(v);
      }
      for (int64_t o : n.outputs) {
        c.bytes_moved += bytes(o);
        c.array_passes += is_array(o);
        allocated[size_t(o)] = bytes(o);
        live += bytes(o);
      }
      c.peak_bytes = std::max(c.peak_bytes, live);
    }
    // Free buffers none of whose aliases is used later.
    for (int64_t v : n.inputs)
      owner_last[size_t(owner[size_t(v)])] =
          std::max(owner_last[size_t(owner[size_t(v)])], last_use[size_t(v)]);
    for (int64_t o : n.outputs) {
      int64_t b = owner[size_t(o)];
      owner_last[size_t(b)] = std::max({owner_last[size_t(b)], last_use[size_t(o)], int64_t(i)});
      if (kept.count(o)) owner_last[size_t(b)] = int64_t(g.nodes.size());
    }
    for (size_t v = 0; v < allocated.size(); ++v)
      if (allocated[v] && owner_last[v] <= int64_t(i)) {
        live -= allocated[v];
        allocated[v] = 0;
      }
  }
  return c;
}

std::string cost_str(const CostReport& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld kernel%s, %lld array passes, %.1f MB moved, peak %.1f MB",
                (long long)c.kernels, c.kernels == 1 ? "" : "s", (long long)c.array_passes,
                double(c.bytes_moved) / 1e6, double(c.peak_bytes) / 1e6);
  return buf;
}

}  // namespace tandem::graph
