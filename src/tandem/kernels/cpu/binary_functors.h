// Scalar and SIMD forms of binary and ternary elementwise math (protocol: ew_loops.h).
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "tandem/kernels/cpu/ew_loops.h"

namespace tandem::fn {
inline namespace TANDEM_SIMD_NS {  // compiled per instruction set, as simd.h
using namespace simd;

#define TANDEM_BINARY_FN(NAME, EXPR, VEXPR) \
  struct NAME {                             \
    template <typename T>                   \
    static T s(T a, T b, const EwP& p) {    \
      return EXPR;                          \
    }                                       \
    template <typename V>                   \
    static V v(V a, V b, const EwP& p) {    \
      using T = typename V::T;              \
      return VEXPR;                         \
    }                                       \
  };
#define TANDEM_BINARY_FN_S(NAME, RET, EXPR) \
  struct NAME {                             \
    template <typename T>                   \
    static RET s(T a, T b, const EwP& p) {  \
      return EXPR;                          \
    }                                       \
  };

template <typename T>
constexpr bool fp = std::is_floating_point_v<T>;

// Signed integers wrap (two's complement) like numpy and PyTorch instead of overflowing,
// which would be undefined behaviour: compute them in the unsigned type of the same width.
template <typename T>
struct WrapOf {
  using type = T;
};
template <typename T>
requires(std::is_integral_v<T>&& std::is_signed_v<T>) struct WrapOf<T> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Wr = typename WrapOf<T>::type;

TANDEM_BINARY_FN_S(Add, T, T(Wr<T>(a) + Wr<T>(T(p.a)) * Wr<T>(b)))
TANDEM_BINARY_FN_S(Sub, T, T(Wr<T>(a) - Wr<T>(T(p.a)) * Wr<T>(b)))
TANDEM_BINARY_FN_S(Mul, T, T(Wr<T>(a) * Wr<T>(b)))
TANDEM_BINARY_FN(Div, a / b, a / b)
TANDEM_BINARY_FN(Pow, std::pow(a, b), vpow(a, b))
TANDEM_BINARY_FN(Atan2, std::atan2(a, b), vatan2(a, b))
TANDEM_BINARY_FN_S(Hypot, T, std::hypot(a, b))
TANDEM_BINARY_FN_S(Copysign, T, std::copysign(a, b))
// log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)), stable for large arguments. Equal
// infinities give themselves (a - b is nan there) and a nan operand gives nan.
struct Logaddexp {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    if (std::isinf(a) && a == b) return a;
    return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
  }
  template <typename V>
  static V v(V a, V b, const EwP&) {
    using T = typename V::T;
    V d = a - b;
    V r = vmax(a, b) + vlog1p(vexp(-vabs(select(isnan_mask(d), V::set1(T(0)), d))));
    return select(isnan_mask(a), a, select(isnan_mask(b), b, r));
  }
};
// maximum/minimum propagate NaN; fmax/fmin ignore it.
TANDEM_BINARY_FN_S(Maximum, T, T((a != a) ? a : ((b != b) ? b : (a > b ? a : b))))
TANDEM_BINARY_FN_S(Minimum, T, T((a != a) ? a : ((b != b) ? b : (a < b ? a : b))))
TANDEM_BINARY_FN_S(Fmax, T, T((a != a) ? b : ((b != b) ? a : (a > b ? a : b))))
// relu's gradient from its output: PyTorch's threshold_backward (a NaN gradient where the
// output is 0 gives 0, unlike a multiply by a mask).
// (out <= 0 ? 0 : grad: a NaN output passes the gradient, as in PyTorch.)
TANDEM_BINARY_FN_S(ReluBackward, T, (b <= T(0) ? T(0) : a))
TANDEM_BINARY_FN_S(Fmin, T, T((a != a) ? b : ((b != b) ? a : (a < b ? a : b))))

// Integer division with Python's floor semantics; divisor zero is rejected before the kernel
// runs, and -1 is special-cased so INT_MIN / -1 wraps instead of trapping.
struct FloorDivide {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if constexpr (fp<T>) {
      if (b == T(0)) return a / b;
      T m = std::fmod(a, b);
      T d = (a - m) / b;
      if (m != T(0) && ((b < T(0)) != (m < T(0)))) d -= T(1);
      if (d == T(0)) return std::copysign(T(0), a / b);
      T fd = std::floor(d);
      if (d - fd > T(0.5)) fd += T(1);
      return fd;
    } else {
      if (std::is_signed_v<T> && b == T(-1)) return T(0 - a);
      T q = T(a / b);
      if (std::is_signed_v<T> && (a % b != 0) && ((a < 0) != (b < 0))) q = T(q - 1);
      return q;
    }
  }
};
struct TruncDivide {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if constexpr (fp<T>) {
      return std::trunc(a / b);
    } else {
      if (std::is_signed_v<T> && b == T(-1)) return T(0 - a);
      return T(a / b);
    }
  }
};
struct Remainder {  // sign of the divisor (Python's %)
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if constexpr (fp<T>) {
      T r = std::fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    } else {
      if (std::is_signed_v<T> && b == T(-1)) return T(0);
      T r = T(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
      return r;
    }
  }
};
struct Fmod {  // sign of the dividend (C's fmod)
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if constexpr (fp<T>) {
      return std::fmod(a, b);
    } else {
      if (std::is_signed_v<T> && b == T(-1)) return T(0);
      return T(a % b);
    }
  }
};
// Integer power by squaring; negative exponents give 0 except for bases 1 and -1.
struct IntPow {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if constexpr (fp<T>) {
      return T(std::pow(a, b));
    } else {
      if (b < 0) return a == 1 ? T(1) : (a == T(-1) ? T((b & 1) ? -1 : 1) : T(0));
      using U = std::make_unsigned_t<T>;
      U r = 1, base = U(a);
      for (U e = U(b); e; e >>= 1, base = U(base * base))
        if (e & 1) r = U(r * base);
      return T(r);
    }
  }
};

