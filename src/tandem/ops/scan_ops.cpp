// Scan OpDefs: cumsum, cumprod, logcumsumexp, cummax, cummin. The input is made dense and
// scanned in place as (outer, dim, inner), so no transpose is needed.
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/scan_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
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
  wrap_dim(attrs.get_int("dim"), x.dim(), op.name.c_str());
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
  int64_t d = wrap_dim(attrs.get_int("dim"), x.dim(), op.name.c_str());
  DType acc = compute_dtype(out[0].dtype());
  Tensor xin = to_dtype(x, acc).contiguous();
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
  wrap_dim(attrs.get_int("dim"), x.dim(), op.name.c_str());
  return {{x.shape(), x.dtype()}, {x.shape(), DType::Int64}};
}

void cum_extreme_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                     const Attrs& attrs) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim(attrs.get_int("dim"), x.dim(), op.name.c_str());
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
