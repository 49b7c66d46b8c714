// Indexing OpDefs (index, index_put, gather, scatter, nonzero) and the composites built on
// them (index_select, take, masked_*, one_hot).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/index_kernels.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

struct IndexPlan {
  std::vector<int64_t> dims, rest;
  Shape bshape;   // broadcast index shape
  bool adjacent;  // indexed dims are consecutive: result keeps them in place
  Shape result;   // shape of x[idx]
};

IndexPlan plan_index(const Tensor& x, const std::vector<int64_t>& dims,
                     const std::vector<Tensor>& idx, const char* op) {
  TANDEM_CHECK(!dims.empty() && dims.size() == idx.size(), ValueError, op,
               ": need one index tensor per indexed dim");
  TANDEM_CHECK(int64_t(dims.size()) <= x.dim(), IndexError, op,
               ": too many indices for tensor of dimension ", x.dim());
  IndexPlan p;
  p.dims = dims;
  for (size_t i = 0; i < idx.size(); ++i) {
    TANDEM_CHECK(is_integral(idx[i].dtype()), IndexError, op,
                 ": tensors used as indices must be long, int or bool tensors, got ",
                 dtype_name(idx[i].dtype()));
    if (i > 0) {  // numpy and PyTorch report this as an IndexError
      const Shape &a = p.bshape, &b = idx[i].shape();
      for (size_t k = 1; k <= std::min(a.size(), b.size()); ++k) {
        int64_t x = a[a.size() - k], y = b[b.size() - k];
        TANDEM_CHECK(x == y || x == 1 || y == 1, IndexError, op,
                     ": shape mismatch: indexing tensors could not be broadcast together with "
                     "shapes ",
                     shape_str(a), " and ", shape_str(b));
      }
    }
    p.bshape = i == 0 ? idx[0].shape() : broadcast_shapes(p.bshape, idx[i].shape(), op);
    if (i) TANDEM_CHECK(dims[i] > dims[i - 1], Error, "internal: index dims must be sorted");
  }
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) p.rest.push_back(d);
  p.adjacent = dims.back() - dims.front() == int64_t(dims.size()) - 1;
  if (p.adjacent) {
    p.result.assign(x.shape().begin(), x.shape().begin() + dims.front());
    p.result.insert(p.result.end(), p.bshape.begin(), p.bshape.end());
    p.result.insert(p.result.end(), x.shape().begin() + dims.back() + 1, x.shape().end());
  } else {
    p.result = p.bshape;
    for (int64_t d : p.rest) p.result.push_back(x.shape()[d]);
  }
  return p;
}

// Element offsets (in xf's strides) for every broadcast index position, bounds-checked.
// xf is x permuted by dims_first, so index j applies to xf's dim j (x's dim p.dims[j]).
// Negative indices count from the end unless the attrs say "wrap": false (index_select and
// index_add, which torch bounds to [0, size)); "name" is then the op to report.
std::vector<int64_t> index_offsets(const Tensor& xf, const IndexPlan& p,
                                   const std::vector<Tensor>& idx, const char* op, const Attrs& a) {
  const bool wrap = a.get_bool_or("wrap", true);
  if (!wrap) op = a.get_str("name").c_str();
  int64_t n = numel_of(p.bshape);
  std::vector<int64_t> off(size_t(n), 0);
  for (size_t j = 0; j < idx.size(); ++j) {
    Tensor ij = to_dtype(expand(idx[j], p.bshape), DType::Int64).contiguous();
    const int64_t* ip = ij.data<int64_t>();
    int64_t d = p.dims[j], size = xf.shape()[j], stride = xf.strides()[j];
    for (int64_t b = 0; b < n; ++b) {
      int64_t k = ip[b];
      if (k < (wrap ? -size : 0) || k >= size) [[unlikely]]
        throw_error<IndexError>(op, ": index ", k, wrap ? " is out of bounds" : " is out of range",
                                " for dimension ", d, " with size ", size,
                                wrap ? "" : " (indices must be in [0, size))");
      off[b] += (k < 0 ? k + size : k) * stride;
    }
  }
  return off;
}

// The permutation from (bshape..., rest...) order to the result's order.
std::vector<int64_t> result_perm(const IndexPlan& p) {
  int64_t nb = int64_t(p.bshape.size()), pre = p.adjacent ? p.dims.front() : 0;
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < pre; ++i) perm.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (int64_t i = nb + pre; i < nb + int64_t(p.rest.size()); ++i) perm.push_back(i);
  return perm;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = int64_t(i);
  return inv;
}

