// Losses written with tandem ops: each is a short, numerically stable formula.
#include <cmath>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/ew_loops.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/loss.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}

void check_reduction(const std::string& r, const char* op, bool batchmean = false) {
  TANDEM_CHECK(r == "none" || r == "mean" || r == "sum" || (batchmean && r == "batchmean"),
               ValueError, op, ": reduction must be 'none', 'mean' or 'sum'",
               batchmean ? " (or 'batchmean')" : "", ", got '", r, "'");
}

Tensor reduce(const Tensor& l, const std::string& r) {
  if (r == "none") return l;
  if (r == "sum") return sum(l);
  return mean(l);
}

void check_same_shape(const Tensor& a, const Tensor& b, const char* op) {
  TANDEM_CHECK(a.shape() == b.shape(), ValueError, op, ": target size ", shape_str(b.shape()),
               " must be the same as input size ", shape_str(a.shape()));
}

// PyTorch's warning for pointwise losses whose target broadcasts against the input: (N, 1)
// against (N,) silently becomes an (N, N) loss.
void warn_if_broadcast(const Tensor& input, const Tensor& target, const char* op) {
  if (input.shape() == target.shape()) return;
  warn(detail::cat(op, ": using a target size (", shape_str(target.shape()),
                   ") that is different to the input size (", shape_str(input.shape()),
                   "); this will likely lead to incorrect results due to broadcasting, so "
                   "make sure they have the same size"));
}

Tensor as_float(const Tensor& t, const Tensor& like) {
  return t.dtype() == like.dtype() ? t : to_dtype(t, like.dtype());
}

// input and target broadcast against each other first, as PyTorch's losses do: a 0-d or
// lower-precision target then promotes like any dimensioned operand (bfloat16 input, float32
// 0-d target -> a float32 loss) instead of being a weak scalar.
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target,
                                         const char* op) {
  if (input.shape() == target.shape()) return {input, target};
  Shape s = broadcast_shapes(input.shape(), target.shape(), op);
  return {expand(input, s), expand(target, s)};
}

// Elementwise binary cross-entropy of probabilities x against targets y, with the logs
// clamped at -100 as in PyTorch.
struct BceFn {
  template <typename T>
  static T s(T x, T y, const EwP&) {
    T lx = std::max(T(std::log(x)), T(-100)), l1x = std::max(T(std::log1p(-x)), T(-100));
    return (y - T(1)) * l1x - y * lx;
  }
};
const EwInfo bce_info{EwPolicy::FloatOnly, make_table<BinaryLoop, BceFn, void, float, double>()};
const OpDef bce_op = make_ew_op("binary_cross_entropy", &bce_info);
TANDEM_REGISTER_OP(bce_op)

// PyTorch's gradient: (x - y) / max(x (1 - x), 1e-12). At x = 0 or 1 the derivative of the
// clamped formula would be 0 * inf = NaN; this is 0 where x equals y and large but finite
// otherwise. Written with ops, so it differentiates again.
std::vector<Tensor> bce_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &x = c.inputs[0], &y = c.inputs[1];
  Tensor gx, gy;
  if (c.needs_grad[0]) {
    Tensor den = clamp(mul(x, sub(num(1.0), x)), Scalar(1e-12), std::nullopt);
    gx = mul(g[0], div(sub(x, y), den));
  }
  if (c.needs_grad[1]) {
    Tensor lx = clamp(log(x), Scalar(-100.0), std::nullopt);
    Tensor l1x = clamp(log1p(neg(x)), Scalar(-100.0), std::nullopt);
    gy = mul(g[0], sub(l1x, lx));
  }
  return {gx, gy};
}
TANDEM_DEFINE_VJP(bce_op, bce_vjp)

// (N, C, d...) -> (N, d..., C); a 1-D (C) input becomes (1, C).
Tensor classes_last(const Tensor& x) {
  if (x.dim() <= 2) return x;
  std::vector<int64_t> p{0};
  for (int64_t d = 2; d < x.dim(); ++d) p.push_back(d);
  p.push_back(1);
  return permute(x, p);
}

}  // namespace

