#include "tandem/graph/cost.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "tandem/graph/fused.h"
#include "tandem/ops/elementwise_def.h"

namespace tandem::graph {

namespace {

bool elementwise(const Node& n) {
  return n.op->kernel == ew_kernel || n.op == &fused_elementwise_op();
}

// Whether output k of elementwise node n may share a buffer with its input j: every read
// of the input happens no later than the write of the output (elementwise at one index).
bool may_alias(const Node& n, size_t k, size_t j) {
  if (n.op->kernel == ew_kernel) return n.outputs.size() == 1;
  const FusedProgram& p = fused_program(n.attrs);
  size_t writer = 0;
  while (writer < p.instrs.size() && p.instrs[writer].out_slot != int(k)) ++writer;
  if (writer == p.instrs.size()) return false;
  for (size_t r = writer + 1; r < p.instrs.size(); ++r)
    for (int reg : p.instrs[r].in_regs)
      if (reg == int(j)) return false;
  return true;
}

}  // namespace

std::vector<int64_t> inplace_donors(const Graph& g) {
  std::vector<int64_t> last(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t v : g.nodes[i].inputs) last[size_t(v)] = int64_t(i);
  std::vector<bool> eligible(g.values.size(), false);  // kernel outputs
  for (const Node& n : g.nodes)
    if (!n.op->view)
      for (int64_t o : n.outputs) eligible[size_t(o)] = true;
  for (int64_t v : g.outputs) eligible[size_t(v)] = false;  // live to the end
  for (auto& w : g.writebacks) eligible[size_t(w.second)] = false;
  std::vector<int64_t> donor(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!elementwise(n)) continue;
    std::vector<bool> taken(n.inputs.size(), false);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const Value& out = g.values[size_t(n.outputs[k])];
      for (size_t j = 0; j < n.inputs.size(); ++j) {
        int64_t v = n.inputs[j];
        const Value& in = g.values[size_t(v)];
        if (!taken[j] && eligible[size_t(v)] && last[size_t(v)] == int64_t(i) &&
            in.shape == out.shape && in.dtype == out.dtype && may_alias(n, k, j)) {
          donor[size_t(n.outputs[k])] = v;
          taken[j] = true;
          for (size_t j2 = 0; j2 < n.inputs.size(); ++j2)  // the same value twice
            if (n.inputs[j2] == v) taken[j2] = true;
          break;
        }
      }
    }
  }
  return donor;
}

std::vector<int64_t> inplace_writebacks(const Graph& g) {
  // Last read of each value or of any view of it (a transposed weight read by the backward
  // pass reads the weight).
  std::vector<int64_t> last(g.values.size(), -1), owner(g.values.size());
  for (size_t v = 0; v < owner.size(); ++v) owner[v] = int64_t(v);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (int64_t v : n.inputs) last[size_t(owner[size_t(v)])] = int64_t(i);
    if (n.op->view)
      for (int64_t o : n.outputs) owner[size_t(o)] = owner[size_t(n.inputs[0])];
  }
  std::vector<bool> is_output(g.values.size(), false);
  for (int64_t v : g.outputs) is_output[size_t(v)] = true;
  std::vector<int64_t> target(g.values.size(), -1);  // write-back source -> capture value
  std::vector<int> writes(g.values.size(), 0);       // write-backs per capture value
  for (auto& w : g.writebacks)
    for (auto& c : g.captures)
      if (c.second == w.first) {
        target[size_t(w.second)] = c.first;
        writes[size_t(c.first)]++;
      }
  std::vector<int64_t> out(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!elementwise(n)) continue;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      int64_t v = n.outputs[k], c = target[size_t(v)];
      if (c < 0 || is_output[size_t(v)] || is_output[size_t(c)] || writes[size_t(c)] != 1 ||
          last[size_t(c)] != int64_t(i))
        continue;
      const Value &cv = g.values[size_t(c)], &vv = g.values[size_t(v)];
      if (cv.shape != vv.shape || cv.dtype != vv.dtype) continue;
      bool ok = false;
      for (size_t j = 0; j < n.inputs.size(); ++j)
        if (n.inputs[j] == c) ok = may_alias(n, k, j);
      if (ok) out[size_t(v)] = c;
    }
  }
  return out;
}

CostReport estimate_cost(const Graph& g, bool inplace) {
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

  std::vector<int64_t> donors =
      inplace ? inplace_donors(g) : std::vector<int64_t>(g.values.size(), -1);
  std::vector<int64_t> into_capture =
      inplace ? inplace_writebacks(g) : std::vector<int64_t>(g.values.size(), -1);
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
        int64_t d = donors[size_t(o)];
        // The donor's buffer must have no alias used after this node.
        bool reuse = d >= 0 && owner[size_t(d)] == d && allocated[size_t(d)] > 0 &&
                     owner_last[size_t(d)] <= int64_t(i);
        if (into_capture[size_t(o)] >= 0) {
          // written into the captured tensor: nothing allocated
        } else if (reuse) {
          allocated[size_t(o)] = allocated[size_t(d)];
          allocated[size_t(d)] = 0;
        } else {
          allocated[size_t(o)] = bytes(o);
          live += bytes(o);
        }
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