// x permuted so the indexed dims come first: (dims..., rest...).
Tensor dims_first(const Tensor& x, const IndexPlan& p) {
  std::vector<int64_t> perm = p.dims;
  perm.insert(perm.end(), p.rest.begin(), p.rest.end());
  return permute(x, perm);
}

std::vector<Tensor> tail(const std::vector<Tensor>& in, size_t from) {
  return std::vector<Tensor>(in.begin() + from, in.end());
}

std::vector<TensorMeta> index_infer(const OpDef& op, const std::vector<Tensor>& in,
                                    const Attrs& a) {
  IndexPlan p = plan_index(in[0], a.get_ints("dims"), tail(in, 1), "index");
  return {{p.result, in[0].dtype()}};
}

void index_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs& a) {
  std::vector<Tensor> idx = tail(in, 1);
  IndexPlan p = plan_index(in[0], a.get_ints("dims"), idx, "index");
  Tensor xc = dims_first(in[0], p).contiguous();
  std::vector<int64_t> off = index_offsets(xc, p, idx, "index", a);
  int64_t inner = 1;
  Shape tmp_shape = p.bshape;
  for (int64_t d : p.rest) {
    inner *= in[0].shape()[d];
    tmp_shape.push_back(in[0].shape()[d]);
  }
  std::vector<int64_t> perm = result_perm(p);
  bool identity = std::is_sorted(perm.begin(), perm.end());
  Tensor tmp = identity ? out[0] : Tensor::empty(tmp_shape, in[0].dtype());
  gather_blocks(xc, off, inner, tmp);
  if (!identity) copy_into(out[0], permute(tmp, perm));
}

// Inputs: x, values, idx...; output: x with values written (or added) at the indices.
std::vector<TensorMeta> index_put_infer(const OpDef&, const std::vector<Tensor>& in,
                                        const Attrs& a) {
  IndexPlan p = plan_index(in[0], a.get_ints("dims"), tail(in, 2), "index_put");
  broadcast_shapes(p.result, in[1].shape(), "index_put");
  TANDEM_CHECK(broadcast_shapes(p.result, in[1].shape(), "index_put") == p.result, ValueError,
               "index_put: shape mismatch: value tensor of shape ", shape_str(in[1].shape()),
               " cannot be broadcast to indexing result of shape ", shape_str(p.result));
  return {{in[0].shape(), in[0].dtype()}};
}

void index_put_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                      const Attrs& a) {
  const Tensor& x = in[0];
  Tensor dst = out[0];
  if (!(dst.data_ptr() == x.data_ptr() && dst.strides() == x.strides())) copy_into(dst, x);
  std::vector<Tensor> idx = tail(in, 2);
  IndexPlan p = plan_index(x, a.get_ints("dims"), idx, "index_put");
  bool acc = a.get_bool("accumulate");
  Tensor dv = dims_first(dst, p);  // a view of the destination
  std::vector<int64_t> off = index_offsets(dv, p, idx, "index_put", a);
  // Values laid out as (bshape..., rest...), dense, in the destination's dtype.
  Tensor v = permute(expand(to_dtype(in[1], dst.dtype()), p.result), inverse(result_perm(p)));
  v = v.contiguous();
  Shape rest_shape;
  Strides rest_strides;
  for (size_t i = p.dims.size(); i < size_t(dv.dim()); ++i) {
    rest_shape.push_back(dv.shape()[i]);
    rest_strides.push_back(dv.strides()[i]);
  }
  int64_t inner = numel_of(rest_shape);
  bool dense_rest = Tensor::make_view(dv, rest_shape, rest_strides, 0).is_contiguous();
  size_t isz = dst.itemsize();
  if (!acc && dense_rest) {
    char* base = static_cast<char*>(dv.data_ptr());
    const char* vp = static_cast<const char*>(v.data_ptr());
    for (size_t b = 0; b < off.size(); ++b)
      std::memcpy(base + off[b] * int64_t(isz), vp + int64_t(b) * inner * int64_t(isz),
                  size_t(inner) * isz);
    return;
  }
  // Sequential so duplicate indices accumulate; one small view per index position.
  for (size_t b = 0; b < off.size(); ++b) {
    Tensor d = Tensor::make_view(dv, rest_shape, rest_strides, dv.offset() + off[b]);
    Tensor s = Tensor::make_view(v, rest_shape, contiguous_strides(rest_shape),
                                 v.offset() + int64_t(b) * inner);
    copy_into(d, acc ? add(d, s) : s);
  }
}