Tensor nll_loss(const Tensor& input_, const Tensor& target_, const Tensor& weight_,
                int64_t ignore_index, const std::string& reduction) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_),
               weight = autocast_fp32(weight_);
  check_reduction(reduction, "nll_loss");
  TANDEM_CHECK(input.dim() >= 1, ValueError, "nll_loss: input must have at least 1 dim");
  TANDEM_CHECK(is_integral(target.dtype()), TypeError,
               "nll_loss: target must hold class indices (int64), got ", dtype_name(target.dtype()),
               "; for class probabilities use cross_entropy");
  TANDEM_CHECK(is_floating(input.dtype()), TypeError,
               "nll_loss: input must hold floating-point log-probabilities, got ",
               dtype_name(input.dtype()));
  bool unbatched = input.dim() == 1;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  Tensor t = unbatched ? unsqueeze(target, 0) : target;
  int64_t C = x.shape()[1];
  Shape expect = x.shape();
  expect.erase(expect.begin() + 1);
  TANDEM_CHECK(t.shape() == expect, ValueError, "nll_loss: expected target of shape ",
               shape_str(expect), " for input of shape ", shape_str(x.shape()), ", got ",
               shape_str(t.shape()));
  if (weight.defined()) {
    TANDEM_CHECK(weight.dim() == 1 && weight.shape()[0] == C, ValueError,
                 "nll_loss: weight must have shape (", C, "), got ", shape_str(weight.shape()));
    // As torch and MindSpore: with class indices the weight is not promoted or converted.
    TANDEM_CHECK(weight.dtype() == input.dtype(), TypeError, "nll_loss: weight has dtype ",
                 dtype_name(weight.dtype()), " but the input's log-probabilities are ",
                 dtype_name(input.dtype()), "; pass weight.to(", dtype_name(input.dtype()), ")");
  }
  t = to_dtype(t, DType::Int64);
  Tensor valid = ne(t, scalar_tensor(Scalar(ignore_index)));
  Tensor safe = where(valid, t, scalar_tensor(Scalar(int64_t(0))));
  if (auto r = value_range(safe)) {
    int64_t lo = r->first.to_int(), hi = r->second.to_int();
    TANDEM_CHECK(lo >= 0 && hi < C, IndexError, "nll_loss: target ", lo < 0 ? lo : hi,
                 " is out of bounds for ", C, " classes");
  }
  Tensor picked =
      squeeze(gather(classes_last(x), -1, unsqueeze(safe, -1)), std::vector<int64_t>{-1});
  Tensor w = weight.defined() ? index_select(as_float(weight, x), 0, reshape(safe, {-1}))
                              : ones({safe.numel()}, x.dtype());
  w = mul(reshape(w, safe.shape()), to_dtype(valid, x.dtype()));
  // where, not a multiply by the zero weight: an ignored target's stand-in class 0 may have
  // log-probability -inf, and -inf * 0 would be nan.
  Tensor loss = where(valid, neg(mul(picked, w)), scalar_tensor(Scalar(0.0)));
  if (reduction == "none") return unbatched ? squeeze(loss, std::vector<int64_t>{0}) : loss;
  if (reduction == "sum") return sum(loss);
  return div(sum(loss), sum(w));  // nan when every target is ignored, as in PyTorch
}

