// Minimal SIMD vectors for float32 (VF) and float64 (VD) with SLEEF transcendental
// functions (1.0-ULP variants), so composite activations such as gelu or mish run in one
// vectorized pass. The width follows the compile flags: 16/8 lanes with AVX-512 (a
// -march=native build on such a CPU), 8/4 lanes with AVX2 + FMA (the portable build's
// x86-64-v3 baseline), else width 1 over <cmath>.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__) || defined(TANDEM_SIMD_FORCE_AVX512)
#include <immintrin.h>
#if defined(__AVX512F__)
#include <sleef.h>
#else
// A baseline file that compiles AVX-512 forms under #pragma GCC target
// (avx512_kernels.cpp): GCC leaves __AVX512F__ undefined there, and sleef.h declares its
// 512-bit functions only when it is defined, so it must not have been included before.
#ifdef __SLEEF_H__
#error "simd.h: sleef.h was included before the AVX-512 forms asked for it"
#endif
#define __AVX512F__ 1
#include <sleef.h>
#undef __AVX512F__
#endif
#define TANDEM_SIMD_AVX512 1
#define TANDEM_SIMD_VECTOR 1
#define TANDEM_SIMD_NS avx512
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <sleef.h>
#define TANDEM_SIMD_AVX2 1
#define TANDEM_SIMD_VECTOR 1
#define TANDEM_SIMD_NS avx2
#else
#define TANDEM_SIMD_NS scalar
#endif
// The vectors, and every kernel template built on them (ew_loops.h, the functors), live in
// an inline namespace named for the instruction set: a file compiled for AVX-512 beside the
// baseline build (kernels/cpu/avx512_kernels.cpp) then defines other symbols, never a
// second, AVX-512 body for a baseline function that the linker could pick for both.

namespace tandem::simd {
inline namespace TANDEM_SIMD_NS {

// tanh as a [13/6] rational function of the input clamped to +-7.9988 (Eigen's
// coefficients): 9 FMAs, 2 multiplies and a division, no exp. Within 5 ulp (2.9e-7
// relative, measured over a sweep of every 7th float in [1e-6, 12]); |x| < 4e-4 returns x.
// NaN passes through the clamp (min/max return their second operand on NaN). The fused
// kernel compiler (graph/fused_jit.cpp) emits this exact instruction sequence, so compiled
// and eager tanh agree bit for bit: keep the two in step.
struct TanhCoef {
  static constexpr float clamp = 7.99881172180175781f, tiny = 0.0004f;
  static constexpr float num[7] = {
      -2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
      1.48572235717979e-05f,  6.37261928875436e-04f, 4.89352455891786e-03f};  // x^13 .. x^1
  static constexpr float den[4] = {1.19825839466702e-06f, 1.18534705686654e-04f,
                                   2.26843463243900e-03f, 4.89352518554385e-03f};  // x^6 .. x^0
};
#if TANDEM_SIMD_AVX512
struct VF {
  static constexpr int W = 16;
  using T = float;
  __m512 v;
  using Mask = __mmask16;
  static VF load(const float* p) { return {_mm512_loadu_ps(p)}; }
  static VF load_partial(const float* p, int n) {
    return {_mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), p)};
  }
  void store(float* p) const { _mm512_storeu_ps(p, v); }
  void store_partial(float* p, int n) const {
    _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), v);
  }
  static VF set1(float x) { return {_mm512_set1_ps(x)}; }
};
inline VF operator+(VF a, VF b) {
  return {_mm512_add_ps(a.v, b.v)};
}
inline VF operator-(VF a, VF b) {
  return {_mm512_sub_ps(a.v, b.v)};
}
inline VF operator*(VF a, VF b) {
  return {_mm512_mul_ps(a.v, b.v)};
}
inline VF operator/(VF a, VF b) {
  return {_mm512_div_ps(a.v, b.v)};
}
inline VF operator-(VF a) {
  return {_mm512_xor_ps(a.v, _mm512_set1_ps(-0.0f))};
}
inline VF vmax(VF a, VF b) {
  return {_mm512_max_ps(a.v, b.v)};
}
inline VF vmin(VF a, VF b) {
  return {_mm512_min_ps(a.v, b.v)};
}
inline VF vabs(VF a) {
  return {_mm512_abs_ps(a.v)};
}
inline VF vsqrt(VF a) {
  return {_mm512_sqrt_ps(a.v)};
}
inline VF::Mask gt(VF a, VF b) {
  return _mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ);
}
inline VF::Mask lt(VF a, VF b) {
  return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ);
}
inline VF::Mask isnan_mask(VF a) {
  return _mm512_cmp_ps_mask(a.v, a.v, _CMP_UNORD_Q);
}
inline VF select(VF::Mask m, VF a, VF b) {
  return {_mm512_mask_blend_ps(m, b.v, a.v)};
}
inline VF vexp(VF a) {
  return {Sleef_expf16_u10(a.v)};
}
inline VF vexpm1(VF a) {
  return {Sleef_expm1f16_u10(a.v)};
}
inline VF vlog(VF a) {
  return {Sleef_logf16_u10(a.v)};
}
inline VF vlog1p(VF a) {
  return {Sleef_log1pf16_u10(a.v)};
}
inline VF vtanh(VF a) {
  using C = TanhCoef;
  const __m512 x =
      _mm512_min_ps(_mm512_set1_ps(C::clamp), _mm512_max_ps(_mm512_set1_ps(-C::clamp), a.v));
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_fmadd_ps(x2, _mm512_set1_ps(C::num[0]), _mm512_set1_ps(C::num[1]));
  for (int k = 2; k < 7; ++k) p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(C::num[k]));
  p = _mm512_mul_ps(x, p);
  __m512 q = _mm512_fmadd_ps(x2, _mm512_set1_ps(C::den[0]), _mm512_set1_ps(C::den[1]));
  for (int k = 2; k < 4; ++k) q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(C::den[k]));
  const __m512 r = _mm512_div_ps(p, q);
  const __mmask16 tiny =
      _mm512_cmp_ps_mask(_mm512_abs_ps(a.v), _mm512_set1_ps(C::tiny), _CMP_LT_OQ);
  return {_mm512_mask_blend_ps(tiny, r, a.v)};
}
inline VF verf(VF a) {
  return {Sleef_erff16_u10(a.v)};
}

