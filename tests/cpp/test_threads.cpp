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
    threads::reset();
    threads::set_requested(2);
  }
  void TearDown() override {
    threads::reset();
    threads::set_requested(saved_);
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

TEST_F(Threads, RepeatedSkewBacksOffToOneThreadThenProbes) {
  threads::report(2, 4'000'000, 3'000'000);
  threads::report(2, 4'000'000, 3'000'000);
  EXPECT_FALSE(threads::contended()) << "two strikes are not enough";
  threads::report(2, 4'000'000, 3'000'000);
  EXPECT_TRUE(threads::contended());
  EXPECT_EQ(threads::available(), 1);
  EXPECT_EQ(omp_get_max_threads(), 1) << "oneDNN and the GEMM read OpenMP's count";
  EXPECT_EQ(threads::requested(), 2) << "get_num_threads reports what the user asked for";
  std::this_thread::sleep_for(std::chrono::milliseconds(260));
  EXPECT_EQ(threads::available(), 2) << "the back-off ended: probe with all threads";
  EXPECT_FALSE(threads::contended());
  threads::report(2, 4'000'000, 3'000'000);  // the probe is skewed: back off at once
  EXPECT_TRUE(threads::contended());
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
