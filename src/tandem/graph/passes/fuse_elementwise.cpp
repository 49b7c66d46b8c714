// Elementwise fusion: chains of elementwise ops over one shape become one fused node whose
// kernel reads each input once and writes the output once (see graph/fused.h).
//
// float16 and bfloat16 values join float32 programs (eager mode computes them in float32
// too): the driver converts them as it loads and stores, a value of a 16-bit dtype is
// rounded to it by a cast instruction where eager mode would have stored it, so results are
// eager's bit for bit, and casts between these dtypes become instructions (a widening cast
// is a copy, a narrowing one that rounding): autocast's casts fuse with their neighbours.
#include <algorithm>
#include <limits>
#include <map>

#include "tandem/graph/fused.h"
#include "tandem/graph/passes.h"
#include "tandem/ops/elementwise_def.h"

namespace tandem::graph {
namespace {

constexpr size_t kMaxFusedInputs = size_t(kMaxEwInputs);
// Joining a node to a group re-describes the whole group (its inputs and outputs), so an
// unbounded group made compiling a chain of n elementwise ops O(n^2): 10k ops took ~20 s.
// Past this size a chain continues in a new group (one more kernel boundary per 256 ops).
constexpr size_t kMaxGroupMembers = 256;

bool is_16bit(DType d) {
  return d == DType::Float16 || d == DType::BFloat16;
}

// A cast between float16 / bfloat16 / float32 (one float32 program computes all three).
bool fusible_cast(const Graph& g, const Node& n) {
  if (n.op->name != "cast" || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  const DType from = g.values[size_t(n.inputs[0])].dtype;
  const DType to = g.values[size_t(n.outputs[0])].dtype;
  return is_floating(from) && is_floating(to) && opmath_dtype(from) == DType::Float32 &&
         opmath_dtype(to) == DType::Float32;
}

// The EwInfo of an elementwise node that can be an instruction, else null.
const EwInfo* fusible_ew(const Graph& g, const Node& n) {
  if (n.op->infer != ew_infer || n.op->kernel != ew_kernel || n.outputs.size() != 1) return nullptr;
  const EwInfo* info = static_cast<const EwInfo*>(n.op->data);
  if (info->promote_from != 0) return nullptr;
  if (info->policy != EwPolicy::Promote && info->policy != EwPolicy::PromoteFloat &&
      info->policy != EwPolicy::FloatOnly)
    return nullptr;
  DType d = opmath_dtype(g.values[size_t(n.outputs[0])].dtype);
  if (d != DType::Float32 && d != DType::Float64) return nullptr;
  if (!info->table.fn[int(d)]) return nullptr;
  return info;
}

bool fusible(const Graph& g, const Node& n) {
  return fusible_ew(g, n) || fusible_cast(g, n);
}

struct Group {
  std::vector<size_t> members;  // node indices, ascending (a topological order)
  std::vector<int64_t> inputs;  // values read from outside, in first-use order
  std::vector<int64_t> outs;    // member outputs read outside the group, in node order
  Shape shape;
  DType dtype;  // the compute dtype of every member
};

}  // namespace

void fuse_elementwise(Graph& g) {
  // Python numbers of the traced code become constants of the program, not inputs: they
  // never change, and they would use up the driver's input slots.
  std::vector<bool> is_const(g.values.size(), false);
  std::vector<double> const_value(g.values.size(), 0.0);
  for (auto& c : g.captures)
    if (c.second->wrapped_number) {
      is_const[size_t(c.first)] = true;
      const_value[size_t(c.first)] = Tensor(c.second).item().to_double();
    }
  auto num_real = [&](const std::vector<int64_t>& ins) {
    return size_t(std::count_if(ins.begin(), ins.end(), [&](int64_t v) { return !is_const[v]; }));
  };
  std::vector<int> uses(g.values.size(), 0);
  std::vector<std::vector<size_t>> readers(g.values.size());
  std::vector<bool> leaves(g.values.size(), false);  // graph outputs and write-back sources
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t v : g.nodes[i].inputs) {
      uses[size_t(v)]++;
      readers[size_t(v)].push_back(i);
    }
  for (int64_t v : g.outputs) uses[size_t(v)]++, leaves[size_t(v)] = true;
  for (auto& w : g.writebacks) uses[size_t(w.second)]++, leaves[size_t(w.second)] = true;

