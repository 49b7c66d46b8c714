// Common-subexpression elimination: a node equal to an earlier one (op, attributes and
// inputs after renaming) reuses the earlier outputs.
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

#include "tandem/graph/passes.h"

namespace tandem::graph {
namespace {

struct Key {
  const OpDef* op;
  const Attrs* attrs;
  std::vector<int64_t> inputs;
  bool operator==(const Key& o) const {
    return op == o.op && inputs == o.inputs && *attrs == *o.attrs;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = std::hash<const void*>()(k.op) ^ (k.attrs->hash() * 31);
    for (int64_t v : k.inputs) h = h * 1000003 ^ std::hash<int64_t>()(v);
    return h;
  }
};

}  // namespace

void eliminate_common_subexpressions(Graph& g) {
  std::vector<int64_t> rename(g.values.size());
  for (size_t v = 0; v < rename.size(); ++v) rename[v] = int64_t(v);
  // Equal Python-number constants (each literal is its own capture) become one value.
  // Keyed by the value's bits, not by a double compared with <: NaN compares false with
  // everything, so std::map took it as equal to whatever constant came first (jit turned
  // ne(3.0, nan) into ne(3.0, 3.0)); -0.0 and 0.0, and int64s past 2^53, stay apart too.
  std::map<std::pair<int, uint64_t>, int64_t> consts;
  for (auto& c : g.captures) {
    if (!c.second->wrapped_number) continue;
    Tensor t(c.second);
    Scalar s = t.item();
    uint64_t bits = 0;
    if (s.is_float()) {
      double d = s.to_double();
      std::memcpy(&bits, &d, sizeof bits);
    } else {
      bits = uint64_t(s.to_int());
    }
    auto key = std::make_pair(int(t.dtype()), bits);
    auto [it, fresh] = consts.emplace(key, c.first);
    if (!fresh) rename[size_t(c.first)] = it->second;
  }
  std::unordered_map<Key, size_t, KeyHash> seen;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());  // keys point into `nodes`: it must not reallocate
  for (Node& n : g.nodes) {
    for (int64_t& v : n.inputs) v = rename[size_t(v)];
    if (!n.op->stateful) {
      Key k{n.op, &n.attrs, n.inputs};
      auto it = seen.find(k);
      if (it != seen.end()) {
        const Node& first = nodes[it->second];
        for (size_t i = 0; i < n.outputs.size(); ++i)
          rename[size_t(n.outputs[i])] = first.outputs[i];
        continue;
      }
    }
    nodes.push_back(std::move(n));
    if (!nodes.back().op->stateful) {
      Node& kept = nodes.back();
      seen.emplace(Key{kept.op, &kept.attrs, kept.inputs}, nodes.size() - 1);
    }
  }
  g.nodes = std::move(nodes);
  for (int64_t& v : g.outputs) v = rename[size_t(v)];
  for (auto& w : g.writebacks) w.second = rename[size_t(w.second)];
}

// TANDEM_JIT_DISABLE=fold_activation,arena,... skips passes and executor features by name,
// to measure what each contributes or to bisect a miscompilation.
bool pass_enabled(const char* name) {
  static const std::string off = [] {
    const char* e = std::getenv("TANDEM_JIT_DISABLE");
    return "," + std::string(e ? e : "") + ",";
  }();
  return off.find("," + std::string(name) + ",") == std::string::npos;
}

void optimize(Graph& g) {
  const std::vector<int64_t> traced_outputs = g.outputs;
  if (pass_enabled("cse")) eliminate_common_subexpressions(g);
  if (pass_enabled("simplify")) simplify_and_fold(g);
  if (pass_enabled("sink_permutes")) sink_permutes(g);
  if (pass_enabled("cse")) eliminate_common_subexpressions(g);
  if (pass_enabled("dce")) eliminate_dead_code(g);
  if (pass_enabled("fold_activation")) fold_activation(g);
  if (pass_enabled("blocked_layout")) propagate_blocked_layout(g);
  if (pass_enabled("fuse_elementwise")) fuse_elementwise(g);
  if (pass_enabled("dce")) eliminate_dead_code(g);  // constants the fused programs absorbed
  if (pass_enabled("schedule_updates")) schedule_updates(g);
  dealias_outputs(g, traced_outputs);
  g.verify();
}

}  // namespace tandem::graph
