// Binary and ternary elementwise OpDefs: arithmetic, comparisons, logical, bitwise.
#include <cstring>
#include <limits>
#include <optional>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/binary_functors.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/reduce.h"

namespace tandem {
namespace {

#define BIN(F, OUT, ...) make_table<BinaryLoop, fn::F, OUT, __VA_ARGS__>()
#define TER(F, OUT, ...) make_table<TernaryLoop, fn::F, OUT, __VA_ARGS__>()

#define DEFINE_EW(NAME, INFO_INIT)                         \
  const EwInfo NAME##_info INFO_INIT;                      \
  const OpDef NAME##_op = make_ew_op(#NAME, &NAME##_info); \
  TANDEM_REGISTER_OP(NAME##_op)

DEFINE_EW(add, ({EwPolicy::Promote, BIN(Add, void, TANDEM_ALL_TYPES), {"alpha"}}))
DEFINE_EW(sub, ({EwPolicy::Promote, BIN(Sub, void, TANDEM_ALL_TYPES), {"alpha"}, true}))
DEFINE_EW(mul, ({EwPolicy::Promote, BIN(Mul, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(div, ({EwPolicy::PromoteFloat, BIN(Div, void, TANDEM_FLOAT_TYPES)}))
// The division family, pow and shifts have no bool kernels (PyTorch rejects bool there too).
DEFINE_EW(div_trunc, ({.policy = EwPolicy::Promote,
                       .table = BIN(TruncDivide, void, TANDEM_NUMERIC_TYPES),
                       .check = EwOperandCheck::NonZero}))
DEFINE_EW(floor_divide, ({.policy = EwPolicy::Promote,
                          .table = BIN(FloorDivide, void, TANDEM_NUMERIC_TYPES),
                          .check = EwOperandCheck::NonZero}))
DEFINE_EW(remainder, ({.policy = EwPolicy::Promote,
                       .table = BIN(Remainder, void, TANDEM_NUMERIC_TYPES),
                       .check = EwOperandCheck::NonZero}))
DEFINE_EW(fmod, ({.policy = EwPolicy::Promote,
                  .table = BIN(Fmod, void, TANDEM_NUMERIC_TYPES),
                  .check = EwOperandCheck::NonZero}))
DEFINE_EW(pow, ({.policy = EwPolicy::Promote,
                 .table =
                     [] {
                       EwFnTable t = BIN(IntPow, void, TANDEM_INT_TYPES);
                       EwFnTable f = BIN(Pow, void, TANDEM_FLOAT_TYPES);
                       t.fn[int(DType::Float32)] = f.fn[int(DType::Float32)];
                       t.fn[int(DType::Float64)] = f.fn[int(DType::Float64)];
                       t.vec32 = f.vec32;
                       return t;
                     }(),
                 .check = EwOperandCheck::NonNegative}))
DEFINE_EW(atan2, ({EwPolicy::PromoteFloat, BIN(Atan2, void, TANDEM_FLOAT_TYPES)}))
DEFINE_EW(hypot, ({EwPolicy::FloatOnly, BIN(Hypot, void, TANDEM_FLOAT_TYPES)}))
DEFINE_EW(copysign, ({EwPolicy::PromoteFloat, BIN(Copysign, void, TANDEM_FLOAT_TYPES)}))
DEFINE_EW(logaddexp, ({EwPolicy::PromoteFloat, BIN(Logaddexp, void, TANDEM_FLOAT_TYPES)}))
DEFINE_EW(maximum, ({EwPolicy::Promote, BIN(Maximum, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(minimum, ({EwPolicy::Promote, BIN(Minimum, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(fmax, ({EwPolicy::Promote, BIN(Fmax, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(fmin, ({EwPolicy::Promote, BIN(Fmin, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(relu_backward, ({EwPolicy::Promote, BIN(ReluBackward, void, TANDEM_NUMERIC_TYPES)}))
DEFINE_EW(eq, ({EwPolicy::Compare, BIN(Eq, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(ne, ({EwPolicy::Compare, BIN(Ne, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(lt, ({EwPolicy::Compare, BIN(Lt, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(le, ({EwPolicy::Compare, BIN(Le, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(gt, ({EwPolicy::Compare, BIN(Gt, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(ge, ({EwPolicy::Compare, BIN(Ge, bool, TANDEM_ALL_TYPES)}))
DEFINE_EW(isclose, ({EwPolicy::Compare,
                     BIN(IsClose, bool, TANDEM_ALL_TYPES),
                     {"rtol", "atol", "equal_nan"},
                     false,
                     0,
                     EwOperandCheck::None,
                     false}))
DEFINE_EW(logical_and, ({EwPolicy::Logical, BIN(LogicalAnd, bool, bool)}))
DEFINE_EW(logical_or, ({EwPolicy::Logical, BIN(LogicalOr, bool, bool)}))
DEFINE_EW(logical_xor, ({EwPolicy::Logical, BIN(LogicalXor, bool, bool)}))
DEFINE_EW(bitwise_and, ({EwPolicy::Integral, BIN(BitAnd, void, bool, TANDEM_INT_TYPES)}))
DEFINE_EW(bitwise_or, ({EwPolicy::Integral, BIN(BitOr, void, bool, TANDEM_INT_TYPES)}))
DEFINE_EW(bitwise_xor, ({EwPolicy::Integral, BIN(BitXor, void, bool, TANDEM_INT_TYPES)}))
DEFINE_EW(bitwise_left_shift, ({EwPolicy::Integral, BIN(ShiftLeft, void, TANDEM_INT_TYPES)}))
DEFINE_EW(bitwise_right_shift, ({EwPolicy::Integral, BIN(ShiftRight, void, TANDEM_INT_TYPES)}))
DEFINE_EW(where, ({EwPolicy::Promote,
                   make_table<fn::WhereLoop, fn::Where, void, TANDEM_ALL_TYPES>(),
                   {},
                   false,
                   1}))
DEFINE_EW(clamp_tensor, ({EwPolicy::Promote, TER(Clamp3, void, TANDEM_ALL_TYPES)}))
DEFINE_EW(lerp, ({EwPolicy::FloatOnly, TER(Lerp, void, TANDEM_FLOAT_TYPES)}))
DEFINE_EW(addcmul, ({EwPolicy::Promote, TER(Addcmul, void, TANDEM_NUMERIC_TYPES), {"value"}}))
DEFINE_EW(addcdiv, ({EwPolicy::PromoteFloat, TER(Addcdiv, void, TANDEM_FLOAT_TYPES), {"value"}}))

// PyTorch's alpha_check: the kernel would silently truncate a float alpha on integers.
void check_alpha(const char* op, const Tensor& a, const Tensor& b, Scalar alpha) {
  if (!a.defined() || !b.defined()) return;  // dispatch reports the missing input
  DType t = result_type({a, b});
  TANDEM_CHECK(alpha.kind() != Scalar::Kind::Bool || t == DType::Bool, TypeError, op,
               ": a bool alpha is only supported for bool results, got ", dtype_name(t));
  TANDEM_CHECK(!alpha.is_float() || is_floating(t), TypeError, op,
               ": for integral input tensors, argument alpha must not be a floating point "
               "number (got ",
               alpha.to_double(), " with ", dtype_name(t), ")");
  // As torch: alpha=1000 on int8 would wrap. sub is add with -alpha there, so it is -alpha
  // that must fit (sub(int32, int32, alpha=2**31) is accepted, alpha=-2**31 is not).
  Scalar fit = alpha;
  if (std::strcmp(op, "sub") == 0 && alpha.kind() != Scalar::Kind::Bool)
    fit = alpha.is_float() || alpha.to_int() == std::numeric_limits<int64_t>::min()
              ? Scalar(-alpha.to_double())
              : Scalar(-alpha.to_int());
  check_scalar_fits(fit, t, op);
}

// addcmul / addcdiv's value must fit the type they compute in (float32 for 16-bit floats,
// as torch's opmath type), or it would wrap (integers) or become inf silently.
void check_value(const char* op, const std::vector<Tensor>& in, Scalar value) {
  for (const Tensor& t : in)
    if (!t.defined()) return;  // dispatch reports the missing input
  check_scalar_fits(value, opmath_dtype(result_type(in)), op);
}

const OpDef& binary_op(const std::string& name) {
  const OpDef* op = find_op(name);
  TANDEM_CHECK(op, Error, "internal: unknown op ", name);
  return *op;
}

// --- backward rules (written with ops; broadcasting is undone by the engine's sum_to) ----
Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}

std::vector<Tensor> add_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  double alpha = c.attrs.get_float_or("alpha", 1.0);
  return {g[0], alpha == 1.0 ? g[0] : mul(g[0], num(alpha))};
}
std::vector<Tensor> sub_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  double alpha = c.attrs.get_float_or("alpha", 1.0);
  return {g[0], mul(g[0], num(-alpha))};
}
std::vector<Tensor> mul_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {c.needs_grad[0] ? mul(g[0], c.inputs[1]) : Tensor(),
          c.needs_grad[1] ? mul(g[0], c.inputs[0]) : Tensor()};
}
std::vector<Tensor> div_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor ga = c.needs_grad[0] || c.needs_grad[1] ? div(g[0], b) : Tensor();
  return {ga, c.needs_grad[1] ? neg(mul(ga, div(a, b))) : Tensor()};
}

// A 0/1 tensor of g's dtype from a predicate (gradients through it are zero).
Tensor mask(const Tensor& cond, const Tensor& g) {
  return to_dtype(cond, g.dtype());
}
Tensor zero_grad(const Tensor& g) {
  return zeros(g.shape(), g.dtype());
}
// Only the gradients an input needs: fa / fb are evaluated lazily.
template <typename FA, typename FB>
std::vector<Tensor> grads2(const VjpCtx& c, FA fa, FB fb) {
  return {c.needs_grad[0] ? fa() : Tensor(), c.needs_grad[1] ? fb() : Tensor()};
}

// Rounded quotients are step functions: zero gradient, as in PyTorch.
std::vector<Tensor> zero2_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return grads2(
      c, [&] { return zero_grad(g[0]); }, [&] { return zero_grad(g[0]); });
}
// fmod(a, b) = a - trunc(a / b) b and remainder(a, b) = a - floor(a / b) b.
std::vector<Tensor> fmod_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  return grads2(
      c, [&] { return g[0]; }, [&] { return neg(mul(g[0], div(a, b, "trunc"))); });
}
std::vector<Tensor> remainder_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  return grads2(
      c, [&] { return g[0]; }, [&] { return neg(mul(g[0], floor_divide(a, b))); });
}
// PyTorch's pow rules: the base gets 0 where the exponent is 0 (even at base 0), the
// exponent gets 0 where base == 0 and exponent >= 0 (log(0) would make it nan).
std::vector<Tensor> pow_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  return grads2(
      c,
      [&] {
        Tensor d = mul(b, pow(a, sub(b, scalar_tensor(Scalar(int64_t(1))))));
        return where(eq(b, num(0.0)), num(0.0), mul(g[0], d));
      },
      [&] {
        Tensor at_zero = logical_and(eq(a, num(0.0)), ge(b, num(0.0)));
        return where(at_zero, num(0.0), mul(g[0], mul(c.outputs[0], log(a))));
      });
}
std::vector<Tensor> atan2_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  // atan2 has no derivative at the origin; torch's gradient there is 0, not 0 / 0.
  Tensor d = add(mul(a, a), mul(b, b));
  Tensor origin = eq(d, scalar_tensor(Scalar(0.0)));
  Tensor gd = where(origin, scalar_tensor(Scalar(0.0)),
                    div(g[0], where(origin, scalar_tensor(Scalar(1.0)), d)));
  return grads2(
      c, [&] { return mul(gd, b); }, [&] { return neg(mul(gd, a)); });
}
std::vector<Tensor> hypot_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  Tensor gd = div(g[0], c.outputs[0]);
  return grads2(
      c, [&] { return mul(gd, c.inputs[0]); }, [&] { return mul(gd, c.inputs[1]); });
}
// copysign(a, b) = |a| sgn(b): d/da = sign(a) sgn(b) (0 at a == 0, as PyTorch); b gets 0.
std::vector<Tensor> copysign_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  return grads2(
      c, [&] { return mul(g[0], mul(sign(a), copysign(num(1.0), b))); },
      [&] { return zero_grad(g[0]); });
}
std::vector<Tensor> logaddexp_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  return grads2(
      c, [&] { return mul(g[0], sigmoid(sub(a, b))); },
      [&] { return mul(g[0], sigmoid(sub(b, a))); });
}
// maximum / minimum: the winner gets the gradient, ties split it half and half; where a
// nan propagates both operands get it (PyTorch's masks).
std::vector<Tensor> extremum_vjp(const VjpCtx& c, const Tensor& g, bool is_max) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor half_tie = mul(mask(eq(a, b), g), num(0.5));
  auto part = [&](const Tensor& loses) {
    return mul(g, sub(sub(num(1.0), mask(loses, g)), half_tie));
  };
  return grads2(
      c, [&] { return part(is_max ? lt(a, b) : gt(a, b)); },
      [&] { return part(is_max ? gt(a, b) : lt(a, b)); });
}
std::vector<Tensor> maximum_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return extremum_vjp(c, g[0], true);
}
std::vector<Tensor> minimum_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return extremum_vjp(c, g[0], false);
}
// fmax / fmin ignore a nan operand: a gets the gradient where it wins or ties or b is nan,
// b everywhere else (PyTorch's masks).
std::vector<Tensor> fextremum_vjp(const VjpCtx& c, const Tensor& g, bool is_max) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor to_a = mask(logical_or(is_max ? ge(a, b) : le(a, b), isnan(b)), g);
  return grads2(
      c, [&] { return mul(g, to_a); }, [&] { return mul(g, sub(num(1.0), to_a)); });
}
std::vector<Tensor> fmax_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return fextremum_vjp(c, g[0], true);
}
std::vector<Tensor> fmin_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return fextremum_vjp(c, g[0], false);
}
// The condition gets no gradient; each branch gets g where it was chosen.
std::vector<Tensor> where_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& cond = c.inputs[0];
  return {Tensor(), c.needs_grad[1] ? where(cond, g[0], num(0.0)) : Tensor(),
          c.needs_grad[2] ? where(cond, num(0.0), g[0]) : Tensor()};
}
// clamp with tensor bounds, PyTorch's masks (clamp_backward_min_max): x where it lies inside
// [lo, hi]; lo where x is below it and lo < hi; hi where x is above it or hi < lo. A NaN
// anywhere fails every comparison: nobody gets the gradient. A bound the caller left out
// (attr has_min / has_max false, passed as the dtype's extreme) takes no part.
std::vector<Tensor> clamp_tensor_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &x = c.inputs[0], &lo = c.inputs[1], &hi = c.inputs[2];
  const bool has_lo = c.attrs.get_bool_or("has_min", true),
             has_hi = c.attrs.get_bool_or("has_max", true);
  const Tensor zero = num(0.0);
  Tensor gx, glo, ghi;
  if (c.needs_grad[0]) {
    Tensor in = has_lo && has_hi ? logical_and(ge(x, lo), le(x, hi))
                : has_lo         ? ge(x, lo)
                                 : le(x, hi);
    gx = where(in, g[0], zero);
  }
  if (c.needs_grad[1] && has_lo)
    glo = where(has_hi ? logical_and(lt(x, lo), lt(lo, hi)) : lt(x, lo), g[0], zero);
  if (c.needs_grad[2] && has_hi)
    ghi = where(has_lo ? logical_or(gt(x, hi), lt(hi, lo)) : gt(x, hi), g[0], zero);
  return {gx, glo, ghi};
}
// lerp = start + weight (end - start).
std::vector<Tensor> lerp_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &s = c.inputs[0], &e = c.inputs[1], &w = c.inputs[2];
  return {c.needs_grad[0] ? mul(g[0], sub(num(1.0), w)) : Tensor(),
          c.needs_grad[1] ? mul(g[0], w) : Tensor(),
          c.needs_grad[2] ? mul(g[0], sub(e, s)) : Tensor()};
}
std::vector<Tensor> addcmul_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  Tensor gv = mul(g[0], num(c.attrs.get_float_or("value", 1.0)));
  return {c.needs_grad[0] ? g[0] : Tensor(), c.needs_grad[1] ? mul(gv, c.inputs[2]) : Tensor(),
          c.needs_grad[2] ? mul(gv, c.inputs[1]) : Tensor()};
}
std::vector<Tensor> addcdiv_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &t1 = c.inputs[1], &t2 = c.inputs[2];
  Tensor gv = div(mul(g[0], num(c.attrs.get_float_or("value", 1.0))), t2);
  return {c.needs_grad[0] ? g[0] : Tensor(), c.needs_grad[1] ? gv : Tensor(),
          c.needs_grad[2] ? neg(mul(gv, div(t1, t2))) : Tensor()};
}

// Linear in the gradient; the output only selects (zero almost everywhere).
std::vector<Tensor> relu_backward_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {c.needs_grad[0] ? relu_backward(g[0], c.inputs[1]) : Tensor(),
          c.needs_grad[1] ? mul(g[0], num(0.0)) : Tensor()};
}

TANDEM_DEFINE_VJP(add_op, add_vjp)
TANDEM_DEFINE_VJP(relu_backward_op, relu_backward_vjp)
TANDEM_DEFINE_VJP(sub_op, sub_vjp)
TANDEM_DEFINE_VJP(mul_op, mul_vjp)
TANDEM_DEFINE_VJP(div_op, div_vjp)
TANDEM_DEFINE_VJP(div_trunc_op, zero2_vjp)
TANDEM_DEFINE_VJP(floor_divide_op, zero2_vjp)
TANDEM_DEFINE_VJP(fmod_op, fmod_vjp)
TANDEM_DEFINE_VJP(remainder_op, remainder_vjp)
TANDEM_DEFINE_VJP(pow_op, pow_vjp)
TANDEM_DEFINE_VJP(atan2_op, atan2_vjp)
TANDEM_DEFINE_VJP(hypot_op, hypot_vjp)
TANDEM_DEFINE_VJP(copysign_op, copysign_vjp)
TANDEM_DEFINE_VJP(logaddexp_op, logaddexp_vjp)
TANDEM_DEFINE_VJP(maximum_op, maximum_vjp)
TANDEM_DEFINE_VJP(minimum_op, minimum_vjp)
TANDEM_DEFINE_VJP(fmax_op, fmax_vjp)
TANDEM_DEFINE_VJP(fmin_op, fmin_vjp)
TANDEM_DEFINE_VJP(where_op, where_vjp)
TANDEM_DEFINE_VJP(lerp_op, lerp_vjp)
TANDEM_DEFINE_VJP(clamp_tensor_op, clamp_tensor_vjp)
TANDEM_DEFINE_VJP(addcmul_op, addcmul_vjp)
TANDEM_DEFINE_VJP(addcdiv_op, addcdiv_vjp)
// Comparisons and logical / bitwise ops produce no gradient.
TANDEM_NOT_DIFFERENTIABLE(eq_op)
TANDEM_NOT_DIFFERENTIABLE(ne_op)
TANDEM_NOT_DIFFERENTIABLE(lt_op)
TANDEM_NOT_DIFFERENTIABLE(le_op)
TANDEM_NOT_DIFFERENTIABLE(gt_op)
TANDEM_NOT_DIFFERENTIABLE(ge_op)
TANDEM_NOT_DIFFERENTIABLE(isclose_op)
TANDEM_NOT_DIFFERENTIABLE(logical_and_op)
TANDEM_NOT_DIFFERENTIABLE(logical_or_op)
TANDEM_NOT_DIFFERENTIABLE(logical_xor_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_and_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_or_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_xor_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_left_shift_op)
TANDEM_NOT_DIFFERENTIABLE(bitwise_right_shift_op)

}  // namespace

// Python floats are kept in float64 (their value is exact) and ints in int64; result_type
// still promotes them as the default float / int type because they are wrapped numbers.
Tensor scalar_tensor(Scalar s) {
  return Tensor::wrap_scalar(s, s.is_float() ? DType::Float64 : s.default_dtype());
}

// alpha == 1 (the common case) passes no attribute: the kernel defaults it to 1, and the
// call skips building Attrs, which is measurable in per-op overhead.
bool is_one(Scalar s) {
  return !s.is_float() ? s.to_int() == 1 : s.to_double() == 1.0;
}

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  // alpha=1.0 on integers is PyTorch's error too, so only an int 1 skips the check
  if (is_one(alpha) && alpha.kind() == Scalar::Kind::Int) return dispatch_binary(add_op, a, b);
  check_alpha("add", a, b, alpha);
  if (is_one(alpha) && alpha.kind() != Scalar::Kind::Bool) return dispatch_binary(add_op, a, b);
  return dispatch1(add_op, {a, b}, {{"alpha", alpha.to_double()}});
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  // alpha=1.0 on integers is PyTorch's error too, so only an int 1 skips the check
  if (is_one(alpha) && alpha.kind() == Scalar::Kind::Int) return dispatch_binary(sub_op, a, b);
  check_alpha("sub", a, b, alpha);
  if (is_one(alpha) && alpha.kind() != Scalar::Kind::Bool) return dispatch_binary(sub_op, a, b);
  return dispatch1(sub_op, {a, b}, {{"alpha", alpha.to_double()}});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return dispatch_binary(mul_op, a, b);
}
Tensor div(const Tensor& a, const Tensor& b, const std::string& mode) {
  if (mode.empty() || mode == "true") return dispatch_binary(div_op, a, b);
  if (mode == "trunc") return dispatch_binary(div_trunc_op, a, b);
  if (mode == "floor") return floor_divide(a, b);
  throw_error<ValueError>("div: rounding_mode must be None, 'trunc' or 'floor', got '", mode, "'");
}
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return dispatch_binary(floor_divide_op, a, b);
}
Tensor remainder(const Tensor& a, const Tensor& b) {
  return dispatch_binary(remainder_op, a, b);
}
Tensor fmod(const Tensor& a, const Tensor& b) {
  return dispatch_binary(fmod_op, a, b);
}

#define TANDEM_DEFINE_BINARY_FN(name)             \
  Tensor name(const Tensor& a, const Tensor& b) { \
    return dispatch_binary(name##_op, a, b);      \
  }
namespace {
// A Python number exponent of an integer or 16-bit float tensor is converted to its dtype
// with torch's check (pow(int16, 2**40) raises, it would wrap; pow(float16, 7e4) raises, it
// would be inf). A number base, and float32 / float64 results, are not checked, as in torch.
// Returns the result dtype when b is such an exponent (nullopt otherwise).
std::optional<DType> check_pow_exponent(const Tensor& a, const Tensor& b) {
  if (!(a.defined() && b.defined() && b.is_wrapped_number() && !a.is_wrapped_number()))
    return std::nullopt;
  const DType t = result_type({a, b});
  const Scalar e = b.item();
  // Checked before the exponent is converted: -1 into uint8 would be 255.
  TANDEM_CHECK(is_floating(t) || t == DType::Bool || e.is_float() || e.to_int() >= 0, Error,
               "pow: Integers to negative integer powers are not allowed (", dtype_name(t), " ** ",
               e.to_int(), "); use a floating point base");
  if (!is_floating(t) || t == DType::Float16 || t == DType::BFloat16)
    check_scalar_fits(e, t, "pow");
  return t;
}
}  // namespace

Tensor pow(const Tensor& a, const Tensor& b) {
  // A bool tensor ** a Python bool stays bool, as in torch (its exponent-0 / exponent-1
  // shortcuts: x ** True = x, x ** False = 1); bool ** bool tensors have no kernel.
  if (check_pow_exponent(a, b) == DType::Bool) return logical_or(a, logical_not(b));
  return dispatch_binary(pow_op, a, b);
}
TANDEM_DEFINE_BINARY_FN(relu_backward)
TANDEM_DEFINE_BINARY_FN(atan2)
TANDEM_DEFINE_BINARY_FN(hypot)
TANDEM_DEFINE_BINARY_FN(copysign)
TANDEM_DEFINE_BINARY_FN(logaddexp)
TANDEM_DEFINE_BINARY_FN(maximum)
TANDEM_DEFINE_BINARY_FN(minimum)
TANDEM_DEFINE_BINARY_FN(fmax)
TANDEM_DEFINE_BINARY_FN(fmin)
TANDEM_DEFINE_BINARY_FN(eq)
TANDEM_DEFINE_BINARY_FN(ne)
TANDEM_DEFINE_BINARY_FN(lt)
TANDEM_DEFINE_BINARY_FN(le)
TANDEM_DEFINE_BINARY_FN(gt)
TANDEM_DEFINE_BINARY_FN(ge)
TANDEM_DEFINE_BINARY_FN(logical_and)
TANDEM_DEFINE_BINARY_FN(logical_or)
TANDEM_DEFINE_BINARY_FN(logical_xor)
TANDEM_DEFINE_BINARY_FN(bitwise_and)
TANDEM_DEFINE_BINARY_FN(bitwise_or)
TANDEM_DEFINE_BINARY_FN(bitwise_xor)
TANDEM_DEFINE_BINARY_FN(bitwise_left_shift)
TANDEM_DEFINE_BINARY_FN(bitwise_right_shift)
#undef TANDEM_DEFINE_BINARY_FN

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  // uint8 conditions are torch's deprecated form; other dtypes are refused (torch, MindSpore).
  TANDEM_CHECK(!cond.defined() || cond.dtype() == DType::Bool || cond.dtype() == DType::UInt8,
               TypeError, "where: expected condition to be a boolean tensor, got ",
               dtype_name(cond.dtype()), "; compare first (e.g. x > 0) or use .bool()");
  // A Python number branch must fit the result dtype (torch raises; an integer would wrap,
  // a float become inf), except in the 16-bit floats, which saturate to inf as in torch.
  if (a.defined() && b.defined()) {
    const DType t = result_type({a, b});
    for (const Tensor* v : {&a, &b})
      if (v->is_wrapped_number()) check_data_fits(v->item(), t, "where");
  }
  return dispatch1(where_op, {cond, a, b});
}
Tensor clamp_tensor(const Tensor& x, const Tensor& lo, const Tensor& hi, bool has_min,
                    bool has_max) {
  return dispatch1(clamp_tensor_op, {x, lo, hi}, {{"has_min", has_min}, {"has_max", has_max}});
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  // A float weight must not turn integer endpoints into a float lerp (PyTorch rejects it).
  DType t = start.defined() && end.defined() ? result_type({start, end}) : DType::Float32;
  TANDEM_CHECK(is_floating(t), TypeError, "lerp: expected floating point start and end, got ",
               dtype_name(t), "; convert with .float() first");
  // A Python number weight must fit the type lerp computes in (float32 for 16-bit floats).
  if (weight.defined() && weight.is_wrapped_number())
    check_scalar_fits(weight.item(), opmath_dtype(t), "lerp");
  return dispatch1(lerp_op, {start, end, weight});
}
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value) {
  check_value("addcmul", {x, t1, t2}, value);
  return dispatch1(addcmul_op, {x, t1, t2}, {{"value", value.to_double()}});
}
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value) {
  check_value("addcdiv", {x, t1, t2}, value);
  return dispatch1(addcdiv_op, {x, t1, t2}, {{"value", value.to_double()}});
}
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  TANDEM_CHECK(rtol >= 0 && atol >= 0, ValueError, "isclose: rtol (", rtol, ") and atol (", atol,
               ") must be non-negative");
  return dispatch1(isclose_op, {a, b},
                   {{"rtol", rtol}, {"atol", atol}, {"equal_nan", equal_nan ? 1.0 : 0.0}});
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan)).item().to_int() != 0;
}
bool equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  return all(eq(a, b)).item().to_int() != 0;
}

const Tensor& apply_inplace(const char* op_name, const Tensor& self, const Tensor& other,
                            Scalar alpha) {
  std::string name = op_name;
  Attrs attrs;
  if (name == "add" || name == "sub") {
    check_alpha(op_name, self, other, alpha);
    attrs.set("alpha", alpha.to_double());
  }
  if (name == "pow") check_pow_exponent(self, other);
  dispatch_out(binary_op(name), {self, other}, attrs, self);
  return self;
}

}  // namespace tandem