struct VD {
  static constexpr int W = 8;
  using T = double;
  __m512d v;
  using Mask = __mmask8;
  static VD load(const double* p) { return {_mm512_loadu_pd(p)}; }
  static VD load_partial(const double* p, int n) {
    return {_mm512_maskz_loadu_pd(__mmask8((1u << n) - 1), p)};
  }
  void store(double* p) const { _mm512_storeu_pd(p, v); }
  void store_partial(double* p, int n) const {
    _mm512_mask_storeu_pd(p, __mmask8((1u << n) - 1), v);
  }
  static VD set1(double x) { return {_mm512_set1_pd(x)}; }
};
inline VD operator+(VD a, VD b) {
  return {_mm512_add_pd(a.v, b.v)};
}
inline VD operator-(VD a, VD b) {
  return {_mm512_sub_pd(a.v, b.v)};
}
inline VD operator*(VD a, VD b) {
  return {_mm512_mul_pd(a.v, b.v)};
}
inline VD operator/(VD a, VD b) {
  return {_mm512_div_pd(a.v, b.v)};
}
inline VD operator-(VD a) {
  return {_mm512_xor_pd(a.v, _mm512_set1_pd(-0.0))};
}
inline VD vmax(VD a, VD b) {
  return {_mm512_max_pd(a.v, b.v)};
}
inline VD vmin(VD a, VD b) {
  return {_mm512_min_pd(a.v, b.v)};
}
inline VD vabs(VD a) {
  return {_mm512_abs_pd(a.v)};
}
inline VD vsqrt(VD a) {
  return {_mm512_sqrt_pd(a.v)};
}
inline VD::Mask gt(VD a, VD b) {
  return _mm512_cmp_pd_mask(a.v, b.v, _CMP_GT_OQ);
}
inline VD::Mask lt(VD a, VD b) {
  return _mm512_cmp_pd_mask(a.v, b.v, _CMP_LT_OQ);
}
inline VD::Mask isnan_mask(VD a) {
  return _mm512_cmp_pd_mask(a.v, a.v, _CMP_UNORD_Q);
}
inline VD select(VD::Mask m, VD a, VD b) {
  return {_mm512_mask_blend_pd(m, b.v, a.v)};
}
inline VD vexp(VD a) {
  return {Sleef_expd8_u10(a.v)};
}
inline VD vexpm1(VD a) {
  return {Sleef_expm1d8_u10(a.v)};
}
inline VD vlog(VD a) {
  return {Sleef_logd8_u10(a.v)};
}
inline VD vlog1p(VD a) {
  return {Sleef_log1pd8_u10(a.v)};
}
inline VD vtanh(VD a) {
  return {Sleef_tanhd8_u10(a.v)};
}
inline VD verf(VD a) {
  return {Sleef_erfd8_u10(a.v)};
}

