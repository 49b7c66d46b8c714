// Unary elementwise OpDefs: math, activations, rounding, predicates.
#include <algorithm>
#include <limits>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/unary_functors.h"
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
DEFINE_UNARY(logsigmoid, ({EwPolicy::PromoteFloat, FLOATS(LogSigmoid)}))
DEFINE_UNARY(silu, ({EwPolicy::PromoteFloat, FLOATS(Silu)}))
DEFINE_UNARY(mish, ({EwPolicy::PromoteFloat, FLOATS(Mish)}))
DEFINE_UNARY(gelu, ({EwPolicy::PromoteFloat, FLOATS(GeluErf)}))
DEFINE_UNARY(gelu_tanh, ({EwPolicy::PromoteFloat, FLOATS(GeluTanh)}))
DEFINE_UNARY(softplus, ({EwPolicy::PromoteFloat, FLOATS(Softplus), {"beta", "threshold"}}))
DEFINE_UNARY(elu, ({EwPolicy::PromoteFloat, FLOATS(Elu), {"alpha", "scale", "input_scale"}}))
DEFINE_UNARY(leaky_relu, ({EwPolicy::PromoteFloat, FLOATS(LeakyRelu), {"negative_slope"}}))
DEFINE_UNARY(hardsigmoid, ({EwPolicy::PromoteFloat, FLOATS(Hardsigmoid)}))
DEFINE_UNARY(hardswish, ({EwPolicy::PromoteFloat, FLOATS(Hardswish)}))
DEFINE_UNARY(nan_to_num, ({EwPolicy::Promote, KEEP_ALL(NanToNum), {"nan", "posinf", "neginf"}}))
DEFINE_UNARY(isnan, ({EwPolicy::Predicate, PRED(IsNan)}))
DEFINE_UNARY(isinf, ({EwPolicy::Predicate, PRED(IsInf)}))
DEFINE_UNARY(isfinite, ({EwPolicy::Predicate, PRED(IsFinite)}))
DEFINE_UNARY(isposinf, ({EwPolicy::Predicate, PRED(IsPosInf)}))
DEFINE_UNARY(isneginf, ({EwPolicy::Predicate, PRED(IsNegInf)}))
DEFINE_UNARY(signbit, ({EwPolicy::Predicate, PRED(Signbit)}))
DEFINE_UNARY(logical_not, ({EwPolicy::Predicate, PRED(LogicalNot)}))
DEFINE_UNARY(bitwise_not, ({EwPolicy::Integral, unary_table<fn::BitwiseNot, void, bool,
                                                            TANDEM_INT_TYPES>()}))

// Integer bounds outside the dtype's range saturate (clamping a uint8 tensor at -2 is
// clamping at 0) instead of wrapping or overflowing when the kernel converts them.
double saturate_bound(double v, DType t) {
  double lo, hi;
  switch (t) {
    case DType::UInt8: lo = 0, hi = 255; break;
    case DType::Int8: lo = -128, hi = 127; break;
    case DType::Int16: lo = -32768, hi = 32767; break;
    case DType::Int32: lo = -2147483648.0, hi = 2147483647.0; break;
    case DType::Int64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; break;
    default: return v;
  }
  return std::min(std::max(v, lo), hi);
}

// --- backward rules --------------------------------------------------------------------
std::vector<Tensor> neg_vjp(const VjpCtx&, const std::vector<Tensor>& g) { return {neg(g[0])}; }
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
std::vector<Tensor> relu_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {mul(g[0], to_dtype(gt(c.inputs[0], scalar_tensor(Scalar(int64_t(0)))), g[0].dtype()))};
}
TANDEM_DEFINE_VJP(neg_op, neg_vjp)
TANDEM_DEFINE_VJP(exp_op, exp_vjp)
TANDEM_DEFINE_VJP(log_op, log_vjp)
TANDEM_DEFINE_VJP(tanh_op, tanh_vjp)
TANDEM_DEFINE_VJP(sigmoid_op, sigmoid_vjp)
TANDEM_DEFINE_VJP(relu_op, relu_vjp)
TANDEM_NOT_DIFFERENTIABLE(isnan_op)
TANDEM_NOT_DIFFERENTIABLE(isinf_op)
TANDEM_NOT_DIFFERENTIABLE(isfinite_op)
TANDEM_NOT_DIFFERENTIABLE(isposinf_op)
TANDEM_NOT_DIFFERENTIABLE(isneginf_op)
TANDEM_NOT_DIFFERENTIABLE(signbit_op)
TANDEM_NOT_DIFFERENTIABLE(logical_not_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_not_op)

}  // namespace

#define TANDEM_DEFINE_UNARY_FN(name) \
  Tensor name(const Tensor& x) { return dispatch1(name##_op, {x}); }
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
  if (approximate == "none") return dispatch1(gelu_op, {x});
  if (approximate == "tanh") return dispatch1(gelu_tanh_op, {x});
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
  return dispatch1(clamp_op, {x},
                   {{"min", saturate_bound(min_val, t)}, {"max", saturate_bound(max_val, t)}});
}
Tensor relu6(const Tensor& x) { return hardtanh(x, 0.0, 6.0); }

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  TANDEM_CHECK(min || max, ValueError, "clamp: at least one of 'min' or 'max' must not be None");
  TANDEM_CHECK(x.defined(), ValueError, "clamp: input is None; pass a tensor");
  // A float bound on an int tensor promotes, as in PyTorch (int.clamp(0.5) -> float).
  Tensor y = x;
  DType target = x.dtype();
  if (min) target = result_type({x, scalar_tensor(*min)});
  if (max) target = promote_types(target, result_type({x, scalar_tensor(*max)}));
  if (target != x.dtype()) y = to_dtype(x, target);
  double lo = min ? saturate_bound(min->to_double(), target) : 0.0;
  double hi = max ? saturate_bound(max->to_double(), target) : 0.0;
  if (min && max) return dispatch1(clamp_op, {y}, {{"min", lo}, {"max", hi}});
  if (min) return dispatch1(clamp_min_op, {y}, {{"min", lo}});
  return dispatch1(clamp_max_op, {y}, {{"max", hi}});
}

Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  TANDEM_CHECK(min.defined() || max.defined(), ValueError,
               "clamp: at least one of 'min' or 'max' must not be None");
  Tensor y = x;
  if (min.defined()) y = maximum(y, min);
  if (max.defined()) y = minimum(y, max);
  return y;
}

Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  double big = x.dtype() == DType::Float64   ? std::numeric_limits<double>::max()
               : x.dtype() == DType::Float16 ? 65504.0
               : x.dtype() == DType::BFloat16
                   ? 3.3895313892515355e38
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