std::vector<TensorMeta> gather_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor &x = in[0], &index = in[1];
  int64_t dim = wrap_dim_scalar(a.get_int("dim"), x.dim(), "gather");
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, TypeError,
               "gather: index must be an int64 tensor, got ", dtype_name(index.dtype()));
  TANDEM_CHECK(index.dim() == x.dim() || (x.dim() == 0 && index.dim() <= 1), ValueError,
               "gather: index tensor must have the same number of dimensions as input (", x.dim(),
               "), got ", index.dim());
  for (int64_t d = 0; d < index.dim() && x.dim() > 0; ++d)
    TANDEM_CHECK(d == dim || index.shape()[d] <= x.shape()[d], ValueError,
                 "gather: size of index (", shape_str(index.shape()), ") must not exceed input's (",
                 shape_str(x.shape()), ") except at dim ", dim);
  return {{index.shape(), x.dtype()}};
}

void gather_run(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& a) {
  Tensor x = in[0].dim() == 0 ? reshape(in[0], {1}) : in[0];
  int64_t dim = wrap_dim_scalar(a.get_int("dim"), x.dim(), "gather");
  Tensor idx = to_dtype(in[1], DType::Int64).contiguous();
  if (in[0].dim() == 0) idx = reshape(idx, {idx.numel()});  // a 0-d or [k] index, k <= 1
  gather_kernel(x, dim, idx, out[0], a.get_bool_or("wrap", true));
}

// Inputs: x, index, src; output: x with src scattered along dim.
std::vector<TensorMeta> scatter_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor &x = in[0], &index = in[1], &src = in[2];
  int64_t dim = wrap_dim_scalar(a.get_int("dim"), x.dim(), "scatter");
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, TypeError,
               "scatter: index must be an int64 tensor, got ", dtype_name(index.dtype()));
  // A src tensor must have self's dtype, as in PyTorch, 0-d ones too; a wrapped Python
  // number is converted like one.
  TANDEM_CHECK(src.is_wrapped_number() || src.dtype() == x.dtype(), TypeError,
               "scatter: expected src to have self's dtype ", dtype_name(x.dtype()), ", got ",
               dtype_name(src.dtype()), "; convert it with .to(input.dtype)");
  // A 0-d self scatters as a 1-element vector, so a 1-d index (of any length, every entry
  // 0) is accepted there, as PyTorch does.
  TANDEM_CHECK(index.dim() == x.dim() || (x.dim() == 0 && index.dim() == 1), ValueError,
               "scatter: index tensor must have the same number of dimensions as self (", x.dim(),
               "), got ", index.dim());
  // As in PyTorch, a 0-d index counts as 1-d here; a 0-d src is a number (the Python face
  // checks 0-d src tensors against the index itself).
  TANDEM_CHECK(src.dim() == 0 || std::max<int64_t>(index.dim(), 1) == src.dim(), ValueError,
               "scatter: index tensor must have the same number of dimensions as src tensor "
               "(index has ",
               index.dim(), ", src has ", src.dim(), ")");
  for (int64_t d = 0; d < index.dim(); ++d) {
    TANDEM_CHECK(d == dim || x.dim() == 0 || index.shape()[d] <= x.shape()[d], ValueError,
                 "scatter: size of index ", shape_str(index.shape()), " must not exceed self's ",
                 shape_str(x.shape()), " except at dim ", dim);
    TANDEM_CHECK(src.dim() == 0 || (src.dim() == index.dim() && index.shape()[d] <= src.shape()[d]),
                 ValueError, "scatter: index ", shape_str(index.shape()),
                 " must not be larger than src ", shape_str(src.shape()));
  }
  return {{x.shape(), x.dtype()}};
}

