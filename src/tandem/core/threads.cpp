#include "tandem/core/threads.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>

namespace tandem::threads {
namespace {

// A region whose threads finish more than kSkewNs apart and more than half its span apart
// was slowed by a descheduled thread: an uncontended 2-thread region skews by microseconds.
constexpr int64_t kSkewNs = 400'000;
constexpr int kStrikes = 3;                       // consecutive skewed regions to back off
constexpr int64_t kFirstBackoffNs = 200'000'000;  // one thread for 0.2 s, then probe
constexpr int64_t kMaxBackoffNs = 3'200'000'000;  // doubling while contention persists

std::atomic<int> g_requested{0};
std::atomic<int> g_strikes{0};
std::atomic<bool> g_contended{false};
std::atomic<int64_t> g_until{0};
std::atomic<int64_t> g_backoff{kFirstBackoffNs};
std::atomic<int> g_saved{0};  // the count to restore when the back-off ends

// TANDEM_ADAPTIVE_THREADS=0 keeps the requested count whatever the load (for measurements).
bool adaptive() {
  static const bool on = [] {
    const char* v = std::getenv("TANDEM_ADAPTIVE_THREADS");
    return !(v && v[0] == '0');
  }();
  return on;
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void set_requested(int n) {
  g_requested = n;
  g_contended = false;
  g_strikes = 0;
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
  g_backoff = kFirstBackoffNs;
}

int available() {
  if (g_contended.load(std::memory_order_relaxed)) {
    if (now_ns() < g_until.load(std::memory_order_relaxed)) return 1;
    // Probe: the next regions run on all threads again and report how they went.
    g_contended = false;
    g_strikes = kStrikes - 1;  // one skewed probe region is enough to back off again
    omp_set_num_threads(g_saved);
  }
  return omp_get_max_threads();
}

void report(int threads, int64_t span_ns, int64_t skew_ns) {
  if (threads <= 1 || g_contended.load(std::memory_order_relaxed) || !adaptive()) return;
  bool skewed = skew_ns > kSkewNs && 2 * skew_ns > span_ns;
  if (!skewed) {
    if (g_strikes.load(std::memory_order_relaxed) != 0) g_strikes = 0;
    // A clean region after a probe: contention is over, the next back-off starts short.
    g_backoff = kFirstBackoffNs;
    return;
  }
  if (++g_strikes < kStrikes) return;
  g_strikes = 0;
  g_saved = omp_get_max_threads();
  int64_t backoff = g_backoff.load();
  g_until = now_ns() + backoff;
  g_backoff = std::min(backoff * 2, kMaxBackoffNs);
  g_contended = true;
  // The calling thread's ICV: every later region opened from it (oneDNN's, the GEMM's)
  // runs on one thread until the probe.
  omp_set_num_threads(1);
}

}  // namespace tandem::threads
