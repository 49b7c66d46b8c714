// Graph passes. Each rewrites the graph in place and keeps it verified.
#pragma once
#include "tandem/graph/ir.h"

namespace tandem::graph {

// Removes nodes whose outputs nothing uses (stateful ops stay: they advance the generator).
void eliminate_dead_code(Graph& g);
// Merges nodes with the same op, attributes and inputs (stateful ops excepted).
void eliminate_common_subexpressions(Graph& g);
// Folds nodes whose inputs are all constants and applies the algebraic rules listed in
// passes/simplify.cpp (x + x -> 2 * x, x * 1 -> x, neg(neg(x)) -> x, ...). With `frozen`
// (exported inference graphs) every captured tensor is a constant, not only Python numbers.
void simplify_and_fold(Graph& g, bool frozen = false);
// Folds a relu that alone reads a conv2d's or a batch_norm's output into that op.
void fold_activation(Graph& g);
// An elementwise op on operands permuted alike runs unpermuted and permutes its result
// (passes/sink_permutes.cpp).
void sink_permutes(Graph& g);
// Keeps convolution activations in oneDNN's channel-blocked layout between convolutions,
// batch norms and elementwise ops (passes/blocked_layout.cpp).
void propagate_blocked_layout(Graph& g);
// Fuses chains of elementwise ops over one shape into fused_elementwise nodes.
void fuse_elementwise(Graph& g);
// Moves nodes that only feed write-backs to just after their inputs are ready, so a
// gradient dies as soon as its update has run.
void schedule_updates(Graph& g);
// Gives an output its own copy where the passes turned it into an argument, a capture or
// another output's value although the traced function returned a distinct tensor there
// (`traced_outputs`: g.outputs before the passes).
void dealias_outputs(Graph& g, const std::vector<int64_t>& traced_outputs);
// False when TANDEM_JIT_DISABLE (a comma-separated list) names the pass or executor
// feature: cse, simplify, dce, fold_activation, blocked_layout, fuse_elementwise,
// schedule_updates, arena, inplace.
bool pass_enabled(const char* name);
// The default pipeline.
void optimize(Graph& g);

}  // namespace tandem::graph
