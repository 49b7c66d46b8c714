// Measures this CPU's fp32 FMA peak: independent register-resident FMA chains on every
// thread, long enough to amortise start-up. Prints GFLOP/s (an FMA counts as 2 flops).
// With "bf16" it measures the bfloat16 dot-product peak instead (AVX512_BF16 vdpbf16ps:
// 16 lanes x 2 products, each a multiply and an add, so 64 flops per instruction), the
// ceiling of bf16 GEMM and convolution; it prints nan where the CPU lacks the instruction.
// Usage: tandem_fma_peak [threads] [fp32|bf16]
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr long kIters = 200'000'000 / 16;

float fma_chains(int threads) {
  float sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
#if defined(__AVX512F__)
    __m512 a[12];
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_ps(float(k + omp_get_thread_num()));
    for (long i = 0; i < kIters; ++i)
#pragma GCC unroll 12
      for (int k = 0; k < 12; ++k) a[k] = _mm512_fmadd_ps(a[k], m, c);
    for (int k = 0; k < 12; ++k) sink += _mm512_reduce_add_ps(a[k]);
#elif defined(__AVX2__)
    __m256 a[12];
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < 12; ++k) a[k] = _mm256_set1_ps(float(k + omp_get_thread_num()));
    for (long i = 0; i < kIters * 2; ++i)
#pragma GCC unroll 12
      for (int k = 0; k < 12; ++k) a[k] = _mm256_fmadd_ps(a[k], m, c);
    alignas(32) float l[8];
    for (int k = 0; k < 12; ++k) {
      _mm256_store_ps(l, a[k]);
      for (float v : l) sink += v;
    }
#endif
  }
  return sink;
}

__attribute__((target("avx512f,avx512bf16"))) float bf16_chains(int threads) {
  float sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    __m512 a[12];
    // bf16 pairs of 1.0 and 2^-24: the accumulators stay finite for the whole run.
    const __m512bh m = (__m512bh)_mm512_set1_epi16(0x3f80), c = (__m512bh)_mm512_set1_epi16(0x3380);
    for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_ps(float(k + omp_get_thread_num()));
    for (long i = 0; i < kIters; ++i)
#pragma GCC unroll 12
      for (int k = 0; k < 12; ++k) a[k] = _mm512_dpbf16_ps(a[k], m, c);
    for (int k = 0; k < 12; ++k) sink += _mm512_reduce_add_ps(a[k]);
  }
  return sink;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  const bool bf16 = argc > 2 && std::strcmp(argv[2], "bf16") == 0;
  if (bf16 && !__builtin_cpu_supports("avx512bf16")) {
    std::printf("nan\n");
    return 0;
  }
  const double flops_per_iter = bf16 ? 12 * 64 : 12 * 16 * 2;  // per thread per iteration
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    float sink = bf16 ? bf16_chains(threads) : fma_chains(threads);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double flops = double(threads) * double(kIters) * flops_per_iter;
    if (flops / s > best) best = flops / s;
    if (sink == 12345.f) std::puts("");  // keep the work alive
  }
  std::printf("%.1f\n", best / 1e9);
}
