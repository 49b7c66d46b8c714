// Passes for exported inference graphs, where every captured tensor is frozen: its value at
// export time becomes a constant of the model. Each returns what it changed, for explain().
#pragma once
#include <string>
#include <vector>

#include "tandem/graph/ir.h"

namespace tandem::graph {

// Replaces x * (bernoulli(q) * c) with x where c * q == 1 (dropout's mask, which has
// expectation 1) and drops the draw: inference runs dropout as the identity. Returns one
// line per removed mask.
std::vector<std::string> remove_dropout(Graph& g);

// Folds an eval-mode batch_norm whose input is produced only for it by a conv2d or a linear
// layer (matmul by a constant, plus an optional constant bias) into that layer's weight and
// bias: W' = W * s, b' = (b - mean) * s + beta with s = gamma / sqrt(var + eps), computed
// in float64. Returns one line per fold.
std::vector<std::string> fold_batch_norm(Graph& g);

// The export pipeline: remove_dropout, CSE, constant folding with frozen captures
// (simplify_and_fold), fold_batch_norm, again folding, CSE and dead-code elimination.
// Returns the report explain() shows: what each pass did.
std::string optimize_for_inference(Graph& g);

// What a loaded inference graph runs before memory planning: convolutions over constant
// weights marked const_weight (their reordered copy is cached), activation folding,
// elementwise fusion, dead-code elimination (each unless TANDEM_JIT_DISABLE names it).
void lower_for_execution(Graph& g);

}  // namespace tandem::graph