// The remaining SLEEF functions, float and double.
#define TANDEM_SLEEF_UNARY(NAME, F16, D8) \
  inline VF NAME(VF a) {                  \
    return {F16(a.v)};                    \
  }                                       \
  inline VD NAME(VD a) {                  \
    return {D8(a.v)};                     \
  }
TANDEM_SLEEF_UNARY(vsin, Sleef_sinf16_u10, Sleef_sind8_u10)
TANDEM_SLEEF_UNARY(vcos, Sleef_cosf16_u10, Sleef_cosd8_u10)
TANDEM_SLEEF_UNARY(vtan, Sleef_tanf16_u10, Sleef_tand8_u10)
TANDEM_SLEEF_UNARY(vasin, Sleef_asinf16_u10, Sleef_asind8_u10)
TANDEM_SLEEF_UNARY(vacos, Sleef_acosf16_u10, Sleef_acosd8_u10)
TANDEM_SLEEF_UNARY(vatan, Sleef_atanf16_u10, Sleef_atand8_u10)
TANDEM_SLEEF_UNARY(vsinh, Sleef_sinhf16_u10, Sleef_sinhd8_u10)
TANDEM_SLEEF_UNARY(vcosh, Sleef_coshf16_u10, Sleef_coshd8_u10)
// SLEEF's asinhf overflows like its acoshf (below); there asinh(x) = sign(x) (log|x| + log 2).
inline VF vasinh(VF a) {
  const __m512 ax = _mm512_abs_ps(a.v);
  const __mmask16 big = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(1e18f), _CMP_GT_OQ);
  const __m512i l =
      _mm512_castps_si512(_mm512_add_ps(Sleef_logf16_u10(ax), _mm512_set1_ps(0.693147180559945f)));
  const __m512i sign =
      _mm512_and_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(int(0x80000000u)));
  const __m512 signed_l = _mm512_castsi512_ps(_mm512_or_si512(l, sign));
  return {_mm512_mask_blend_ps(big, Sleef_asinhf16_u10(a.v), signed_l)};
}
// The same overflow in double past about 1.3e154: there asinh(x) = sign(x) (log|x| + log 2).
inline VD vasinh(VD a) {
  const __m512d ax = _mm512_abs_pd(a.v);
  const __mmask8 big = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(1e150), _CMP_GT_OQ);
  const __m512i l =
      _mm512_castpd_si512(_mm512_add_pd(Sleef_logd8_u10(ax), _mm512_set1_pd(0.6931471805599453)));
  const __m512i sign =
      _mm512_and_si512(_mm512_castpd_si512(a.v), _mm512_set1_epi64(int64_t(0x8000000000000000ull)));
  const __m512d signed_l = _mm512_castsi512_pd(_mm512_or_si512(l, sign));
  return {_mm512_mask_blend_pd(big, Sleef_asinhd8_u10(a.v), signed_l)};
}
// SLEEF's acoshf overflows (inf) past about 1.8e19, where x * x does; there acosh(x) equals
// log(x) + log(2) to float precision (torch: acosh(1e30f) = 69.77).
inline VF vacosh(VF a) {
  const __mmask16 big = _mm512_cmp_ps_mask(a.v, _mm512_set1_ps(1e18f), _CMP_GT_OQ);
  const __m512 l = _mm512_add_ps(Sleef_logf16_u10(a.v), _mm512_set1_ps(0.693147180559945f));
  return {_mm512_mask_blend_ps(big, Sleef_acoshf16_u10(a.v), l)};
}
inline VD vacosh(VD a) {
  const __mmask8 big = _mm512_cmp_pd_mask(a.v, _mm512_set1_pd(1e150), _CMP_GT_OQ);
  const __m512d l = _mm512_add_pd(Sleef_logd8_u10(a.v), _mm512_set1_pd(0.6931471805599453));
  return {_mm512_mask_blend_pd(big, Sleef_acoshd8_u10(a.v), l)};
}
TANDEM_SLEEF_UNARY(vatanh, Sleef_atanhf16_u10, Sleef_atanhd8_u10)
TANDEM_SLEEF_UNARY(vexp2, Sleef_exp2f16_u10, Sleef_exp2d8_u10)
TANDEM_SLEEF_UNARY(vlog2, Sleef_log2f16_u10, Sleef_log2d8_u10)
TANDEM_SLEEF_UNARY(vlog10, Sleef_log10f16_u10, Sleef_log10d8_u10)
TANDEM_SLEEF_UNARY(verfc, Sleef_erfcf16_u15, Sleef_erfcd8_u15)
#undef TANDEM_SLEEF_UNARY
// Round half to even.
inline VF vround(VF a) {
  return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
inline VD vround(VD a) {
  return {_mm512_roundscale_pd(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
inline VF vpow(VF a, VF b) {
  return {Sleef_powf16_u10(a.v, b.v)};
}
inline VD vpow(VD a, VD b) {
  return {Sleef_powd8_u10(a.v, b.v)};
}
inline VF vatan2(VF a, VF b) {
  return {Sleef_atan2f16_u10(a.v, b.v)};
}
inline VD vatan2(VD a, VD b) {
  return {Sleef_atan2d8_u10(a.v, b.v)};
}

#elif TANDEM_SIMD_AVX2

namespace avx2_detail {
// Lanes [0, n) of an 8 x 32-bit (or 4 x 64-bit, as pairs) mask vector set.
inline __m256i first_lanes32(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline __m256i first_lanes64(int n) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}
}  // namespace avx2_detail

// AVX2 has no mask registers: a mask is a vector of all-ones / all-zeros lanes, and
// unsigned(mask) gives one bit per lane like the AVX-512 masks.
struct MaskF8 {
  __m256 m;
  explicit operator unsigned() const { return unsigned(_mm256_movemask_ps(m)); }
};
struct MaskD4 {
  __m256d m;
  explicit operator unsigned() const { return unsigned(_mm256_movemask_pd(m)); }
};

struct VF {
  static constexpr int W = 8;
  using T = float;
  __m256 v;
  using Mask = MaskF8;
  static VF load(const float* p) { return {_mm256_loadu_ps(p)}; }
  static VF load_partial(const float* p, int n) {
    return {_mm256_maskload_ps(p, avx2_detail::first_lanes32(n))};
  }
  void store(float* p) const { _mm256_storeu_ps(p, v); }
  void store_partial(float* p, int n) const {
    _mm256_maskstore_ps(p, avx2_detail::first_lanes32(n), v);
  }
  static VF set1(float x) { return {_mm256_set1_ps(x)}; }
};
inline VF operator+(VF a, VF b) {
  return {_mm256_add_ps(a.v, b.v)};
}
inline VF operator-(VF a, VF b) {
  return {_mm256_sub_ps(a.v, b.v)};
}
inline VF operator*(VF a, VF b) {
  return {_mm256_mul_ps(a.v, b.v)};
}
inline VF operator/(VF a, VF b) {
  return {_mm256_div_ps(a.v, b.v)};
}
inline VF operator-(VF a) {
  return {_mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f))};
}
inline VF vmax(VF a, VF b) {
  return {_mm256_max_ps(a.v, b.v)};
}
inline VF vmin(VF a, VF b) {
  return {_mm256_min_ps(a.v, b.v)};
}
inline VF vabs(VF a) {
  return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)};
}
inline VF vsqrt(VF a) {
  return {_mm256_sqrt_ps(a.v)};
}
inline MaskF8 gt(VF a, VF b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)};
}
inline MaskF8 lt(VF a, VF b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)};
}
inline MaskF8 isnan_mask(VF a) {
  return {_mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q)};
}
inline VF select(MaskF8 m, VF a, VF b) {
  return {_mm256_blendv_ps(b.v, a.v, m.m)};
}
inline VF vexp(VF a) {
  return {Sleef_expf8_u10avx2(a.v)};
}
inline VF vexpm1(VF a) {
  return {Sleef_expm1f8_u10avx2(a.v)};
}
inline VF vlog(VF a) {
  return {Sleef_logf8_u10avx2(a.v)};
}
inline VF vlog1p(VF a) {
  return {Sleef_log1pf8_u10avx2(a.v)};
}
// The same operations, in the same order, as the AVX-512 form and the fused kernel compiler.
inline VF vtanh(VF a) {
  using C = TanhCoef;
  const __m256 x =
      _mm256_min_ps(_mm256_set1_ps(C::clamp), _mm256_max_ps(_mm256_set1_ps(-C::clamp), a.v));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_fmadd_ps(x2, _mm256_set1_ps(C::num[0]), _mm256_set1_ps(C::num[1]));
  for (int k = 2; k < 7; ++k) p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(C::num[k]));
  p = _mm256_mul_ps(x, p);
  __m256 q = _mm256_fmadd_ps(x2, _mm256_set1_ps(C::den[0]), _mm256_set1_ps(C::den[1]));
  for (int k = 2; k < 4; ++k) q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(C::den[k]));
  const __m256 r = _mm256_div_ps(p, q);
  const __m256 tiny = _mm256_cmp_ps(vabs(a).v, _mm256_set1_ps(C::tiny), _CMP_LT_OQ);
  return {_mm256_blendv_ps(r, a.v, tiny)};
}
inline VF verf(VF a) {
  return {Sleef_erff8_u10avx2(a.v)};
}

