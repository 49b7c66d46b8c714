// Unary elementwise OpDefs: math, activations, rounding, predicates.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/unary_functors.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"

namespace tandem {
namespace {

template <typename F, typename Out, typename... Ts>
EwFnTable unary_table() {
  return make_table<UnaryLoop, F, Out, Ts...>();
}

// Keeps the input's dtype; ints and bool too.
#define KEEP_ALL(F) unary_table<fn::F, void, TANDEM_ALL_TYPES>()
#define KEEP_NUMERIC(F) unary_table<fn::F, void, TANDEM_NUMERIC_TYPES>()
#define FLOATS(F) unary_table<fn::F, void, TANDEM_FLOAT_TYPES>()
#define PRED(F) unary_table<fn::F, bool, TANDEM_ALL_TYPES>()

#define DEFINE_UNARY(NAME, INFO_INIT)                      \
  const EwInfo NAME##_info INFO_INIT;                      \
  const OpDef NAME##_op = make_ew_op(#NAME, &NAME##_info); \
  TANDEM_REGISTER_OP(NAME##_op)

DEFINE_UNARY(neg, ({EwPolicy::Promote, KEEP_NUMERIC(Neg), {}, true}))
DEFINE_UNARY(abs, ({EwPolicy::Promote, KEEP_ALL(Abs)}))
DEFINE_UNARY(sign, ({EwPolicy::Promote, KEEP_ALL(Sign)}))
DEFINE_UNARY(square, ({EwPolicy::Promote, KEEP_ALL(Square)}))
DEFINE_UNARY(floor, ({EwPolicy::Promote, KEEP_NUMERIC(Floor)}))
DEFINE_UNARY(ceil, ({EwPolicy::Promote, KEEP_NUMERIC(Ceil)}))
DEFINE_UNARY(trunc, ({EwPolicy::Promote, KEEP_NUMERIC(Trunc)}))
DEFINE_UNARY(round, ({EwPolicy::Promote, KEEP_NUMERIC(Round), {"decimals"}}))
DEFINE_UNARY(frac, ({EwPolicy::FloatOnly, FLOATS(Frac)}))
DEFINE_UNARY(relu, ({EwPolicy::Promote, KEEP_NUMERIC(Relu)}))
DEFINE_UNARY(clamp, ({EwPolicy::Promote, KEEP_NUMERIC(Clamp), {"min", "max"}}))
DEFINE_UNARY(clamp_min, ({EwPolicy::Promote, KEEP_NUMERIC(ClampMin), {"min"}}))
DEFINE_UNARY(clamp_max, ({EwPolicy::Promote, KEEP_NUMERIC(ClampMax), {"max"}}))
DEFINE_UNARY(sqrt, ({EwPolicy::PromoteFloat, FLOATS(Sqrt)}))
DEFINE_UNARY(rsqrt, ({EwPolicy::PromoteFloat, FLOATS(Rsqrt)}))
DEFINE_UNARY(reciprocal, ({EwPolicy::PromoteFloat, FLOATS(Reciprocal)}))
DEFINE_UNARY(exp, ({EwPolicy::PromoteFloat, FLOATS(Exp)}))
DEFINE_UNARY(exp2, ({EwPolicy::PromoteFloat, FLOATS(Exp2)}))
DEFINE_UNARY(expm1, ({EwPolicy::PromoteFloat, FLOATS(Expm1)}))
DEFINE_UNARY(log, ({EwPolicy::PromoteFloat, FLOATS(Log)}))
DEFINE_UNARY(log2, ({EwPolicy::PromoteFloat, FLOATS(Log2)}))
DEFINE_UNARY(log10, ({EwPolicy::PromoteFloat, FLOATS(Log10)}))
DEFINE_UNARY(log1p, ({EwPolicy::PromoteFloat, FLOATS(Log1p)}))
DEFINE_UNARY(sin, ({EwPolicy::PromoteFloat, FLOATS(Sin)}))
DEFINE_UNARY(cos, ({EwPolicy::PromoteFloat, FLOATS(Cos)}))
DEFINE_UNARY(tan, ({EwPolicy::PromoteFloat, FLOATS(Tan)}))
DEFINE_UNARY(asin, ({EwPolicy::PromoteFloat, FLOATS(Asin)}))
DEFINE_UNARY(acos, ({EwPolicy::PromoteFloat, FLOATS(Acos)}))
DEFINE_UNARY(atan, ({EwPolicy::PromoteFloat, FLOATS(Atan)}))
DEFINE_UNARY(sinh, ({EwPolicy::PromoteFloat, FLOATS(Sinh)}))
DEFINE_UNARY(cosh, ({EwPolicy::PromoteFloat, FLOATS(Cosh)}))
DEFINE_UNARY(tanh, ({EwPolicy::PromoteFloat, FLOATS(Tanh)}))
DEFINE_UNARY(asinh, ({EwPolicy::PromoteFloat, FLOATS(Asinh)}))
DEFINE_UNARY(acosh, ({EwPolicy::PromoteFloat, FLOATS(Acosh)}))
DEFINE_UNARY(atanh, ({EwPolicy::PromoteFloat, FLOATS(Atanh)}))
DEFINE_UNARY(erf, ({EwPolicy::PromoteFloat, FLOATS(Erf)}))
DEFINE_UNARY(erfc, ({EwPolicy::PromoteFloat, FLOATS(Erfc)}))
DEFINE_UNARY(erfinv, ({EwPolicy::PromoteFloat, FLOATS(Erfinv)}))
DEFINE_UNARY(sigmoid, ({EwPolicy::PromoteFloat, FLOATS(Sigmoid)}))
DEFINE_UNARY(logsigmoid, ({EwPolicy::FloatOnly, FLOATS(LogSigmoid)}))
DEFINE_UNARY(silu, ({EwPolicy::FloatOnly, FLOATS(Silu)}))
DEFINE_UNARY(mish, ({EwPolicy::FloatOnly, FLOATS(Mish)}))
DEFINE_UNARY(gelu, ({EwPolicy::FloatOnly, FLOATS(GeluErf)}))
DEFINE_UNARY(gelu_tanh, ({EwPolicy::FloatOnly, FLOATS(GeluTanh)}))
DEFINE_UNARY(softplus, ({EwPolicy::FloatOnly, FLOATS(Softplus), {"beta", "threshold"}}))
DEFINE_UNARY(elu, ({EwPolicy::FloatOnly, FLOATS(Elu), {"alpha", "scale", "input_scale"}}))
DEFINE_UNARY(leaky_relu, ({EwPolicy::FloatOnly, FLOATS(LeakyRelu), {"negative_slope"}}))
DEFINE_UNARY(hardsigmoid, ({EwPolicy::FloatOnly, FLOATS(Hardsigmoid)}))
DEFINE_UNARY(hardswish, ({EwPolicy::FloatOnly, FLOATS(Hardswish)}))
DEFINE_UNARY(nan_to_num, ({EwPolicy::Promote,
                           KEEP_ALL(NanToNum),
                           {"nan", "posinf", "neginf"},
                           false,
                           0,
                           EwOperandCheck::None,
                           false}))
DEFINE_UNARY(isnan, ({EwPolicy::Predicate, PRED(IsNan)}))
DEFINE_UNARY(isinf, ({EwPolicy::Predicate, PRED(IsInf)}))
DEFINE_UNARY(isfinite, ({EwPolicy::Predicate, PRED(IsFinite)}))
DEFINE_UNARY(isposinf, ({EwPolicy::Predicate, PRED(IsPosInf)}))
DEFINE_UNARY(isneginf, ({EwPolicy::Predicate, PRED(IsNegInf)}))
DEFINE_UNARY(signbit, ({EwPolicy::Predicate, PRED(Signbit)}))
DEFINE_UNARY(logical_not, ({EwPolicy::Predicate, PRED(LogicalNot)}))
DEFINE_UNARY(bitwise_not,
             ({EwPolicy::Integral, unary_table<fn::BitwiseNot, void, bool, TANDEM_INT_TYPES>()}))

// Integer bounds outside the dtype's range saturate (clamping a uint8 tensor at -2 is
// clamping at 0) instead of wrapping or overflowing when the kernel converts them.
double saturate_bound(double v, DType t) {
  double lo, hi;
  switch (t) {
    case DType::UInt8:
      lo = 0, hi = 255;
      break;
    case DType::Int8:
      lo = -128, hi = 127;
      break;
    case DType::Int16:
      lo = -32768, hi = 32767;
      break;
    case DType::Int32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::Int64:
      lo = -9223372036854775808.0, hi = 9223372036854774784.0;
      break;
    default:
      return v;
  }
  return std::min(std::max(v, lo), hi);
}

// --- backward rules --------------------------------------------------------------------
Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}
// A 0/1 tensor of g's dtype from a predicate (gradients through it are zero).
Tensor mask(const Tensor& cond, const Tensor& g) {
  return to_dtype(cond, g.dtype());
}
Tensor zero_grad(const Tensor& g) {
  return zeros(g.shape(), g.dtype());
}

std::vector<Tensor> neg_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {neg(g[0])};
}
std::vector<Tensor> exp_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], c.outputs[0])};
}
std::vector<Tensor> log_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], c.inputs[0])};
}
std::vector<Tensor> tanh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {mul(g[0], sub(scalar_tensor(Scalar(1.0)), mul(y, y)))};
}
std::vector<Tensor> sigmoid_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {mul(g[0], mul(y, sub(scalar_tensor(Scalar(1.0)), y)))};
}
// From the output (y > 0 exactly where x > 0): the input, often a batch-norm or residual
// sum, can then be freed in a compiled graph, while y is kept anyway for the next layer.
std::vector<Tensor> relu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {relu_backward(g[0], c.outputs[0])};
}