Tensor cross_entropy(const Tensor& input_, const Tensor& target_, const Tensor& weight_,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_),
               weight = autocast_fp32(weight_);
  check_reduction(reduction, "cross_entropy");
  TANDEM_CHECK(label_smoothing >= 0 && label_smoothing <= 1, ValueError,
               "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  TANDEM_CHECK(is_floating(input.dtype()), TypeError,
               "cross_entropy: input must hold floating-point logits, got ",
               dtype_name(input.dtype()));
  TANDEM_CHECK(input.dim() >= 1, ValueError,
               "cross_entropy: input must be (C) or (N, C, d1...) logits, got a 0-d tensor");
  int64_t cdim = input.dim() == 1 ? 0 : 1;
  int64_t C = input.shape()[cdim];
  Tensor logp = log_softmax(input, cdim);
  Shape wshape(size_t(input.dim()), 1);
  wshape[cdim] = C;
  if (is_floating(target.dtype())) {  // class probabilities
    TANDEM_CHECK(target.dim() != input.dim() - 1, TypeError,
                 "cross_entropy: expected class indices of an integer dtype (int64), got a ",
                 dtype_name(target.dtype()), " target of shape ", shape_str(target.shape()),
                 " (a floating-point target means class probabilities of the input's shape ",
                 shape_str(input.shape()), "); use target.long()");
    check_same_shape(input, target, "cross_entropy");
    if (target.dtype() != input.dtype()) {  // float16 logits, float32 probabilities: float32
      DType common = promote_types(input.dtype(), target.dtype());
      if (common != input.dtype())
        return cross_entropy(to_dtype(input, common), target, weight, ignore_index, reduction,
                             label_smoothing);
    }
    Tensor tp = as_float(target, input);
    if (label_smoothing > 0)
      tp = add(mul(tp, num(1 - label_smoothing)), num(label_smoothing / double(C)));
    Tensor prod = mul(logp, tp);
    TANDEM_CHECK(!weight.defined() || (weight.dim() == 1 && weight.shape()[0] == C), ValueError,
                 "cross_entropy: weight must have shape (", C, "), one value per class, got ",
                 shape_str(weight.shape()));
    // A floating weight takes part in type promotion, as in torch (float64 weights give a
    // float64 loss); an integer one is converted to the input's type.
    if (weight.defined())
      prod = mul(prod,
                 reshape(is_floating(weight.dtype()) ? weight : as_float(weight, input), wshape));
    Tensor loss = neg(sum(prod, std::vector<int64_t>{cdim}));
    // The mean over the N * d1 * ... positions; with no classes it is NaN, as in PyTorch.
    if (reduction == "mean" && (input.dim() > 1 || C == 0))
      return div(sum(loss), num(C == 0 ? std::nan("") : double(loss.numel())));
    return reduce(loss, reduction);
  }
  Tensor nll = nll_loss(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  Tensor t = to_dtype(target, DType::Int64);
  Tensor valid = to_dtype(ne(t, scalar_tensor(Scalar(ignore_index))), input.dtype());
  Tensor terms = weight.defined() ? mul(logp, reshape(as_float(weight, input), wshape)) : logp;
  Tensor smooth = where(ne(t, scalar_tensor(Scalar(ignore_index))),
                        neg(sum(terms, std::vector<int64_t>{cdim})), scalar_tensor(Scalar(0.0)));
  Tensor s;
  if (reduction == "none") {
    s = smooth;
  } else if (reduction == "sum") {
    s = sum(smooth);
  } else if (weight.defined()) {
    Tensor safe =
        where(ne(t, scalar_tensor(Scalar(ignore_index))), t, scalar_tensor(Scalar(int64_t(0))));
    Tensor wsum = sum(
        mul(reshape(index_select(as_float(weight, input), 0, reshape(safe, {-1})), safe.shape()),
            valid));
    s = div(sum(smooth), wsum);
  } else {
    s = div(sum(smooth), sum(valid));
  }
  return add(mul(nll, num(1 - label_smoothing)), mul(s, num(label_smoothing / double(C))));
}

Tensor mse_loss(const Tensor& input_, const Tensor& target_, const std::string& reduction) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_);
  check_reduction(reduction, "mse_loss");
  warn_if_broadcast(input, target, "mse_loss");
  auto [x, y] = broadcast_pair(input, target, "mse_loss");
  Tensor d = sub(x, y);
  return reduce(mul(d, d), reduction);
}

