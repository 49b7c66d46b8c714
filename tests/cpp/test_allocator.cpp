#include "tandem/core/allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tandem/core/storage.h"
#include "tandem/core/tensor.h"

using namespace tandem;

namespace {
bool aligned64(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}
}  // namespace

TEST(Allocator, Alignment) {
  for (size_t n :
       {size_t(0), size_t(1), size_t(7), size_t(63), size_t(64), size_t(65), size_t(1000),
        size_t(4096), size_t(4097), size_t(5000), size_t(1) << 20, (size_t(1) << 20) + 3}) {
    void* p = cpu_allocate(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_TRUE(aligned64(p)) << n;
    if (n) std::memset(p, 0xab, n);  // the whole requested range is writable (ASan checks)
    cpu_free(p, n);
  }
  // Tensors inherit the alignment.
  Tensor t = Tensor::empty({3, 5}, DType::Float64);
  EXPECT_TRUE(aligned64(t.data_ptr()));
}

namespace {
// The VmFlags of the mapping that holds p (/proc/self/smaps), "" where it cannot be read.
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < 17) {
      inside = lo <= addr && addr < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}
}  // namespace

TEST(Allocator, LargeBlocksStartOnHugePageBoundariesWithHugePageAdvice) {
  // From 4 MiB on, blocks are 2 MiB aligned and advised MADV_HUGEPAGE (the kernel marks the
  // mapping "hg"); smaller ones are not.
  const size_t big = size_t(6) << 20;
  void* p = cpu_allocate(big);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
  std::memset(p, 1, big);
  const std::string flags = vm_flags_of(p);
  if (!flags.empty()) {
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  }
  cpu_free(p, big);
  empty_cache();
}

TEST(Allocator, InUsePeakAndCachedAccounting) {
  empty_cache();
  AllocatorStats s0 = allocator_stats();
  EXPECT_EQ(s0.bytes_cached, 0);
  reset_peak_bytes();
  // 1000 bytes occupy one 1024-byte size class.
  void* a = cpu_allocate(1000);
  AllocatorStats s1 = allocator_stats();
  EXPECT_EQ(s1.bytes_in_use - s0.bytes_in_use, 1024);
  EXPECT_EQ(s1.peak_bytes_in_use, s1.bytes_in_use);
  EXPECT_EQ(s1.num_allocs - s0.num_allocs, 1);
  EXPECT_EQ(s1.num_system_allocs - s0.num_system_allocs, 1);
  void* b = cpu_allocate(3000);  // 3008-byte class
  AllocatorStats s2 = allocator_stats();
  EXPECT_EQ(s2.bytes_in_use - s0.bytes_in_use, 1024 + 3008);
  EXPECT_EQ(s2.peak_bytes_in_use, s2.bytes_in_use);
  cpu_free(b, 3000);
  AllocatorStats s3 = allocator_stats();
  EXPECT_EQ(s3.bytes_in_use - s0.bytes_in_use, 1024);
  EXPECT_EQ(s3.peak_bytes_in_use, s2.peak_bytes_in_use);  // peak remembers the high mark
  EXPECT_EQ(s3.bytes_cached, 3008);
  cpu_free(a, 1000);
  AllocatorStats s4 = allocator_stats();
  EXPECT_EQ(s4.bytes_in_use, s0.bytes_in_use);
  EXPECT_EQ(s4.bytes_cached, 1024 + 3008);
  reset_peak_bytes();
  EXPECT_EQ(allocator_stats().peak_bytes_in_use, s0.bytes_in_use);
  // A cached block is reused: in_use goes up, cached goes down, no system call.
  void* c = cpu_allocate(1024);
  AllocatorStats s5 = allocator_stats();
  EXPECT_EQ(c, a);
  EXPECT_EQ(s5.bytes_cached, 3008);
  EXPECT_EQ(s5.num_system_allocs, s4.num_system_allocs);
  cpu_free(c, 1024);
  empty_cache();
}

TEST(Allocator, LargeSizeClassesBoundWaste) {
  empty_cache();
  AllocatorStats s0 = allocator_stats();
  // Above 4 KiB there are four classes per power of two: 5000 -> 5120, 9000 -> 10240.
  void* a = cpu_allocate(5000);
  EXPECT_EQ(allocator_stats().bytes_in_use - s0.bytes_in_use, 5120);
  cpu_free(a, 5000);
  void* b = cpu_allocate(9000);
  EXPECT_EQ(allocator_stats().bytes_in_use - s0.bytes_in_use, 10240);
  cpu_free(b, 9000);
  // 5100 shares 5000's class and gets its block back.
  void* c = cpu_allocate(5100);
  EXPECT_EQ(c, a);
  cpu_free(c, 5100);
  for (size_t n = 4097; n < (size_t(1) << 22); n = n * 3 / 2 + 17) {
    AllocatorStats before = allocator_stats();
    void* p = cpu_allocate(n);
    int64_t cls = allocator_stats().bytes_in_use - before.bytes_in_use;
    EXPECT_GE(cls, int64_t(n));
    EXPECT_LE(double(cls), 1.25 * double(n) + 64) << n;
    EXPECT_EQ(cls % 64, 0);
    cpu_free(p, n);
  }
  empty_cache();
}