  std::vector<Group> groups;
  std::vector<int64_t> group_of(g.nodes.size(), -1);  // node -> live group
  std::vector<int64_t> producer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t o : g.nodes[i].outputs) producer[size_t(o)] = int64_t(i);

  // The inputs and outputs `members` would have as one node placed at its last member, or
  // false when that is impossible: a value it computes is read by an outside node that runs
  // before that position (the fused node would be a cycle), or the driver's limits.
  auto describe = [&](Group& grp) {
    // Membership by search in the sorted members: a trial costs the group's size, not the
    // graph's.
    auto in = [&](size_t node) {
      return std::binary_search(grp.members.begin(), grp.members.end(), node);
    };
    const size_t at = grp.members.back();
    grp.inputs.clear();
    grp.outs.clear();
    for (size_t m : grp.members) {
      const Node& n = g.nodes[m];
      for (int64_t v : n.inputs) {
        int64_t p = producer[size_t(v)];
        if ((p < 0 || !in(size_t(p))) &&
            std::find(grp.inputs.begin(), grp.inputs.end(), v) == grp.inputs.end())
          grp.inputs.push_back(v);
      }
      int64_t o = n.outputs[0];
      bool outside = leaves[size_t(o)];
      for (size_t r : readers[size_t(o)]) {
        if (in(r)) continue;
        if (r < at) return false;
        outside = true;
      }
      if (outside) grp.outs.push_back(o);
    }
    return num_real(grp.inputs) <= kMaxFusedInputs && num_real(grp.inputs) > 0 &&
           grp.outs.size() <= size_t(kMaxEwOutputs);
  };

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!fusible(g, n)) continue;
    const Value& out = g.values[size_t(n.outputs[0])];
    Group grp;
    grp.members.push_back(i);
    grp.shape = out.shape;
    grp.dtype = opmath_dtype(out.dtype);
    // Every group that computes an input of this node joins it, where legal (chains and
    // DAGs; an intermediate also read elsewhere becomes an extra output).
    std::vector<int64_t> joined;
    for (int64_t v : n.inputs) {
      int64_t p = producer[size_t(v)];
      if (p < 0 || group_of[size_t(p)] < 0) continue;
      int64_t gi = group_of[size_t(p)];
      const Group& cand = groups[size_t(gi)];
      if (cand.shape != out.shape || cand.dtype != grp.dtype) continue;
      if (std::find(joined.begin(), joined.end(), gi) != joined.end()) continue;
      if (grp.members.size() + cand.members.size() > kMaxGroupMembers) continue;
      Group trial = grp;
      trial.members.insert(trial.members.end(), cand.members.begin(), cand.members.end());
      std::sort(trial.members.begin(), trial.members.end());
      if (!describe(trial)) continue;
      grp = std::move(trial);
      joined.push_back(gi);
    }
    if (joined.empty() && !describe(grp)) continue;
    for (int64_t gi : joined) groups[size_t(gi)].members.clear();  // absorbed
    int64_t id = int64_t(groups.size());
    for (size_t m : grp.members) group_of[m] = id;
    groups.push_back(std::move(grp));
  }

  // A group whose only reader is a sum or mean over all of it becomes one fused_sum node
  // (the elementwise result is never stored), even when the group is a single op.
  std::vector<int64_t> reader(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t v : g.nodes[i].inputs) reader[size_t(v)] = int64_t(i);
  auto full_reduction = [&](const Group& grp) -> int64_t {
    if (grp.outs.size() != 1) return -1;
    const int64_t out = grp.outs[0];
    if (g.values[size_t(out)].dtype != grp.dtype) return -1;  // a 16-bit value: store it
    if (uses[size_t(out)] != 1 || reader[size_t(out)] < 0) return -1;
    const Node& r = g.nodes[size_t(reader[size_t(out)])];
    if ((r.op->name != "sum" && r.op->name != "mean") || r.inputs.size() != 1 ||
        r.attrs.get_bool("keepdim") || g.values[size_t(r.outputs[0])].dtype != grp.dtype)
      return -1;
    std::vector<int64_t> dims = r.attrs.get_ints("dims");
    std::sort(dims.begin(), dims.end());
    for (size_t k = 0; k < grp.shape.size(); ++k)
      if (k >= dims.size() || dims[k] != int64_t(k)) return -1;
    if (dims.size() != grp.shape.size() || grp.shape.empty()) return -1;
    return reader[size_t(out)];
  };

  std::vector<int> role(g.nodes.size(), 0);  // 0 keep, 1 absorbed, 2 replaced by fused node
  std::map<size_t, Node> fused_at;
  for (const Group& grp : groups) {
    if (grp.members.empty()) continue;  // absorbed into another group
    int64_t red = full_reduction(grp);
    if (grp.members.size() < 2 && red < 0) continue;
    FusedProgram p;
    p.dtype = grp.dtype;
    std::vector<int64_t> real;
    for (int64_t v : grp.inputs)
      if (!is_const[size_t(v)]) real.push_back(v);
    p.num_inputs = int(real.size());
    std::map<int64_t, int> reg;
    for (size_t k = 0; k < real.size(); ++k) reg[real[k]] = int(k);
    int next = p.num_inputs;
    for (int64_t v : grp.inputs)
      if (is_const[size_t(v)]) {
        p.consts.emplace_back(next, const_value[size_t(v)]);
        reg[v] = next++;
      }
    for (size_t idx : grp.members) {
      const Node& n = g.nodes[idx];
      const DType vt = g.values[size_t(n.outputs[0])].dtype;
      if (const EwInfo* info = fusible_ew(g, n)) {
        FusedInstr ins;
        ins.op = n.op;
        ins.fn = info->table.fn[int(grp.dtype)];
        ins.vec = grp.dtype == DType::Float32 ? info->table.vec32 : nullptr;
        for (int k = 0; k < 3; ++k)
          if (info->params[k]) ins.params[k] = n.attrs.get_float_or(info->params[k], 1.0);
        for (int64_t v : n.inputs) ins.in_regs.push_back(reg.at(v));
        ins.out_reg = next++;
        reg[n.outputs[0]] = ins.out_reg;
        p.instrs.push_back(std::move(ins));
        // Eager mode stores this value in its 16-bit dtype: round it so, in place of that.
        if (is_16bit(vt)) {
          p.instrs.push_back(cast_instr(vt, next - 1, next));
          reg[n.outputs[0]] = next++;
        }
      } else {
        p.instrs.push_back(cast_instr(vt, reg.at(n.inputs[0]), next));
        reg[n.outputs[0]] = next++;
      }
      role[idx] = 1;
    }
    for (int64_t o : grp.outs) {
      p.out_regs.push_back(reg.at(o));
      p.out_dtypes.push_back(g.values[size_t(o)].dtype);
    }
    p.num_regs = next;
    std::string text = p.str();
    int64_t id = register_program(std::move(p));
    const bool native = fused_program({{"program", id}}).native != nullptr;
    if (red >= 0) {
      const Node& r = g.nodes[size_t(red)];
      int64_t numel = numel_of(grp.shape);
      double scale = r.op->name == "sum" ? 1.0
                     : numel > 0         ? 1.0 / double(numel)
                                         : std::numeric_limits<double>::quiet_NaN();
      Node f{&fused_sum_op(),
             {{"program", id}, {"ops", text}, {"native", native}, {"scale", scale}},
             real,
             {r.outputs[0]}};
      role[size_t(red)] = 2;
      fused_at.emplace(size_t(red), std::move(f));
      continue;
    }
    Node f{&fused_elementwise_op(),
           {{"program", id}, {"ops", text}, {"native", native}},
           real,
           grp.outs};
    role[grp.members.back()] = 2;
    fused_at.emplace(grp.members.back(), std::move(f));
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (role[i] == 0)
      nodes.push_back(std::move(g.nodes[i]));
    else if (role[i] == 2)
      nodes.push_back(std::move(fused_at.at(i)));
  }
  g.nodes = std::move(nodes);
}

}  // namespace tandem::graph
