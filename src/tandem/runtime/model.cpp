#include "tandem/runtime/model.h"

#include <omp.h>

#include <algorithm>
#include <sstream>

#include "tandem/core/error.h"
#include "tandem/graph/cost.h"
#include "tandem/graph/inference_passes.h"

namespace tandem::runtime {
namespace {

constexpr size_t kMaxPlans = 4;

// Sets this thread's OpenMP thread count for a run (oneDNN follows it) and restores it.
class ThreadScope {
 public:
  explicit ThreadScope(int n) : prev_(n > 0 ? omp_get_max_threads() : 0) {
    if (n > 0 && n != prev_) omp_set_num_threads(n);
  }
  ~ThreadScope() {
    if (prev_ > 0 && omp_get_max_threads() != prev_) omp_set_num_threads(prev_);
  }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int prev_;
};

std::string shape_of(const ModelValue& v) {
  std::string s = std::string(dtype_short_name(v.dtype)) + "[";
  for (size_t d = 0; d < v.shape.size(); ++d) s += (d ? ", " : "") + sym_str(v.shape[d]);
  return s + "]";
}

}  // namespace

struct Model::Plan {
  explicit Plan(graph::Graph g) : exe(std::move(g)) {}
  graph::Executable exe;
  graph::RunBuffers buffers;
};

Model::Model(const std::string& path, ModelOptions options) : Model(load_model(path), options) {}

Model::Model(ModelFile file, ModelOptions options) : file_(std::move(file)), options_(options) {
  set_num_threads(options_.num_threads);
  std::lock_guard<std::mutex> lock(mu_);
  plan_for(file_.graph.batch);  // memory planned at load
}

Model::~Model() = default;

void Model::set_num_threads(int n) {
  TANDEM_CHECK(n >= 0, ValueError, "Model: num_threads must be >= 0 (0: the default), got ", n);
  options_.num_threads = n;
}

std::string Model::input_type(size_t i) const {
  return shape_of(file_.graph.values.at(size_t(file_.graph.inputs.at(i).value)));
}

DType Model::input_dtype(size_t i) const {
  return file_.graph.values.at(size_t(file_.graph.inputs.at(i).value)).dtype;
}

Shape Model::input_shape(size_t i, int64_t n) const {
  if (!dynamic_batch()) n = file_.graph.batch;
  Shape s;
  for (const SymInt& d : file_.graph.values.at(size_t(file_.graph.inputs.at(i).value)).shape)
    s.push_back(d.at(n));
  return s;
}

int64_t Model::batch_of(const std::vector<Tensor>& inputs) const {
  TANDEM_CHECK(inputs.size() == num_inputs(), ValueError, "Model.run: the model takes ",
               num_inputs(), " inputs, got ", inputs.size());
  int64_t n = file_.graph.batch;
  if (dynamic_batch()) {
    // The batch size is what makes input 0's dim 0 match (dim 0 is "N" for every input).
    const ModelValue& v = file_.graph.values[size_t(file_.graph.inputs[0].value)];
    TANDEM_CHECK(
        inputs[0].defined() && inputs[0].dim() == int64_t(v.shape.size()) && !v.shape.empty() &&
            v.shape[0].mul != 0,
        ValueError, "Model.run: input 0 '", input_name(0), "' must be ", input_type(0),
        inputs[0].defined() ? ", got shape " + shape_str(inputs[0].shape()) : ", got None");
    const SymInt& d = v.shape[0];
    int64_t x = inputs[0].shape()[0] - d.add;
    n = x % d.mul == 0 ? x / d.mul : 0;
    TANDEM_CHECK(n >= 1, ValueError, "Model.run: input 0 '", input_name(0), "' has ",
                 inputs[0].shape()[0], " rows, which no batch size gives (", input_type(0), ")");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    TANDEM_CHECK(inputs[i].defined(), ValueError, "Model.run: input ", i, " is None");
    TANDEM_CHECK(inputs[i].dtype() == input_dtype(i) && inputs[i].shape() == input_shape(i, n),
                 ValueError, "Model.run: input ", i, " '", input_name(i), "' must be ",
                 input_type(i), dynamic_batch() ? " with N = " + std::to_string(n) : "", ", got ",
                 dtype_short_name(inputs[i].dtype()), shape_str(inputs[i].shape()));
  }
  return n;
}

Model::Plan& Model::plan_for(int64_t n) {
  recent_.erase(std::remove(recent_.begin(), recent_.end(), n), recent_.end());
  recent_.push_back(n);
  auto it = plans_.find(n);
  if (it != plans_.end()) return *it->second;
  graph::Graph g = file_.graph.instantiate(n);
  graph::lower_for_execution(g);
  auto plan = std::make_unique<Plan>(std::move(g));
  int64_t bytes = plan->exe.memory_plan().arena_bytes;
  if (bytes > 0) plan->buffers.arena = Tensor::empty({bytes}, DType::UInt8);
  if (plans_.size() >= kMaxPlans) {  // drop the least recently used other batch size
    plans_.erase(recent_.front());
    recent_.erase(recent_.begin());
  }
  return *plans_.emplace(n, std::move(plan)).first->second;
}

std::vector<Tensor> Model::run(const std::vector<Tensor>& inputs) {
  int64_t n = batch_of(inputs);
  ThreadScope threads(options_.num_threads);
  std::lock_guard<std::mutex> lock(mu_);
  Plan& p = plan_for(n);
  return p.exe.run(inputs, p.buffers);
}

int64_t Model::arena_bytes(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  return plan_for(n).exe.memory_plan().arena_bytes;
}

std::string Model::explain(int64_t n) {
  if (n <= 0) n = file_.graph.batch;
  std::lock_guard<std::mutex> lock(mu_);
  Plan& p = plan_for(n);
  std::ostringstream os;
  os << "model: format version " << file_.format_version << ", op-set version "
     << file_.opset_version << ", produced by " << file_.producer << "\n";
  os << "inputs:";
  for (size_t i = 0; i < num_inputs(); ++i) os << " " << input_name(i) << ": " << input_type(i);
  os << (dynamic_batch() ? " (N: dynamic batch)" : "") << "\n";
  if (!file_.export_log.empty()) os << "\nexport passes:\n" << file_.export_log;
  os << "\nstored graph (" << file_.graph.nodes.size() << " nodes):\n" << file_.graph.str();
  const graph::Graph& g = p.exe.graph();
  os << "\nexecuted at batch size " << n << " (" << g.nodes.size()
     << " nodes after activation folding and fusion):\n"
     << g.str();
  std::string arena = graph::arena_str(p.exe.memory_plan());
  os << "\ncost: " << graph::cost_str(graph::estimate_cost(g, true))
     << (arena.empty() ? "" : "; " + arena) << "\n";
  return os.str();
}

}  // namespace tandem::runtime