Tensor l1_loss(const Tensor& input_, const Tensor& target_, const std::string& reduction) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_);
  check_reduction(reduction, "l1_loss");
  warn_if_broadcast(input, target, "l1_loss");
  auto [x, y] = broadcast_pair(input, target, "l1_loss");
  return reduce(abs(sub(x, y)), reduction);
}

// The clamp bound of the quadratic branch: beta, or d's largest finite value when beta is
// beyond it (a float16 d can then exceed it only as inf, which takes the linear branch), so
// a huge beta is not a bound that does not fit d's dtype.
namespace {
Scalar quadratic_bound(double beta, DType t) {
  return Scalar(is_floating(t) ? std::min(beta, float_max(t)) : beta);
}
}  // namespace

Tensor smooth_l1_loss(const Tensor& input_, const Tensor& target_, const std::string& reduction,
                      double beta) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_);
  check_reduction(reduction, "smooth_l1_loss");
  warn_if_broadcast(input, target, "smooth_l1_loss");
  TANDEM_CHECK(beta >= 0, ValueError, "smooth_l1_loss: beta must be non-negative, got ", beta);
  auto [x, y] = broadcast_pair(input, target, "smooth_l1_loss");
  Tensor d = abs(sub(x, y));
  if (beta == 0) return reduce(d, reduction);
  // The quadratic branch sees d clamped to beta: where() sends it a zero gradient outside
  // its zone, and 0 * (gradient at an infinite d) would be NaN.
  Tensor dq = clamp(d, std::nullopt, quadratic_bound(beta, d.dtype()));
  Tensor quad = div(mul(mul(dq, dq), num(0.5)), num(beta));
  Tensor lin = sub(d, num(0.5 * beta));
  return reduce(where(lt(d, num(beta)), quad, lin), reduction);
}

Tensor huber_loss(const Tensor& input_, const Tensor& target_, const std::string& reduction,
                  double delta) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_);
  check_reduction(reduction, "huber_loss");
  warn_if_broadcast(input, target, "huber_loss");
  TANDEM_CHECK(delta > 0, ValueError, "huber_loss: delta must be positive, got ", delta);
  // torch writes the loss into a tensor of input's dtype: an integer input cannot hold it.
  TANDEM_CHECK(!input.defined() || is_floating(input.dtype()), TypeError,
               "huber_loss: expected a floating point input, got ", dtype_name(input.dtype()),
               "; convert it with .float()");
  Tensor d = abs(sub(input, target));  // no broadcast first: torch's huber_loss has none
  Tensor dq = clamp(d, std::nullopt, quadratic_bound(delta, d.dtype()));  // see smooth_l1_loss
  Tensor quad = mul(mul(dq, dq), num(0.5));
  Tensor lin = mul(sub(d, num(0.5 * delta)), num(delta));
  return reduce(where(lt(d, num(delta)), quad, lin), reduction);
}

