// Reduction OpDefs: sum, prod, mean, amax, amin, all, any, max/min with indices, argmax.
// Composites (var, std, logsumexp, norm) are written with these ops so they trace and
// differentiate through them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/reduce.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/hooks.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "tandem/ops/sort.h"

namespace tandem {

std::vector<int64_t> normalize_dims(const DimList& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (!dims) {
    out.resize(size_t(ndim));
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  std::vector<bool> seen(size_t(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : *dims) {
    int64_t w = wrap_dim_scalar(d, ndim, op);
    TANDEM_CHECK(!seen[w], ValueError, op, ": dim ", w,
                 " appears multiple times in the list of dims");
    seen[w] = true;
    if (ndim > 0) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  size_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool red = k < dims.size() && dims[k] == int64_t(d);
    if (red) ++k;
    if (!red)
      out.push_back(shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

namespace {

enum class RKind { Sum, Prod, Mean, Max, Min, All, Any };

struct ReduceGeom {
  Tensor x;  // dense, laid out as (O, R, I)
  int64_t O = 1, R = 1, I = 1;
};

// Lays x out as (O, R, I): directly when the reduced dims form one block of a dense tensor,
// otherwise by moving them last with a copy.
ReduceGeom prepare(const Tensor& x, const std::vector<int64_t>& dims) {
  ReduceGeom g;
  const Shape& s = x.shape();
  std::vector<bool> red(s.size(), false);
  for (int64_t d : dims) red[d] = true;
  // Find the first and last reduced dim that is not of size 1.
  int first = -1, last = -1;
  for (size_t d = 0; d < s.size(); ++d)
    if (red[d] && s[d] != 1) {
      if (first < 0) first = int(d);
      last = int(d);
    }
  bool block = true;
  for (int d = first; d >= 0 && d <= last; ++d)
    if (!red[d] && s[d] != 1) block = false;
  if (block && x.is_contiguous()) {
    g.x = x;
    for (int d = 0; d < int(s.size()); ++d) {
      if (first < 0) {
        g.O *= s[d];
        continue;
      }
      if (d < first)
        g.O *= s[d];
      else if (d > last)
        g.I *= s[d];
      else
        g.R *= s[d];
    }
    return g;
  }
  std::vector<int64_t> perm;
  for (size_t d = 0; d < s.size(); ++d)
    if (!red[d]) perm.push_back(int64_t(d));
  for (int64_t d : dims) perm.push_back(d);
  g.x = permute(x, perm).contiguous();
  for (size_t d = 0; d < s.size(); ++d) (red[d] ? g.R : g.O) *= s[d];
  return g;
}

DType reduce_out_dtype(RKind k, DType in, const Attrs& attrs, const char* op) {
  int64_t forced = attrs.get_int_or("dtype", -1);
  if (forced >= 0) return DType(forced);
  switch (k) {
    case RKind::Sum:
    case RKind::Prod:
      return is_integral(in, true) ? DType::Int64 : in;
    case RKind::Mean:
      TANDEM_CHECK(is_floating(in), TypeError, op,
                   ": could not infer output dtype. Input dtype must be floating point, got ",
                   dtype_name(in), "; pass dtype= or convert with .float()");
      return in;
    case RKind::All:
    case RKind::Any:
      return DType::Bool;
    default:
      return in;
  }
}

RKind kind_of(const OpDef& op) {
  return RKind(reinterpret_cast<intptr_t>(op.data));
}

std::vector<TensorMeta> reduce_infer(const OpDef& op, const std::vector<Tensor>& in,
                                     const Attrs& attrs) {
  const Tensor& x = in[0];
  std::vector<int64_t> dims = normalize_dims(attrs.get_ints("dims"), x.dim(), op.name.c_str());
  RKind k = kind_of(op);
  if (k == RKind::Max || k == RKind::Min)
    for (int64_t d : dims)
      TANDEM_CHECK(x.shape()[d] != 0, IndexError, op.name,
                   ": cannot reduce over zero-size dimension ", d, " of shape ",
                   shape_str(x.shape()), " (the operation has no identity)");
  return {{reduced_shape(x.shape(), dims, attrs.get_bool("keepdim")),
           reduce_out_dtype(k, x.dtype(), attrs, op.name.c_str())}};
}

void reduce_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& attrs) {
  const Tensor& x = in[0];
  std::vector<int64_t> dims = normalize_dims(attrs.get_ints("dims"), x.dim(), op.name.c_str());
  RKind k = kind_of(op);
  DType od = out[0].dtype();
  // Accumulate in the output's dtype, float32 for 16-bit floats; all/any read bools.
  DType acc = (k == RKind::All || k == RKind::Any)              ? DType::Bool
              : (od == DType::Float16 || od == DType::BFloat16) ? DType::Float32
                                                                : od;
  Tensor xin = x.dtype() == acc ? x : to_dtype(x, acc);
  ReduceGeom g = prepare(xin, dims);
  Tensor dst = (out[0].dtype() == acc && out[0].is_contiguous())
                   ? out[0]
                   : Tensor::empty(out[0].shape(), acc);
  static const ReduceKind map[] = {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Sum,
                                   ReduceKind::Max, ReduceKind::Min,  ReduceKind::All,
                                   ReduceKind::Any};
  reduce_kernel(map[int(k)], g.x, g.O, g.R, g.I, dst);
  if (k == RKind::Mean) {
    double scale = 1.0 / double(g.R);  // R == 0 gives nan, as in PyTorch
    if (g.R == 0) scale = std::numeric_limits<double>::quiet_NaN();
    TANDEM_DISPATCH_COMPUTE(acc, "mean", [&] {
      scalar_t* p = dst.data<scalar_t>();
      int64_t n = dst.numel();
      for (int64_t i = 0; i < n; ++i) p[i] = scalar_t(double(p[i]) * scale);
    });
  }
  if (!dst.same(out[0])) copy_into(out[0], dst);
}

OpDef make_reduce(const char* name, RKind k) {
  OpDef op;
  op.name = name;
  op.infer = reduce_infer;
  op.kernel = reduce_run;
  op.data = reinterpret_cast<const void*>(intptr_t(k));
  return op;
}

const OpDef sum_op = make_reduce("sum", RKind::Sum);
const OpDef prod_op = make_reduce("prod", RKind::Prod);
const OpDef mean_op = make_reduce("mean", RKind::Mean);
const OpDef amax_op = make_reduce("amax", RKind::Max);
const OpDef amin_op = make_reduce("amin", RKind::Min);
const OpDef all_op = make_reduce("all", RKind::All);
const OpDef any_op = make_reduce("any", RKind::Any);
TANDEM_REGISTER_OP(sum_op)
TANDEM_REGISTER_OP(prod_op)
TANDEM_REGISTER_OP(mean_op)
TANDEM_REGISTER_OP(amax_op)
TANDEM_REGISTER_OP(amin_op)
TANDEM_REGISTER_OP(all_op)
TANDEM_REGISTER_OP(any_op)

// The gradient of a reduction output, broadcast back over the reduced dims.
Tensor expand_reduced(const Tensor& g, const Tensor& x, const Attrs& a) {
  std::vector<int64_t> dims = normalize_dims(a.get_ints("dims"), x.dim(), "sum");
  return expand(reshape(g, reduced_shape(x.shape(), dims, true)), x.shape());
}
std::vector<Tensor> sum_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {expand_reduced(g[0], c.inputs[0], c.attrs)};
}
std::vector<Tensor> mean_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  int64_t n = x.numel() / std::max<int64_t>(c.outputs[0].numel(), 1);
  return {div(expand_reduced(g[0], x, c.attrs), scalar_tensor(Scalar(double(n))))};
}
// amax / amin: the gradient is split evenly among the elements equal to the result (as in
// PyTorch), so ties don't double count.
std::vector<Tensor> amax_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  std::vector<int64_t> dims = normalize_dims(c.attrs.get_ints("dims"), x.dim(), "amax");
  Shape kept = reduced_shape(x.shape(), dims, true);
  Tensor hit = to_dtype(eq(x, reshape(c.outputs[0], kept)), g[0].dtype());
  Tensor count = sum(hit, dims, true);
  return {mul(hit, div(reshape(g[0], kept), count))};
}
// x moved so the reduced dims come last, flattened into one: (kept..., R).
struct Flattened {
  std::vector<int64_t> perm;
  Shape permuted;
};
Flattened reduced_last(const Tensor& x, const std::vector<int64_t>& dims) {
  Flattened f;
  std::vector<bool> red(size_t(x.dim()), false);
  for (int64_t d : dims) red[size_t(d)] = true;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!red[size_t(d)]) f.perm.push_back(d);
  f.perm.insert(f.perm.end(), dims.begin(), dims.end());
  for (int64_t d : f.perm) f.permuted.push_back(x.shape()[d]);
  return f;
}
// Products of the elements before each one along the last dim (1 for the first).
Tensor exclusive_cumprod(const Tensor& t) {
  int64_t n = t.shape().back();
  Shape one = t.shape();
  one.back() = 1;
  return cat({ones(one, t.dtype()), slice(cumprod(t, -1), -1, 0, n - 1)}, -1);
}
// prod: d/dx_i = prod of the others, formed as (product before i) * (product after i) so
// that zeros in x need no division and no data-dependent branch.
std::vector<Tensor> prod_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  std::vector<int64_t> dims = normalize_dims(c.attrs.get_ints("dims"), x.dim(), "prod");
  if (x.numel() == 0) return {zeros(x.shape(), g[0].dtype())};
  Shape kept = reduced_shape(x.shape(), dims, true);
  if (dims.empty()) return {reshape(g[0], kept)};
  Flattened f = reduced_last(x, dims);
  Shape rows(f.permuted.begin(), f.permuted.end() - int64_t(dims.size()));
  rows.push_back(-1);
  Tensor xr = reshape(permute(x, f.perm), rows);
  Tensor before = exclusive_cumprod(xr);
  Tensor after = flip(exclusive_cumprod(flip(xr, {-1})), {-1});
  std::vector<int64_t> inv(f.perm.size());
  for (size_t i = 0; i < f.perm.size(); ++i) inv[size_t(f.perm[i])] = int64_t(i);
  Tensor others = permute(reshape(mul(before, after), f.permuted), inv);
  return {mul(others, reshape(g[0], kept))};
}
// max_dim / min_dim: the gradient goes to the selected index; indices get none.
std::vector<Tensor> arg_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  if (x.dim() == 0) return {g[0]};
  int64_t d = wrap_dim_scalar(c.attrs.get_int("dim"), x.dim(), c.op.name.c_str());
  bool keep = c.attrs.get_bool("keepdim");
  Tensor idx = keep ? c.outputs[1] : unsqueeze(c.outputs[1], d);
  Tensor gv = keep ? g[0] : unsqueeze(g[0], d);
  return {scatter(zeros(x.shape(), g[0].dtype()), d, idx, gv, "add")};
}
TANDEM_DEFINE_VJP(sum_op, sum_vjp)
TANDEM_DEFINE_VJP(mean_op, mean_vjp)
TANDEM_DEFINE_VJP(prod_op, prod_vjp)
TANDEM_DEFINE_VJP(amax_op, amax_vjp)
TANDEM_DEFINE_VJP(amin_op, amax_vjp)
TANDEM_NOT_DIFFERENTIABLE(all_op)
TANDEM_NOT_DIFFERENTIABLE(any_op)