// Step functions (sign, floor, ...) are flat almost everywhere: zero, as in PyTorch.
std::vector<Tensor> zero_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {zero_grad(g[0])};
}
std::vector<Tensor> identity_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {g[0]};
}
std::vector<Tensor> abs_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], sign(c.inputs[0]))};
}
// clamp passes the gradient where the input lies inside the bounds, bounds included;
// hardtanh (the "open" attribute) excludes them, as PyTorch's hardtanh_backward does.
std::vector<Tensor> clamp_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor lo = num(c.attrs.get_float("min")), hi = num(c.attrs.get_float("max"));
  // hardtanh_backward zeroes where x <= lo or x >= hi, so a NaN input passes the gradient;
  // clamp's mask (lo <= x <= hi) drops it, as in PyTorch.
  Tensor in = c.attrs.get_bool_or("open", false) ? logical_not(logical_or(le(x, lo), ge(x, hi)))
                                                 : logical_and(ge(x, lo), le(x, hi));
  return {mul(g[0], mask(in, g[0]))};
}
std::vector<Tensor> clamp_min_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], mask(ge(c.inputs[0], num(c.attrs.get_float("min"))), g[0]))};
}
std::vector<Tensor> clamp_max_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], mask(le(c.inputs[0], num(c.attrs.get_float("max"))), g[0]))};
}
std::vector<Tensor> sqrt_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], mul(c.outputs[0], num(2.0)))};
}
std::vector<Tensor> rsqrt_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {mul(g[0], mul(mul(y, mul(y, y)), num(-0.5)))};
}
std::vector<Tensor> reciprocal_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {neg(mul(g[0], mul(y, y)))};
}
std::vector<Tensor> square_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], mul(c.inputs[0], num(2.0)))};
}
std::vector<Tensor> exp2_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], mul(c.outputs[0], num(M_LN2)))};
}
std::vector<Tensor> expm1_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], add(c.outputs[0], num(1.0)))};
}
std::vector<Tensor> log2_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], mul(c.inputs[0], num(M_LN2)))};
}
std::vector<Tensor> log10_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], mul(c.inputs[0], num(M_LN10)))};
}
std::vector<Tensor> log1p_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], add(c.inputs[0], num(1.0)))};
}
std::vector<Tensor> sin_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], cos(c.inputs[0]))};
}
std::vector<Tensor> cos_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {neg(mul(g[0], sin(c.inputs[0])))};
}
std::vector<Tensor> tan_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {mul(g[0], add(mul(y, y), num(1.0)))};
}
// 1 - x^2, x^2 - 1 and x^2 + 1 for the inverse trigonometric and hyperbolic functions.
Tensor one_minus_sq(const Tensor& x) {
  return sub(num(1.0), mul(x, x));
}
std::vector<Tensor> asin_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], rsqrt(one_minus_sq(c.inputs[0])))};
}
std::vector<Tensor> acos_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {neg(mul(g[0], rsqrt(one_minus_sq(c.inputs[0]))))};
}
std::vector<Tensor> atan_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {div(g[0], add(mul(x, x), num(1.0)))};
}
std::vector<Tensor> sinh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], cosh(c.inputs[0]))};
}
std::vector<Tensor> cosh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], sinh(c.inputs[0]))};
}
std::vector<Tensor> asinh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {mul(g[0], rsqrt(add(mul(x, x), num(1.0))))};
}
std::vector<Tensor> acosh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {mul(g[0], rsqrt(sub(mul(x, x), num(1.0))))};
}
std::vector<Tensor> atanh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {div(g[0], one_minus_sq(c.inputs[0]))};
}
constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // d/dx erf(x) = 2/sqrt(pi) e^(-x^2)
std::vector<Tensor> erf_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {mul(g[0], mul(exp(neg(mul(x, x))), num(kTwoOverSqrtPi)))};
}
std::vector<Tensor> erfc_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {mul(g[0], mul(exp(neg(mul(x, x))), num(-kTwoOverSqrtPi)))};
}
std::vector<Tensor> erfinv_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& y = c.outputs[0];
  return {mul(g[0], mul(exp(mul(y, y)), num(1.0 / kTwoOverSqrtPi)))};
}
std::vector<Tensor> logsigmoid_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], sigmoid(neg(c.inputs[0])))};  // 1 - sigmoid(x)
}
std::vector<Tensor> silu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor s = sigmoid(x);
  return {mul(g[0], mul(s, add(mul(x, sub(num(1.0), s)), num(1.0))))};
}
// mish = x tanh(softplus(x)): tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x).
std::vector<Tensor> mish_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor t = tanh(softplus(x));
  return {mul(g[0], add(t, mul(mul(x, one_minus_sq(t)), sigmoid(x))))};
}
std::vector<Tensor> gelu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor cdf = mul(add(erf(mul(x, num(M_SQRT1_2))), num(1.0)), num(0.5));
  Tensor pdf = mul(exp(mul(mul(x, x), num(-0.5))), num(0.3989422804014327));  // 1/sqrt(2 pi)
  return {mul(g[0], add(cdf, mul(x, pdf)))};
}
std::vector<Tensor> gelu_tanh_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  constexpr double k = 0.7978845608028654, a = 0.044715;  // sqrt(2/pi), as in the kernel
  const Tensor& x = c.inputs[0];
  Tensor x2 = mul(x, x);
  Tensor t = tanh(mul(add(x, mul(mul(x2, x), num(a))), num(k)));
  Tensor dinner = mul(add(mul(x2, num(3 * a)), num(1.0)), num(k));
  Tensor d = mul(add(add(t, num(1.0)), mul(mul(x, one_minus_sq(t)), dinner)), num(0.5));
  return {mul(g[0], d)};
}
// elu family: scale * x above 0, scale * alpha * expm1(input_scale * x) below.
std::vector<Tensor> elu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  double alpha = c.attrs.get_float("alpha"), scale = c.attrs.get_float("scale");
  double in_scale = c.attrs.get_float("input_scale");
  // where, not a 0/1 mask: exp overflows for large positive x in the unused branch.
  // x <= 0 picks the exponential side, as torch's elu_backward does: a NaN input takes the
  // linear side's slope.
  Tensor neg_side = mul(exp(mul(x, num(in_scale))), num(scale * alpha * in_scale));
  return {mul(g[0], where(le(x, num(0.0)), neg_side, num(scale)))};
}
std::vector<Tensor> leaky_relu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  // where, not a 0/1 mask: an infinite slope times a 0 mask would be NaN on the positive side.
  double slope = c.attrs.get_float("negative_slope");
  return {where(gt(c.inputs[0], num(0.0)), g[0], mul(g[0], num(slope)))};
}
std::vector<Tensor> softplus_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  double beta = c.attrs.get_float("beta"), threshold = c.attrs.get_float("threshold");
  Tensor bx = mul(x, num(beta));
  Tensor lin = mask(gt(bx, num(threshold)), g[0]);
  return {mul(g[0], add(lin, mul(sub(num(1.0), lin), sigmoid(bx))))};
}
std::vector<Tensor> hardsigmoid_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor in = logical_and(gt(x, num(-3.0)), lt(x, num(3.0)));
  return {mul(g[0], mul(mask(in, g[0]), num(1.0 / 6)))};
}
// hardswish: 0 up to -3, x/3 + 1/2 inside (-3, 3), 1 from 3 (PyTorch's boundary choices);
// nested wheres, not masks, so x = +inf has slope 1 (not 0 * inf) and NaN takes the last
// branch, as in torch.
std::vector<Tensor> hardswish_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  Tensor slope = where(le(x, num(-3.0)), num(0.0),
                       where(lt(x, num(3.0)), add(div(x, num(3.0)), num(0.5)), num(1.0)));
  return {mul(g[0], slope)};
}
std::vector<Tensor> nan_to_num_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], mask(isfinite(c.inputs[0]), g[0]))};
}

