// Scalar and SIMD forms of the unary elementwise math (see ew_loops.h for the protocol).
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "tandem/kernels/cpu/ew_loops.h"

namespace tandem::fn {
inline namespace TANDEM_SIMD_NS {  // compiled per instruction set, as simd.h
using namespace simd;

template <typename T>
constexpr bool is_fp = std::is_floating_point_v<T>;

// A functor whose scalar form is EXPR on x and whose SIMD form is VEXPR on x.
#define TANDEM_UNARY_FN(NAME, EXPR, VEXPR) \
  struct NAME {                            \
    template <typename T>                  \
    static T s(T x, const EwP& p) {        \
      return EXPR;                         \
    }                                      \
    template <typename V>                  \
    static V v(V x, const EwP& p) {        \
      using T = typename V::T;             \
      return VEXPR;                        \
    }                                      \
  };
// Scalar form only (integer-friendly ops the compiler vectorizes by itself).
#define TANDEM_UNARY_FN_S(NAME, EXPR) \
  struct NAME {                       \
    template <typename T>             \
    static T s(T x, const EwP& p) {   \
      return EXPR;                    \
    }                                 \
  };

TANDEM_UNARY_FN_S(Neg, T(-x))
TANDEM_UNARY_FN_S(Abs, T(x < T(0) ? T(-x) : x))
TANDEM_UNARY_FN_S(Sign, T((T(0) < x) - (x < T(0))))
TANDEM_UNARY_FN_S(Square, T(x* x))
// if constexpr, not ?: -- the conditional's common type was double, so an int64 near 2^63
// went through double and came back as INT64_MIN.
TANDEM_UNARY_FN_S(Floor, [&] {
  if constexpr (is_fp<T>)
    return T(std::floor(x));
  else
    return x;
}())
TANDEM_UNARY_FN_S(Ceil, [&] {
  if constexpr (is_fp<T>)
    return T(std::ceil(x));
  else
    return x;
}())
TANDEM_UNARY_FN_S(Trunc, [&] {
  if constexpr (is_fp<T>)
    return T(std::trunc(x));
  else
    return x;
}())
TANDEM_UNARY_FN_S(Frac, T(x - std::trunc(x)))
// x < 0 ? 0 : x keeps NaN and -0.0 as PyTorch does (x > 0 ? x : 0 mapped NaN to 0).
TANDEM_UNARY_FN_S(Relu, T(x < T(0) ? T(0) : x))
TANDEM_UNARY_FN_S(Identity, x)
// Round half to even, optionally at p.a decimals (PyTorch's round(decimals=)).
struct Round {
  template <typename T>
  static T s(T x, const EwP& p) {
    if constexpr (!is_fp<T>) {
      return x;
    } else {
      if (p.a == 0) return __builtin_roundeven(x);
      T scale = T(std::pow(10.0, p.a));
      return __builtin_roundeven(x * scale) / scale;
    }
  }
  template <typename V>
  static V v(V x, const EwP& p) {
    using T = typename V::T;
    if (p.a == 0) return vround(x);
    V scale = V::set1(T(std::pow(10.0, p.a)));
    return vround(x * scale) / scale;
  }
};
// min(max(x, lo), hi): when lo > hi every element becomes hi, as in PyTorch and numpy.
// NaN passes through (the SIMD max/min would replace it, so it is selected back).
TANDEM_UNARY_FN(Clamp, T(std::isnan(double(x)) ? x : std::min(std::max(x, T(p.a)), T(p.b))),
                select(isnan_mask(x), x, vmin(vmax(x, V::set1(T(p.a))), V::set1(T(p.b)))))
TANDEM_UNARY_FN(ClampMin, T(std::isnan(double(x)) ? x : (x < T(p.a) ? T(p.a) : x)),
                select(isnan_mask(x), x, vmax(x, V::set1(T(p.a)))))
TANDEM_UNARY_FN(ClampMax, T(std::isnan(double(x)) ? x : (x > T(p.a) ? T(p.a) : x)),
                select(isnan_mask(x), x, vmin(x, V::set1(T(p.a)))))

TANDEM_UNARY_FN(Sqrt, std::sqrt(x), vsqrt(x))
TANDEM_UNARY_FN(Rsqrt, T(1) / std::sqrt(x), V::set1(T(1)) / vsqrt(x))
TANDEM_UNARY_FN(Reciprocal, T(1) / x, V::set1(T(1)) / x)
TANDEM_UNARY_FN(Exp, std::exp(x), vexp(x))
TANDEM_UNARY_FN(Exp2, std::exp2(x), vexp2(x))
TANDEM_UNARY_FN(Expm1, std::expm1(x), vexpm1(x))
TANDEM_UNARY_FN(Log, std::log(x), vlog(x))
TANDEM_UNARY_FN(Log2, std::log2(x), vlog2(x))
TANDEM_UNARY_FN(Log10, std::log10(x), vlog10(x))
TANDEM_UNARY_FN(Log1p, std::log1p(x), vlog1p(x))
TANDEM_UNARY_FN(Sin, std::sin(x), vsin(x))
TANDEM_UNARY_FN(Cos, std::cos(x), vcos(x))
TANDEM_UNARY_FN(Tan, std::tan(x), vtan(x))
TANDEM_UNARY_FN(Asin, std::asin(x), vasin(x))
TANDEM_UNARY_FN(Acos, std::acos(x), vacos(x))
TANDEM_UNARY_FN(Atan, std::atan(x), vatan(x))
TANDEM_UNARY_FN(Sinh, std::sinh(x), vsinh(x))
TANDEM_UNARY_FN(Cosh, std::cosh(x), vcosh(x))
TANDEM_UNARY_FN(Tanh, std::tanh(x), vtanh(x))
TANDEM_UNARY_FN(Asinh, std::asinh(x), vasinh(x))
TANDEM_UNARY_FN(Acosh, std::acosh(x), vacosh(x))
TANDEM_UNARY_FN(Atanh, std::atanh(x), vatanh(x))
TANDEM_UNARY_FN(Erf, std::erf(x), verf(x))
TANDEM_UNARY_FN(Erfc, std::erfc(x), verfc(x))
TANDEM_UNARY_FN(Sigmoid, T(1) / (T(1) + std::exp(-x)), V::set1(T(1)) / (V::set1(T(1)) + vexp(-x)))
// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|.
TANDEM_UNARY_FN(LogSigmoid, std::min(x, T(0)) - std::log1p(std::exp(-std::fabs(x))),
                vmin(x, V::set1(T(0))) - vlog1p(vexp(-vabs(x))))
TANDEM_UNARY_FN(Silu, x / (T(1) + std::exp(-x)), x / (V::set1(T(1)) + vexp(-x)))
// softplus(x) = log1p(exp(beta x)) / beta, linear above threshold (PyTorch's definition).
TANDEM_UNARY_FN(Softplus, x* T(p.a) > T(p.b) ? x : std::log1p(std::exp(x * T(p.a))) / T(p.a),
                select(gt(x* V::set1(T(p.a)), V::set1(T(p.b))), x,
                       vlog1p(vexp(x* V::set1(T(p.a)))) / V::set1(T(p.a))))
// mish(x) = x tanh(softplus(x)); softplus written stably as max(x,0) + log1p(exp(-|x|)).
TANDEM_UNARY_FN(Mish, x* std::tanh(std::max(x, T(0)) + std::log1p(std::exp(-std::fabs(x)))),
                x* vtanh(vmax(x, V::set1(T(0))) + vlog1p(vexp(-vabs(x)))))
TANDEM_UNARY_FN(GeluErf, T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2))),
                V::set1(T(0.5)) * x * (V::set1(T(1)) + verf(x * V::set1(T(M_SQRT1_2)))))
