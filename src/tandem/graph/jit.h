// The one jit cache: compiled graphs of a function by input signature, for C++ callers
// (tandem::jit) and for Python's @jit alike.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tandem/graph/executor.h"

namespace tandem {

// One compiled specialization of a function.
struct JitEntry {
  std::shared_ptr<const graph::Executable> exe;
  // An extra condition the trace assumed (Python: a Cell's train/eval flag, an optimizer's
  // rates); empty when there is none. The graph's own .grad guards are checked as well.
  std::function<bool()> guard;
  // A check cheap enough for every call, even the direct path's (Python: that the
  // globals, closure cells and Cell attributes the trace read still hold the same objects).
  std::function<bool()> cheap_guard;
  // What the caller keeps with the entry (Python: the output structure, the traced text).
  std::shared_ptr<void> payload;
  // >= 0: an all-tensor call may be served without the caller (0: the result is the one
  // output, 1: a tuple, 2: a list of the outputs). -1: the caller must unpack the result.
  int result_kind = -1;
  // The graph's arguments: these of the call's tensors (f(x, x) passes x once); empty: all.
  std::vector<int64_t> take;
  // The caller runs the function itself rather than this graph (its outputs carry autograd
  // history; or arguments it writes overlap in memory).
  bool run_eagerly = false;

  bool holds() const {
    return (!cheap_guard || cheap_guard()) && exe->captures_unchanged() && (!guard || guard()) &&
           exe->grad_guards_hold();
  }
  // Whether the direct path may serve it (after the cheap checks: see JitCache::find_direct).
  bool unguarded() const { return !guard && exe->graph().grad_guards.empty(); }
};

class JitCache {
 public:
  // The cache key of a call: the tensor arguments' dtypes, shapes and requires_grad, which
  // of them share memory (aliases), the grad mode, the autocast state, and `static_id`, which names
  // the caller's other (static) arguments.
  static std::string key(const std::vector<Tensor>& tensors, bool grad_enabled,
                         int64_t static_id = 0);
  // Per tensor: -1 when it shares memory with no earlier argument; j when it is the same
  // view of the same memory as argument j; -2 - j when it overlaps argument j's storage
  // with other geometry.
  static std::vector<int64_t> aliases(const std::vector<Tensor>& tensors);
  // The first entry for `key` whose guards hold, or null.
  const JitEntry* find(const std::string& key) const;
  // The entry an all-tensor call with no static arguments may run without the caller:
  // unguarded, with result_kind >= 0, its cheap guard and captures holding. Returns a copy
  // (the cache may change while the graph runs with the GIL released).
  std::shared_ptr<const JitEntry> find_direct(const std::string& key) const;
  // The entries for key whose guards hold, the most recently run first (a function with a
  // data-dependent branch has one entry per path; running one checks its value guards).
  std::vector<std::shared_ptr<const JitEntry>> candidates(const std::string& key) const;
  // Moves e to the front of key's entries (the path the last call took).
  void promote(const std::string& key, const JitEntry* e);
  // key's entries in order (null when none): for callers that filter before checking
  // guards (the direct path). Valid until the cache changes.
  const std::vector<std::shared_ptr<const JitEntry>>* entries(const std::string& key) const;
  // How many entries (paths) key has.
  size_t count(const std::string& key) const;
  const JitEntry& insert(const std::string& key, JitEntry entry);
  // Entries whose guards no longer hold are dropped (a retrace replaces them).
  void drop_stale(const std::string& key);
  size_t size() const { return count_; }
  // How many entries all-tensor calls may run without the caller (see find_direct).
  size_t num_direct() const;

 private:
  std::unordered_map<std::string, std::vector<std::shared_ptr<const JitEntry>>> map_;
  size_t count_ = 0;
};

using GraphFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// tandem::jit for C++: compiles a function per input signature (shapes, dtypes,
// requires_grad, grad mode) and runs the cached graph on later calls without calling it.
class JitFunction {
 public:
  // Copies share one cache (so a JitFunction can be stored in a std::function).
  explicit JitFunction(GraphFn fn) : fn_(std::move(fn)), cache_(std::make_shared<JitCache>()) {}
  // Traces and compiles on a new signature, otherwise runs the cached graph.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);
  // The traced and optimized graphs for this signature, with their cost summaries.
  std::string explain(const std::vector<Tensor>& inputs);
  // Number of signatures compiled so far.
  size_t num_compiled() const { return cache_->size(); }

 private:
  const JitEntry& entry_for(const std::vector<Tensor>& inputs);

  GraphFn fn_;
  std::shared_ptr<JitCache> cache_;
};

// Wraps fn so it is traced once per signature and then runs as a compiled graph.
JitFunction jit(GraphFn fn);

}  // namespace tandem