TANDEM_DEFINE_VJP(neg_op, neg_vjp)
TANDEM_DEFINE_VJP(exp_op, exp_vjp)
TANDEM_DEFINE_VJP(log_op, log_vjp)
TANDEM_DEFINE_VJP(tanh_op, tanh_vjp)
TANDEM_DEFINE_VJP(sigmoid_op, sigmoid_vjp)
TANDEM_DEFINE_VJP(relu_op, relu_vjp)
TANDEM_DEFINE_VJP(abs_op, abs_vjp)
TANDEM_DEFINE_VJP(sign_op, zero_vjp)
TANDEM_DEFINE_VJP(floor_op, zero_vjp)
TANDEM_DEFINE_VJP(ceil_op, zero_vjp)
TANDEM_DEFINE_VJP(trunc_op, zero_vjp)
TANDEM_DEFINE_VJP(round_op, zero_vjp)
TANDEM_DEFINE_VJP(frac_op, identity_vjp)
TANDEM_DEFINE_VJP(clamp_op, clamp_vjp)
TANDEM_DEFINE_VJP(clamp_min_op, clamp_min_vjp)
TANDEM_DEFINE_VJP(clamp_max_op, clamp_max_vjp)
TANDEM_DEFINE_VJP(sqrt_op, sqrt_vjp)
TANDEM_DEFINE_VJP(rsqrt_op, rsqrt_vjp)
TANDEM_DEFINE_VJP(reciprocal_op, reciprocal_vjp)
TANDEM_DEFINE_VJP(square_op, square_vjp)
TANDEM_DEFINE_VJP(exp2_op, exp2_vjp)
TANDEM_DEFINE_VJP(expm1_op, expm1_vjp)
TANDEM_DEFINE_VJP(log2_op, log2_vjp)
TANDEM_DEFINE_VJP(log10_op, log10_vjp)
TANDEM_DEFINE_VJP(log1p_op, log1p_vjp)
TANDEM_DEFINE_VJP(sin_op, sin_vjp)
TANDEM_DEFINE_VJP(cos_op, cos_vjp)
TANDEM_DEFINE_VJP(tan_op, tan_vjp)
TANDEM_DEFINE_VJP(asin_op, asin_vjp)
TANDEM_DEFINE_VJP(acos_op, acos_vjp)
TANDEM_DEFINE_VJP(atan_op, atan_vjp)
TANDEM_DEFINE_VJP(sinh_op, sinh_vjp)
TANDEM_DEFINE_VJP(cosh_op, cosh_vjp)
TANDEM_DEFINE_VJP(asinh_op, asinh_vjp)
TANDEM_DEFINE_VJP(acosh_op, acosh_vjp)
TANDEM_DEFINE_VJP(atanh_op, atanh_vjp)
TANDEM_DEFINE_VJP(erf_op, erf_vjp)
TANDEM_DEFINE_VJP(erfc_op, erfc_vjp)
TANDEM_DEFINE_VJP(erfinv_op, erfinv_vjp)
TANDEM_DEFINE_VJP(logsigmoid_op, logsigmoid_vjp)
TANDEM_DEFINE_VJP(silu_op, silu_vjp)
TANDEM_DEFINE_VJP(mish_op, mish_vjp)
TANDEM_DEFINE_VJP(gelu_op, gelu_vjp)
TANDEM_DEFINE_VJP(gelu_tanh_op, gelu_tanh_vjp)
TANDEM_DEFINE_VJP(elu_op, elu_vjp)
TANDEM_DEFINE_VJP(leaky_relu_op, leaky_relu_vjp)
TANDEM_DEFINE_VJP(softplus_op, softplus_vjp)
TANDEM_DEFINE_VJP(hardsigmoid_op, hardsigmoid_vjp)
TANDEM_DEFINE_VJP(hardswish_op, hardswish_vjp)
TANDEM_DEFINE_VJP(nan_to_num_op, nan_to_num_vjp)
TANDEM_NOT_DIFFERENTIABLE(isnan_op)
TANDEM_NOT_DIFFERENTIABLE(isinf_op)
TANDEM_NOT_DIFFERENTIABLE(isfinite_op)
TANDEM_NOT_DIFFERENTIABLE(isposinf_op)
TANDEM_NOT_DIFFERENTIABLE(isneginf_op)
TANDEM_NOT_DIFFERENTIABLE(signbit_op)
TANDEM_NOT_DIFFERENTIABLE(logical_not_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_not_op)

}  // namespace

