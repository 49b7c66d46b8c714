// Constant folding and algebraic simplification.
//
// Constants are Python numbers captured at trace time (wrapped scalars) and values computed
// from constants only (folded here, e.g. the ones() that seeds a backward pass). Parameters
// and other captured tensors are never constants: they are read at each call, except in a
// frozen graph (an exported model), where every captured tensor is a constant.
//
// Rewrite rules (x any value, c a scalar constant; "1 use" = no other reader):
//   add(x, x)                 -> mul(x, 2)
//   add(mul(x, c), x)         -> mul(x, c + 1)        (and x + mul(x, c); mul has 1 use;
//                                                      c a power of two: x * c is exact, so
//                                                      both round once: x + x + x -> x * 3)
//   mul(mul(x, c1), c2)       -> mul(x, c1 * c2)      (inner mul has 1 use; c1 or c2 a power
//                                                      of two and c1 * c2 exact: bit-exact)
//   mul(x, 1), div(x, 1), add(x, 0), sub(x, 0) -> x   (when the dtype is unchanged; floats:
//                                                      add(x, -0.0) and sub(x, +0.0) only)
//   neg(neg(x))               -> x
//   reshape(reshape(x))       -> reshape(x)
//   permute(permute(x, p), q) -> permute(x, p after q), or x when that is the identity
//   cast(x) to x's dtype      -> x                    (not when it leaves the graph)
//   cast(cast(x, A), B)       -> cast(x, B)           (x -> A exact; inner cast has 1 use)
//   sub(x, x)                 -> mul(x, 0)            (integers: for floats inf - inf is nan)
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_set>

#include "tandem/core/error.h"
#include "tandem/graph/passes.h"
#include "tandem/ops/dispatch.h"

namespace tandem::graph {
namespace {

// Whether c is +-2^k: multiplying by it is exact (barring overflow and underflow, where the
// rewritten form overflows and underflows alike).
bool power_of_two(double c) {
  int e;
  return c != 0.0 && std::isfinite(c) && std::fabs(std::frexp(c, &e)) == 0.5;
}

// A Python-number constant as eager arithmetic on a `dtype` tensor uses it (converted to
// that dtype first); nothing for float16 / bfloat16, where the rules keep the original form.
std::optional<double> as_used(double c, DType dtype) {
  if (dtype == DType::Float64) return c;
  if (dtype == DType::Float32) return double(float(c));
  return std::nullopt;
}

// Whether c is exactly representable in dtype (the constant a rewrite introduces must not
// round where the original's did not).
bool exact_in(double c, DType dtype) {
  return dtype == DType::Float64 || (dtype == DType::Float32 && double(float(c)) == c);
}

struct Rewriter {
  Graph& g;
  std::vector<int64_t> rename;
  std::vector<int> uses;
  std::unordered_set<int64_t> constant;
  std::vector<Tensor> const_value;  // by value id, for constants
  std::vector<int64_t> producer;    // node index producing each value, -1 otherwise

  Rewriter(Graph& graph, bool frozen) : g(graph) {
    rename.resize(g.values.size());
    for (size_t v = 0; v < rename.size(); ++v) rename[v] = int64_t(v);
    const_value.resize(g.values.size());
    for (auto& c : g.captures)
      if (frozen || c.second->wrapped_number) {
        constant.insert(c.first);
        const_value[size_t(c.first)] = Tensor(c.second);
      }
    uses.assign(g.values.size(), 0);
    for (const Node& n : g.nodes)
      for (int64_t v : n.inputs) uses[size_t(v)]++;
    for (int64_t v : g.outputs) uses[size_t(v)]++;
    for (auto& w : g.writebacks) uses[size_t(w.second)]++;
    producer.assign(g.values.size(), -1);
  }

  std::optional<double> scalar(int64_t v) const {
    if (!constant.count(v)) return std::nullopt;
    const Tensor& t = const_value[size_t(v)];
    if (t.numel() != 1) return std::nullopt;
    return t.item_double();
  }

  int64_t new_constant(double value, DType dtype) {
    Tensor t = Tensor::wrap_scalar(Scalar(value), dtype);
    int64_t v = g.add_value({}, dtype);
    g.captures.emplace_back(v, t.impl_shared());
    constant.insert(v);
    rename.push_back(v);
    uses.push_back(0);
    producer.push_back(-1);
    const_value.push_back(t);
    return v;
  }

