// The pipelines of exported inference graphs: what export runs before the graph is stored
// (optimize_for_inference) and what the loader runs after (lower_for_execution).
#include <map>
#include <sstream>

#include "tandem/autograd/autograd.h"
#include "tandem/graph/inference_passes.h"
#include "tandem/graph/passes.h"

namespace tandem::graph {
namespace {

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> m;
  for (const Node& n : g.nodes) m[n.op->name]++;
  return m;
}

// "3 nodes (permute x2, add)" for the nodes a pass removed.
std::string removed_str(const std::map<std::string, int>& before,
                        const std::map<std::string, int>& after) {
  int total = 0;
  std::string parts;
  for (const auto& [op, n] : before) {
    auto it = after.find(op);
    int gone = n - (it == after.end() ? 0 : it->second);
    if (gone <= 0) continue;
    total += gone;
    parts += (parts.empty() ? "" : ", ") + op + (gone > 1 ? " x" + std::to_string(gone) : "");
  }
  if (!total) return "nothing";
  return std::to_string(total) + (total == 1 ? " node (" : " nodes (") + parts + ")";
}

}  // namespace

std::string optimize_for_inference(Graph& g) {
  GradModeGuard no_grad(false);
  std::ostringstream log;
  log << "traced: " << g.nodes.size() << " nodes, " << g.captures.size() << " captured tensors\n";
  std::vector<std::string> dropouts = remove_dropout(g);
  log << "remove_dropout: " << dropouts.size() << " dropout masks removed\n";
  for (const std::string& s : dropouts) log << "  " << s << "\n";
  auto step = [&](const char* name, auto&& pass) {
    auto before = op_counts(g);
    pass();
    log << name << ": removed " << removed_str(before, op_counts(g)) << "\n";
  };
  step("cse", [&] { eliminate_common_subexpressions(g); });
  step("constant folding", [&] { simplify_and_fold(g, true); });
  step("dce", [&] { eliminate_dead_code(g); });
  std::vector<std::string> folds = fold_batch_norm(g);
  log << "fold_batch_norm: " << folds.size() << " batch norms folded\n";
  for (const std::string& s : folds) log << "  " << s << "\n";
  step("constant folding", [&] { simplify_and_fold(g, true); });
  step("cse", [&] { eliminate_common_subexpressions(g); });
  step("dce", [&] { eliminate_dead_code(g); });
  g.verify();
  log << "stored: " << g.nodes.size() << " nodes, " << g.captures.size() << " constants\n";
  return log.str();
}

void lower_for_execution(Graph& g) {
  // The weights of a loaded model never change: the convolution keeps them in its own layout
  // (kernels/cpu/conv.h) instead of reordering them on every call.
  std::vector<bool> constant(g.values.size(), false);
  for (auto& c : g.captures) constant[size_t(c.first)] = true;
  for (Node& n : g.nodes)
    if (n.op->name == "conv2d" && n.inputs.size() >= 2 && constant[size_t(n.inputs[1])])
      n.attrs.set("const_weight", true);
  if (pass_enabled("fold_activation")) fold_activation(g);
  if (pass_enabled("blocked_layout")) propagate_blocked_layout(g);
  if (pass_enabled("fuse_elementwise")) fuse_elementwise(g);
  if (pass_enabled("dce")) eliminate_dead_code(g);
  g.verify();
}

}  // namespace tandem::graph