void scatter_run(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = wrap_dim_scalar(a.get_int("dim"), x.dim(), "scatter");
  Tensor idx = to_dtype(in[1], DType::Int64).contiguous();
  DType ct =
      (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16) ? DType::Float32 : x.dtype();
  Tensor dst = ct == x.dtype() ? out[0] : Tensor::empty(x.shape(), ct);
  copy_into(dst, x);
  Tensor src = to_dtype(in[2], ct);
  if (src.dim() == 0) src = expand(src, idx.shape());
  if (x.dim() == 0) {  // a 0-d tensor scatters as a 1-element vector (dim 0 or -1)
    Tensor d1 = reshape(dst, {1});
    const int64_t k = idx.numel();
    Tensor s1 = reshape(src.contiguous(), {src.numel()});
    if (s1.numel() > k) s1 = narrow(s1, 0, 0, k);
    scatter_kernel(d1, 0, reshape(idx, {k}), s1.contiguous(), int(a.get_int("mode")),
                   a.get_bool_or("wrap", true));
  } else {
    scatter_kernel(dst, dim, idx, src, int(a.get_int("mode")), a.get_bool_or("wrap", true));
  }
  if (!dst.same(out[0])) copy_into(out[0], dst);
}

std::vector<TensorMeta> nonzero_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  throw_error<NotImplementedError>(
      "nonzero: the output shape depends on the data, so it cannot be inferred symbolically");
}

const OpDef index_op = make_op("index", index_infer, index_kernel);
const OpDef index_put_op = make_op("index_put", index_put_infer, index_put_kernel, true);
const OpDef gather_op = make_op("gather", gather_infer, gather_run);
const OpDef scatter_op = make_op("scatter", scatter_infer, scatter_run);
TANDEM_REGISTER_OP(index_op)
TANDEM_REGISTER_OP(index_put_op)
TANDEM_REGISTER_OP(gather_op)
TANDEM_REGISTER_OP(scatter_op)

// --- backward rules ----------------------------------------------------------------------
Tensor zero_scalar(DType t) {
  return Tensor::wrap_scalar(Scalar(0.0), t);
}

// index: every read element gets its gradient; repeated indices accumulate.
std::vector<Tensor> index_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  return {index_put(zeros(x.shape(), g[0].dtype()), c.attrs.get_ints("dims"), tail(c.inputs, 1),
                    g[0], true)};
}
// index_put: values get the gradient at the written positions (the engine sums it back over
// their broadcast); the base keeps its gradient except where it was overwritten.
std::vector<Tensor> index_put_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const std::vector<int64_t>& dims = c.attrs.get_ints("dims");
  std::vector<Tensor> idx = tail(c.inputs, 2);
  std::vector<Tensor> out(2);
  if (c.needs_grad[0])
    out[0] = c.attrs.get_bool("accumulate")
                 ? g[0]
                 : index_put(g[0], dims, idx, zero_scalar(g[0].dtype()), false);
  if (c.needs_grad[1]) out[1] = index(g[0], dims, idx);
  return out;
}
// gather: scatter-add the gradient back (an index may be read more than once).
std::vector<Tensor> gather_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  if (x.dim() == 0) return {sum(g[0])};  // every output element reads x itself
  int64_t dim = wrap_dim_scalar(c.attrs.get_int("dim"), x.dim(), "gather");
  return {scatter(zeros(x.shape(), g[0].dtype()), dim, c.inputs[1], g[0], "add")};
}
// The gradient read at the scattered positions, zero-padded to src's shape (src may be
// larger than index; only its leading block is scattered).
Tensor src_grad(const Tensor& g, int64_t dim, const Tensor& idx, const Tensor& src) {
  Tensor r = gather(g, dim, idx);
  if (src.dim() == 0 || src.shape() == idx.shape()) return r;
  // A 0-d index counts as one element of a 1-d src (scatter's own rule): its gradient is
  // src-shaped, with the gathered value in front.
  Shape ishape = idx.shape();
  if (idx.dim() == 0) {
    r = reshape(r, {1});
    ishape = {1};
  }
  TANDEM_CHECK(int64_t(ishape.size()) == src.dim(), Error, "internal: scatter's src gradient ",
               "for index ", shape_str(idx.shape()), " and src ", shape_str(src.shape()));
  std::vector<int64_t> pads;
  for (int64_t d = src.dim() - 1; d >= 0; --d) {
    pads.push_back(0);
    pads.push_back(src.shape()[size_t(d)] - ishape[size_t(d)]);
  }
  return pad(r, pads);
}
std::vector<Tensor> scatter_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &x = c.inputs[0], &idx = c.inputs[1], &src = c.inputs[2];
  int64_t dim = wrap_dim_scalar(c.attrs.get_int("dim"), x.dim(), "scatter");
  int64_t mode = c.attrs.get_int("mode");
  static const char* names[] = {"replace", "add", "multiply", "amax", "amin"};
  TANDEM_CHECK(mode == 0 || mode == 1, NotImplementedError,
               "scatter: backward is not implemented for reduce='",
               names[std::clamp<int64_t>(mode, 0, 4)],
               "'; only the plain (replace) and 'add' modes are differentiable so far");
  std::vector<Tensor> out(3);
  if (c.needs_grad[0])
    out[0] = mode == 1 ? g[0] : scatter(g[0], dim, idx, zero_scalar(g[0].dtype()));
  if (c.needs_grad[2]) out[2] = src_grad(g[0], dim, idx, src);
  return out;
}
TANDEM_DEFINE_VJP(index_op, index_vjp)
TANDEM_DEFINE_VJP(index_put_op, index_put_vjp)
TANDEM_DEFINE_VJP(gather_op, gather_vjp)
TANDEM_DEFINE_VJP(scatter_op, scatter_vjp)

