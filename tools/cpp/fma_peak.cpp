// Measures this CPU's fp32 FMA peak: independent register-resident FMA chains on every
// thread, long enough to amortise start-up. Prints GFLOP/s (an FMA counts as 2 flops).
// Usage: tandem_fma_peak [threads]
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  const long iters = 200'000'000 / 16;
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    float sink = 0;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
#if defined(__AVX512F__)
      __m512 a[12];
      const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
      for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_ps(float(k + omp_get_thread_num()));
      for (long i = 0; i < iters; ++i)
#pragma GCC unroll 12
        for (int k = 0; k < 12; ++k) a[k] = _mm512_fmadd_ps(a[k], m, c);
      for (int k = 0; k < 12; ++k) sink += _mm512_reduce_add_ps(a[k]);
#elif defined(__AVX2__)
      __m256 a[12];
      const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
      for (int k = 0; k < 12; ++k) a[k] = _mm256_set1_ps(float(k + omp_get_thread_num()));
      for (long i = 0; i < iters * 2; ++i)
#pragma GCC unroll 12
        for (int k = 0; k < 12; ++k) a[k] = _mm256_fmadd_ps(a[k], m, c);
      alignas(32) float l[8];
      for (int k = 0; k < 12; ++k) {
        _mm256_store_ps(l, a[k]);
        for (float v : l) sink += v;
      }
#endif
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double flops = double(threads) * double(iters) * 12 * 16 * 2;
    if (flops / s > best) best = flops / s;
    if (sink == 12345.f) std::puts("");  // keep the work alive
  }
  std::printf("%.1f\n", best / 1e9);
}