Tensor binary_cross_entropy(const Tensor& input_, const Tensor& target_, const Tensor& weight_,
                            const std::string& reduction) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_),
               weight = autocast_fp32(weight_);
  check_reduction(reduction, "binary_cross_entropy");
  check_same_shape(input, target, "binary_cross_entropy");
  // Checked when the values exist: now, or when a compiled graph runs.
  const Tensor x = check_between(input, 0, 1, "binary_cross_entropy: all elements of input",
                                 "; use binary_cross_entropy_with_logits for logits");
  const Tensor tc = check_between(target, 0, 1, "binary_cross_entropy: all elements of target");
  TANDEM_CHECK(is_floating(input.dtype()), TypeError,
               "binary_cross_entropy: expected a floating point input, got ",
               dtype_name(input.dtype()));
  // The loss has input's shape: a weight broadcasts to it, never it to the weight's.
  TANDEM_CHECK(!weight.defined() || broadcast_shapes(input.shape(), weight.shape(),
                                                     "binary_cross_entropy") == input.shape(),
               ValueError, "binary_cross_entropy: weight of shape ", shape_str(weight.shape()),
               " cannot be broadcast to input's shape ", shape_str(input.shape()));
  Tensor t = as_float(tc, x);
  Tensor loss = dispatch1(bce_op, {x, t});
  if (weight.defined()) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input_, const Tensor& target_,
                                        const Tensor& weight_, const Tensor& pos_weight_,
                                        const std::string& reduction) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_),
               weight = autocast_fp32(weight_), pos_weight = autocast_fp32(pos_weight_);
  check_reduction(reduction, "binary_cross_entropy_with_logits");
  check_same_shape(input, target, "binary_cross_entropy_with_logits");
  // The targets are probabilities: an integer or bool target is an error, as in torch and
  // MindSpore (torch's "result type Float can't be cast to ... Int").
  TANDEM_CHECK(!target.defined() || is_floating(target.dtype()), TypeError,
               "binary_cross_entropy_with_logits: expected a floating point target, got ",
               dtype_name(target.dtype()), "; convert it with .float()");
  const Tensor& t = target;
  // The loss has input's shape: weights broadcast to it, never it to theirs (torch's rule).
  for (const Tensor* w : {&weight, &pos_weight})
    TANDEM_CHECK(
        !w->defined() || broadcast_shapes(input.shape(), w->shape(),
                                          "binary_cross_entropy_with_logits") == input.shape(),
        ValueError, "binary_cross_entropy_with_logits: ", w == &weight ? "weight" : "pos_weight",
        " of shape ", shape_str(w->shape()), " cannot be broadcast to input's shape ",
        shape_str(input.shape()));
  // The loss has the promoted type of input and target (float32 logits against float64
  // targets give a float64 loss), as in PyTorch.
  if (is_floating(input.dtype()) && t.dtype() != input.dtype()) {
    DType common = promote_types(input.dtype(), t.dtype());
    return binary_cross_entropy_with_logits(to_dtype(input, common), to_dtype(t, common), weight,
                                            pos_weight, reduction);
  }
  // log(1 + exp(-x)) as softplus(-x): stable (linear past the threshold), and its gradient is
  // -sigmoid(-x) everywhere; max(-x, 0) + log1p(exp(-|x|)) had the kinks of max and abs at
  // x = 0, where it gave -1 instead of -0.5 (zero-initialised logits sit exactly there).
  Tensor softplus_neg = softplus(neg(input), 1.0, 20.0);
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor lw = add(num(1.0), mul(sub(pos_weight, num(1.0)), t));
    loss = add(mul(sub(num(1.0), t), input), mul(lw, softplus_neg));
  } else {
    loss = add(mul(sub(num(1.0), t), input), softplus_neg);
  }
  if (weight.defined()) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

Tensor kl_div(const Tensor& input_, const Tensor& target_, const std::string& reduction,
              bool log_target) {
  // On autocast's float32 list: low-precision floating inputs are computed in float32.
  const Tensor input = autocast_fp32(input_), target = autocast_fp32(target_);
  check_reduction(reduction, "kl_div", true);
  // target * log(target) - target * input, with 0 * log(0) = 0 (xlogy) as in PyTorch: a
  // negative target is NaN and the gradient wrt input is -target everywhere (the where()
  // around the whole term gave 0 for target <= 0).
  Tensor loss;
  if (log_target) {
    loss = mul(exp(target), sub(target, input));
  } else {
    Tensor safe = where(eq(target, num(0.0)), num(1.0), target);
    loss = sub(mul(target, log(safe)), mul(target, input));
  }
  if (reduction == "batchmean")
    return input.dim() == 0 ? sum(loss) : div(sum(loss), num(double(input.shape()[0])));
  return reduce(loss, reduction);
}

}  // namespace tandem
