// CommQueue: one in-order queue per process group, a communication thread for the
// asynchronous operations and a watchdog for operations that never complete.
#include "tandem/distributed/comm_queue.h"

#include <algorithm>
#include <chrono>

#include "tandem/distributed/process_group.h"

namespace tandem {

bool Work::poll_locked() const {
  if (done_ || !poll_) return done_;
  auto* self = const_cast<Work*>(this);
  try {
    const int source = poll_();
    if (source == kPending) return false;
    self->source_rank_ = source;
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->done_ = true;
  self->poll_ = nullptr;  // releases the operation's buffers
  return true;
}

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return poll_locked();
}

void Work::set_poll(std::function<int()> poll, double timeout_s, TimeoutHandler on_timeout) {
  std::lock_guard<std::mutex> lock(mutex_);
  poll_ = std::move(poll);
  poll_timeout_s_ = timeout_s;
  on_timeout_ = std::move(on_timeout);
}

int Work::source_rank() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return source_rank_;
}

void Work::wait(double timeout_s) const {
  std::unique_lock<std::mutex> lock(mutex_);
  if (poll_) {
    // Polled operations: spin briefly (a reply is often microseconds away), then back off
    // to sleeps so a waiting rank leaves the core to the others.
    const auto start = std::chrono::steady_clock::now();
    bool reported = false;
    for (int spins = 0; !poll_locked(); ++spins) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (timeout_s > 0 && elapsed >= timeout_s)
        throw_error<DistributedError>("Work.wait: ", description_, " did not complete within ",
                                      timeout_s, " s");
      if (poll_timeout_s_ > 0 && elapsed >= poll_timeout_s_ && !reported && on_timeout_) {
        reported = true;
        TimeoutHandler handler = on_timeout_;
        lock.unlock();
        handler(description_, elapsed);
        lock.lock();
      }
      if (spins > 2000) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(spins > 20000 ? 1000 : 50));
        lock.lock();
      }
    }
  } else if (timeout_s > 0) {
    auto limit = std::chrono::duration<double>(timeout_s);
    if (!cv_.wait_for(lock, limit, [&] { return done_; }))
      throw_error<DistributedError>("Work.wait: ", description_, " did not complete within ",
                                    timeout_s, " s");
  } else {
    cv_.wait(lock, [&] { return done_; });
  }
  if (error_) std::rethrow_exception(error_);
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    error_ = std::move(error);
  }
  cv_.notify_all();
}

CommQueue::CommQueue(double timeout_s, TimeoutHandler on_timeout, BusyProbe on_busy)
    : timeout_s_(timeout_s), on_timeout_(std::move(on_timeout)), on_busy_(std::move(on_busy)) {}

CommQueue::~CommQueue() {
  // The worker drains the queue first, with the watchdog still watching it: a queued
  // operation that never completes must still end the job, not hang the exit.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_watchdog_ = true;
  }
  watchdog_cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void CommQueue::start_threads_locked() {
  if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
  if (timeout_s_ > 0 && !watchdog_.joinable()) watchdog_ = std::thread([this] { watchdog_loop(); });
}

void CommQueue::submit(std::shared_ptr<Work> work, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_threads_locked();
    queue_.push_back({std::move(fn), std::move(work)});
  }
  cv_.notify_all();
}

void CommQueue::begin(FnRef<std::string()> describe) {
  current_ = describe;
  started_ = std::chrono::steady_clock::now();
  busy_ = true;
}

void CommQueue::end() {
  busy_ = false;
  current_ = kNoOperation;
}

void CommQueue::run(const std::string& description, FnRef<void()> fn) {
  run([&description] { return description; }, fn);
}

void CommQueue::run(FnRef<std::string()> describe, FnRef<void()> fn) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (timeout_s_ > 0 && !watchdog_.joinable())
      watchdog_ = std::thread([this] { watchdog_loop(); });
    cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
    begin(describe);
  }
  struct Done {
    CommQueue* q;
    ~Done() {
      {
        std::lock_guard<std::mutex> lock(q->mutex_);
        q->end();
      }
      q->cv_.notify_all();
    }
  } done{this};
  fn();
}

void CommQueue::worker_loop() {
  for (;;) {
    Task task;
    auto describe = [&task] { return task.work->description(); };
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return (!queue_.empty() && !busy_) || (stop_ && queue_.empty()); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      begin(describe);
    }
    std::exception_ptr error;
    try {
      task.fn();
    } catch (...) {
      error = std::current_exception();
    }
    task.fn = nullptr;  // release the operation's tensors before waking its waiter
    // The handle completes before the queue moves on, so an operation issued after this
    // one finds it completed.
    task.work->finish(std::move(error));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      end();
    }
    cv_.notify_all();
  }
}

void CommQueue::watchdog_loop() {
  const auto period = std::chrono::duration<double>(std::clamp(timeout_s_ / 4, 0.05, 1.0));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_watchdog_) {
    watchdog_cv_.wait_for(lock, period);
    if (stop_watchdog_ || !busy_ || reported_) continue;
    if (on_busy_) {
      std::string what = current_();
      lock.unlock();
      on_busy_(what);
      lock.lock();
      if (stop_watchdog_ || !busy_) continue;
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (elapsed < timeout_s_) continue;
    reported_ = true;
    std::string what = current_();
    lock.unlock();
    on_timeout_(what, elapsed);
    lock.lock();
  }
}

}  // namespace tandem