// max/min along one dim with indices: outputs (values, int64 indices).
std::vector<TensorMeta> arg_infer(const OpDef& op, const std::vector<Tensor>& in,
                                  const Attrs& attrs) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  int64_t size = x.dim() == 0 ? 1 : x.shape()[d];
  TANDEM_CHECK(size != 0, IndexError, op.name, ": cannot reduce over dimension ", d,
               " of size 0 in shape ", shape_str(x.shape()));
  Shape s = x.dim() == 0 ? Shape{} : reduced_shape(x.shape(), {d}, attrs.get_bool("keepdim"));
  return {{s, x.dtype()}, {s, DType::Int64}};
}

void arg_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
             const Attrs& attrs) {
  const Tensor& x = in[0];
  bool is_max = op.data != nullptr;
  DType ct =
      (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16) ? DType::Float32 : x.dtype();
  Tensor xin = x.dtype() == ct ? x : to_dtype(x, ct);
  std::vector<int64_t> dims;
  if (x.dim() > 0) dims.push_back(wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str()));
  ReduceGeom g = prepare(xin, dims);
  Tensor vals = ct == x.dtype() ? out[0] : Tensor::empty(out[0].shape(), ct);
  arg_reduce_kernel(is_max, g.x, g.O, g.R, g.I, vals, out[1]);
  if (!vals.same(out[0])) copy_into(out[0], vals);
}

