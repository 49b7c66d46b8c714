// check_between / check_fits as an op: an argument check that reads tensor values
// (probabilities in [0, 1], a fill value's range) and must also run inside a compiled graph, where
// the values exist only when the graph executes. Eagerly the check runs at once and records
// nothing; on a symbolic tensor (or while tracing) it becomes a pass-through node whose kernel
// checks before copying.
#include <cmath>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"

namespace tandem {
namespace {

void check_values(const std::pair<Scalar, Scalar>& r, const Attrs& a) {
  if (a.has("fits")) {  // the values must convert to this dtype (check_scalar_fits' rule)
    const DType t = DType(a.get_int("fits"));
    check_scalar_fits(r.first, t, a.get_str("what").c_str());
    check_scalar_fits(r.second, t, a.get_str("what").c_str());
    return;
  }
  const double lo = r.first.to_double(), hi = r.second.to_double();
  const double want_lo = a.get_float("lo"), want_hi = a.get_float("hi");
  // NaN compares false and so fails the check, as torch's does.
  if (lo >= want_lo && hi <= want_hi) return;
  if (a.get_bool_or("runtime_error", false))  // torch's type for this check
    throw_error<Error>(a.get_str("what"), " should be between ", want_lo, " and ", want_hi,
                       ", got ", lo, "..", hi, a.get_str("hint"));
  throw_error<ValueError>(a.get_str("what"), " should be between ", want_lo, " and ", want_hi,
                          ", got ", lo, "..", hi, a.get_str("hint"));
}

std::vector<TensorMeta> check_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), in[0].dtype()}};
}

void check_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs& a) {
  if (in[0].numel() > 0) check_values({amin(in[0]).item(), amax(in[0]).item()}, a);
  copy_into(out[0], in[0]);
}

std::vector<Tensor> check_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {g[0]};
}

const OpDef check_between_op = make_op("check_between", check_infer, check_kernel);
TANDEM_REGISTER_OP(check_between_op)
TANDEM_DEFINE_VJP(check_between_op, check_vjp)

}  // namespace

namespace {
// x itself once its values pass (eagerly), or x through the check node (symbolic or traced).
Tensor checked(const Tensor& x, const Attrs& a) {
  if (!x.defined() || x.numel() == 0) return x;
  if (auto r = value_range(x)) {
    check_values(*r, a);
    return x;
  }
  return dispatch1(check_between_op, {x}, a);
}
}  // namespace

Tensor check_between(const Tensor& x, double lo, double hi, const std::string& what,
                     const std::string& hint, bool runtime_error) {
  Attrs a{{"lo", lo}, {"hi", hi}, {"what", what}, {"hint", hint}};
  if (runtime_error) a.set("runtime_error", true);
  return checked(x, a);
}

Tensor check_fits(const Tensor& x, DType t, const char* op) {
  return checked(x, {{"fits", int64_t(t)}, {"what", std::string(op)}});
}

}  // namespace tandem
