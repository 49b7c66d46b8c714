// CommQueue without MPI: program order across the synchronous and asynchronous paths,
// errors carried to Work::wait, bounded waits, and the watchdog reporting an operation that
// runs past the timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tandem/distributed/comm_queue.h"
#include "tandem/distributed/process_group.h"

using namespace tandem;

namespace {
void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}
}  // namespace

TEST(CommQueue, SynchronousRunsAfterEverythingQueuedBeforeIt) {
  CommQueue q(0, nullptr);
  std::vector<int> order;
  std::vector<std::shared_ptr<Work>> works;
  for (int i = 0; i < 5; ++i) {
    works.push_back(std::make_shared<Work>("op " + std::to_string(i)));
    q.submit(works.back(), [&order, i] {
      sleep_ms(2);
      order.push_back(i);
    });
  }
  q.run("sync", [&] { order.push_back(100); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 100}));
  for (auto& w : works) EXPECT_TRUE(w->is_completed());
}

TEST(CommQueue, ErrorsComeBackFromWait) {
  CommQueue q(0, nullptr);
  auto w = std::make_shared<Work>("failing op");
  q.submit(w, [] { throw std::runtime_error("boom"); });
  EXPECT_THROW(w->wait(), std::runtime_error);
  EXPECT_TRUE(w->is_completed());
  // The queue keeps working after a failed operation.
  auto ok = std::make_shared<Work>("next op");
  q.submit(ok, [] {});
  EXPECT_NO_THROW(ok->wait());
}

TEST(CommQueue, BoundedWaitRaisesNamingTheOperation) {
  CommQueue q(0, nullptr);
  std::atomic<bool> release{false};
  auto w = std::make_shared<Work>("all_reduce of a float32 tensor of shape [3]");
  q.submit(w, [&] {
    while (!release) sleep_ms(1);
  });
  try {
    w->wait(0.05);
    ADD_FAILURE() << "no timeout";
  } catch (const DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("all_reduce of a float32 tensor of shape [3] did not "
                                         "complete within"),
              std::string::npos)
        << e.what();
  }
  release = true;
  w->wait();
}

TEST(CommQueue, WatchdogReportsAnOperationPastTheTimeout) {
  std::atomic<int> reports{0};
  std::string what;
  double seconds = 0;
  {
    CommQueue q(0.1, [&](const std::string& d, double s) {
      what = d;
      seconds = s;
      ++reports;
    });
    q.run("quick op", [] {});
    q.run("stuck barrier", [] { sleep_ms(600); });
  }
  EXPECT_EQ(reports.load(), 1);  // once, not every period
  EXPECT_EQ(what, "stuck barrier");
  EXPECT_GE(seconds, 0.1);
}

TEST(CommQueue, ASynchronousOperationIsDescribedOnlyWhenReported) {
  // A synchronous collective's description is formatted lazily: never for an operation that
  // completes in time, and once, with the operation's own text, for one past the timeout.
  std::atomic<int> formatted{0};
  std::string what;
  {
    CommQueue q(0.1, [&](const std::string& d, double) { what = d; });
    auto describe = [&] {
      ++formatted;
      return std::string("all_reduce of a float32 tensor of shape [7]");
    };
    for (int i = 0; i < 100; ++i) q.run(describe, [] {});
    EXPECT_EQ(formatted.load(), 0);
    q.run(describe, [] { sleep_ms(600); });
  }
  EXPECT_EQ(formatted.load(), 1);
  EXPECT_EQ(what, "all_reduce of a float32 tensor of shape [7]");
}

TEST(CommQueue, BusyProbeRunsWhileAnOperationRunsAndOnlyThen) {
  // The probe (the exit-notice check of a process group) sees what is running, at each
  // watchdog wake-up, long before the timeout; it is not called while the queue is idle.
  std::mutex m;
  std::vector<std::string> seen;
  std::atomic<int> reports{0};
  {
    CommQueue q(
        10.0, [&](const std::string&, double) { ++reports; },
        [&](const std::string& d) {
          std::lock_guard<std::mutex> lock(m);
          seen.push_back(d);
        });
    q.run("quick op", [] {});
    sleep_ms(300);  // idle: no probe
    {
      std::lock_guard<std::mutex> lock(m);
      EXPECT_TRUE(seen.empty());
    }
    q.run("slow all_reduce", [] { sleep_ms(1300); });
  }
  EXPECT_EQ(reports.load(), 0);
  std::lock_guard<std::mutex> lock(m);
  ASSERT_FALSE(seen.empty());
  for (const auto& d : seen) EXPECT_EQ(d, "slow all_reduce");
}