OpDef make_arg(const char* name, bool is_max) {
  OpDef op;
  op.name = name;
  op.infer = arg_infer;
  op.kernel = arg_run;
  op.data = is_max ? reinterpret_cast<const void*>(1) : nullptr;
  return op;
}
const OpDef max_dim_op = make_arg("max_dim", true);
const OpDef min_dim_op = make_arg("min_dim", false);
TANDEM_REGISTER_OP(max_dim_op)
TANDEM_REGISTER_OP(min_dim_op)
TANDEM_DEFINE_VJP(max_dim_op, arg_vjp)
TANDEM_DEFINE_VJP(min_dim_op, arg_vjp)

Attrs reduce_attrs(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype,
                   const char* op) {
  Attrs a{{"dims", normalize_dims(dims, x.dim(), op)}, {"keepdim", keepdim}};
  if (dtype) a.set("dtype", int64_t(*dtype));
  return a;
}

}  // namespace

Tensor sum(const Tensor& x, DimList dims, bool keepdim, std::optional<DType> dtype) {
  return dispatch1(sum_op, {x}, reduce_attrs(x, dims, keepdim, dtype, "sum"));
}
Tensor mean(const Tensor& x, DimList dims, bool keepdim, std::optional<DType> dtype) {
  return dispatch1(mean_op, {x}, reduce_attrs(x, dims, keepdim, dtype, "mean"));
}
Tensor prod(const Tensor& x_, DimList dims, bool keepdim, std::optional<DType> dtype) {
  const Tensor x = autocast_fp32(x_);  // on autocast's float32 list
  return dispatch1(prod_op, {x}, reduce_attrs(x, dims, keepdim, dtype, "prod"));
}
Tensor amax(const Tensor& x, DimList dims, bool keepdim) {
  return dispatch1(amax_op, {x}, reduce_attrs(x, dims, keepdim, std::nullopt, "amax"));
}
Tensor amin(const Tensor& x, DimList dims, bool keepdim) {
  return dispatch1(amin_op, {x}, reduce_attrs(x, dims, keepdim, std::nullopt, "amin"));
}
std::optional<std::pair<Scalar, Scalar>> value_range(const Tensor& t) {
  if (t.numel() == 0 || t.is_symbolic() || active_trace_recorder() != nullptr) return std::nullopt;
  return std::make_pair(amin(t).item(), amax(t).item());
}
Tensor all(const Tensor& x, DimList dims, bool keepdim) {
  return dispatch1(all_op, {x}, reduce_attrs(x, dims, keepdim, std::nullopt, "all"));
}
Tensor any(const Tensor& x, DimList dims, bool keepdim) {
  return dispatch1(any_op, {x}, reduce_attrs(x, dims, keepdim, std::nullopt, "any"));
}

