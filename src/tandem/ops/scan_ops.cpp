// Scan OpDefs: cumsum, cumprod, logcumsumexp, cummax, cummin. The input is made dense and
// scanned in place as (outer, dim, inner), so no transpose is needed.
#include <limits>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/scan_kernels.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/shape_ops.h"
#include "tandem/ops/sort.h"

namespace tandem {
namespace {

struct ScanGeom {
  int64_t O = 1, R = 1, I = 1;
};

ScanGeom scan_geom(const Shape& s, int64_t d) {
  ScanGeom g;
  for (int64_t k = 0; k < int64_t(s.size()); ++k) (k < d ? g.O : k == d ? g.R : g.I) *= s[k];
  return g;
}

// 16-bit floats are scanned in float32 and rounded once per output element.
DType compute_dtype(DType t) {
  return (t == DType::Float16 || t == DType::BFloat16) ? DType::Float32 : t;
}

ScanKind scan_kind(const OpDef& op) {
  return ScanKind(reinterpret_cast<intptr_t>(op.data));
}

std::vector<TensorMeta> scan_infer(const OpDef& op, const std::vector<Tensor>& in,
                                   const Attrs& attrs) {
  const Tensor& x = in[0];
  wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  int64_t forced = attrs.get_int_or("dtype", -1);
  DType od = x.dtype();
  if (forced >= 0)
    od = DType(forced);
  else if (scan_kind(op) == ScanKind::LogSumExp)
    od = is_floating(od) ? od : DType::Float32;
  else if (is_integral(od, true))
    od = DType::Int64;  // PyTorch accumulates ints in int64
  return {{x.shape(), od}};
}

void scan_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
              const Attrs& attrs) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  DType acc = compute_dtype(out[0].dtype());
  // dtype= converts the input first, as torch does: into float16 70000 is inf before the
  // scan, even though the scan itself runs in float32.
  const bool narrow = acc != out[0].dtype() && x.dtype() != out[0].dtype();
  Tensor xin = to_dtype(narrow ? to_dtype(x, out[0].dtype()) : x, acc).contiguous();
  Tensor dst = out[0].dtype() == acc ? out[0] : Tensor::empty(out[0].shape(), acc);
  ScanGeom g = scan_geom(x.shape(), x.dim() == 0 ? 0 : d);
  scan_kernel(scan_kind(op), xin, g.O, g.R, g.I, dst);
  if (!dst.same(out[0])) copy_into(out[0], dst);
}

OpDef make_scan(const char* name, ScanKind k) {
  OpDef op;
  op.name = name;
  op.infer = scan_infer;
  op.kernel = scan_run;
  op.data = reinterpret_cast<const void*>(intptr_t(k));
  return op;
}

const OpDef cumsum_op = make_scan("cumsum", ScanKind::Sum);
const OpDef cumprod_op = make_scan("cumprod", ScanKind::Prod);
const OpDef logcumsumexp_op = make_scan("logcumsumexp", ScanKind::LogSumExp);
TANDEM_REGISTER_OP(cumsum_op)
TANDEM_REGISTER_OP(cumprod_op)
TANDEM_REGISTER_OP(logcumsumexp_op)

std::vector<TensorMeta> cum_extreme_infer(const OpDef& op, const std::vector<Tensor>& in,
                                          const Attrs& attrs) {
  const Tensor& x = in[0];
  wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  return {{x.shape(), x.dtype()}, {x.shape(), DType::Int64}};
}

void cum_extreme_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                     const Attrs& attrs) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  DType ct = compute_dtype(x.dtype());
  Tensor xin = to_dtype(x, ct).contiguous();
  Tensor vals = ct == x.dtype() ? out[0] : Tensor::empty(out[0].shape(), ct);
  ScanGeom g = scan_geom(x.shape(), x.dim() == 0 ? 0 : d);
  cum_extreme_kernel(op.data != nullptr, xin, g.O, g.R, g.I, vals, out[1]);
  if (!vals.same(out[0])) copy_into(out[0], vals);
}

OpDef make_cum_extreme(const char* name, bool is_max) {
  OpDef op;
  op.name = name;
  op.infer = cum_extreme_infer;
  op.kernel = cum_extreme_run;
  op.data = is_max ? reinterpret_cast<const void*>(1) : nullptr;
  return op;
}

const OpDef cummax_op = make_cum_extreme("cummax", true);
const OpDef cummin_op = make_cum_extreme("cummin", false);
TANDEM_REGISTER_OP(cummax_op)
TANDEM_REGISTER_OP(cummin_op)

