// Export: trace a function on example inputs, run the inference passes with its captured
// tensors frozen (graph/inference_passes.h), and produce a model file (runtime/model_format.h)
// that the C++ runtime loads without Python. Part of libtandem (it traces).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tandem/runtime/model_format.h"

namespace tandem::deploy {

using ExportFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct ExportOptions {
  // Dim 0 of every input is a batch dimension of any size: the function is traced at three
  // batch sizes and every shape and integer attribute that changes must be affine in it.
  bool dynamic_batch = false;
  // Names for captured tensors (parameters), used for the constants that are them.
  std::vector<std::pair<Tensor, std::string>> names;
  std::vector<std::string> input_names, output_names;  // default input0.., output0..
  std::string producer = "tandem";
};

// Traces fn at `examples` (no autograd recorded) and returns the optimized inference graph
// with what each pass did. Throws ValueError when the function cannot be exported: it
// updates state (BatchNorm in training mode, an optimizer step), draws random numbers, uses
// an op outside the op-set, or (dynamic_batch) its graph changes with the batch size in a
// way that is not affine.
runtime::ModelFile export_model(const ExportFn& fn, const std::vector<Tensor>& examples,
                                const ExportOptions& options = {});

}  // namespace tandem::deploy