std::pair<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim) {
  auto r = dispatch(max_dim_op, {x}, {{"dim", dim}, {"keepdim", keepdim}});
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim) {
  auto r = dispatch(min_dim_op, {x}, {{"dim", dim}, {"keepdim", keepdim}});
  return {r[0], r[1]};
}
namespace {
// PyTorch has no argmax / argmin for bool; max(dim) / min(dim) do work on bool.
void check_arg_dtype(const Tensor& x, const char* op) {
  TANDEM_CHECK(x.dtype() != DType::Bool, TypeError, op,
               ": not implemented for Bool tensors; convert with .int() first");
}
}  // namespace

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  check_arg_dtype(x, "argmax");
  if (!dim) {
    Tensor r = max_dim(reshape(x, {-1}), 0, false).second;
    return keepdim ? reshape(r, Shape(size_t(x.dim()), 1)) : r;
  }
  return max_dim(x, *dim, keepdim).second;
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  check_arg_dtype(x, "argmin");
  if (!dim) {
    Tensor r = min_dim(reshape(x, {-1}), 0, false).second;
    return keepdim ? reshape(r, Shape(size_t(x.dim()), 1)) : r;
  }
  return min_dim(x, *dim, keepdim).second;
}

std::pair<Tensor, Tensor> var_mean(const Tensor& x, DimList dims, double correction, bool keepdim) {
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, "var: expected a floating point tensor, got ",
               dtype_name(x.dtype()));
  if (x.dtype() != DType::Float64) {
    // Accumulated in float64, as PyTorch's CPU kernels do: in float32 the squared deviations
    // of values near 1e20 overflow to inf where the variance itself is finite.
    auto [v, m] = var_mean(to_dtype(x, DType::Float64), dims, correction, keepdim);
    return {to_dtype(v, x.dtype()), to_dtype(m, x.dtype())};
  }
  std::vector<int64_t> d = normalize_dims(dims, x.dim(), "var");
  int64_t n = 1;
  for (int64_t k : d) n *= x.shape()[k];
  Tensor m = mean(x, d, true);
  Tensor dev = sub(x, m);
  Tensor ss = sum(mul(dev, dev), d, keepdim);
  // n - correction <= 0 gives inf/nan, as in PyTorch (which also warns); no elements: NaN.
  double denom =
      n == 0 ? std::numeric_limits<double>::quiet_NaN() : std::max(0.0, double(n) - correction);
  Tensor v = div(ss, scalar_tensor(Scalar(denom)));
  return {v, keepdim ? m : reshape(m, reduced_shape(x.shape(), d, false))};
}
Tensor var(const Tensor& x, DimList dims, double correction, bool keepdim) {
  return var_mean(x, dims, correction, keepdim).first;
}
std::pair<Tensor, Tensor> std_mean(const Tensor& x, DimList dims, double correction, bool keepdim) {
  if (is_floating(x.dtype()) && x.dtype() != DType::Float64) {  // sqrt before narrowing
    auto [s, m] = std_mean(to_dtype(x, DType::Float64), dims, correction, keepdim);
    return {to_dtype(s, x.dtype()), to_dtype(m, x.dtype())};
  }
  auto [v, m] = var_mean(x, dims, correction, keepdim);
  // sqrt's slope is infinite at 0: a constant slice (zero variance) would get 0 * inf = NaN.
  // Its gradient there is 0, as torch's std_backward masks it: the wheres route no gradient
  // into sqrt where v == 0, and the safe operand keeps sqrt's own slope finite.
  const Tensor zero = eq(v, scalar_tensor(Scalar(0.0)));
  const Tensor safe = where(zero, scalar_tensor(Scalar(1.0)), v);
  return {where(zero, scalar_tensor(Scalar(0.0)), sqrt(safe)), m};
}
Tensor std(const Tensor& x, DimList dims, double correction, bool keepdim) {
  return std_mean(x, dims, correction, keepdim).first;
}

