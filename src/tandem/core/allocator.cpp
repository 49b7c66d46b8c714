#include "tandem/core/allocator.h"

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace tandem {
namespace {

// Size classes: multiples of 64 B up to 4 KiB, then four classes per power of two,
// which bounds the waste at 25 % while letting similar shapes share blocks.
size_t size_class(size_t n) {
  if (n <= 4096) return n == 0 ? 64 : (n + 63) & ~size_t(63);
  size_t p = size_t(1) << (63 - __builtin_clzll(n));
  size_t step = p / 4;
  return (n + step - 1) / step * step;
}

struct Cache {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free_lists;
  AllocatorStats stats;
};

Cache& cache() {
  static Cache* c = new Cache();  // leaked on purpose: storages may die during exit
  return *c;
}

}  // namespace

void* cpu_allocate(size_t nbytes) {
  size_t cls = size_class(nbytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> g(c.mu);
    c.stats.num_allocs++;
    c.stats.bytes_in_use += cls;
    if (c.stats.bytes_in_use > c.stats.peak_bytes_in_use)
      c.stats.peak_bytes_in_use = c.stats.bytes_in_use;
    auto it = c.free_lists.find(cls);
    if (it != c.free_lists.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.stats.bytes_cached -= cls;
      return p;
    }
    c.stats.num_system_allocs++;
  }
  void* p = std::aligned_alloc(64, cls);
  if (!p) {
    empty_cache();
    p = std::aligned_alloc(64, cls);
  }
  if (!p) {
    std::lock_guard<std::mutex> g(c.mu);
    c.stats.bytes_in_use -= cls;
    throw std::bad_alloc();
  }
  return p;
}

void cpu_free(void* ptr, size_t nbytes) {
  if (!ptr) return;
  size_t cls = size_class(nbytes);
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  c.stats.bytes_in_use -= cls;
  c.stats.bytes_cached += cls;
  c.free_lists[cls].push_back(ptr);
}

AllocatorStats allocator_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.stats;
}

void reset_peak_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  c.stats.peak_bytes_in_use = c.stats.bytes_in_use;
}

void empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& [cls, list] : c.free_lists)
    for (void* p : list) std::free(p);
  c.free_lists.clear();
  c.stats.bytes_cached = 0;
}

}  // namespace tandem
