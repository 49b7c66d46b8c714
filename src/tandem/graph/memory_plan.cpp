#include "tandem/graph/memory_plan.h"

#include <algorithm>
#include <cstdio>

namespace tandem::graph {
namespace {

constexpr int64_t kAlign = 64;  // the allocator's alignment, kept for every slot

struct Buffer {
  int64_t bytes = 0, start = 0, end = 0;  // lifetime: node indices, both inclusive
  int64_t offset = -1;
};

}  // namespace

MemoryPlan plan_memory(const Graph& g, const std::vector<int64_t>& donors,
                       const std::vector<int64_t>& into_capture) {
  const size_t nv = g.values.size(), nn = g.nodes.size();
  std::vector<int64_t> last(nv, -1), owner(nv);
  for (size_t v = 0; v < nv; ++v) owner[v] = int64_t(v);
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = g.nodes[i];
    for (int64_t v : n.inputs) last[size_t(v)] = int64_t(i);
    if (n.op->view)
      for (int64_t o : n.outputs) owner[size_t(o)] = owner[size_t(n.inputs[0])];
  }
  // A buffer must outlive the run when it, or any view of it, leaves the graph.
  std::vector<bool> external(nv, false);
  for (int64_t v : g.outputs) external[size_t(owner[size_t(v)])] = true;
  // as_strided takes an absolute storage offset: its base must start its own storage.
  for (const Node& n : g.nodes)
    if (n.op->name == "as_strided") external[size_t(owner[size_t(n.inputs[0])])] = true;
  for (auto& w : g.writebacks) external[size_t(owner[size_t(w.second)])] = true;
  std::vector<int64_t> alias_end(nv, -1);  // last use of the buffer or any view of it
  for (size_t v = 0; v < nv; ++v) {
    int64_t o = owner[v];
    alias_end[size_t(o)] = std::max(alias_end[size_t(o)], last[v]);
  }

  std::vector<int64_t> buf_of(nv, -1);
  std::vector<Buffer> bufs;
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = g.nodes[i];
    if (n.op->view) continue;
    for (int64_t o : n.outputs) {
      if (external[size_t(o)] || into_capture[size_t(o)] >= 0) continue;
      alias_end[size_t(o)] = std::max(alias_end[size_t(o)], int64_t(i));
      int64_t d = donors[size_t(o)];
      if (d >= 0 && buf_of[size_t(d)] >= 0 && owner[size_t(d)] == d &&
          alias_end[size_t(d)] <= int64_t(i)) {
        // Elementwise over an input that dies here: the same slot, the lifetime extended.
        Buffer& b = bufs[size_t(buf_of[size_t(d)])];
        buf_of[size_t(o)] = buf_of[size_t(d)];
        b.end = std::max(b.end, alias_end[size_t(o)]);
        continue;
      }
      const Value& val = g.values[size_t(o)];
      Buffer b;
      b.bytes = (numel_of(val.shape) * int64_t(itemsize(val.dtype)) + kAlign - 1) / kAlign * kAlign;
      b.start = int64_t(i);
      b.end = alias_end[size_t(o)];
      buf_of[size_t(o)] = int64_t(bufs.size());
      bufs.push_back(b);
    }
  }
  // Views extend their base's lifetime (alias_end covers them: they share its owner).
  for (size_t v = 0; v < nv; ++v)
    if (buf_of[v] >= 0)
      bufs[size_t(buf_of[v])].end = std::max(bufs[size_t(buf_of[v])].end, alias_end[v]);

  MemoryPlan plan;
  std::vector<size_t> order(bufs.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bufs[a].bytes > bufs[b].bytes; });
  std::vector<size_t> placed;
  for (size_t k : order) {
    Buffer& b = bufs[k];
    plan.sum_bytes += b.bytes;
    // Slots of placed buffers alive at the same time, by offset; take the lowest gap.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t q : placed) {
      const Buffer& o = bufs[q];
      if (o.start <= b.end && b.start <= o.end) busy.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(busy.begin(), busy.end());
    int64_t at = 0;
    for (auto& [lo, hi] : busy) {
      if (at + b.bytes <= lo) break;
      at = std::max(at, hi);
    }
    b.offset = at;
    plan.arena_bytes = std::max(plan.arena_bytes, at + b.bytes);
    placed.push_back(k);
  }
  plan.offset.assign(nv, -1);
  for (size_t v = 0; v < nv; ++v)
    if (buf_of[v] >= 0) {
      plan.offset[v] = bufs[size_t(buf_of[v])].offset;
      plan.num_arena_values++;
    }
  return plan;
}

std::string arena_str(const MemoryPlan& p) {
  if (p.arena_bytes == 0) return "";
  char buf[128];
  std::snprintf(buf, sizeof buf, "arena %.1f MB for %lld intermediates (%.1f MB without reuse)",
                double(p.arena_bytes) / 1e6, (long long)p.num_arena_values,
                double(p.sum_bytes) / 1e6);
  return buf;
}

}  // namespace tandem::graph
