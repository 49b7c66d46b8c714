// tandem::runtime::Model: runs a model file (runtime/model_format.h) with no Python, no
// autograd and no tracer; part of libtandem_runtime.
//
//   tandem::runtime::Model m("lenet.tdm");
//   std::vector<tandem::Tensor> y = m.run({x});
//
// Loading validates the file, runs activation folding and elementwise fusion, and plans the
// memory of one run (an arena sized at load time). Runs after the first allocate no tensor
// memory: intermediates live in the arena and each output is written into the tensor the
// previous run returned once the caller has dropped it. A model exported with a dynamic batch
// dimension plans each batch size it sees once (the last few are kept).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tandem/graph/executor.h"
#include "tandem/runtime/model_format.h"

namespace tandem::runtime {

struct ModelOptions {
  int num_threads = 0;  // OpenMP threads per run; 0 keeps the process default
};

class Model {
 public:
  explicit Model(const std::string& path, ModelOptions options = {});
  explicit Model(ModelFile file, ModelOptions options = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Runs the model; inputs must match the declared dtypes and shapes (any batch size for a
  // dynamic model). Calls are serialized (one run at a time per Model).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  size_t num_inputs() const { return file_.graph.inputs.size(); }
  size_t num_outputs() const { return file_.graph.outputs.size(); }
  const std::string& input_name(size_t i) const { return file_.graph.inputs.at(i).name; }
  const std::string& output_name(size_t i) const { return file_.graph.outputs.at(i).name; }
  // Declared type of input i, e.g. "float32[N, 1, 28, 28]".
  std::string input_type(size_t i) const;
  DType input_dtype(size_t i) const;
  // The shape of input i at batch size n (n ignored for a model without a dynamic batch).
  Shape input_shape(size_t i, int64_t n) const;
  bool dynamic_batch() const { return file_.graph.dynamic(); }
  // The batch size the model was exported at (and planned at load).
  int64_t export_batch() const { return file_.graph.batch; }
  int num_threads() const { return options_.num_threads; }
  void set_num_threads(int n);
  const ModelFile& file() const { return file_; }
  // Arena bytes planned for batch size n (planning it if needed).
  int64_t arena_bytes(int64_t n);
  // The file's versions and producer, what export folded, the stored graph, and the graph the
  // runtime executes at batch size n (0: the export batch) with its memory plan.
  std::string explain(int64_t n = 0);

 private:
  struct Plan;
  Plan& plan_for(int64_t n);
  int64_t batch_of(const std::vector<Tensor>& inputs) const;

  ModelFile file_;
  ModelOptions options_;
  std::mutex mu_;
  std::map<int64_t, std::unique_ptr<Plan>> plans_;
  std::vector<int64_t> recent_;  // batch sizes by last use, for evicting plans
};

}  // namespace tandem::runtime