  DType dtype(int64_t v) const { return g.values[size_t(v)].dtype; }
  // Whether v is a graph output or a write-back value (must not become an alias).
  bool leaves(int64_t v) const {
    for (int64_t o : g.outputs)
      if (o == v) return true;
    for (auto& w : g.writebacks)
      if (w.second == v) return true;
    return false;
  }
  const Shape& shape(int64_t v) const { return g.values[size_t(v)].shape; }
  bool is(const Node& n, const char* name) const { return n.op->name == name; }
  double alpha(const Node& n) const { return n.attrs.get_float_or("alpha", 1.0); }
};

// Whether every value of dtype `from` converts to `to` exactly (widening), so a cast
// through `to` changes nothing.
bool exact_widening(DType from, DType to) {
  if (from == to || from == DType::Bool) return true;
  auto rank = [](DType d) {  // integers: bits of magnitude; floats: significand bits
    switch (d) {
      case DType::UInt8:
        return 8;
      case DType::Int8:
        return 7;
      case DType::Int16:
        return 15;
      case DType::Int32:
        return 31;
      case DType::Int64:
        return 63;
      case DType::Float16:
        return 11;
      case DType::BFloat16:
        return 8;
      case DType::Float32:
        return 24;
      case DType::Float64:
        return 53;
      default:
        return 0;
    }
  };
  bool fi = is_floating(from), ti = is_floating(to);
  if (fi && !ti) return false;
  if (fi) {  // float -> float: wider significand and exponent (f16 / bf16 -> f32 -> f64)
    if (to == DType::Float64) return true;
    return to == DType::Float32 && (from == DType::Float16 || from == DType::BFloat16);
  }
  if (to == DType::UInt8) return false;  // from a signed type: negatives do not survive
  return rank(to) >= rank(from);
}

bool fold(Rewriter& r, Node& n) {
  if (n.op->stateful || n.outputs.size() != 1) return false;
  for (int64_t v : n.inputs)
    if (!r.constant.count(v)) return false;
  std::vector<Tensor> ins;
  for (int64_t v : n.inputs) ins.push_back(r.const_value[size_t(v)]);
  Tensor out = execute(*n.op, ins, n.attrs)[0];  // may alias a constant: both immutable
  int64_t v = n.outputs[0];
  r.g.captures.emplace_back(v, out.impl_shared());
  r.constant.insert(v);
  r.const_value[size_t(v)] = out;
  return true;
}

// Returns true when n was replaced by an existing value (n is then dropped).
bool simplify(Rewriter& r, Node& n) {
  auto forward = [&](int64_t to) {
    r.rename[size_t(n.outputs[0])] = to;
    return true;
  };
  if (n.outputs.size() != 1) return false;
  int64_t out = n.outputs[0];
  bool same_type = true;
  if (!n.inputs.empty()) same_type = r.dtype(n.inputs[0]) == r.dtype(out);
  // identities
  if ((r.is(n, "mul") || r.is(n, "div")) && n.inputs.size() == 2 && r.scalar(n.inputs[1]) == 1.0 &&
      same_type && r.shape(n.inputs[0]) == r.shape(out))
    return forward(n.inputs[0]);
  if (r.is(n, "mul") && n.inputs.size() == 2 && r.scalar(n.inputs[0]) == 1.0 &&
      r.dtype(n.inputs[1]) == r.dtype(out) && r.shape(n.inputs[1]) == r.shape(out))
    return forward(n.inputs[1]);
  // x + alpha * 0 and x - alpha * 0 are x, except that -0.0 + +0.0 is +0.0: for floats only
  // adding -0.0 or subtracting +0.0 is exact (bit for bit, as eager mode computes them), the
  // sign being alpha's times the zero's; an infinite or NaN alpha makes the product NaN.
  if ((r.is(n, "add") || r.is(n, "sub")) && r.scalar(n.inputs[1]) == 0.0 && same_type &&
      r.shape(n.inputs[0]) == r.shape(out) && std::isfinite(r.alpha(n)) &&
      (!is_floating(r.dtype(out)) ||
       std::signbit(r.alpha(n) * *r.scalar(n.inputs[1])) == r.is(n, "add")))
    return forward(n.inputs[0]);
  if (r.is(n, "neg") && r.producer[size_t(n.inputs[0])] >= 0) {
    const Node& p = r.g.nodes[size_t(r.producer[size_t(n.inputs[0])])];
    if (r.is(p, "neg")) return forward(p.inputs[0]);
  }
  const OpDef* mul = find_op("mul");
  bool floating = is_floating(r.dtype(out));
  // add(x, x) -> mul(x, 2)
  if (r.is(n, "add") && n.inputs[0] == n.inputs[1] && r.alpha(n) == 1.0 && floating) {
    int64_t two = r.new_constant(2.0, DType::Float64);
    n = Node{mul, {}, {n.inputs[0], two}, {out}};
    return false;
  }
  // add(mul(x, c), x) or add(x, mul(x, c)) -> mul(x, c + 1)
  if (r.is(n, "add") && r.alpha(n) == 1.0 && floating) {
    for (int side = 0; side < 2; ++side) {
      int64_t m = n.inputs[size_t(side)], x = n.inputs[size_t(1 - side)];
      int64_t pi = r.producer[size_t(m)];
      if (pi < 0 || r.uses[size_t(m)] != 1) continue;
      const Node& p = r.g.nodes[size_t(pi)];
      if (!r.is(p, "mul") || p.inputs[0] != x) continue;
      auto c = r.scalar(p.inputs[1]);
      auto cu = c ? as_used(*c, r.dtype(out)) : std::nullopt;
      if (!cu || !power_of_two(*cu) || !exact_in(*cu + 1.0, r.dtype(out))) continue;
      int64_t k = r.new_constant(*cu + 1.0, DType::Float64);
      n = Node{mul, {}, {x, k}, {out}};
      return false;
    }
  }
  // mul(mul(x, c1), c2) -> mul(x, c1 * c2)
  if (r.is(n, "mul") && floating) {
    auto c2 = r.scalar(n.inputs[1]);
    int64_t m = n.inputs[0], pi = r.producer[size_t(m)];
    if (c2 && pi >= 0 && r.uses[size_t(m)] == 1) {
      const Node& p = r.g.nodes[size_t(pi)];
      auto c1 = r.is(p, "mul") ? r.scalar(p.inputs[1]) : std::nullopt;
      DType dt = r.dtype(out);
      auto a = c1 ? as_used(*c1, dt) : std::nullopt, b = as_used(*c2, dt);
      // One factor a power of two: the product is exact, and rounds as eager's second mul.
      if (a && b && r.dtype(p.inputs[0]) == dt && (power_of_two(*a) || power_of_two(*b)) &&
          exact_in(*a * *b, dt)) {
        int64_t k = r.new_constant(*a * *b, DType::Float64);
        n = Node{mul, {}, {p.inputs[0], k}, {out}};
        return false;
      }
    }
  }
  // reshape(reshape(x)) -> reshape(x)
  if (r.is(n, "reshape") && r.producer[size_t(n.inputs[0])] >= 0) {
    const Node& p = r.g.nodes[size_t(r.producer[size_t(n.inputs[0])])];
    if (r.is(p, "reshape")) n.inputs[0] = p.inputs[0];
  }
  // permute(permute(x, p), q) -> permute(x, [p[q[i]]]), or x for the identity
  if (r.is(n, "permute") && r.producer[size_t(n.inputs[0])] >= 0) {
    const Node& p = r.g.nodes[size_t(r.producer[size_t(n.inputs[0])])];
    if (r.is(p, "permute")) {
      const auto &pd = p.attrs.get_ints("dims"), &qd = n.attrs.get_ints("dims");
      const int64_t nd = int64_t(pd.size());
      std::vector<int64_t> c(qd.size());
      bool identity = true;
      for (size_t i = 0; i < qd.size(); ++i) {
        int64_t q = (qd[i] % nd + nd) % nd;
        c[i] = (pd[size_t(q)] % nd + nd) % nd;
        identity &= c[i] == int64_t(i);
      }
      if (identity && !r.leaves(out)) return forward(p.inputs[0]);
      n.inputs[0] = p.inputs[0];
      n.attrs.set("dims", c);
    }
  }
  if (r.is(n, "cast")) {
    int64_t x = n.inputs[0], pi = r.producer[size_t(x)];
    // cast(cast(x, A), B) -> cast(x, B) when x -> A loses nothing
    if (pi >= 0 && r.uses[size_t(x)] == 1) {
      const Node& p = r.g.nodes[size_t(pi)];
      if (r.is(p, "cast") && exact_widening(r.dtype(p.inputs[0]), r.dtype(x))) {
        x = p.inputs[0];
        n.inputs[0] = x;
      }
    }
    // A cast to the dtype it already has copies in eager mode; graph values are never
    // written in place, so the copy is only needed when it leaves the graph.
    if (r.dtype(x) == r.dtype(out) && r.shape(x) == r.shape(out) && !r.leaves(out))
      return forward(x);
  }
  // sub(x, x) -> mul(x, 0) for integers (exact; float inf - inf is nan, not 0)
  if (r.is(n, "sub") && n.inputs.size() == 2 && n.inputs[0] == n.inputs[1] &&
      !is_floating(r.dtype(out)) && r.dtype(out) != DType::Bool &&
      r.dtype(n.inputs[0]) == r.dtype(out)) {
    n = Node{mul, {}, {n.inputs[0], r.new_constant(0.0, DType::Int64)}, {out}};
    return false;
  }
  return false;
}

}  // namespace

void simplify_and_fold(Graph& g, bool frozen) {
  Rewriter r(g, frozen);
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node n = std::move(g.nodes[i]);
    for (int64_t& v : n.inputs) v = r.rename[size_t(v)];
    // Rules look at producers through r.g.nodes, which holds the rewritten prefix.
    g.nodes[i] = n;
    if (fold(r, n)) continue;
    if (simplify(r, n)) continue;
    for (int64_t v : n.outputs) r.producer[size_t(v)] = int64_t(i);
    g.nodes[i] = n;
    nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
  for (int64_t& v : g.outputs) v = r.rename[size_t(v)];
  for (auto& w : g.writebacks) w.second = r.rename[size_t(w.second)];
}

}  // namespace tandem::graph
