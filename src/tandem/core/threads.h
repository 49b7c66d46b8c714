#pragma once
// Thread-count policy shared by every parallel region (tandem's own and, through OpenMP's
// ICV, oneDNN's and the GEMM's): the count the user asked for, dropped to one thread while
// the machine is oversubscribed.
//
// Why: an OpenMP region on N threads finishes when its slowest thread does. When another
// process holds a core, one of tandem's threads waits for a scheduler time slice (ms) in
// every region, and a step of a hundred regions runs several times slower than on one
// thread. The scheduler's account of the calling thread (time spent runnable but waiting for
// a CPU) switches to one thread when it waits much; so do regions whose threads finished
// very unevenly. While on one thread, the run queue tells when CPUs are free again.
// TANDEM_ADAPTIVE_THREADS=0 turns this off.
#include <cstdint>

namespace tandem {

// Runs body() as one OpenMP parallel region on nt threads (body shares its loops with
// orphaned `#pragma omp for` constructs), or directly on this thread when nt <= 1, where an
// orphaned `omp for` runs every iteration. A region whose if() clause is false is not free:
// libgomp still builds a team of one, ~330 ns, as much as a whole eager op on a small tensor.
template <class F>
void parallel_region(int nt, F&& body) {
  if (nt <= 1) {
    body();
    return;
  }
#pragma omp parallel num_threads(nt)
  body();
}

}  // namespace tandem

namespace tandem::threads {

// What the user asked for (set_num_threads); 0 before any call means OpenMP's default.
void set_requested(int n);
int requested();

// The threads a parallel region should use now (omp_get_max_threads() while uncontended).
// Call from the thread that opens regions, before heavy work (parallel_threads, the GEMM and
// convolution entries do): at most every 20 ms it samples the scheduler's account of this
// thread (time spent runnable but waiting for a CPU) and, while backed off, the run queue.
int available();

// The policy behind available(), fed one sample: `wait_ns` the calling thread's cumulative
// run delay, `runnable` the tasks runnable on the system (counted only while backed off; -1
// when unknown), `cpus` the online CPUs. Waiting more than 10 % of two intervals in a row
// backs off to one thread for at least 0.2 s (doubling while contention persists, up to
// 3.2 s); the count is restored when three samples in a row leave CPUs for all threads.
void observe(int64_t now_ns, int64_t wait_ns, int runnable, int cpus);

// After a region on `threads` threads: `span_ns` from its start to its end, `skew_ns` between
// its first and last thread to finish. Skew of a large fraction of the span, repeatedly,
// marks the machine oversubscribed (a faster signal inside elementwise-heavy loops).
void report(int threads, int64_t span_ns, int64_t skew_ns);

// Monotonic nanoseconds (steady_clock), for timing regions.
int64_t now_ns();

// True while regions run on one thread because of contention (for tests and explain()).
bool contended();

// Tests: forget the contention state and the back-off.
void reset();

// Turns the policy on or off (TANDEM_ADAPTIVE_THREADS=0 starts it off).
void set_adaptive(bool on);

}  // namespace tandem::threads
