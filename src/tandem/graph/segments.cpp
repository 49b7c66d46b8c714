// Graphs with guards: where Python read a traced value (an `if` on a tensor, int(t), .item())
// the trace is specialized on that value, and the graph runs in segments split at the reads.
// Between segments the guards are checked; a mismatch stops the run before anything is
// written back (GuardFailed), so the caller can take another path. Each segment is optimized
// on its own: fusion and the memory plan work within segments, never across a read.
#include <algorithm>
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/passes.h"
#include "tandem/ops/creation.h"

namespace tandem::graph {

void Executable::build_segments() {
  const size_t n = g_.nodes.size();
  std::vector<size_t> ends;
  for (const Graph::Guard& gd : g_.guards)
    if (gd.after_node > 0 && gd.after_node < n) ends.push_back(gd.after_node);
  ends.push_back(n);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());

  // Segment of each value's definition (-1: an argument or a capture).
  std::vector<int64_t> seg_of(g_.values.size(), -1);
  std::vector<int64_t> seg_of_node(n);
  for (size_t s = 0, i = 0; i < n; ++i) {
    while (i >= ends[s]) ++s;
    seg_of_node[i] = int64_t(s);
    for (int64_t v : g_.nodes[i].outputs) seg_of[size_t(v)] = int64_t(s);
  }
  // Values that must leave the segment defining them: read by a later segment, checked by a
  // guard, or needed at the end (results, write-backs, argument writes, grads).
  std::vector<bool> escapes(g_.values.size(), false);
  for (size_t i = 0; i < n; ++i)
    for (int64_t v : g_.nodes[i].inputs)
      if (seg_of[size_t(v)] >= 0 && seg_of[size_t(v)] != seg_of_node[i]) escapes[size_t(v)] = true;
  for (const Graph::Guard& gd : g_.guards) escapes[size_t(gd.value)] = true;
  for (int64_t v : g_.outputs) escapes[size_t(v)] = true;
  for (const auto& w : g_.writebacks) escapes[size_t(w.second)] = true;

  size_t begin = 0;
  for (size_t s = 0; s < ends.size(); ++s) {
    Graph sub;
    sub.values = g_.values;
    sub.captures = g_.captures;
    std::vector<bool> is_input(g_.values.size(), false);
    for (size_t i = begin; i < ends[s]; ++i) {
      const Node& node = g_.nodes[i];
      for (int64_t v : node.inputs) {
        bool outside = seg_of[size_t(v)] != int64_t(s);
        bool captured = std::any_of(g_.captures.begin(), g_.captures.end(),
                                    [v](const auto& c) { return c.first == v; });
        if (outside && !captured && !is_input[size_t(v)]) {
          is_input[size_t(v)] = true;
          sub.inputs.push_back(v);
        }
      }
      sub.nodes.push_back(node);
      for (int64_t v : node.outputs)
        if (escapes[size_t(v)]) sub.outputs.push_back(v);
    }
    std::vector<int64_t> outputs = sub.outputs;
    optimize(sub);
    segments_.push_back(
        {std::make_shared<const Executable>(std::move(sub)), ends[s], std::move(outputs)});
    begin = ends[s];
  }
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

std::vector<Tensor> Executable::run_segments(const std::vector<Tensor>& inputs) const {
  TANDEM_CHECK(inputs.size() == g_.inputs.size(), TypeError, "jit: the compiled function takes ",
               g_.inputs.size(), " tensor arguments, got ", inputs.size());
  TANDEM_CHECK(captures_unchanged(), ValueError,
               "jit: a tensor the compiled function captured changed shape or dtype since it "
               "was traced; call the jit function again (it retraces) instead of the graph");
  std::vector<Tensor> env(g_.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) env[size_t(g_.inputs[i])] = inputs[i];
  for (const auto& c : g_.captures) env[size_t(c.first)] = Tensor(c.second);
  size_t next_guard = 0;
  auto check_until = [&](size_t nodes_done) {
    for (; next_guard < g_.guards.size() && g_.guards[next_guard].after_node <= nodes_done;
         ++next_guard)
      check_guard(next_guard, env);
  };
  // A failed guard leaves no trace: nothing is written back (commit comes last) and the
  // random numbers the segments drew are drawn again by the path that runs instead.
  const auto rng = get_rng_state();
  try {
    check_until(0);  // reads of arguments or captures before any op
    for (const Segment& seg : segments_) {
      const Graph& sg = seg.exe->graph();
      std::vector<Tensor> ins;
      ins.reserve(sg.inputs.size());
      for (int64_t v : sg.inputs) ins.push_back(env[size_t(v)]);
      std::vector<Tensor> outs = seg.exe->run(ins);
      for (size_t k = 0; k < outs.size(); ++k) env[size_t(seg.outputs[k])] = std::move(outs[k]);
      check_until(seg.end_node);
    }
    check_until(g_.nodes.size());
  } catch (const GuardFailed&) {
    set_rng_state(rng.first, rng.second);
    throw;
  }
  return commit(inputs, env);
}

size_t Executable::num_kernels() const {
  size_t n = segments_.empty() ? g_.nodes.size() : 0;
  for (const Segment& s : segments_) n += s.exe->num_kernels();
  return n;
}

std::string Executable::text() const {
  if (segments_.empty()) return g_.str();
  std::string out;
  size_t next_guard = 0;
  auto guards_until = [&](size_t nodes_done) {
    for (; next_guard < g_.guards.size() && g_.guards[next_guard].after_node <= nodes_done;
         ++next_guard) {
      const Graph::Guard& gd = g_.guards[next_guard];
      out += "guard %" + std::to_string(gd.value) + " == its traced value (" + gd.where + ")\n";
    }
  };
  guards_until(0);
  for (size_t s = 0; s < segments_.size(); ++s) {
    out += "segment " + std::to_string(s) + ":\n" + segments_[s].exe->text();
    guards_until(segments_[s].end_node);
  }
  return out;
}

CostReport Executable::cost() const {
  if (segments_.empty()) return estimate_cost(g_, true);
  CostReport total;
  for (const Segment& s : segments_) {
    CostReport c = s.exe->cost();
    total.kernels += c.kernels;
    total.array_passes += c.array_passes;
    total.bytes_moved += c.bytes_moved;
    total.peak_bytes = std::max(total.peak_bytes, c.peak_bytes);
  }
  return total;
}

std::string Executable::arena_text() const {
  if (segments_.empty()) return arena_str(plan_);
  std::string out;
  for (const Segment& s : segments_) {
    std::string a = s.exe->arena_text();
    if (!a.empty()) out += (out.empty() ? "" : ", ") + a;
  }
  return out;
}

}  // namespace tandem::graph