std::vector<Tensor> with_front(std::vector<Tensor> front, const std::vector<Tensor>& rest) {
  front.insert(front.end(), rest.begin(), rest.end());
  return front;
}

}  // namespace

Tensor index(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<Tensor>& idx) {
  return dispatch1(index_op, with_front({x}, idx), {{"dims", dims}});
}
// index / index_put with indices bounded to [0, size), reported as `op`.
Attrs unwrapped(Attrs a, const char* op) {
  a.set("wrap", false);
  a.set("name", std::string(op));
  return a;
}
Tensor index_put(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<Tensor>& idx,
                 const Tensor& values, bool accumulate) {
  return dispatch1(index_put_op, with_front({x, values}, idx),
                   {{"dims", dims}, {"accumulate", accumulate}});
}
const Tensor& index_put_(const Tensor& x, const std::vector<int64_t>& dims,
                         const std::vector<Tensor>& idx, const Tensor& values, bool accumulate) {
  dispatch_out(index_put_op, with_front({x, values}, idx),
               {{"dims", dims}, {"accumulate", accumulate}}, x);
  return x;
}

Tensor nonzero(const Tensor& x) {
  Tensor m = ne(x, scalar_tensor(Scalar(int64_t(0)))).contiguous();
  const bool* mp = m.data<bool>();
  int64_t n = m.numel(), cnt = 0;
  for (int64_t i = 0; i < n; ++i) cnt += mp[i];
  int64_t nd = x.dim();
  Tensor out = Tensor::empty({cnt, nd}, DType::Int64);
  int64_t* op = out.data<int64_t>();
  Strides cs = contiguous_strides(x.shape());
  int64_t row = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!mp[i]) continue;
    int64_t rem = i;
    for (int64_t d = 0; d < nd; ++d) {
      op[row * nd + d] = x.shape()[d] ? rem / std::max<int64_t>(cs[d], 1) % x.shape()[d] : 0;
    }
    ++row;
  }
  return out;
}