Tensor logsumexp(const Tensor& x, DimList dims, bool keepdim) {
  Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, DType::Float32);
  std::vector<int64_t> d = normalize_dims(dims, x.dim(), "logsumexp");
  if (xf.numel() == 0) return log(sum(exp(xf), d, keepdim));
  // The shift cancels out of the result, so it carries no gradient (and needs no where vjp).
  Tensor m = detach(amax(xf, d, true));
  // Rows that are all -inf (or have +inf) would give nan from inf - inf: use 0 as the shift.
  Tensor shift = where(isinf(m), scalar_tensor(Scalar(0.0)), m);
  Tensor s = log(sum(exp(sub(xf, shift)), d, true));
  Tensor r = add(s, shift);
  return keepdim ? r : reshape(r, reduced_shape(x.shape(), d, false));
}

namespace {
// s ** q, with a zero gradient where s == 0 as PyTorch's norm backward gives: there the where
// picks a constant and the power sees 1, so no 0 * inf = NaN reaches the gradient. (s NaN
// is not 0: it stays NaN.)
Tensor root_or_zero(const Tensor& s, double q) {
  Tensor nz = ne(s, scalar_tensor(Scalar(0.0)));
  Tensor safe = where(nz, s, scalar_tensor(Scalar(1.0)));
  Tensor r = q == 0.5 ? sqrt(safe) : pow(safe, scalar_tensor(Scalar(q)));
  return where(nz, r, scalar_tensor(Scalar(0.0)));
}
}  // namespace

