// The contention policy of core/threads.h: skewed regions back off to one thread, a probe
// after the back-off restores the requested count, clean regions keep it.
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <thread>

#include "tandem/core/threads.h"

namespace tandem {
namespace {

class Threads : public ::testing::Test {
 protected:
  void SetUp() override {
    threads::set_adaptive(true);  // ctest runs the suite with TANDEM_ADAPTIVE_THREADS=0
    threads::reset();
    threads::set_requested(2);
  }
  void TearDown() override {
    threads::reset();
    threads::set_requested(saved_);
    threads::set_adaptive(false);
  }
  int saved_ = omp_get_max_threads();
};

TEST_F(Threads, CleanRegionsKeepTheRequestedCount) {
  for (int i = 0; i < 20; ++i) threads::report(2, 1'000'000, 20'000);  // 2 % skew
  EXPECT_FALSE(threads::contended());
  EXPECT_EQ(threads::available(), 2);
}

TEST_F(Threads, ShortRegionsWithLargeRelativeSkewAreNotContention) {
  for (int i = 0; i < 20; ++i) threads::report(2, 100'000, 90'000);  // 90 us: a wake-up
  EXPECT_FALSE(threads::contended());
}

TEST_F(Threads, RepeatedSkewBacksOffToOneThread) {
  threads::report(2, 4'000'000, 3'000'000);
  threads::report(2, 4'000'000, 3'000'000);
  EXPECT_FALSE(threads::contended()) << "two strikes are not enough";
  threads::report(2, 4'000'000, 3'000'000);
  EXPECT_TRUE(threads::contended());
  EXPECT_EQ(threads::available(), 1);
  EXPECT_EQ(omp_get_max_threads(), 1) << "oneDNN and the GEMM read OpenMP's count";
  EXPECT_EQ(threads::requested(), 2) << "get_num_threads reports what the user asked for";
}

// Synthetic scheduler samples: t in ms, the calling thread's cumulative run delay in ms.
constexpr int64_t kMs = 1'000'000;

// Three intervals in a row with the calling thread waiting for a CPU over 20 % of the time.
void wait_three_intervals(int64_t t_ms, int64_t wait_ms) {
  threads::observe(t_ms * kMs, wait_ms * kMs, 0, 2);
  for (int i = 1; i <= 3; ++i)
    threads::observe((t_ms + 20 * i) * kMs, (wait_ms + 7 * i) * kMs, 0, 2);
}

TEST_F(Threads, WaitingForACpuBacksOffAndFreeCpusRestore) {
  threads::observe(1000 * kMs, 0, 0, 2);
  threads::observe(1020 * kMs, 3 * kMs, 0, 2);  // 15 % waiting: noise
  threads::observe(1040 * kMs, 6 * kMs, 0, 2);
  threads::observe(1060 * kMs, 9 * kMs, 0, 2);
  EXPECT_FALSE(threads::contended());
  threads::observe(1080 * kMs, 16 * kMs, 0, 2);  // 35 % waiting
  threads::observe(1100 * kMs, 23 * kMs, 0, 2);
  EXPECT_FALSE(threads::contended()) << "two waiting intervals are not enough";
  threads::observe(1120 * kMs, 30 * kMs, 0, 2);
  ASSERT_TRUE(threads::contended());
  EXPECT_EQ(omp_get_max_threads(), 1);
  // Another process keeps a CPU: runnable = this thread + it, on 2 CPUs, leaves 1 < 2.
  for (int i = 1; i <= 30; ++i) threads::observe((1120 + 20 * i) * kMs, 30 * kMs, 2, 2);
  EXPECT_TRUE(threads::contended()) << "no free CPUs: no probe either";
  // It ended; the run queue must show room for two threads three polls in a row.
  threads::observe(1740 * kMs, 30 * kMs, 1, 2);
  threads::observe(1760 * kMs, 30 * kMs, 1, 2);
  EXPECT_TRUE(threads::contended());
  threads::observe(1780 * kMs, 30 * kMs, 1, 2);
  EXPECT_FALSE(threads::contended());
  EXPECT_EQ(omp_get_max_threads(), 2);
}

TEST_F(Threads, TheBackOffLastsItsMinimumAndDoubles) {
  wait_three_intervals(1000, 0);
  ASSERT_TRUE(threads::contended());
  for (int i = 1; i <= 5; ++i) threads::observe((1060 + 20 * i) * kMs, 21 * kMs, 1, 2);
  EXPECT_TRUE(threads::contended()) << "free CPUs, but 0.2 s have not passed";
  for (int i = 0; i < 3; ++i) threads::observe((1280 + 20 * i) * kMs, 21 * kMs, 1, 2);
  ASSERT_FALSE(threads::contended());
  // Waiting again at once backs off (one interval suffices right after a restore), for
  // twice as long.
  threads::observe(1340 * kMs, 31 * kMs, 0, 2);
  ASSERT_TRUE(threads::contended());
  for (int i = 0; i < 3; ++i) threads::observe((1580 + 20 * i) * kMs, 31 * kMs, 1, 2);
  EXPECT_TRUE(threads::contended()) << "0.4 s back-off";
  for (int i = 0; i < 3; ++i) threads::observe((1760 + 20 * i) * kMs, 31 * kMs, 1, 2);
  EXPECT_FALSE(threads::contended());
}

TEST_F(Threads, WithoutARunQueueTheBackOffEndsInAProbe) {
  wait_three_intervals(1000, 0);
  ASSERT_TRUE(threads::contended());
  threads::observe(1100 * kMs, 21 * kMs, -1, 2);
  EXPECT_TRUE(threads::contended());
  threads::observe(1270 * kMs, 21 * kMs, -1, 2);
  EXPECT_FALSE(threads::contended());
}

TEST_F(Threads, TheRealSamplerRunsOnThisMachine) {
  // available() samples /proc; on an idle test it keeps the count.
  EXPECT_GE(threads::available(), 1);
}

TEST_F(Threads, SetNumThreadsEndsABackOff) {
  for (int i = 0; i < 3; ++i) threads::report(2, 4'000'000, 3'000'000);
  ASSERT_TRUE(threads::contended());
  threads::set_requested(2);
  EXPECT_FALSE(threads::contended());
  EXPECT_EQ(threads::available(), 2);
}

TEST_F(Threads, OneThreadRegionsReportNothing) {
  for (int i = 0; i < 5; ++i) threads::report(1, 4'000'000, 3'000'000);
  EXPECT_FALSE(threads::contended());
}

}  // namespace
}  // namespace tandem