std::vector<Tensor> mask_to_indices(const Tensor& mask) {
  TANDEM_CHECK(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, IndexError,
               "mask_to_indices: expected a bool mask, got ", dtype_name(mask.dtype()));
  Tensor nz = nonzero(mask);
  std::vector<Tensor> out;
  for (int64_t d = 0; d < mask.dim(); ++d) out.push_back(select(nz, 1, d).contiguous());
  return out;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  TANDEM_CHECK(mask.dtype() == DType::Bool, TypeError, "masked_fill: expected a bool mask, got ",
               dtype_name(mask.dtype()));
  TANDEM_CHECK(value.dim() == 0, ValueError,
               "masked_fill: only supports a 0-dimensional value tensor, got ", value.dim(),
               " dims");
  Shape b = broadcast_shapes(x.shape(), mask.shape(), "masked_fill");
  if (!value.is_wrapped_number()) {
    // A tensor value stays in the graph: its gradient flows (reading it with item() cut the
    // gradient, and failed on a traced value under @jit). Its value must fit x's dtype, as
    // torch checks: now, or when a compiled graph runs.
    const Tensor checked = check_fits(value, x.dtype(), "masked_fill");
    Tensor v = checked.dtype() == x.dtype() ? checked : to_dtype(checked, x.dtype());
    return to_dtype(where(mask, v, x), x.dtype());
  }
  Scalar s = value.item();
  check_scalar_fits(s, x.dtype(), "masked_fill");
  Tensor v = Tensor::wrap_scalar(s, x.dtype());
  return to_dtype(where(mask, v, x), x.dtype());
}
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, const Tensor& value) {
  TANDEM_CHECK(broadcast_shapes(x.shape(), mask.shape(), "masked_fill_") == x.shape(), ValueError,
               "masked_fill_: mask of shape ", shape_str(mask.shape()),
               " cannot be broadcast to the tensor's shape ", shape_str(x.shape()));
  copy_(x, masked_fill(x, mask, value));
  return x;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  TANDEM_CHECK(mask.dtype() == DType::Bool, TypeError, "masked_select: expected a bool mask, got ",
               dtype_name(mask.dtype()));
  Shape b = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  Tensor xb = expand(x, b), mb = expand(mask, b);
  if (b.empty())
    return reshape(index(reshape(xb, {1}), {0}, mask_to_indices(reshape(mb, {1}))), {-1});
  std::vector<int64_t> dims(b.size());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = int64_t(i);
  return index(xb, dims, mask_to_indices(mb));
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& idx) {
  return index_select_for("index_select", x, dim, idx);
}

Tensor index_select_for(const char* op, const Tensor& x, int64_t dim, const Tensor& idx) {
  // int32 / int64 only, as in PyTorch: index() would read a bool or uint8 index as a mask
  TANDEM_CHECK(!idx.defined() || idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32,
               IndexError, "index_select: expected an int32 or int64 index, got ",
               dtype_name(idx.dtype()), "; convert it with .long()");
  TANDEM_CHECK(idx.dim() <= 1, ValueError, "index_select: index must be 0-d or 1-d, got ",
               idx.dim(), "-d");
  int64_t d = wrap_dim_scalar(dim, x.dim(), "index_select");
  // A 0-d input gives a 0-d result, as in PyTorch (indexed as a 1-element vector).
  const bool scalar = x.dim() == 0;
  TANDEM_CHECK(!scalar || idx.numel() == 1, IndexError,
               "index_select: the index into a 0-d tensor must hold one value, got ", idx.numel());
  Tensor y = dispatch1(index_op, {scalar ? reshape(x, {1}) : x, reshape(idx, {-1})},
                       unwrapped({{"dims", std::vector<int64_t>{d}}}, op));
  return scalar ? reshape(y, {}) : y;
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& idx, bool wrap) {
  // A 0-d index into a 1-D input picks one element (a 0-d result), as in torch.
  if (idx.defined() && x.defined() && idx.dim() == 0 && x.dim() == 1)
    return reshape(gather(x, dim, reshape(idx, {1}), wrap), {});
  Attrs a{{"dim", dim}};
  if (!wrap) a.set("wrap", false);  // absent means wrap: graphs and models from before agree
  return dispatch1(gather_op, {x, idx}, a);
}

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& src,
               const std::string& reduce, bool wrap) {
  if (reduce == "mean") {  // sum / count, with x's own value counted once (include_self)
    Tensor total = scatter(x, dim, idx, src, "add", wrap);
    Tensor one = Tensor::wrap_scalar(Scalar(int64_t(1)), DType::Int64);
    Tensor count = scatter(ones(x.shape(), DType::Int64), dim, idx, one, "add", wrap);
    Tensor q = div(total, count, is_floating(x.dtype()) ? "" : "floor");
    return q.dtype() == x.dtype() ? q : to_dtype(q, x.dtype());
  }
  int64_t mode = 0;
  if (reduce == "add" || reduce == "sum") {
    mode = 1;
  } else if (reduce == "multiply" || reduce == "prod") {
    mode = 2;
  } else if (reduce == "amax") {
    mode = 3;
  } else if (reduce == "amin") {
    mode = 4;
  } else {
    TANDEM_CHECK(reduce.empty() || reduce == "none", ValueError,
                 "scatter: reduce must be one of 'add', 'multiply', 'amax', 'amin', 'mean', got '",
                 reduce, "'");
  }
  Attrs a{{"dim", dim}, {"mode", mode}};
  if (!wrap) a.set("wrap", false);
  return dispatch1(scatter_op, {x, idx, src}, a);
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& src, bool wrap) {
  return scatter(x, dim, idx, src, "add", wrap);
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& source,
                 Scalar alpha) {
  return index_add_for("index_add", x, dim, idx, source, alpha);
}