struct VD {
  static constexpr int W = 4;
  using T = double;
  __m256d v;
  using Mask = MaskD4;
  static VD load(const double* p) { return {_mm256_loadu_pd(p)}; }
  static VD load_partial(const double* p, int n) {
    return {_mm256_maskload_pd(p, avx2_detail::first_lanes64(n))};
  }
  void store(double* p) const { _mm256_storeu_pd(p, v); }
  void store_partial(double* p, int n) const {
    _mm256_maskstore_pd(p, avx2_detail::first_lanes64(n), v);
  }
  static VD set1(double x) { return {_mm256_set1_pd(x)}; }
};
inline VD operator+(VD a, VD b) {
  return {_mm256_add_pd(a.v, b.v)};
}
inline VD operator-(VD a, VD b) {
  return {_mm256_sub_pd(a.v, b.v)};
}
inline VD operator*(VD a, VD b) {
  return {_mm256_mul_pd(a.v, b.v)};
}
inline VD operator/(VD a, VD b) {
  return {_mm256_div_pd(a.v, b.v)};
}
inline VD operator-(VD a) {
  return {_mm256_xor_pd(a.v, _mm256_set1_pd(-0.0))};
}
inline VD vmax(VD a, VD b) {
  return {_mm256_max_pd(a.v, b.v)};
}
inline VD vmin(VD a, VD b) {
  return {_mm256_min_pd(a.v, b.v)};
}
inline VD vabs(VD a) {
  return {_mm256_andnot_pd(_mm256_set1_pd(-0.0), a.v)};
}
inline VD vsqrt(VD a) {
  return {_mm256_sqrt_pd(a.v)};
}
inline MaskD4 gt(VD a, VD b) {
  return {_mm256_cmp_pd(a.v, b.v, _CMP_GT_OQ)};
}
inline MaskD4 lt(VD a, VD b) {
  return {_mm256_cmp_pd(a.v, b.v, _CMP_LT_OQ)};
}
inline MaskD4 isnan_mask(VD a) {
  return {_mm256_cmp_pd(a.v, a.v, _CMP_UNORD_Q)};
}
inline VD select(MaskD4 m, VD a, VD b) {
  return {_mm256_blendv_pd(b.v, a.v, m.m)};
}

