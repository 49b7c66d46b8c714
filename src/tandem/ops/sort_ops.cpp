// Sorting and selection OpDefs (sort, topk, kthvalue, median, nanmedian, mode) and the
// counting ops (searchsorted, bincount, histc, unique). Row ops move their dim last, make
// the input dense and hand O rows of R elements to the kernels in kernels/cpu/.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/count_kernels.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/sort_kernels.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "tandem/ops/sort.h"

namespace tandem {
namespace {

// 16-bit floats sort and compare as float32; the conversion is exact both ways.
DType compute_dtype(DType t) {
  return (t == DType::Float16 || t == DType::BFloat16) ? DType::Float32 : t;
}

// The input as O dense rows of R elements along dim d (moved last).
struct Rows {
  Tensor x;
  int64_t O = 1, R = 1;
  std::vector<int64_t> perm;  // x = permute(input, perm); empty for 0-d inputs
};

Rows rows_along(const Tensor& in, int64_t d) {
  Rows v;
  Tensor x = to_dtype(in, compute_dtype(in.dtype()));
  if (x.dim() == 0) {
    v.x = x.contiguous();
    return v;
  }
  for (int64_t k = 0; k < x.dim(); ++k)
    if (k != d) v.perm.push_back(k);
  v.perm.push_back(d);
  v.x = (d == x.dim() - 1 ? x : permute(x, v.perm)).contiguous();
  v.R = x.shape()[d];
  v.O = 1;
  for (int64_t k = 0; k < x.dim(); ++k)
    if (k != d) v.O *= x.shape()[k];
  return v;
}

// Output `out` (same rank as the input) seen in the rows' layout, and a dense buffer of the
// compute dtype to write into; flush() copies the buffer back when it is not `out` itself.
struct RowOut {
  Tensor view, buf;
  RowOut(const Tensor& out, const Rows& rows, DType ct) {
    view = rows.perm.empty() ? out : permute(out, rows.perm);
    buf = (view.dtype() == ct && view.is_contiguous()) ? view : Tensor::empty(view.shape(), ct);
  }
  void flush() const {
    if (!buf.same(view)) copy_into(view, buf);
  }
};

// Reduced outputs are dense with one element per row, so only the dtype may differ.
struct ReducedOut {
  Tensor out, buf;
  ReducedOut(const Tensor& o, DType ct) : out(o) {
    buf = o.dtype() == ct ? o : Tensor::empty(o.shape(), ct);
  }
  void flush() const {
    if (!buf.same(out)) copy_into(out, buf);
  }
};

int64_t dim_size(const Tensor& x, int64_t d) {
  return x.dim() == 0 ? 1 : x.shape()[d];
}

// --- sort ----------------------------------------------------------------------------------
std::vector<TensorMeta> sort_infer(const OpDef& op, const std::vector<Tensor>& in,
                                   const Attrs& attrs) {
  const Tensor& x = in[0];
  wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  return {{x.shape(), x.dtype()}, {x.shape(), DType::Int64}};
}

void sort_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
              const Attrs& attrs) {
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), in[0].dim(), op.name.c_str());
  Rows rows = rows_along(in[0], d);
  RowOut vals(out[0], rows, rows.x.dtype()), idx(out[1], rows, DType::Int64);
  sort_rows_kernel(rows.x, rows.O, rows.R, attrs.get_bool("descending"), vals.buf, idx.buf);
  vals.flush();
  idx.flush();
}

const OpDef sort_op = [] {
  OpDef op;
  op.name = "sort";
  op.infer = sort_infer;
  op.kernel = sort_run;
  return op;
}();
TANDEM_REGISTER_OP(sort_op)

// --- topk ----------------------------------------------------------------------------------
std::vector<TensorMeta> topk_infer(const OpDef& op, const std::vector<Tensor>& in,
                                   const Attrs& attrs) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dtype() != DType::Bool, TypeError, op.name,
               ": bool tensors are not supported (as in PyTorch); convert with .int() first");
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  int64_t k = attrs.get_int("k"), n = dim_size(x, d);
  TANDEM_CHECK(k >= 0 && k <= n, IndexError, "topk: k=", k, " is out of range for dimension ", d,
               " of size ", n, " (shape ", shape_str(x.shape()), "); expected 0 <= k <= ", n);
  Shape s = x.shape();
  if (x.dim() > 0) s[d] = k;
  return {{s, x.dtype()}, {s, DType::Int64}};
}