// --- backward rules ----------------------------------------------------------------------
// sum_{j >= i} t_j along d.
Tensor reverse_cumsum(const Tensor& t, int64_t d) {
  return flip(cumsum(flip(t, {d}), d), {d});
}
// log(sum_{j >= i} exp(t_j)) along d.
Tensor reverse_logcumsumexp(const Tensor& t, int64_t d) {
  return flip(logcumsumexp(flip(t, {d}), d), {d});
}
int64_t scan_dim(const VjpCtx& c) {
  return wrap_dim_scalar(c.attrs.get_int("dim"), c.inputs[0].dim(), c.op.name.c_str());
}
Tensor scalar_like(double v, DType t) {
  return Tensor::wrap_scalar(Scalar(v), t);
}

std::vector<Tensor> cumsum_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (c.inputs[0].dim() == 0) return {g[0]};
  return {reverse_cumsum(g[0], scan_dim(c))};
}
// cumprod: d y_j / d x_i = prod_{k <= j, k != i} x_k. Positions before the first zero of a
// row use sum_{j >= i} g_j y_j / x_i; the first zero uses the same sum over the cumprod with
// that zero replaced by one; later positions get zero (every term holds the first zero).
// Built from masks, so zeros need no data-dependent branch.
std::vector<Tensor> cumprod_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  // The zeros that matter are those of the computed dtype (cumprod(dtype=float16) turns 1e-40
  // into 0), so the masks read the input converted to it.
  const Tensor& x0 = c.inputs[0];
  const Tensor x = x0.dtype() == c.outputs[0].dtype() ? x0 : to_dtype(x0, c.outputs[0].dtype());
  if (x.dim() == 0) return {g[0]};
  int64_t d = scan_dim(c);
  DType ft = g[0].dtype();
  Tensor zero = eq(x, scalar_like(0, x.dtype()));
  Tensor seen = cumsum(zero, d);  // zeros up to and including each position
  Tensor before = eq(seen, scalar_like(0, DType::Int64));
  Tensor first = logical_and(zero, eq(seen, scalar_like(1, DType::Int64)));
  Tensor one = scalar_like(1, x.dtype());
  Tensor at_before = div(reverse_cumsum(mul(g[0], c.outputs[0]), d), where(before, x, one));
  Tensor skip_first = cumprod(where(first, one, x), d);
  Tensor at_first = reverse_cumsum(mul(g[0], skip_first), d);
  Tensor none = scalar_like(0, ft);
  return {where(before, at_before, where(first, at_first, none))};
}
// logcumsumexp: grad_i = sum_{j >= i} g_j exp(x_i - y_j), summed in log space for the
// positive and negative parts of g separately so nothing overflows.
std::vector<Tensor> logcumsumexp_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  if (x.dim() == 0) return {g[0]};
  int64_t d = scan_dim(c);
  const Tensor& y = c.outputs[0];
  DType ft = g[0].dtype();
  Tensor none = scalar_like(-std::numeric_limits<double>::infinity(), ft);
  Tensor one = scalar_like(1, ft);
  // sum over j >= i of gs_j exp(x_i - y_j) for the positive entries of gs. Terms with
  // gs_j <= 0 are -inf before the subtraction of y too, so a y_j of -inf gives no nan.
  auto part = [&](const Tensor& gs) {
    Tensor pos = gt(gs, scalar_like(0, ft));
    Tensor terms = where(pos, sub(log(where(pos, gs, one)), y), none);
    return exp(add(x, reverse_logcumsumexp(terms, d)));
  };
  return {sub(part(g[0]), part(neg(g[0])))};
}
// cummax / cummin: each output's gradient goes to the index it was taken from.
std::vector<Tensor> cum_extreme_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  if (x.dim() == 0) return {g[0]};
  return {scatter(zeros(x.shape(), g[0].dtype()), scan_dim(c), c.outputs[1], g[0], "add")};
}
TANDEM_DEFINE_VJP(cumsum_op, cumsum_vjp)
TANDEM_DEFINE_VJP(cumprod_op, cumprod_vjp)
TANDEM_DEFINE_VJP(logcumsumexp_op, logcumsumexp_vjp)
TANDEM_DEFINE_VJP(cummax_op, cum_extreme_vjp)
TANDEM_DEFINE_VJP(cummin_op, cum_extreme_vjp)

Attrs scan_attrs(int64_t dim, std::optional<DType> dtype) {
  Attrs a{{"dim", dim}};
  if (dtype) a.set("dtype", int64_t(*dtype));
  return a;
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return dispatch1(cumsum_op, {x}, scan_attrs(dim, dtype));
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return dispatch1(cumprod_op, {x}, scan_attrs(dim, dtype));
}
Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  return dispatch1(logcumsumexp_op, {x}, scan_attrs(dim, std::nullopt));
}
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  auto r = dispatch(cummax_op, {x}, {{"dim", dim}});
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  auto r = dispatch(cummin_op, {x}, {{"dim", dim}});
  return {r[0], r[1]};
}

}  // namespace tandem