#define TANDEM_DEFINE_UNARY_FN(name)     \
  Tensor name(const Tensor& x) {         \
    return dispatch_unary(name##_op, x); \
  }
TANDEM_DEFINE_UNARY_FN(neg)
TANDEM_DEFINE_UNARY_FN(abs)
TANDEM_DEFINE_UNARY_FN(sign)
TANDEM_DEFINE_UNARY_FN(floor)
TANDEM_DEFINE_UNARY_FN(ceil)
TANDEM_DEFINE_UNARY_FN(trunc)
TANDEM_DEFINE_UNARY_FN(frac)
TANDEM_DEFINE_UNARY_FN(relu)
TANDEM_DEFINE_UNARY_FN(sqrt)
TANDEM_DEFINE_UNARY_FN(rsqrt)
TANDEM_DEFINE_UNARY_FN(reciprocal)
TANDEM_DEFINE_UNARY_FN(exp)
TANDEM_DEFINE_UNARY_FN(exp2)
TANDEM_DEFINE_UNARY_FN(expm1)
TANDEM_DEFINE_UNARY_FN(log)
TANDEM_DEFINE_UNARY_FN(log2)
TANDEM_DEFINE_UNARY_FN(log10)
TANDEM_DEFINE_UNARY_FN(log1p)
TANDEM_DEFINE_UNARY_FN(sin)
TANDEM_DEFINE_UNARY_FN(cos)
TANDEM_DEFINE_UNARY_FN(tan)
TANDEM_DEFINE_UNARY_FN(asin)
TANDEM_DEFINE_UNARY_FN(acos)
TANDEM_DEFINE_UNARY_FN(atan)
TANDEM_DEFINE_UNARY_FN(sinh)
TANDEM_DEFINE_UNARY_FN(cosh)
TANDEM_DEFINE_UNARY_FN(tanh)
TANDEM_DEFINE_UNARY_FN(asinh)
TANDEM_DEFINE_UNARY_FN(acosh)
TANDEM_DEFINE_UNARY_FN(atanh)
TANDEM_DEFINE_UNARY_FN(erf)
TANDEM_DEFINE_UNARY_FN(erfc)
TANDEM_DEFINE_UNARY_FN(erfinv)
TANDEM_DEFINE_UNARY_FN(sigmoid)
TANDEM_DEFINE_UNARY_FN(logsigmoid)
TANDEM_DEFINE_UNARY_FN(silu)
TANDEM_DEFINE_UNARY_FN(mish)
TANDEM_DEFINE_UNARY_FN(hardsigmoid)
TANDEM_DEFINE_UNARY_FN(hardswish)
TANDEM_DEFINE_UNARY_FN(isnan)
TANDEM_DEFINE_UNARY_FN(isinf)
TANDEM_DEFINE_UNARY_FN(isfinite)
TANDEM_DEFINE_UNARY_FN(isposinf)
TANDEM_DEFINE_UNARY_FN(isneginf)
TANDEM_DEFINE_UNARY_FN(signbit)
TANDEM_DEFINE_UNARY_FN(logical_not)
TANDEM_DEFINE_UNARY_FN(bitwise_not)
#undef TANDEM_DEFINE_UNARY_FN

// PyTorch's square is pow(x, 2), so a bool tensor squares to int64 (bool ** int promotes).
Tensor square(const Tensor& x) {
  bool is_bool = x.defined() && x.dtype() == DType::Bool;
  return dispatch1(square_op, {is_bool ? to_dtype(x, DType::Int64) : x});
}
Tensor round(const Tensor& x, int64_t decimals) {
  return dispatch1(round_op, {x}, {{"decimals", decimals}});
}
Tensor leaky_relu(const Tensor& x, double slope) {
  return dispatch1(leaky_relu_op, {x}, {{"negative_slope", slope}});
}
Tensor elu(const Tensor& x, double alpha) {
  return dispatch1(elu_op, {x}, {{"alpha", alpha}, {"scale", 1.0}, {"input_scale", 1.0}});
}
Tensor selu(const Tensor& x) {
  return dispatch1(elu_op, {x},
                   {{"alpha", 1.6732632423543772848170429916717},
                    {"scale", 1.0507009873554804934193349852946},
                    {"input_scale", 1.0}});
}
Tensor celu(const Tensor& x, double alpha) {
  TANDEM_CHECK(alpha != 0, ValueError, "celu: alpha must be non-zero");
  return dispatch1(elu_op, {x}, {{"alpha", alpha}, {"scale", 1.0}, {"input_scale", 1.0 / alpha}});
}
Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate == "none") return dispatch_unary(gelu_op, x);
  if (approximate == "tanh") return dispatch_unary(gelu_tanh_op, x);
  throw_error<ValueError>("gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
}
Tensor softplus(const Tensor& x, double beta, double threshold) {
  TANDEM_CHECK(beta != 0, ValueError, "softplus: beta must be non-zero");
  return dispatch1(softplus_op, {x}, {{"beta", beta}, {"threshold", threshold}});
}
Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  TANDEM_CHECK(min_val <= max_val, ValueError, "hardtanh: min_val (", min_val,
               ") must not exceed max_val (", max_val, ")");
  DType t = x.defined() ? x.dtype() : DType::Float32;  // dispatch reports an undefined x
  // The bounds must fit the tensor's type (an integer's compute type), as torch checks:
  // -1e30 on an int64 tensor raises rather than saturating, 7e4 on a float16 one too.
  const DType bt = is_floating(t) ? t : opmath_dtype(t);
  check_scalar_fits(Scalar(min_val), bt, "hardtanh");
  check_scalar_fits(Scalar(max_val), bt, "hardtanh");
  return dispatch1(
      clamp_op, {x},
      {{"min", saturate_bound(min_val, t)}, {"max", saturate_bound(max_val, t)}, {"open", true}});
}
Tensor relu6(const Tensor& x) {
  return hardtanh(x, 0.0, 6.0);
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  TANDEM_CHECK(min || max, ValueError, "clamp: at least one of 'min' or 'max' must not be None");
  TANDEM_CHECK(x.defined(), ValueError, "clamp: input is None; pass a tensor");
  // A float bound on an int tensor promotes, as in PyTorch (int.clamp(0.5) -> float).
  Tensor y = x;
  DType target = x.dtype();
  if (min) target = result_type({x, scalar_tensor(*min)});
  if (max) target = promote_types(target, result_type({x, scalar_tensor(*max)}));
  if (target != x.dtype()) y = to_dtype(x, target);
  if (min) check_scalar_fits(*min, target, "clamp");
  if (max) check_scalar_fits(*max, target, "clamp");
  double lo = min ? saturate_bound(min->to_double(), target) : 0.0;
  double hi = max ? saturate_bound(max->to_double(), target) : 0.0;
  // A NaN bound makes every element NaN, as in PyTorch (the kernels' max/min would drop it);
  // x * 0 + NaN keeps the result recorded, with a zero gradient as torch gives at a NaN bound.
  if ((min && std::isnan(lo)) || (max && std::isnan(hi)))
    return add(mul(y, scalar_tensor(Scalar(0.0))),
               scalar_tensor(Scalar(std::numeric_limits<double>::quiet_NaN())));
  if (min && max) return dispatch1(clamp_op, {y}, {{"min", lo}, {"max", hi}});
  if (min) return dispatch1(clamp_min_op, {y}, {{"min", lo}});
  return dispatch1(clamp_max_op, {y}, {{"max", hi}});
}

Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  TANDEM_CHECK(min.defined() || max.defined(), ValueError,
               "clamp: at least one of 'min' or 'max' must not be None");
  TANDEM_CHECK(x.defined(), ValueError, "clamp: input is None; pass a tensor");
  // One op with PyTorch's gradient masks; a bound left out is the dtype's extreme as a
  // Python number (it takes no part in promotion, and clamps nothing).
  auto extreme = [&](const Tensor& other, bool high) {
    const DType t = result_type({x, other});
    if (is_floating(t))
      return scalar_tensor(Scalar(high ? std::numeric_limits<double>::infinity()
                                       : -std::numeric_limits<double>::infinity()));
    if (t == DType::Bool) return scalar_tensor(Scalar(high));
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    if (t == DType::UInt8) lo = 0, hi = 255;
    if (t == DType::Int8) lo = -128, hi = 127;
    if (t == DType::Int16) lo = -32768, hi = 32767;
    if (t == DType::Int32)
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    return scalar_tensor(Scalar(high ? hi : lo));
  };
  const Tensor lo = min.defined() ? min : extreme(max, false);
  const Tensor hi = max.defined() ? max : extreme(min, true);
  // A Python-number bound beside a tensor one must fit the type clamp computes in, as in
  // torch (clamp(int16, 2**40, t) raises rather than wrapping the bound).
  if ((min.defined() && min.is_wrapped_number()) || (max.defined() && max.is_wrapped_number())) {
    const DType t = result_type({x, lo, hi});
    for (const Tensor* b : {&min, &max})
      if (b->defined() && b->is_wrapped_number()) check_scalar_fits(b->item(), t, "clamp");
  }
  return clamp_tensor(x, lo, hi, min.defined(), max.defined());
}

Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  double big = x.dtype() == DType::Float64    ? std::numeric_limits<double>::max()
               : x.dtype() == DType::Float16  ? 65504.0
               : x.dtype() == DType::BFloat16 ? 3.3895313892515355e38
                                              : double(std::numeric_limits<float>::max());
  return dispatch1(nan_to_num_op, {x},
                   {{"nan", nan.value_or(0.0)},
                    {"posinf", posinf.value_or(big)},
                    {"neginf", neginf.value_or(-big)}});
}

const Tensor& apply_inplace_unary(const char* op_name, const Tensor& self) {
  const OpDef* op = find_op(op_name);
  TANDEM_CHECK(op, Error, "internal: unknown op ", op_name);
  dispatch_out(*op, {self}, {}, self);
  return self;
}

}  // namespace tandem