TANDEM_UNARY_FN(GeluTanh,
                T(0.5) * x *
                    (T(1) + std::tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x))),
                V::set1(T(0.5)) * x *
                    (V::set1(T(1)) + vtanh(V::set1(T(0.7978845608028654)) *
                                           (x + V::set1(T(0.044715)) * x * x * x))))
// elu with alpha = p.a, scale = p.b, input_scale = p.c (selu and celu are special cases).
TANDEM_UNARY_FN(Elu, x > T(0) ? T(p.b) * x : T(p.b) * T(p.a) * std::expm1(x * T(p.c)),
                select(gt(x, V::set1(T(0))), V::set1(T(p.b)) * x,
                       V::set1(T(p.b* p.a)) * vexpm1(x * V::set1(T(p.c)))))
TANDEM_UNARY_FN(LeakyRelu, x > T(0) ? x : x * T(p.a),
                select(gt(x, V::set1(T(0))), x, x* V::set1(T(p.a))))
// The SIMD min/max return their second operand for NaN: the value goes second, so NaN stays.
TANDEM_UNARY_FN(Hardsigmoid, std::min(std::max(x / T(6) + T(0.5), T(0)), T(1)),
                vmin(V::set1(T(1)), vmax(V::set1(T(0)), x / V::set1(T(6)) + V::set1(T(0.5)))))
