// The ordering and progress machinery behind ProcessGroup, independent of MPI: every
// collective of a group runs on one queue, in the order the program issued it, either on the
// caller's thread (synchronous calls) or on the queue's communication thread (asynchronous
// calls, so communication overlaps the computation that follows). A watchdog thread reports
// an operation that has not completed within the group's timeout: a collective that never
// completes means another rank failed or diverged, and the job must end instead of hanging.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace tandem {

// A non-owning reference to a callable, valid while the callable lives: a synchronous
// collective hands its body and its description to the queue this way, with no allocation
// (its per-call cost is what a small all_reduce's latency is made of).
template <class Sig>
class FnRef;
template <class R, class... A>
class FnRef<R(A...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FnRef> && std::is_invocable_r_v<R, F&, A...>)
      FnRef(F&& f)  // NOLINT: implicit, like std::function
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...);
        }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

// The handle of an asynchronous collective (PyTorch's Work): wait() blocks until it has run
// and rethrows its error.
class Work {
 public:
  explicit Work(std::string description) : description_(std::move(description)) {}
  bool is_completed() const;
  // Blocks until the operation has run; rethrows its error. timeout_s > 0 bounds the wait
  // (DistributedError naming the operation when it passes; the operation stays queued).
  void wait(double timeout_s = 0) const;
  const std::string& description() const { return description_; }
  // recv: the rank the message came from (-1 before completion and for other operations).
  int source_rank() const;
  // Called once by the queue when the operation has run (error null on success).
  void finish(std::exception_ptr error);
  // For operations that complete outside the queue (nonblocking point-to-point): poll()
  // returns kPending until the operation is done, then its source rank (or -1), and may
  // throw its error; wait() polls it and reports through on_timeout when it takes longer
  // than timeout_s (> 0).
  static constexpr int kPending = -2;
  using TimeoutHandler = std::function<void(const std::string&, double)>;
  void set_poll(std::function<int()> poll, double timeout_s, TimeoutHandler on_timeout);

 private:
  std::string description_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
  int source_rank_ = -1;
  std::function<int()> poll_;
  double poll_timeout_s_ = 0;
  TimeoutHandler on_timeout_;
  // Polls once under mutex_; true when done (a poll error becomes the result).
  bool poll_locked() const;
};

class CommQueue {
 public:
  // on_timeout(description, seconds) runs on the watchdog thread when one operation has run
  // for longer than timeout_s (<= 0: no watchdog); it is expected to end the job.
  using TimeoutHandler = Work::TimeoutHandler;
  // on_busy(description), if given, runs on the watchdog thread at each of its wake-ups while
  // an operation is running (a check that can end the job sooner than the timeout).
  using BusyProbe = std::function<void(const std::string&)>;
  CommQueue(double timeout_s, TimeoutHandler on_timeout, BusyProbe on_busy = nullptr);
  // Runs what is queued, then stops both threads.
  ~CommQueue();
  CommQueue(const CommQueue&) = delete;
  CommQueue& operator=(const CommQueue&) = delete;

  // Queues fn for the communication thread; `work` completes when it has run.
  void submit(std::shared_ptr<Work> work, std::function<void()> fn);
  // Runs fn on this thread after everything queued before it, with the watchdog on it;
  // describe() names the operation, called only when the watchdog reports it.
  void run(FnRef<std::string()> describe, FnRef<void()> fn);
  void run(const std::string& description, FnRef<void()> fn);
  double timeout() const { return timeout_s_; }

 private:
  struct Task {
    std::function<void()> fn;
    std::shared_ptr<Work> work;
  };
  // Marks the start/end of the operation that is running now (for the watchdog; describe
  // must stay valid until end()).
  void begin(FnRef<std::string()> describe);
  void end();
  void worker_loop();
  void watchdog_loop();
  void start_threads_locked();

  double timeout_s_;
  TimeoutHandler on_timeout_;
  BusyProbe on_busy_;
  std::mutex mutex_;
  std::condition_variable cv_;           // queue changes, busy_ changes, stop
  std::condition_variable watchdog_cv_;  // stop_watchdog_
  std::deque<Task> queue_;
  bool busy_ = false;           // an operation is running (on either thread)
  bool stop_ = false;           // the worker ends once the queue is empty
  bool stop_watchdog_ = false;  // set after the worker has ended
  // What is running, for the timeout report (valid while busy_).
  FnRef<std::string()> current_{kNoOperation};
  static std::string no_operation() { return {}; }
  static constexpr std::string (*kNoOperation)() = &no_operation;
  std::chrono::steady_clock::time_point started_;
  bool reported_ = false;
  std::thread worker_, watchdog_;
};

}  // namespace tandem
