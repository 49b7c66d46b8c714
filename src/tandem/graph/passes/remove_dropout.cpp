// Dropout removal for inference. dropout(x, p) traces (ops/dropout_embedding.cpp) as
//   q = full(shape, 1 - p); k = bernoulli(q); m = mul(k, c); y = mul(x, m)   with c = 1/(1-p)
// (dropout2d the same with a per-channel shape). The mask has expectation q * c = 1, so at
// inference y is x: the multiply, the scale and the random draw go.
#include <cmath>
#include <optional>

#include "tandem/graph/inference_passes.h"
#include "tandem/graph/passes.h"

namespace tandem::graph {
namespace {

struct Uses {
  std::vector<int> count;
  std::vector<int64_t> producer;
  explicit Uses(const Graph& g) : count(g.values.size(), 0), producer(g.values.size(), -1) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (int64_t v : g.nodes[i].inputs) count[size_t(v)]++;
      for (int64_t v : g.nodes[i].outputs) producer[size_t(v)] = int64_t(i);
    }
    for (int64_t v : g.outputs) count[size_t(v)]++;
    for (auto& w : g.writebacks) count[size_t(w.second)]++;
  }
};

// The value of a one-element constant (a captured tensor), if v is one.
std::optional<double> constant_scalar(const Graph& g, int64_t v) {
  for (auto& c : g.captures)
    if (c.first == v) {
      Tensor t(c.second);
      if (t.numel() != 1) return std::nullopt;
      return t.item_double();
    }
  return std::nullopt;
}

// The fill value of `full` (the keep probability), if q is made by one.
std::optional<double> fill_value(const Graph& g, const Uses& u, int64_t q) {
  int64_t p = u.producer[size_t(q)];
  if (p < 0) return std::nullopt;
  const Node& n = g.nodes[size_t(p)];
  if (n.op->name != "full" || !n.attrs.get_bool_or("is_float", false)) return std::nullopt;
  return n.attrs.get_float("value");
}

}  // namespace

std::vector<std::string> remove_dropout(Graph& g) {
  Uses u(g);
  std::vector<int64_t> rename(g.values.size());
  for (size_t v = 0; v < rename.size(); ++v) rename[v] = int64_t(v);
  std::vector<bool> drop(g.nodes.size(), false);
  std::vector<std::string> report;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& y = g.nodes[i];
    if (y.op->name != "mul" || y.inputs.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      int64_t x = y.inputs[size_t(side)], m = y.inputs[size_t(1 - side)];
      int64_t mp = u.producer[size_t(m)];
      if (mp < 0 || u.count[size_t(m)] != 1) continue;
      const Node& mask = g.nodes[size_t(mp)];
      if (mask.op->name != "mul" || mask.inputs.size() != 2) continue;
      int64_t k = mask.inputs[0], kp = u.producer[size_t(k)];
      auto c = constant_scalar(g, mask.inputs[1]);
      if (kp < 0 || !c || u.count[size_t(k)] != 1) continue;
      const Node& draw = g.nodes[size_t(kp)];
      if (draw.op->name != "bernoulli" || draw.inputs.size() != 1) continue;
      auto q = fill_value(g, u, draw.inputs[0]);
      if (!q || std::abs(*q * *c - 1.0) > 1e-6) continue;
      const Value &xv = g.values[size_t(x)], &yv = g.values[size_t(y.outputs[0])];
      if (xv.shape != yv.shape || xv.dtype != yv.dtype) continue;
      rename[size_t(y.outputs[0])] = x;
      drop[i] = drop[size_t(mp)] = drop[size_t(kp)] = true;  // the full() goes with DCE
      report.push_back("dropout (keep probability " + std::to_string(*q) + ") on %" +
                       std::to_string(x) + " removed");
      break;
    }
  }
  if (report.empty()) return report;
  for (size_t v = 0; v < rename.size(); ++v)  // dropout after dropout: follow the chain
    while (rename[size_t(rename[v])] != rename[v]) rename[v] = rename[size_t(rename[v])];
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (drop[i]) continue;
    for (int64_t& v : g.nodes[i].inputs) v = rename[size_t(v)];
    nodes.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(nodes);
  for (int64_t& v : g.outputs) v = rename[size_t(v)];
  for (auto& w : g.writebacks) w.second = rename[size_t(w.second)];
  return report;
}

}  // namespace tandem::graph