Tensor index_add_for(const char* op, const Tensor& x, int64_t dim, const Tensor& idx,
                     const Tensor& source, Scalar alpha) {
  int64_t d = wrap_dim_scalar(dim, x.dim(), "index_add");
  // Checked here, in index_add's terms, rather than by the index_put it becomes.
  TANDEM_CHECK(idx.dim() <= 1, IndexError, "index_add: index must be a vector, got shape ",
               shape_str(idx.shape()));
  TANDEM_CHECK(idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32, TypeError,
               "index_add: expected an int32/int64 index, got ", dtype_name(idx.dtype()));
  // No silent cast (bf16 into int64 truncates): PyTorch and MindSpore want one dtype too.
  TANDEM_CHECK(!x.defined() || !source.defined() || x.dtype() == source.dtype(), TypeError,
               "index_add: self (", dtype_name(x.dtype()), ") and source (",
               dtype_name(source.dtype()),
               ") must have the same dtype; convert source with "
               ".to(input.dtype)");
  int64_t ns = source.dim() == 0 ? 1 : source.shape()[size_t(std::min(d, source.dim() - 1))];
  TANDEM_CHECK(idx.numel() == ns, ValueError, "index_add: number of indices (", idx.numel(),
               ") must equal source.size(", d, ") (", ns, ")");
  Shape want = x.shape();
  if (x.dim() > 0) want[size_t(d)] = idx.numel();
  TANDEM_CHECK(source.shape() == want, ValueError, "index_add: source of shape ",
               shape_str(source.shape()), " must have shape ", shape_str(want),
               " (the input's shape with dim ", d, " of size len(index))");
  if (x.defined()) check_scalar_fits(alpha, x.dtype(), "index_add");  // torch: alpha fits x
  // torch converts alpha to x's dtype: a float alpha for an integer input is truncated
  // (-3.25 -> -3) before it multiplies source, so no product is computed in float.
  if (x.defined() && alpha.is_float() && !is_floating(x.dtype()))
    alpha = x.dtype() == DType::Bool ? Scalar(alpha.to_double() != 0.0)
                                     : Scalar(int64_t(std::trunc(alpha.to_double())));
  Tensor s = alpha.to_double() == 1.0 ? source : mul(source, scalar_tensor(alpha));
  // A 0-d input adds into its one element (as a 1-element vector), as in torch.
  const bool scalar = x.dim() == 0;
  Tensor y =
      dispatch1(index_put_op,
                {scalar ? reshape(x, {1}) : x, scalar ? reshape(s, {1}) : s, reshape(idx, {-1})},
                unwrapped({{"dims", std::vector<int64_t>{d}}, {"accumulate", true}}, op));
  return scalar ? reshape(y, {}) : y;
}

Tensor take(const Tensor& x, const Tensor& idx) {
  return index(reshape(x, {-1}), {0}, {idx});
}

Tensor one_hot(const Tensor& x, int64_t num_classes) {
  TANDEM_CHECK(x.dtype() == DType::Int64 || x.dtype() == DType::Int32, TypeError,
               "one_hot: expected an int64 tensor of class indices, got ", dtype_name(x.dtype()));
  if (num_classes < 0) {
    TANDEM_CHECK(x.numel() > 0, ValueError,
                 "one_hot: cannot infer num_classes from an empty tensor");
    num_classes = amax(x).item().to_int() + 1;
  }
  if (x.numel() > 0) {
    int64_t lo = amin(x).item().to_int(), hi = amax(x).item().to_int();
    TANDEM_CHECK(lo >= 0 && hi < num_classes, ValueError, "one_hot: class values must be in [0, ",
                 num_classes, "), got ", lo, "..", hi);
  }
  Shape s = x.shape();
  s.push_back(num_classes);
  Tensor out = zeros(s, DType::Int64);
  return scatter(out, -1, unsqueeze(to_dtype(x, DType::Int64), -1),
                 Tensor::wrap_scalar(Scalar(int64_t(1)), DType::Int64));
}

}  // namespace tandem