TEST(Allocator, ReusesFreedBlocksInALoop) {
  // Warm up once so each size class has a cached block.
  std::vector<size_t> sizes = {16, 1000, 4096, 100000, 1 << 20};
  for (size_t n : sizes) cpu_free(cpu_allocate(n), n);
  AllocatorStats s0 = allocator_stats();
  for (int it = 0; it < 200; ++it)
    for (size_t n : sizes) {
      void* p = cpu_allocate(n);
      static_cast<char*>(p)[n - 1] = 1;
      cpu_free(p, n);
    }
  AllocatorStats s1 = allocator_stats();
  EXPECT_EQ(s1.num_system_allocs, s0.num_system_allocs);
  EXPECT_EQ(s1.num_allocs - s0.num_allocs, int64_t(200 * sizes.size()));
  EXPECT_EQ(s1.bytes_in_use, s0.bytes_in_use);
  // The same holds for tensors made and dropped in a loop (an eager training step).
  {
    Tensor a = Tensor::empty({64, 64}, DType::Float32);
    Tensor b = Tensor::empty({64, 64}, DType::Float32);
  }
  AllocatorStats s2 = allocator_stats();
  for (int it = 0; it < 100; ++it) {
    Tensor a = Tensor::empty({64, 64}, DType::Float32);
    Tensor b = Tensor::empty({64, 64}, DType::Float32);
  }
  EXPECT_EQ(allocator_stats().num_system_allocs, s2.num_system_allocs);
}

TEST(Allocator, EmptyCacheReleasesEverything) {
  void* p = cpu_allocate(123456);
  cpu_free(p, 123456);
  EXPECT_GT(allocator_stats().bytes_cached, 0);
  empty_cache();
  AllocatorStats s = allocator_stats();
  EXPECT_EQ(s.bytes_cached, 0);
  // The next allocation of that size goes back to the system.
  void* q = cpu_allocate(123456);
  EXPECT_EQ(allocator_stats().num_system_allocs, s.num_system_allocs + 1);
  cpu_free(q, 123456);
  empty_cache();
}

TEST(Allocator, TensorStorageLifetime) {
  AllocatorStats s0 = allocator_stats();
  {
    Tensor t = Tensor::empty({10, 10}, DType::Float64);  // 800 B -> 832-byte class
    EXPECT_EQ(allocator_stats().bytes_in_use - s0.bytes_in_use, 832);
    Tensor v = Tensor::make_view(t, {100}, {1}, 0);  // views share, they don't allocate
    EXPECT_EQ(allocator_stats().bytes_in_use - s0.bytes_in_use, 832);
    t = Tensor();
    EXPECT_EQ(allocator_stats().bytes_in_use - s0.bytes_in_use, 832);  // v keeps it alive
  }
  EXPECT_EQ(allocator_stats().bytes_in_use, s0.bytes_in_use);
  // Borrowed memory never reaches the allocator.
  std::vector<float> mem(16);
  {
    auto st =
        Storage::borrow(mem.data(), mem.size() * 4, std::shared_ptr<void>(nullptr, [](void*) {}));
    EXPECT_EQ(st->data(), mem.data());
  }
  EXPECT_EQ(allocator_stats().bytes_in_use, s0.bytes_in_use);
}

TEST(Allocator, ThreadSafetySmoke) {
  AllocatorStats s0 = allocator_stats();
  constexpr int kThreads = 6, kIters = 2000;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &bad] {
      std::vector<std::pair<void*, size_t>> live;
      uint32_t x = 12345u + uint32_t(t);
      for (int i = 0; i < kIters; ++i) {
        x = x * 1664525u + 1013904223u;
        size_t n = 1 + (x >> 8) % 20000;
        void* p = cpu_allocate(n);
        if (!aligned64(p)) bad[t]++;
        // Mark the block with the thread id; a block handed to two threads would be
        // overwritten and caught when it is checked before release.
        std::memset(p, t + 1, n);
        live.emplace_back(p, n);
        if (live.size() > 8 || (x & 1)) {
          auto [q, m] = live.front();
          live.erase(live.begin());
          const unsigned char* c = static_cast<const unsigned char*>(q);
          if (c[0] != t + 1 || c[m - 1] != t + 1) bad[t]++;
          cpu_free(q, m);
        }
      }
      for (auto [q, m] : live) cpu_free(q, m);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  AllocatorStats s1 = allocator_stats();
  EXPECT_EQ(s1.bytes_in_use, s0.bytes_in_use);
  EXPECT_EQ(s1.num_allocs - s0.num_allocs, kThreads * kIters);
  empty_cache();
  EXPECT_EQ(allocator_stats().bytes_cached, 0);
}