void topk_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
              const Attrs& attrs) {
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), in[0].dim(), op.name.c_str());
  if (in[0].dim() == 0) {  // PyTorch returns the element itself for k = 0 and k = 1
    copy_into(out[0], in[0]);
    *out[1].data<int64_t>() = 0;
    return;
  }
  Rows rows = rows_along(in[0], d);
  RowOut vals(out[0], rows, rows.x.dtype()), idx(out[1], rows, DType::Int64);
  topk_rows_kernel(rows.x, rows.O, rows.R, attrs.get_int("k"), attrs.get_bool("largest"), vals.buf,
                   idx.buf);
  vals.flush();
  idx.flush();
}

const OpDef topk_op = [] {
  OpDef op;
  op.name = "topk";
  op.infer = topk_infer;
  op.kernel = topk_run;
  return op;
}();
TANDEM_REGISTER_OP(topk_op)

// --- reductions to one element per row: kthvalue, median, nanmedian, mode ------------------
enum class Select : intptr_t { Kth, Median, NanMedian, Mode };

Select select_kind(const OpDef& op) {
  return Select(reinterpret_cast<intptr_t>(op.data));
}

std::vector<TensorMeta> select_infer(const OpDef& op, const std::vector<Tensor>& in,
                                     const Attrs& attrs) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), x.dim(), op.name.c_str());
  int64_t n = dim_size(x, d);
  if (select_kind(op) == Select::Kth) {
    int64_t k = attrs.get_int("k");
    TANDEM_CHECK(k >= 1 && k <= n, IndexError, "kthvalue: k=", k, " is out of range for dimension ",
                 d, " of size ", n, " (shape ", shape_str(x.shape()), "); expected 1 <= k <= ", n);
  }
  TANDEM_CHECK(n > 0, IndexError, op.name, ": cannot reduce over dimension ", d,
               " of size 0 in shape ", shape_str(x.shape()));
  Shape s = x.dim() == 0 ? Shape{} : reduced_shape(x.shape(), {d}, attrs.get_bool("keepdim"));
  return {{s, x.dtype()}, {s, DType::Int64}};
}

void select_run(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& attrs) {
  int64_t d = wrap_dim_scalar(attrs.get_int("dim"), in[0].dim(), op.name.c_str());
  Rows rows = rows_along(in[0], d);
  ReducedOut vals(out[0], rows.x.dtype());
  switch (select_kind(op)) {
    case Select::Kth:
      kth_rows_kernel(rows.x, rows.O, rows.R, attrs.get_int("k") - 1, vals.buf, out[1]);
      break;
    case Select::Median:
    case Select::NanMedian:
      median_rows_kernel(rows.x, rows.O, rows.R, select_kind(op) == Select::NanMedian, vals.buf,
                         out[1]);
      break;
    case Select::Mode:
      mode_rows_kernel(rows.x, rows.O, rows.R, vals.buf, out[1]);
      break;
  }
  vals.flush();
}

OpDef make_select(const char* name, Select k) {
  OpDef op;
  op.name = name;
  op.infer = select_infer;
  op.kernel = select_run;
  op.data = reinterpret_cast<const void*>(intptr_t(k));
  return op;
}

const OpDef kthvalue_op = make_select("kthvalue", Select::Kth);
const OpDef median_op = make_select("median", Select::Median);
const OpDef nanmedian_op = make_select("nanmedian", Select::NanMedian);
const OpDef mode_op = make_select("mode", Select::Mode);
TANDEM_REGISTER_OP(kthvalue_op)
TANDEM_REGISTER_OP(median_op)
TANDEM_REGISTER_OP(nanmedian_op)
TANDEM_REGISTER_OP(mode_op)

// --- backward rules: values' gradients go back to the indices they came from -------------
std::vector<Tensor> scatter_back(const VjpCtx& c, const Tensor& g, const Tensor& idx,
                                 bool reduced) {
  const Tensor& x = c.inputs[0];
  if (x.dim() == 0) return {g};
  int64_t d = wrap_dim_scalar(c.attrs.get_int("dim"), x.dim(), c.op.name.c_str());
  bool squeezed = reduced && !c.attrs.get_bool("keepdim");
  return {scatter(zeros(x.shape(), g.dtype()), d, squeezed ? unsqueeze(idx, d) : idx,
                  squeezed ? unsqueeze(g, d) : g, "add")};
}
// sort and topk keep the dim.
std::vector<Tensor> sort_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return scatter_back(c, g[0], c.outputs[1], false);
}
// kthvalue, median, nanmedian, mode reduce the dim (keepdim attr).
std::vector<Tensor> select_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return scatter_back(c, g[0], c.outputs[1], true);
}
TANDEM_DEFINE_VJP(sort_op, sort_vjp)
TANDEM_DEFINE_VJP(topk_op, sort_vjp)
TANDEM_DEFINE_VJP(kthvalue_op, select_vjp)
TANDEM_DEFINE_VJP(median_op, select_vjp)
TANDEM_DEFINE_VJP(nanmedian_op, select_vjp)
TANDEM_DEFINE_VJP(mode_op, select_vjp)