TANDEM_UNARY_FN(Hardswish, x* std::min(std::max(x + T(3), T(0)), T(6)) / T(6),
                x* vmin(vmax(x + V::set1(T(3)), V::set1(T(0))), V::set1(T(6))) / V::set1(T(6)))

// erfinv: Giles' single-precision approximation, then two Newton steps on erf so float64
// reaches full precision.
struct Erfinv {
  template <typename T>
  static T s(T x, const EwP&) {
    if (x <= T(-1))
      return x == T(-1) ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
    if (x >= T(1))
      return x == T(1) ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
    double w = -std::log((1.0 - double(x)) * (1.0 + double(x))), r;
    if (w < 5.0) {
      w -= 2.5;
      r = 2.81022636e-08;
      r = 3.43273939e-07 + r * w;
      r = -3.5233877e-06 + r * w;
      r = -4.39150654e-06 + r * w;
      r = 0.00021858087 + r * w;
      r = -0.00125372503 + r * w;
      r = -0.00417768164 + r * w;
      r = 0.246640727 + r * w;
      r = 1.50140941 + r * w;
    } else {
      w = std::sqrt(w) - 3.0;
      r = -0.000200214257;
      r = 0.000100950558 + r * w;
      r = 0.00134934322 + r * w;
      r = -0.00367342844 + r * w;
      r = 0.00573950773 + r * w;
      r = -0.0076224613 + r * w;
      r = 0.00943887047 + r * w;
      r = 1.00167406 + r * w;
      r = 2.83297682 + r * w;
    }
    double y = r * double(x);
    for (int k = 0; k < 2; ++k)  // Newton: y -= (erf(y) - x) / (2/sqrt(pi) exp(-y^2))
      y -= (std::erf(y) - double(x)) / (1.1283791670955126 * std::exp(-y * y));
    return T(y);
  }
};

// nan_to_num: nan -> p.a, +inf -> p.b, -inf -> p.c.
struct NanToNum {
  template <typename T>
  static T s(T x, const EwP& p) {
    if constexpr (!is_fp<T>) {
      return x;
    } else {
      if (std::isnan(x)) return T(p.a);
      if (std::isinf(x)) return x > 0 ? T(p.b) : T(p.c);
      return x;
    }
  }
};

// Predicates write bool.
#define TANDEM_PRED_FN(NAME, EXPR, INT_EXPR) \
  struct NAME {                              \
    template <typename T>                    \
    static bool s(T x, const EwP&) {         \
      if constexpr (is_fp<T>) {              \
        return EXPR;                         \
      } else {                               \
        return INT_EXPR;                     \
      }                                      \
    }                                        \
  };
TANDEM_PRED_FN(IsNan, std::isnan(x), false)
TANDEM_PRED_FN(IsInf, std::isinf(x), false)
TANDEM_PRED_FN(IsFinite, std::isfinite(x), true)
TANDEM_PRED_FN(IsPosInf, std::isinf(x) && x > 0, false)
TANDEM_PRED_FN(IsNegInf, std::isinf(x) && x < 0, false)
TANDEM_PRED_FN(Signbit, std::signbit(x), x < T(0))

TANDEM_UNARY_FN_S(LogicalNot, bool(!x))
TANDEM_UNARY_FN_S(BitwiseNot, T(std::is_same_v<T, bool> ? !x : ~x))

}  // namespace TANDEM_SIMD_NS
}  // namespace tandem::fn
