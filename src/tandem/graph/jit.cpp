#include "tandem/graph/jit.h"

#include <algorithm>
#include <cstring>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/graph/cost.h"
#include "tandem/ops/autocast.h"

namespace tandem {
namespace {

bool same_view(const Tensor& a, const Tensor& b) {
  return a.offset() == b.offset() && a.shape() == b.shape() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

}  // namespace

std::string JitCache::key(const std::vector<Tensor>& tensors, bool grad_enabled,
                          int64_t static_id) {
  // Binary, not text: this runs on every call, and the fast path's budget is ~1 us.
  std::string k;
  k.reserve(16 + tensors.size() * 24);
  k.push_back(char(grad_enabled));
  // Autocast inserts casts while tracing: a graph traced under one state is another program.
  const AutocastState ac = autocast_state();
  k.push_back(char(ac.mode));
  k.push_back(char(ac.mode == AutocastMode::Off ? 0 : int(ac.dtype)));
  k.append(reinterpret_cast<const char*>(&static_id), sizeof(static_id));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TANDEM_CHECK(t.defined(), ValueError, "jit: an argument is an undefined tensor");
    k.push_back(char(t.dtype()));
    k.push_back(char(requires_grad(t)));
    k.push_back(char(t.dim()));
    k.append(reinterpret_cast<const char*>(t.shape().data()), t.shape().size() * sizeof(int64_t));
    // Aliased arguments (f(x, x)) compute something else when the function writes one of
    // them: a separate entry. A pointer compare per earlier argument; calls have few.
    for (size_t j = 0; j < i; ++j) {
      const Tensor& o = tensors[j];
      if (!t.storage() || t.storage() != o.storage()) continue;
      k.push_back(char(same_view(t, o) ? 0xA0 : 0xA1));
      k.push_back(char(j));
      break;
    }
  }
  return k;
}

std::vector<int64_t> JitCache::aliases(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> out(tensors.size(), -1);
  for (size_t i = 0; i < tensors.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const Tensor &a = tensors[i], &b = tensors[j];
      if (!a.storage() || a.storage() != b.storage()) continue;
      out[i] = same_view(a, b) ? int64_t(j) : -2 - int64_t(j);
      break;
    }
  return out;
}

const JitEntry* JitCache::find(const std::string& key) const {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  for (const auto& e : it->second)
    if (e->holds()) return e.get();
  return nullptr;
}

std::shared_ptr<const JitEntry> JitCache::find_direct(const std::string& key) const {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  for (const auto& e : it->second)
    if (e->result_kind >= 0 && e->unguarded() && (!e->cheap_guard || e->cheap_guard()) &&
        e->exe->captures_unchanged())
      return e;
  return nullptr;
}

std::vector<std::shared_ptr<const JitEntry>> JitCache::candidates(const std::string& key) const {
  std::vector<std::shared_ptr<const JitEntry>> out;
  auto it = map_.find(key);
  if (it == map_.end()) return out;
  for (const auto& e : it->second)
    if (e->holds()) out.push_back(e);
  return out;
}

void JitCache::promote(const std::string& key, const JitEntry* e) {
  auto it = map_.find(key);
  if (it == map_.end()) return;
  auto& list = it->second;
  auto pos = std::find_if(list.begin(), list.end(), [e](const auto& p) { return p.get() == e; });
  if (pos != list.end() && pos != list.begin()) std::rotate(list.begin(), pos, pos + 1);
}

const std::vector<std::shared_ptr<const JitEntry>>* JitCache::entries(
    const std::string& key) const {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

size_t JitCache::count(const std::string& key) const {
  auto it = map_.find(key);
  return it == map_.end() ? 0 : it->second.size();
}

size_t JitCache::num_direct() const {
  size_t n = 0;
  for (const auto& [k, list] : map_)
    for (const auto& e : list) n += e->result_kind >= 0 && e->unguarded();
  return n;
}

const JitEntry& JitCache::insert(const std::string& key, JitEntry entry) {
  auto& list = map_[key];
  list.push_back(std::make_shared<const JitEntry>(std::move(entry)));
  ++count_;
  return *list.back();
}

void JitCache::drop_stale(const std::string& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return;
  auto& list = it->second;
  size_t before = list.size();
  std::erase_if(list, [](const std::shared_ptr<const JitEntry>& e) { return !e->holds(); });
  count_ -= before - list.size();
}

namespace {

struct CppPayload {
  std::string traced_text;
  graph::CostReport traced_cost;
};

}  // namespace

const JitEntry& JitFunction::entry_for(const std::vector<Tensor>& inputs) {
  std::string k = JitCache::key(inputs, is_grad_enabled());
  if (const JitEntry* e = cache_->find(k)) return *e;
  cache_->drop_stale(k);  // traced with other .grad state: retrace
  auto payload = std::make_shared<CppPayload>();
  JitEntry e;
  e.exe = std::make_shared<const graph::Executable>(
      graph::compile(fn_, inputs, &payload->traced_text, &payload->traced_cost));
  e.payload = payload;
  return cache_->insert(k, std::move(e));
}

std::vector<Tensor> JitFunction::operator()(const std::vector<Tensor>& inputs) {
  const JitEntry& e = entry_for(inputs);
  // Outputs with autograd history: run eagerly so the caller can differentiate them.
  if (e.exe->outputs_require_grad() && is_grad_enabled()) return fn_(inputs);
  return e.exe->run(inputs);
}

std::string JitFunction::explain(const std::vector<Tensor>& inputs) {
  const JitEntry& e = entry_for(inputs);
  const auto& p = *static_cast<const CppPayload*>(e.payload.get());
  std::string arena = graph::arena_str(e.exe->memory_plan());
  return "traced graph:\n" + p.traced_text + "\noptimized graph:\n" + e.exe->graph().str() +
         "\neager:    " + graph::cost_str(p.traced_cost) +
         "\ncompiled: " + graph::cost_str(graph::estimate_cost(e.exe->graph(), true)) +
         (arena.empty() ? "" : "; " + arena) + "\n";
}

JitFunction jit(GraphFn fn) {
  return JitFunction(std::move(fn));
}

}  // namespace tandem