std::pair<Tensor, Tensor> run_select(const OpDef& op, const Tensor& x, int64_t dim, bool keepdim,
                                     int64_t k = 0) {
  Attrs a{{"dim", dim}, {"keepdim", keepdim}};
  if (select_kind(op) == Select::Kth) a.set("k", k);
  auto r = dispatch(op, {x}, a);
  return {r[0], r[1]};
}

// median / nanmedian of every element as a 0-d tensor.
Tensor median_all(const OpDef& op, const Tensor& x) {
  if (x.numel() == 0) {
    TANDEM_CHECK(is_floating(x.dtype()), ValueError, op.name,
                 ": the median of an empty tensor is NaN, which dtype ", dtype_name(x.dtype()),
                 " cannot hold; convert to a floating dtype first");
    return full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), x.dtype());
  }
  return run_select(op, reshape(x, {-1}), 0, false).first;
}

// --- searchsorted ----------------------------------------------------------------------------
std::vector<TensorMeta> searchsorted_infer(const OpDef& op, const std::vector<Tensor>& in,
                                           const Attrs& attrs) {
  const Tensor &seq = in[0], &v = in[1];
  TANDEM_CHECK(seq.dim() >= 1, ValueError,
               "searchsorted: sorted_sequence must have at least 1 dimension, got a 0-d tensor");
  if (seq.dim() > 1) {
    bool ok = v.dim() == seq.dim() &&
              std::equal(seq.shape().begin(), seq.shape().end() - 1, v.shape().begin());
    TANDEM_CHECK(ok, ValueError, "searchsorted: sorted_sequence of shape ", shape_str(seq.shape()),
                 " needs values with the same leading dims ([..., n]), got shape ",
                 shape_str(v.shape()),
                 "; use a 1-D sorted_sequence to search every value in one row");
  }
  return {{v.shape(), attrs.get_bool("out_int32") ? DType::Int32 : DType::Int64}};
}

void searchsorted_run(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                      const Attrs& attrs) {
  DType ct = compute_dtype(promote_types(in[0].dtype(), in[1].dtype()));
  Tensor seq = to_dtype(in[0], ct).contiguous(), v = to_dtype(in[1], ct).contiguous();
  int64_t L = seq.shape().back();
  bool batched = seq.dim() > 1;
  int64_t rows = batched ? (L == 0 ? numel_of(Shape(seq.shape().begin(), seq.shape().end() - 1))
                                   : seq.numel() / L)
                         : 1;
  searchsorted_kernel(seq, L, batched, v, rows, attrs.get_bool("right"), out[0]);
}

const OpDef searchsorted_op = [] {
  OpDef op;
  op.name = "searchsorted";
  op.infer = searchsorted_infer;
  op.kernel = searchsorted_run;
  return op;
}();
TANDEM_REGISTER_OP(searchsorted_op)
TANDEM_NOT_DIFFERENTIABLE(searchsorted_op)

// --- bincount / histc: the composites below read the data for the size / range ----------------
std::vector<TensorMeta> bincount_infer(const OpDef&, const std::vector<Tensor>& in,
                                       const Attrs& attrs) {
  DType od = DType::Int64;
  if (in.size() > 1) od = in[1].dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
  return {{{attrs.get_int("length")}, od}};
}

void bincount_run(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs&) {
  Tensor x = to_dtype(in[0], DType::Int64).contiguous();
  Tensor w = in.size() > 1 ? to_dtype(in[1], out[0].dtype()).contiguous() : Tensor();
  bincount_kernel(x, w, out[0]);
}

const OpDef bincount_op = [] {
  OpDef op;
  op.name = "bincount";
  op.infer = bincount_infer;
  op.kernel = bincount_run;
  return op;
}();
TANDEM_REGISTER_OP(bincount_op)
TANDEM_NOT_DIFFERENTIABLE(bincount_op)

std::vector<TensorMeta> histc_infer(const OpDef&, const std::vector<Tensor>& in,
                                    const Attrs& attrs) {
  return {{{attrs.get_int("bins")}, in[0].dtype()}};
}

