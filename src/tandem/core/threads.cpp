#include "tandem/core/threads.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace tandem::threads {
namespace {

// A region whose threads finish more than kSkewNs apart and more than half its span apart
// was slowed by a descheduled thread: an uncontended 2-thread region skews by microseconds.
constexpr int64_t kSkewNs = 400'000;
constexpr int kStrikes = 3;                       // consecutive skewed regions to back off
constexpr int64_t kFirstBackoffNs = 200'000'000;  // one thread for at least 0.2 s
constexpr int64_t kMaxBackoffNs = 3'200'000'000;  // doubling while contention persists
// The scheduler's own account, sampled at most this often: how long the calling thread sat
// runnable but waiting for a CPU (run_delay), and how many tasks are runnable now.
constexpr int64_t kPollNs = 20'000'000;
constexpr double kWaitFraction = 0.20;  // waiting this share of a poll interval is a strike
constexpr int kWaitStrikes = 3;         // consecutive waiting intervals to back off
constexpr int kFreeSamples = 3;         // consecutive polls with free CPUs to restore

std::atomic<int> g_requested{0};
std::atomic<int> g_strikes{0};
std::atomic<bool> g_contended{false};
std::atomic<int64_t> g_until{0};
std::atomic<int64_t> g_backoff{kFirstBackoffNs};
std::atomic<int> g_saved{0};  // the count to restore when the back-off ends
std::atomic<int> g_wait_strikes{0};
std::atomic<int> g_free_samples{0};
std::atomic<int64_t> g_last_poll{0};
std::atomic<int64_t> g_last_wait{-1};
std::atomic<bool> g_polling{false};  // one thread samples at a time

// TANDEM_ADAPTIVE_THREADS=0 keeps the requested count whatever the load (for measurements
// and bit-for-bit test comparisons); set_adaptive overrides it. -1: not read yet.
std::atomic<int> g_adaptive{-1};

bool adaptive() {
  int on = g_adaptive.load(std::memory_order_relaxed);
  if (on < 0) {
    const char* v = std::getenv("TANDEM_ADAPTIVE_THREADS");
    on = !(v && v[0] == '0');
    g_adaptive = on;
  }
  return on != 0;
}

// Reads a small procfs file into buf (NUL-terminated); false when it can't be read.
bool read_proc(const char* path, char* buf, size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

// The calling thread's run_delay (ns spent runnable but not running), or -1.
int64_t thread_wait_ns() {
  char buf[128];
  if (!read_proc("/proc/thread-self/schedstat", buf, sizeof buf)) return -1;
  char* p = buf;
  std::strtoll(p, &p, 10);  // time on a CPU
  return std::strtoll(p, nullptr, 10);
}

// Tasks runnable on the whole system now (the 4th field of /proc/loadavg, "R/T"), or -1.
int runnable_tasks() {
  char buf[128];
  if (!read_proc("/proc/loadavg", buf, sizeof buf)) return -1;
  char* p = buf;
  for (int i = 0; i < 3; ++i) std::strtod(p, &p);
  return int(std::strtol(p, nullptr, 10));
}

void back_off(int64_t now) {
  g_strikes = 0;
  g_wait_strikes = 0;
  g_free_samples = 0;
  g_saved = omp_get_max_threads();
  int64_t backoff = g_backoff.load();
  g_until = now + backoff;
  g_backoff = std::min(backoff * 2, kMaxBackoffNs);
  g_contended = true;
  // The calling thread's ICV: every later region opened from it (oneDNN's, the GEMM's)
  // runs on one thread until the count is restored.
  omp_set_num_threads(1);
}

void restore() {
  g_contended = false;
  g_strikes = kStrikes - 1;  // one skewed region right after is enough to back off again
  g_wait_strikes = kWaitStrikes - 1;
  omp_set_num_threads(g_saved);
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void set_adaptive(bool on) {
  g_adaptive = on ? 1 : 0;
}

void set_requested(int n) {
  g_requested = n;
  g_contended = false;
  g_strikes = 0;
  g_wait_strikes = 0;
  g_backoff = kFirstBackoffNs;
  omp_set_num_threads(n);
}

int requested() {
  int n = g_requested.load();
  return n > 0 ? n : (g_contended ? g_saved.load() : omp_get_max_threads());
}

bool contended() {
  return g_contended.load();
}

void reset() {
  if (g_contended.exchange(false) && g_saved > 0) omp_set_num_threads(g_saved);
  g_strikes = 0;
  g_wait_strikes = 0;
  g_free_samples = 0;
  g_backoff = kFirstBackoffNs;
  g_last_poll = 0;
  g_last_wait = -1;
}

void observe(int64_t now, int64_t wait_ns, int runnable, int cpus) {
  if (!adaptive()) return;
  const int64_t last = g_last_poll.exchange(now);
  const int64_t last_wait = g_last_wait.exchange(wait_ns);
  if (!g_contended.load()) {
    if (omp_get_max_threads() <= 1 || last == 0 || last_wait < 0 || wait_ns < 0) return;
    const int64_t dt = now - last;
    const bool waiting = dt > 0 && double(wait_ns - last_wait) > kWaitFraction * double(dt);
    if (!waiting) {
      g_wait_strikes = 0;
      // Calm for a while since the last back-off: the next one starts short again.
      if (now - g_until.load() > kMaxBackoffNs) g_backoff = kFirstBackoffNs;
      return;
    }
    if (++g_wait_strikes >= kWaitStrikes) back_off(now);
    return;
  }
  // One thread now; our workers sleep. Restore the count once the back-off has lasted its
  // minimum and, for a few polls in a row, the tasks runnable besides this one leave CPUs
  // for all the threads. Without a readable run queue, restore when the back-off ends (a
  // probe: a contended probe backs off again, for twice as long).
  if (now < g_until.load()) return;
  if (runnable < 0) {
    restore();
    return;
  }
  const int others = runnable - 1;
  if (cpus - others >= g_saved.load()) {
    if (++g_free_samples >= kFreeSamples) restore();
  } else {
    g_free_samples = 0;
  }
}

int available() {
  if (adaptive() && g_requested.load(std::memory_order_relaxed) != 1 && !omp_in_parallel()) {
    const int64_t now = now_ns();
    if (now - g_last_poll.load(std::memory_order_relaxed) >= kPollNs && !g_polling.exchange(true)) {
      static const int cpus = get_nprocs();
      const bool contended_now = g_contended.load();
      observe(now, thread_wait_ns(), contended_now ? runnable_tasks() : 0, cpus);
      g_polling = false;
    }
  }
  return g_contended.load(std::memory_order_relaxed) ? 1 : omp_get_max_threads();
}

void report(int threads, int64_t span_ns, int64_t skew_ns) {
  if (threads <= 1 || g_contended.load(std::memory_order_relaxed) || !adaptive()) return;
  bool skewed = skew_ns > kSkewNs && 2 * skew_ns > span_ns;
  if (!skewed) {
    if (g_strikes.load(std::memory_order_relaxed) != 0) g_strikes = 0;
    // A clean region after a restore: contention is over, the next back-off starts short.
    g_backoff = kFirstBackoffNs;
    return;
  }
  if (++g_strikes < kStrikes) return;
  back_off(now_ns());
}

}  // namespace tandem::threads
