// Graphs with guards: where Python read a traced value (an `if` on a tensor, int(t), .item())
// the trace is specialized on that value, and the guard is checked when the run reaches that
// point; a mismatch stops the run before anything is written back (GuardFailed), so the
// caller can take another path. The traced graph is cut at the reads into segments, each
// optimized on its own (fusion and simplification never cross a read, so nothing past a
// guard runs before it is checked), then joined again into one graph: one memory plan, one
// arena, and a guard check costs a compare between two nodes.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "tandem/core/error.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/passes.h"

namespace tandem::graph {
namespace {

// The node counts at which the trace was cut (ascending, ending with the node count).
std::vector<size_t> cut_points(const Graph& g) {
  const size_t n = g.nodes.size();
  std::vector<size_t> ends;
  for (const Graph::Guard& gd : g.guards)
    if (gd.after_node > 0 && gd.after_node < n) ends.push_back(gd.after_node);
  ends.push_back(n);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  return ends;
}

bool is_capture(const Graph& g, int64_t v) {
  return std::any_of(g.captures.begin(), g.captures.end(),
                     [v](const auto& c) { return c.first == v; });
}

// Segment s of g: its nodes, reading values of earlier segments as inputs, producing the
// values that leave it (read later, checked by a guard, or needed at the end) as outputs.
Graph segment(const Graph& g, const std::vector<int64_t>& seg_of, const std::vector<bool>& escapes,
              size_t begin, size_t end, int64_t s) {
  Graph sub;
  sub.values = g.values;
  sub.captures = g.captures;
  std::vector<bool> is_input(g.values.size(), false);
  for (size_t i = begin; i < end; ++i) {
    const Node& node = g.nodes[i];
    for (int64_t v : node.inputs)
      if (seg_of[size_t(v)] != s && !is_capture(g, v) && !is_input[size_t(v)]) {
        is_input[size_t(v)] = true;
        sub.inputs.push_back(v);
      }
    sub.nodes.push_back(node);
    for (int64_t v : node.outputs)
      if (escapes[size_t(v)]) sub.outputs.push_back(v);
  }
  return sub;
}

}  // namespace

Graph optimize_guarded(Graph g) {
  const size_t n = g.nodes.size(), V = g.values.size();
  std::vector<size_t> ends = cut_points(g);
  std::vector<int64_t> seg_of(V, -1);  // -1: an argument or a capture
  std::vector<int64_t> seg_of_node(n);
  for (size_t s = 0, i = 0; i < n; ++i) {
    while (i >= ends[s]) ++s;
    seg_of_node[i] = int64_t(s);
    for (int64_t v : g.nodes[i].outputs) seg_of[size_t(v)] = int64_t(s);
  }
  std::vector<bool> escapes(V, false);
  for (size_t i = 0; i < n; ++i)
    for (int64_t v : g.nodes[i].inputs)
      if (seg_of[size_t(v)] >= 0 && seg_of[size_t(v)] != seg_of_node[i]) escapes[size_t(v)] = true;
  for (const Graph::Guard& gd : g.guards) escapes[size_t(gd.value)] = true;
  for (int64_t v : g.outputs) escapes[size_t(v)] = true;
  for (const auto& w : g.writebacks) escapes[size_t(w.second)] = true;

  // The joined graph keeps g's arguments, results and side effects; each optimized
  // segment's new values get fresh ids, and `now` follows what each of g's values became.
  Graph out = g;
  out.nodes.clear();
  out.captures.clear();
  std::vector<int64_t> now(V);
  for (size_t v = 0; v < V; ++v) now[v] = int64_t(v);
  auto add_capture = [&](int64_t v, const std::shared_ptr<TensorImpl>& t) {
    if (!is_capture(out, v)) out.captures.emplace_back(v, t);
  };
  std::vector<size_t> joined_end;  // out's node count after each segment
  size_t begin = 0;
  for (size_t s = 0; s < ends.size(); ++s) {
    Graph sub = segment(g, seg_of, escapes, begin, ends[s], int64_t(s));
    std::vector<int64_t> produced = sub.outputs;  // g's ids, before the passes rename them
    optimize(sub);
    std::unordered_map<int64_t, int64_t> fresh;  // sub's new value -> out's id
    auto id = [&](int64_t v) -> int64_t {
      if (size_t(v) < V) return now[size_t(v)];
      auto it = fresh.find(v);
      if (it != fresh.end()) return it->second;
      int64_t o = out.add_value(sub.values[size_t(v)].shape, sub.values[size_t(v)].dtype);
      fresh.emplace(v, o);
      return o;
    };
    for (const auto& c : sub.captures) add_capture(id(c.first), c.second);
    for (Node node : sub.nodes) {
      for (int64_t& v : node.inputs) v = id(v);
      for (int64_t& v : node.outputs) v = id(v);
      out.nodes.push_back(std::move(node));
    }
    for (size_t k = 0; k < produced.size(); ++k) now[size_t(produced[k])] = id(sub.outputs[k]);
    joined_end.push_back(out.nodes.size());
    begin = ends[s];
  }
  // The captures the joined graph still reads, returns or writes back (a function may
  // return a constant tensor it created, which no node reads).
  auto returned = [&](int64_t v) {
    return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end() ||
           std::any_of(g.writebacks.begin(), g.writebacks.end(),
                       [&](const auto& w) { return w.second == v; });
  };
  for (const auto& c : g.captures)
    if (returned(c.first) || std::any_of(out.nodes.begin(), out.nodes.end(), [&](const Node& nd) {
          return std::find(nd.inputs.begin(), nd.inputs.end(), c.first) != nd.inputs.end();
        }))
      add_capture(c.first, c.second);
  for (int64_t& v : out.outputs) v = now[size_t(v)];
  for (auto& w : out.writebacks) w.second = now[size_t(w.second)];
  for (Graph::Guard& gd : out.guards) {
    gd.value = now[size_t(gd.value)];
    if (gd.after_node > 0) {  // the read followed the segment ending there
      size_t s = size_t(std::lower_bound(ends.begin(), ends.end(), gd.after_node) - ends.begin());
      gd.after_node = joined_end[s];
    }
    if (is_capture(g, gd.value) && !is_capture(out, gd.value))
      for (const auto& c : g.captures)
        if (c.first == gd.value) add_capture(c.first, c.second);
  }
  return out;
}

void Executable::check_guard(size_t i, const std::vector<Tensor>& env) const {
  const Graph::Guard& gd = g_.guards[i];
  Tensor now = env[size_t(gd.value)].contiguous();
  const Tensor& want = gd.expected;
  // Bitwise: a read of NaN specializes on NaN, and -0.0 reads as -0.0.
  size_t bytes = size_t(want.numel()) * want.itemsize();
  bool same = now.dtype() == want.dtype() && now.shape() == want.shape() &&
              std::memcmp(now.data_ptr(), want.data_ptr(), bytes) == 0;
  if (!same) throw GuardFailed(i, gd.where);
}

std::string Executable::text() const {
  if (g_.guards.empty()) return g_.str();
  // The graph's lines with each guard after the node it follows.
  std::string graph = g_.str(), out;
  size_t pos = 0, node = 0, next_guard = 0;
  auto guards_until = [&](size_t nodes_done) {
    for (; next_guard < g_.guards.size() && g_.guards[next_guard].after_node <= nodes_done;
         ++next_guard) {
      const Graph::Guard& gd = g_.guards[next_guard];
      out += "  guard %" + std::to_string(gd.value) + " == traced value  (" + gd.where + ")\n";
    }
  };
  while (pos < graph.size()) {
    size_t eol = graph.find('\n', pos);
    std::string line = graph.substr(pos, eol == std::string::npos ? eol : eol - pos + 1);
    pos = eol == std::string::npos ? graph.size() : eol + 1;
    bool is_node =
        line.find(" = ") != std::string::npos && line.find("captured") == std::string::npos;
    if (line.rfind("  return", 0) == 0) guards_until(g_.nodes.size());
    out += line;
    if (is_node) guards_until(++node);
    if (line.rfind("graph(", 0) == 0) guards_until(0);
  }
  return out;
}

}  // namespace tandem::graph