void histc_run(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& attrs) {
  DType ct = compute_dtype(in[0].dtype());
  Tensor x = to_dtype(in[0], ct).contiguous();
  ReducedOut o(out[0], ct);
  histc_kernel(x, attrs.get_int("bins"), attrs.get_float("min"), attrs.get_float("max"), o.buf);
  o.flush();
}

const OpDef histc_op = [] {
  OpDef op;
  op.name = "histc";
  op.infer = histc_infer;
  op.kernel = histc_run;
  return op;
}();
TANDEM_REGISTER_OP(histc_op)
TANDEM_NOT_DIFFERENTIABLE(histc_op)

Tensor int64_tensor(const std::vector<int64_t>& v) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Int64);
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

// Views with dim d moved to the front, and back from the front to d.
Tensor dim_to_front(const Tensor& x, int64_t d) {
  std::vector<int64_t> p{d};
  for (int64_t k = 0; k < x.dim(); ++k)
    if (k != d) p.push_back(k);
  return permute(x, p);
}
Tensor front_to_dim(const Tensor& x, int64_t d) {
  std::vector<int64_t> p;
  for (int64_t k = 1; k <= d; ++k) p.push_back(k);
  p.push_back(0);
  for (int64_t k = d + 1; k < x.dim(); ++k) p.push_back(k);
  return permute(x, p);
}

// unique / unique_consecutive: groups equal elements (or slices along dim) eagerly.
std::tuple<Tensor, Tensor, Tensor> unique_impl(const char* op, const Tensor& x, bool sort,
                                               bool want_inverse, bool want_counts,
                                               std::optional<int64_t> dim) {
  Tensor rows;  // (N, M): one row per element or per slice along dim
  int64_t d = 0;
  if (!dim) {
    rows = reshape(x, {-1, 1});
  } else {
    TANDEM_CHECK(x.dim() > 0, IndexError, op, ": dim=", *dim,
                 " needs a tensor with at least one dimension, got a 0-d tensor");
    d = wrap_dim_scalar(*dim, x.dim(), op);
    if (x.numel() == 0) {  // torch's rules: only the selected dim may be empty
      int64_t zeros = std::count(x.shape().begin(), x.shape().end(), int64_t(0));
      TANDEM_CHECK(zeros == 1, ValueError, op, ": ", zeros, " zero-sized dimensions in shape ",
                   shape_str(x.shape()), "; with dim, at most the selected one may have size 0");
      TANDEM_CHECK(x.shape()[d] == 0, ValueError, op, ": dimension ", d, " of shape ",
                   shape_str(x.shape()),
                   " is not selected but has size 0, so the slices along dim are empty");
    }
    Tensor moved = d == 0 ? x : dim_to_front(x, d);
    int64_t slice = 1;  // explicit, since -1 is ambiguous when the dim has size 0
    for (int64_t k = 0; k < x.dim(); ++k)
      if (k != d) slice *= x.shape()[k];
    rows = reshape(moved, {x.shape()[d], slice});
  }
  int64_t N = rows.shape()[0], M = rows.shape()[1];
  Tensor keys = to_dtype(rows, compute_dtype(x.dtype())).contiguous();
  std::vector<int64_t> first, counts, inverse;
  unique_rows_kernel(keys, N, M, sort, first, counts, inverse);
  Tensor vals = index_select(rows, 0, int64_tensor(first));
  if (!dim) {
    vals = reshape(vals, {-1});
  } else {
    Shape s = x.shape();
    s.erase(s.begin() + d);
    s.insert(s.begin(), int64_t(first.size()));
    vals = reshape(vals, s);
    if (d != 0) vals = front_to_dim(vals, d).contiguous();
  }
  Tensor inv, cnt;
  if (want_inverse) {
    inv = int64_tensor(inverse);
    if (!dim) inv = reshape(inv, x.shape());
  }
  if (want_counts) cnt = int64_tensor(counts);
  return {vals, inv, cnt};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  (void)stable;  // the kernel is always stable
  auto r = dispatch(sort_op, {x}, {{"dim", dim}, {"descending", descending}});
  return {r[0], r[1]};
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return sort(x, dim, descending, stable).second;
}
Tensor msort(const Tensor& x) {
  return sort(x, 0).first;
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // results always come best first, which is one valid order for sorted=False
  auto r = dispatch(topk_op, {x}, {{"k", k}, {"dim", dim}, {"largest", largest}});
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return run_select(kthvalue_op, x, dim, keepdim, k);
}
Tensor median(const Tensor& x) {
  return median_all(median_op, x);
}
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  return run_select(median_op, x, dim, keepdim);
}
Tensor nanmedian(const Tensor& x) {
  return median_all(nanmedian_op, x);
}
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return run_select(nanmedian_op, x, dim, keepdim);
}
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  return run_select(mode_op, x, dim, keepdim);
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted, bool return_inverse,
                                          bool return_counts, std::optional<int64_t> dim) {
  (void)sorted;  // always sorted, one valid order for sorted=False
  return unique_impl("unique", x, true, return_inverse, return_counts, dim);
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  return unique_impl("unique_consecutive", x, false, return_inverse, return_counts, dim);
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  TANDEM_CHECK(x.dim() == 1, ValueError, "bincount: input must be 1-D, got shape ",
               shape_str(x.shape()));
  TANDEM_CHECK(is_integral(x.dtype(), false), TypeError, "bincount: input must hold integers, got ",
               dtype_name(x.dtype()));
  TANDEM_CHECK(minlength >= 0, ValueError, "bincount: minlength must be >= 0, got ", minlength);
  if (weights) {
    TANDEM_CHECK(weights->dim() == 1 && weights->shape()[0] == x.shape()[0], ValueError,
                 "bincount: weights must be 1-D with the input's length ", x.shape()[0],
                 ", got shape ", shape_str(weights->shape()));
  }
  int64_t length = minlength;
  if (x.numel() > 0) {
    int64_t lo = amin(x).item().to_int(), hi = amax(x).item().to_int();
    TANDEM_CHECK(lo >= 0, ValueError, "bincount: input must be non-negative, found ", lo);
    length = std::max(length, hi + 1);
  }
  std::vector<Tensor> in{x};
  if (weights) in.push_back(*weights);
  return dispatch1(bincount_op, in, {{"length", length}});
}