Tensor norm(const Tensor& x, double p, DimList dims, bool keepdim) {
  // As in PyTorch: a norm of an integer tensor is an error, not a silent float32 result.
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, "norm: expected a floating point tensor, got ",
               dtype_name(x.dtype()), "; convert with .float() or pass dtype=");
  if (x.dtype() != DType::Float64) {
    // Accumulated in float64, as PyTorch's CPU kernels do (|x|^p of a float32 1e30 overflows)
    return to_dtype(norm(to_dtype(x, DType::Float64), p, dims, keepdim), x.dtype());
  }
  const Tensor& xf = x;
  if (p < 0 && x.numel() == 0) {  // a negative p-norm is min-like: an empty set has no value
    int64_t count = 1;
    for (int64_t d : normalize_dims(dims, x.dim(), "norm")) count *= x.shape()[d];
    TANDEM_CHECK(count != 0, Error, "norm: cannot compute the ", p,
                 " norm on an empty tensor because the operation does not have an identity");
  }
  Tensor a = abs(xf);
  if (std::isinf(p)) return p > 0 ? amax(a, dims, keepdim) : amin(a, dims, keepdim);
  if (p == 0) return sum(to_dtype(ne(a, scalar_tensor(Scalar(0.0))), xf.dtype()), dims, keepdim);
  if (p == 1) return sum(a, dims, keepdim);
  if (p == 2) return root_or_zero(sum(mul(a, a), dims, keepdim), 0.5);
  if ((p > 2 || p < 0) && x.numel() > 0) {
    // |x|^p over- or underflows for a large |p| (0.26^1e30 is 0): scale by the element that
    // dominates the sum, the largest |x| for p > 0 and the smallest for p < 0:
    // s * (sum (|x| / s)^p)^(1/p). The gradient through s cancels (the norm is homogeneous of
    // degree 1). A zero s gives 0 for p < 0 (an infinite term) and is replaced by 1 for p > 0.
    std::vector<int64_t> d = normalize_dims(dims, x.dim(), "norm");
    int64_t count = 1;
    for (int64_t k : d) count *= x.shape()[k];
    if (count > 0) {
      Tensor s = p > 0 ? amax(a, d, true) : amin(a, d, true);
      Tensor zero = eq(s, scalar_tensor(Scalar(0.0)));
      Tensor safe = add(s, to_dtype(zero, s.dtype()));
      // For p < 0 a slice holding a 0 has norm 0 and gradient 0 (torch's); its terms are
      // replaced by 1s so that no 0^p = inf meets a zero gradient (NaN) on the way back.
      Tensor terms = p < 0 ? where(zero, scalar_tensor(Scalar(1.0)), a) : a;
      Tensor r =
          root_or_zero(sum(pow(div(terms, safe), scalar_tensor(Scalar(p))), d, keepdim), 1.0 / p);
      if (!keepdim) {
        safe = reshape(safe, r.shape());
        zero = reshape(zero, r.shape());
      }
      Tensor y = where(isinf(safe), safe, mul(safe, r));  // an infinite s: inf, not inf * NaN
      return p < 0 ? where(zero, mul(safe, scalar_tensor(Scalar(0.0))), y) : y;
    }
  }
  if (p < 1) {
    // |x|^p has an infinite slope at 0 for p < 1; torch's gradient there is 0. The zeros
    // contribute 0 to the sum through a where, so no infinite slope is ever multiplied.
    Tensor zero = eq(a, scalar_tensor(Scalar(0.0)));
    Tensor terms = where(zero, scalar_tensor(Scalar(0.0)),
                         pow(where(zero, scalar_tensor(Scalar(1.0)), a), scalar_tensor(Scalar(p))));
    return root_or_zero(sum(terms, dims, keepdim), 1.0 / p);
  }
  return root_or_zero(sum(pow(a, scalar_tensor(Scalar(p))), dims, keepdim), 1.0 / p);
}

Tensor count_nonzero(const Tensor& x, DimList dims) {
  return sum(ne(x, scalar_tensor(Scalar(int64_t(0)))), dims, false);
}

}  // namespace tandem
