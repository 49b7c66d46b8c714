// A caching CPU allocator: blocks are 64-byte aligned and kept on per-size free lists
// when released, so an eager training loop stops calling malloc after its first step.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tandem {

struct AllocatorStats {
  int64_t bytes_in_use = 0;  // handed out to live storages
  int64_t peak_bytes_in_use = 0;
  int64_t bytes_cached = 0;       // held on free lists, ready for reuse
  int64_t num_allocs = 0;         // calls to allocate()
  int64_t num_system_allocs = 0;  // of which reached the system allocator
};

// Returns a 64-byte aligned block of at least nbytes (nbytes may be 0).
void* cpu_allocate(size_t nbytes);
// Gives a block obtained from cpu_allocate back to the cache.
void cpu_free(void* ptr, size_t nbytes);
AllocatorStats allocator_stats();
void reset_peak_bytes();
// Returns all cached blocks to the system.
void empty_cache();

}  // namespace tandem