#define TANDEM_SLEEF_UNARY(NAME, F8, D4) \
  inline VF NAME(VF a) {                 \
    return {F8(a.v)};                    \
  }                                      \
  inline VD NAME(VD a) {                 \
    return {D4(a.v)};                    \
  }
inline VD vexp(VD a) {
  return {Sleef_expd4_u10avx2(a.v)};
}
inline VD vexpm1(VD a) {
  return {Sleef_expm1d4_u10avx2(a.v)};
}
inline VD vlog(VD a) {
  return {Sleef_logd4_u10avx2(a.v)};
}
inline VD vlog1p(VD a) {
  return {Sleef_log1pd4_u10avx2(a.v)};
}
inline VD vtanh(VD a) {
  return {Sleef_tanhd4_u10avx2(a.v)};
}
inline VD verf(VD a) {
  return {Sleef_erfd4_u10avx2(a.v)};
}
TANDEM_SLEEF_UNARY(vsin, Sleef_sinf8_u10avx2, Sleef_sind4_u10avx2)
TANDEM_SLEEF_UNARY(vcos, Sleef_cosf8_u10avx2, Sleef_cosd4_u10avx2)
TANDEM_SLEEF_UNARY(vtan, Sleef_tanf8_u10avx2, Sleef_tand4_u10avx2)
TANDEM_SLEEF_UNARY(vasin, Sleef_asinf8_u10avx2, Sleef_asind4_u10avx2)
TANDEM_SLEEF_UNARY(vacos, Sleef_acosf8_u10avx2, Sleef_acosd4_u10avx2)
TANDEM_SLEEF_UNARY(vatan, Sleef_atanf8_u10avx2, Sleef_atand4_u10avx2)
TANDEM_SLEEF_UNARY(vsinh, Sleef_sinhf8_u10avx2, Sleef_sinhd4_u10avx2)
TANDEM_SLEEF_UNARY(vcosh, Sleef_coshf8_u10avx2, Sleef_coshd4_u10avx2)
TANDEM_SLEEF_UNARY(vatanh, Sleef_atanhf8_u10avx2, Sleef_atanhd4_u10avx2)
TANDEM_SLEEF_UNARY(vexp2, Sleef_exp2f8_u10avx2, Sleef_exp2d4_u10avx2)
TANDEM_SLEEF_UNARY(vlog2, Sleef_log2f8_u10avx2, Sleef_log2d4_u10avx2)
TANDEM_SLEEF_UNARY(vlog10, Sleef_log10f8_u10avx2, Sleef_log10d4_u10avx2)
TANDEM_SLEEF_UNARY(verfc, Sleef_erfcf8_u15avx2, Sleef_erfcd4_u15avx2)
#undef TANDEM_SLEEF_UNARY
// SLEEF's asinh / acosh overflow past about 1.8e19 (float) and 1.3e154 (double); see the
// AVX-512 forms.
inline VF vasinh(VF a) {
  const __m256 ax = vabs(a).v;
  const __m256 big = _mm256_cmp_ps(ax, _mm256_set1_ps(1e18f), _CMP_GT_OQ);
  const __m256 l = _mm256_add_ps(Sleef_logf8_u10avx2(ax), _mm256_set1_ps(0.693147180559945f));
  const __m256 signed_l = _mm256_or_ps(l, _mm256_and_ps(a.v, _mm256_set1_ps(-0.0f)));
  return {_mm256_blendv_ps(Sleef_asinhf8_u10avx2(a.v), signed_l, big)};
}
inline VD vasinh(VD a) {
  const __m256d ax = vabs(a).v;
  const __m256d big = _mm256_cmp_pd(ax, _mm256_set1_pd(1e150), _CMP_GT_OQ);
  const __m256d l = _mm256_add_pd(Sleef_logd4_u10avx2(ax), _mm256_set1_pd(0.6931471805599453));
  const __m256d signed_l = _mm256_or_pd(l, _mm256_and_pd(a.v, _mm256_set1_pd(-0.0)));
  return {_mm256_blendv_pd(Sleef_asinhd4_u10avx2(a.v), signed_l, big)};
}
inline VF vacosh(VF a) {
  const __m256 big = _mm256_cmp_ps(a.v, _mm256_set1_ps(1e18f), _CMP_GT_OQ);
  const __m256 l = _mm256_add_ps(Sleef_logf8_u10avx2(a.v), _mm256_set1_ps(0.693147180559945f));
  return {_mm256_blendv_ps(Sleef_acoshf8_u10avx2(a.v), l, big)};
}
inline VD vacosh(VD a) {
  const __m256d big = _mm256_cmp_pd(a.v, _mm256_set1_pd(1e150), _CMP_GT_OQ);
  const __m256d l = _mm256_add_pd(Sleef_logd4_u10avx2(a.v), _mm256_set1_pd(0.6931471805599453));
  return {_mm256_blendv_pd(Sleef_acoshd4_u10avx2(a.v), l, big)};
}
// Round half to even.
inline VF vround(VF a) {
  return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
inline VD vround(VD a) {
  return {_mm256_round_pd(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
inline VF vpow(VF a, VF b) {
  return {Sleef_powf8_u10avx2(a.v, b.v)};
}
inline VD vpow(VD a, VD b) {
  return {Sleef_powd4_u10avx2(a.v, b.v)};
}
inline VF vatan2(VF a, VF b) {
  return {Sleef_atan2f8_u10avx2(a.v, b.v)};
}
inline VD vatan2(VD a, VD b) {
  return {Sleef_atan2d4_u10avx2(a.v, b.v)};
}

#else  // scalar fallback: width-1 vectors over <cmath>

template <typename S>
struct VS {
  static constexpr int W = 1;
  using T = S;
  using Mask = bool;
  S v;
  static VS load(const S* p) { return {*p}; }
  static VS load_partial(const S* p, int) { return {*p}; }
  void store(S* p) const { *p = v; }
  void store_partial(S* p, int) const { *p = v; }
  static VS set1(S x) { return {x}; }
};
template <typename S>
VS<S> operator+(VS<S> a, VS<S> b) {
  return {a.v + b.v};
}
template <typename S>
VS<S> operator-(VS<S> a, VS<S> b) {
  return {a.v - b.v};
}
template <typename S>
VS<S> operator*(VS<S> a, VS<S> b) {
  return {a.v * b.v};
}
template <typename S>
VS<S> operator/(VS<S> a, VS<S> b) {
  return {a.v / b.v};
}
template <typename S>
VS<S> operator-(VS<S> a) {
  return {-a.v};
}
template <typename S>
VS<S> vmax(VS<S> a, VS<S> b) {
  return {a.v > b.v ? a.v : b.v};
}
template <typename S>
VS<S> vmin(VS<S> a, VS<S> b) {
  return {a.v < b.v ? a.v : b.v};
}
template <typename S>
VS<S> vabs(VS<S> a) {
  return {std::fabs(a.v)};
}
template <typename S>
VS<S> vsqrt(VS<S> a) {
  return {std::sqrt(a.v)};
}
template <typename S>
bool gt(VS<S> a, VS<S> b) {
  return a.v > b.v;
}
template <typename S>
bool lt(VS<S> a, VS<S> b) {
  return a.v < b.v;
}
template <typename S>
bool isnan_mask(VS<S> a) {
  return a.v != a.v;
}
template <typename S>
VS<S> select(bool m, VS<S> a, VS<S> b) {
  return m ? a : b;
}
template <typename S>
VS<S> vexp(VS<S> a) {
  return {std::exp(a.v)};
}
template <typename S>
VS<S> vexpm1(VS<S> a) {
  return {std::expm1(a.v)};
}
template <typename S>
VS<S> vlog(VS<S> a) {
  return {std::log(a.v)};
}
template <typename S>
VS<S> vlog1p(VS<S> a) {
  return {std::log1p(a.v)};
}
template <typename S>
VS<S> vtanh(VS<S> a) {
  return {std::tanh(a.v)};
}
template <typename S>
VS<S> verf(VS<S> a) {
  return {std::erf(a.v)};
}
#define TANDEM_STD_UNARY(NAME, FN) \
  template <typename S>            \
  VS<S> NAME(VS<S> a) {            \
    return {std::FN(a.v)};         \
  }
TANDEM_STD_UNARY(vsin, sin)
TANDEM_STD_UNARY(vcos, cos)
TANDEM_STD_UNARY(vtan, tan)
TANDEM_STD_UNARY(vasin, asin)
TANDEM_STD_UNARY(vacos, acos)
TANDEM_STD_UNARY(vatan, atan)
TANDEM_STD_UNARY(vsinh, sinh)
TANDEM_STD_UNARY(vcosh, cosh)
TANDEM_STD_UNARY(vasinh, asinh)
TANDEM_STD_UNARY(vacosh, acosh)
TANDEM_STD_UNARY(vatanh, atanh)
TANDEM_STD_UNARY(vexp2, exp2)
TANDEM_STD_UNARY(vlog2, log2)
TANDEM_STD_UNARY(vlog10, log10)
TANDEM_STD_UNARY(verfc, erfc)
#undef TANDEM_STD_UNARY
template <typename S>
VS<S> vpow(VS<S> a, VS<S> b) {
  return {std::pow(a.v, b.v)};
}
template <typename S>
VS<S> vround(VS<S> a) {
  return {__builtin_roundeven(a.v)};
}
template <typename S>
VS<S> vatan2(VS<S> a, VS<S> b) {
  return {std::atan2(a.v, b.v)};
}
using VF = VS<float>;
using VD = VS<double>;
#endif

template <typename T>
struct VecOf;
template <>
struct VecOf<float> {
  using type = VF;
};
template <>
struct VecOf<double> {
  using type = VD;
};

}  // namespace TANDEM_SIMD_NS
}  // namespace tandem::simd
