// Strided dtype conversion: the gather / scatter step of the elementwise driver and the
// body of copy_ and .to(dtype).
#include <immintrin.h>

#include <cstring>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/storage_io.h"

namespace tandem {
namespace {

template <typename D, typename S>
D cast_value(S s) {
  auto v = ld(s);  // float for the 16-bit types, the type itself otherwise
  if constexpr (std::is_same_v<D, bool>) {
    return v != decltype(v)(0);
  } else {
    using DR = compute_t<D>;
    return st<D>(static_cast<DR>(v));
  }
}

template <typename S, typename D>
void convert_loop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if (ss == sizeof(S) && ds == sizeof(D)) {
    const S* s = reinterpret_cast<const S*>(src);
    D* d = reinterpret_cast<D*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = cast_value<D>(s[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    S s;
    std::memcpy(&s, src + i * ss, sizeof(S));
    D d = cast_value<D>(s);
    std::memcpy(dst + i * ds, &d, sizeof(D));
  }
}

void copy_same(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n, size_t size) {
  if (ss == int64_t(size) && ds == int64_t(size)) {
    std::memcpy(dst, src, n * size);
    return;
  }
  switch (size) {
    case 1:
      for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
      break;
    case 2:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 2);
      break;
    case 4:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 4);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, 8);
  }
}

#define TANDEM_ALL_STORAGE_TYPES(X) \
  X(Bool, bool)                     \
  X(UInt8, uint8_t)                 \
  X(Int8, int8_t)                   \
  X(Int16, int16_t)                 \
  X(Int32, int32_t)                 \
  X(Int64, int64_t)                 \
  X(Float16, Half)                  \
  X(BFloat16, BFloat16)             \
  X(Float32, float)                 \
  X(Float64, double)

template <typename S>
void convert_from(const char* src, int64_t ss, char* dst, int64_t ds, DType ddt, int64_t n) {
  switch (ddt) {
#define X(D, T)                              \
  case DType::D:                             \
    convert_loop<S, T>(src, ss, dst, ds, n); \
    return;
    TANDEM_ALL_STORAGE_TYPES(X)
#undef X
  }
}

// float16 <-> float32 of dense arrays with F16C, 16 lanes at a time (dtype.cpp's scalar
// conversions are branchy calls, ~10x slower). NaNs become exactly what those give (the
// quiet NaN 0x7e00 with its sign when narrowing, the half's payload unquieted when
// widening), so results do not depend on the path. Compiled for AVX-512 + F16C and used
// only where the CPU has them.
bool has_f16c_avx512() {
  static const bool yes = cpu_use_avx512() && __builtin_cpu_supports("f16c");
  return yes;
}

__attribute__((target("avx512f,avx512bw,avx512vl,f16c"))) void half_to_float_dense(
    const uint16_t* s, float* d, int64_t n) {
  int64_t i = 0;
  const __m512i sign = _mm512_set1_epi32(0x8000), man = _mm512_set1_epi32(0x3ff),
                inf = _mm512_set1_epi32(0x7f800000);
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    __m512 f = _mm512_cvtph_ps(h);
    const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    if (nan) {
      const __m512i w = _mm512_cvtepu16_epi32(h);
      const __m512i bits =
          _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w, sign), 16), inf),
                          _mm512_slli_epi32(_mm512_and_si512(w, man), 13));
      f = _mm512_mask_mov_ps(f, nan, _mm512_castsi512_ps(bits));
    }
    _mm512_storeu_ps(d + i, f);
  }
  for (; i < n; ++i) d[i] = half_to_float(s[i]);
}

__attribute__((target("avx512f,avx512bw,avx512vl,f16c"))) void float_to_half_dense(const float* s,
                                                                                   uint16_t* d,
                                                                                   int64_t n) {
  int64_t i = 0;
  const __m512i sign = _mm512_set1_epi32(0x8000), qnan = _mm512_set1_epi32(0x7e00);
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_loadu_ps(s + i);
    __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    if (nan) {
      const __m512i b = _mm512_or_si512(
          _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(f), 16), sign), qnan);
      h = _mm256_mask_mov_epi16(h, nan, _mm512_cvtepi32_epi16(b));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), h);
  }
  for (; i < n; ++i) d[i] = float_to_half(s[i]);
}

}  // namespace

void convert_strided(const char* src, int64_t ss, DType sdt, char* dst, int64_t ds, DType ddt,
                     int64_t n) {
  if (sdt == ddt) return copy_same(src, ss, dst, ds, n, itemsize(sdt));
  if (sdt == DType::Float16 && ddt == DType::Float32 && ss == 2 && ds == 4 && has_f16c_avx512())
    return half_to_float_dense(reinterpret_cast<const uint16_t*>(src),
                               reinterpret_cast<float*>(dst), n);
  if (sdt == DType::Float32 && ddt == DType::Float16 && ss == 4 && ds == 2 && has_f16c_avx512())
    return float_to_half_dense(reinterpret_cast<const float*>(src),
                               reinterpret_cast<uint16_t*>(dst), n);
  switch (sdt) {
#define X(D, T)                                \
  case DType::D:                               \
    convert_from<T>(src, ss, dst, ds, ddt, n); \
    return;
    TANDEM_ALL_STORAGE_TYPES(X)
#undef X
  }
}

}  // namespace tandem