TANDEM_BINARY_FN_S(Eq, bool, a == b)
TANDEM_BINARY_FN_S(Ne, bool, a != b)
TANDEM_BINARY_FN_S(Lt, bool, a < b)
TANDEM_BINARY_FN_S(Le, bool, a <= b)
TANDEM_BINARY_FN_S(Gt, bool, a > b)
TANDEM_BINARY_FN_S(Ge, bool, a >= b)
TANDEM_BINARY_FN_S(LogicalAnd, bool, bool(a) && bool(b))
TANDEM_BINARY_FN_S(LogicalOr, bool, bool(a) || bool(b))
TANDEM_BINARY_FN_S(LogicalXor, bool, bool(a) != bool(b))
TANDEM_BINARY_FN_S(BitAnd, T, T(a& b))
TANDEM_BINARY_FN_S(BitOr, T, T(a | b))
TANDEM_BINARY_FN_S(BitXor, T, T(a ^ b))
// Shifts past the bit width give 0 (or -1 for negative values shifted right), as in PyTorch.
struct ShiftLeft {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    using U = std::make_unsigned_t<T>;
    if (b < 0 || b >= T(sizeof(T) * 8)) return T(0);
    return T(U(a) << b);
  }
};
struct ShiftRight {
  template <typename T>
  static T s(T a, T b, const EwP&) {
    if (b < 0 || b >= T(sizeof(T) * 8)) return T(a < 0 ? -1 : 0);
    return T(a >> b);
  }
};

// Ternaries: where(cond, a, b) reads cond as bool; lerp / addcmul / addcdiv.
struct Where {
  template <typename T>
  static T s(bool c, T a, T b, const EwP&) {
    return c ? a : b;
  }
};
// where's loop: the driver hands over the condition as bool (EwInfo::promote_from = 1), so
// it must not be read as T like the other operands.
template <typename F, typename T, typename O>
struct WhereLoop {
  static void run(int64_t n, void* out, const void* const* in, const double*) {
    O* __restrict o = static_cast<O*>(out);
    const bool* __restrict c = static_cast<const bool*>(in[0]);
    const T* __restrict a = static_cast<const T*>(in[1]);
    const T* __restrict b = static_cast<const T*>(in[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = F::template s<T>(c[i], a[i], b[i], EwP{});
  }
  static VecFn32 vec32() { return nullptr; }
};
// clamp(x, lo, hi) with tensor bounds: minimum(maximum(x, lo), hi), NaN in any operand
// propagating (as PyTorch's clamp).
struct Clamp3 {
  template <typename T>
  static T s(T x, T lo, T hi, const EwP& p) {
    return Minimum::s(Maximum::s(x, lo, p), hi, p);
  }
};
struct Lerp {
  template <typename T>
  static T s(T a, T b, T w, const EwP&) {
    return std::fabs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
  }
};
struct Addcmul {
  template <typename T>
  static T s(T x, T a, T b, const EwP& p) {
    return T(x + T(p.a) * a * b);
  }
};
struct Addcdiv {
  template <typename T>
  static T s(T x, T a, T b, const EwP& p) {
    return T(x + (T(p.a) * a) / b);  // PyTorch's rounding order
  }
};
// isclose: |a - b| <= atol + rtol |b|, with inf == inf and optional nan == nan.
struct IsClose {
  template <typename T>
  static bool s(T a, T b, const EwP& p) {
    if constexpr (fp<T>) {
      if (a == b) return true;
      if (std::isnan(a) || std::isnan(b)) return p.c != 0 && std::isnan(a) && std::isnan(b);
      if (std::isinf(a) || std::isinf(b)) return false;
      return std::fabs(double(a) - double(b)) <= p.b + p.a * std::fabs(double(b));
    } else {
      double d = double(a) - double(b);
      return std::fabs(d) <= p.b + p.a * std::fabs(double(b));
    }
  }
};

}  // namespace TANDEM_SIMD_NS
}  // namespace tandem::fn
