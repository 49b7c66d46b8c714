// tandem::jit for C++: compiles a function per input signature (shapes, dtypes,
// requires_grad, grad mode) and runs the cached graph on later calls without calling it.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tandem/graph/executor.h"

namespace tandem {

using GraphFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

class JitFunction {
 public:
  // Copies share one cache (so a JitFunction can be stored in a std::function).
  explicit JitFunction(GraphFn fn)
      : fn_(std::move(fn)), cache_(std::make_shared<std::map<std::string, Entry>>()) {}
  // Traces and compiles on a new signature, otherwise runs the cached graph.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);
  // The traced and optimized graphs for this signature, with their cost summaries.
  std::string explain(const std::vector<Tensor>& inputs);
  // Number of signatures compiled so far.
  size_t num_compiled() const { return cache_->size(); }

 private:
  struct Entry {
    std::unique_ptr<graph::Executable> exe;
    std::string traced_text;
    graph::CostReport traced_cost;
  };
  Entry& entry_for(const std::vector<Tensor>& inputs);

  GraphFn fn_;
  std::shared_ptr<std::map<std::string, Entry>> cache_;
};

// Wraps fn so it is traced once per signature and then runs as a compiled graph.
JitFunction jit(GraphFn fn);

}  // namespace tandem