Tensor histc(const Tensor& x, int64_t bins, double min, double max) {
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, "histc: expected a floating point tensor, got ",
               dtype_name(x.dtype()), "; convert with .float()");
  TANDEM_CHECK(bins > 0, ValueError, "histc: bins must be > 0, got ", bins);
  // torch converts the range to x's dtype with a check, unless min == max: then the data's
  // own range is used and the bounds are never converted.
  if (min != max) {
    check_scalar_fits(Scalar(min), x.dtype(), "histc");
    check_scalar_fits(Scalar(max), x.dtype(), "histc");
  }
  TANDEM_CHECK(std::isfinite(min) && std::isfinite(max), ValueError, "histc: range [", min, ", ",
               max, "] is not finite");
  TANDEM_CHECK(min <= max, ValueError, "histc: max (", max, ") must be >= min (", min, ")");
  if (min == max && x.numel() > 0) {
    min = amin(x).item_double();
    max = amax(x).item_double();
    TANDEM_CHECK(std::isfinite(min) && std::isfinite(max), ValueError, "histc: the data range [",
                 min, ", ", max, "] is not finite; pass min and max explicitly");
  }
  if (min == max) {  // PyTorch widens a degenerate range by one on each side
    min -= 1;
    max += 1;
  }
  return dispatch1(histc_op, {x}, {{"bins", bins}, {"min", min}, {"max", max}});
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  if (side) {
    TANDEM_CHECK(*side == "left" || *side == "right", ValueError,
                 "searchsorted: side must be 'left' or 'right', got '", *side, "'");
    TANDEM_CHECK(!(right && *side == "left"), ValueError,
                 "searchsorted: side='left' contradicts right=True; pass only one of them");
    right = *side == "right";
  }
  Tensor seq = sorted_sequence;
  if (sorter) {
    TANDEM_CHECK(sorter->shape() == seq.shape(), ValueError, "searchsorted: sorter of shape ",
                 shape_str(sorter->shape()), " must have the sequence's shape ",
                 shape_str(seq.shape()));
    TANDEM_CHECK(sorter->dtype() == DType::Int64, TypeError,
                 "searchsorted: sorter must be int64, got ", dtype_name(sorter->dtype()));
    TANDEM_CHECK(seq.dim() >= 1, ValueError,
                 "searchsorted: sorted_sequence must have at least 1 dimension");
    // gather wraps negative indices (MindSpore's rule): a sorter index outside [0, n) would
    // silently pick another element. Checked now, or when a compiled graph runs.
    const int64_t n = seq.shape().back();
    const Tensor s = check_between(*sorter, 0, double(n - 1),
                                   "searchsorted: sorter index out of "
                                   "range: sorter indices",
                                   " (sorter holds positions in the last dim of "
                                   "sorted_sequence, as argsort gives)",
                                   true);
    seq = gather(seq, -1, s);
  }
  return dispatch1(searchsorted_op, {seq, values}, {{"right", right}, {"out_int32", out_int32}});
}

}  // namespace tandem
