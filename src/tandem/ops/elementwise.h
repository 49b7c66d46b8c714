// Elementwise ops: unary math and activations, binary arithmetic, comparisons, logical and
// bitwise ops, ternaries. All broadcast (numpy rules) and promote like PyTorch. A Python
// number operand is passed as Tensor::wrap_scalar (see scalar_tensor()).
#pragma once
#include <optional>
#include <string>

#include "tandem/core/tensor.h"

namespace tandem {

// A 0-d tensor for a Python number that promotes like a scalar (int tensor + 0.5 -> float).
Tensor scalar_tensor(Scalar s);

// --- unary -------------------------------------------------------------------------------
#define TANDEM_DECLARE_UNARY(name) Tensor name(const Tensor& x);
// X-macro lists, laid out by hand: clang-format cannot lay out bare macro calls stably.
// clang-format off
#define TANDEM_UNARY_OPS(X) \
  X(neg) X(abs) X(sign) X(square) X(floor) X(ceil) X(trunc) X(frac) X(relu) X(sqrt) X(rsqrt) \
  X(reciprocal) X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan) \
  X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh) X(acosh) X(atanh) X(erf) X(erfc) \
  X(erfinv) X(sigmoid) X(logsigmoid) X(silu) X(mish) X(hardsigmoid) X(hardswish) X(selu) \
  X(relu6) X(isnan) X(isinf) X(isfinite) X(isposinf) X(isneginf) X(signbit) X(logical_not) \
  X(bitwise_not)
// clang-format on
TANDEM_UNARY_OPS(TANDEM_DECLARE_UNARY)
#undef TANDEM_DECLARE_UNARY

Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor celu(const Tensor& x, double alpha = 1.0);
// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);
// clamp with optional scalar bounds; at least one must be given.
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
// clamp with tensor bounds (either may be undefined).
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);

// --- binary ------------------------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
// rounding_mode: "" (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode = "");
#define TANDEM_DECLARE_BINARY(name) Tensor name(const Tensor& a, const Tensor& b);
// clang-format off
#define TANDEM_BINARY_OPS(X) \
  X(floor_divide) X(remainder) X(fmod) X(pow) X(atan2) X(maximum) X(minimum) X(fmax) X(fmin) \
  X(hypot) X(copysign) X(logaddexp) X(eq) X(ne) X(lt) X(le) X(gt) X(ge) X(logical_and) \
  X(logical_or) X(logical_xor) X(bitwise_and) X(bitwise_or) X(bitwise_xor) \
  X(bitwise_left_shift) X(bitwise_right_shift)
// clang-format on
TANDEM_BINARY_OPS(TANDEM_DECLARE_BINARY)
#undef TANDEM_DECLARE_BINARY
// grad where output > 0, else 0: relu's backward in one pass.
Tensor relu_backward(const Tensor& grad, const Tensor& output);

// --- ternary -----------------------------------------------------------------------------
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
// clamp(x, lo, hi) with tensor bounds (one op, PyTorch's gradient masks); has_min / has_max
// false: that bound is a placeholder (the dtype's extreme) and gets no gradient.
Tensor clamp_tensor(const Tensor& x, const Tensor& lo, const Tensor& hi, bool has_min,
                    bool has_max);
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
// Same shape and same values.
bool equal(const Tensor& a, const Tensor& b);

// --- dtype conversion and copies -----------------------------------------------------------
// A copy converted to dtype (or this tensor when copy is false and the dtype matches).
Tensor to_dtype(const Tensor& x, DType dtype, bool copy = false);
Tensor clone(const Tensor& x);
// dst[...] = src (broadcast, converting dtype); returns dst.
const Tensor& copy_(const Tensor& dst, const Tensor& src);
const Tensor& fill_(const Tensor& dst, Scalar value);
// fill_ with a 0-d tensor's value (its gradient is the sum of dst's).
const Tensor& fill_(const Tensor& dst, const Tensor& value);

// In-place forms write the result into `self` (PyTorch's add_ etc.); self must hold the
// broadcast shape and a dtype the result can be cast to.
const Tensor& apply_inplace(const char* op_name, const Tensor& self, const Tensor& other,
                            Scalar alpha = 1);
const Tensor& apply_inplace_unary(const char* op_name, const Tensor& self);

}  // namespace tandem
