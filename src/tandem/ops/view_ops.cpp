// View OpDefs: the output aliases input 0's storage with new shape / strides / offset. The
// view function reads metadata only, so it doubles as shape inference.
#include <algorithm>
#include <numeric>

#include "tandem/autograd/autograd.h"
#include "tandem/autograd/view_scatter.h"
#include "tandem/core/error.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

Shape infer_size(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  int64_t known = 1, neg = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TANDEM_CHECK(neg < 0, ValueError, op, ": only one dimension can be inferred (-1) in ",
                   shape_str(shape));
      neg = int64_t(i);
    } else {
      TANDEM_CHECK(out[i] >= 0, ValueError, op, ": invalid shape dimension ", out[i], " in ",
                   shape_str(shape));
      TANDEM_CHECK(!__builtin_mul_overflow(known, out[i], &known), ValueError, op, ": shape ",
                   shape_str(shape), " is invalid for input of size ", numel);
    }
  }
  if (neg >= 0) {
    TANDEM_CHECK(known != 0 && numel % known == 0, ValueError, op, ": shape ", shape_str(shape),
                 " is invalid for input of size ", numel);
    out[neg] = numel / known;
  }
  TANDEM_CHECK(numel_of(out) == numel, ValueError, op, ": shape ", shape_str(shape),
               " is invalid for input of size ", numel);
  return out;
}

// Strides for viewing (old_shape, old_strides) as new_shape without copying, if possible
// (PyTorch's computeStride).
std::optional<Strides> view_strides(const Shape& os, const Strides& ost, const Shape& ns) {
  Strides nst(ns.size());
  if (os.empty() || numel_of(os) == 0 || numel_of(os) == 1) return contiguous_strides(ns);
  int64_t view_d = int64_t(ns.size()) - 1;
  int64_t chunk_base = ost.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = int64_t(os.size()) - 1; td >= 0; --td) {
    tensor_numel *= os[td];
    if (td == 0 || (os[td - 1] != 1 && ost[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
        nst[view_d] = view_numel * chunk_base;
        view_numel *= ns[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (td > 0) {
        chunk_base = ost[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return nst;
}

Tensor reshape_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  Shape ns = infer_size(a.get_ints("shape"), x.numel(), op.name.c_str());
  auto st = view_strides(x.shape(), x.strides(), ns);
  if (st) return Tensor::make_view(x, ns, *st, x.offset());
  TANDEM_CHECK(op.name != "view", ValueError,
               "view: size is not compatible with the input's size and stride (at least one "
               "dimension spans across two contiguous subspaces); use .reshape(...) instead");
  Tensor c = x.contiguous();
  return Tensor::make_view(c, ns, contiguous_strides(ns), c.offset());
}

Tensor permute_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  const auto& dims = a.get_ints("dims");
  TANDEM_CHECK(int64_t(dims.size()) == x.dim(), ValueError, "permute: number of dims (",
               dims.size(), ") doesn't match the tensor's ", x.dim(), " dims");
  Shape s(dims.size());
  Strides st(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "permute");
    TANDEM_CHECK(!seen[d], ValueError, "permute: dim ", d, " repeated in the permutation");
    seen[d] = true;
    s[i] = x.shape()[d];
    st[i] = x.strides()[d];
  }
  return Tensor::make_view(x, s, st, x.offset());
}

Tensor expand_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  const auto& shape = a.get_ints("shape");
  TANDEM_CHECK(shape.size() >= size_t(x.dim()), ValueError, op.name, ": the number of sizes (",
               shape.size(), ") must be at least the tensor's number of dims (", x.dim(), ")");
  size_t off = shape.size() - size_t(x.dim());
  Shape s(shape.size());
  Strides st(shape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < off) {
      TANDEM_CHECK(shape[i] >= 0, ValueError, op.name, ": -1 is not allowed for a new leading dim");
      s[i] = shape[i];
      continue;
    }
    int64_t have = x.shape()[i - off];
    int64_t want = shape[i] == -1 ? have : shape[i];
    TANDEM_CHECK(want >= 0, ValueError, op.name, ": invalid size ", shape[i], " at dim ", i,
                 " (shape ", shape_str(shape), "); sizes must be >= 0, or -1 to keep a dim");
    TANDEM_CHECK(have == want || have == 1, ValueError, op.name, ": the expanded size ", want,
                 " must match the existing size ", have, " at dim ", i, " (shape ",
                 shape_str(x.shape()), " -> ", shape_str(shape), ")");
    s[i] = want;
    st[i] = have == 1 && want != 1 ? 0 : x.strides()[i - off];
  }
  return Tensor::make_view(x, s, st, x.offset());
}

Tensor squeeze_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  std::vector<bool> drop(size_t(x.dim()), false), seen(size_t(x.dim()), false);
  if (a.get_bool("all")) {
    for (int64_t d = 0; d < x.dim(); ++d) drop[d] = x.shape()[d] == 1;
  } else {
    for (int64_t d : a.get_ints("dims")) {
      if (x.dim() == 0) {
        wrap_dim_scalar(d, 0, "squeeze");
        continue;
      }
      int64_t w = wrap_dim(d, x.dim(), "squeeze");
      TANDEM_CHECK(!seen[size_t(w)], ValueError, "squeeze: dim ", w,
                   " appears multiple times in the list of dims");
      seen[size_t(w)] = true;
      drop[w] = x.shape()[w] == 1;
    }
  }
  Shape s;
  Strides st;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!drop[d]) {
      s.push_back(x.shape()[d]);
      st.push_back(x.strides()[d]);
    }
  return Tensor::make_view(x, s, st, x.offset());
}

Tensor unsqueeze_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t d = wrap_dim(a.get_int("dim"), x.dim() + 1, "unsqueeze");
  Shape s = x.shape();
  Strides st = x.strides();
  int64_t stride = d < x.dim() ? x.strides()[d] * x.shape()[d] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, stride);
  return Tensor::make_view(x, s, st, x.offset());
}

Tensor slice_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() > 0, IndexError, "slice: cannot slice a 0-d tensor");
  int64_t d = wrap_dim(a.get_int("dim"), x.dim(), "slice");
  int64_t n = x.shape()[d], step = a.get_int("step");
  TANDEM_CHECK(step != 0, ValueError, "slice: step cannot be zero");
  // Python clamps the step the same way, so that -step cannot overflow.
  step = std::max(step, -INT64_MAX);
  // numpy's PySlice_AdjustIndices.
  int64_t start, stop;
  bool has_start = a.get_bool("has_start"), has_stop = a.get_bool("has_stop");
  if (step > 0) {
    start = has_start ? a.get_int("start") : 0;
    stop = has_stop ? a.get_int("stop") : n;
    if (start < 0) start = std::max<int64_t>(start + n, 0);
    if (stop < 0) stop = std::max<int64_t>(stop + n, 0);
    start = std::min(start, n);
    stop = std::min(stop, n);
  } else {
    start = has_start ? a.get_int("start") : n - 1;
    stop = has_stop ? a.get_int("stop") : -n - 1;
    if (start < 0) start = std::max<int64_t>(start + n, -1);
    if (stop < 0) stop = std::max<int64_t>(stop + n, -1);
    start = std::min(start, n - 1);
    stop = std::min(stop, n - 1);
  }
  // Written so that huge steps cannot overflow (start and stop are within [-1, n]).
  int64_t len = 0;
  if (step > 0 && stop > start) len = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) len = (start - stop - 1) / (-step) + 1;
  Shape s = x.shape();
  Strides st = x.strides();
  s[d] = len;
  // Overflow is only possible when len <= 1 (a huge step), where the stride is never used.
  if (__builtin_mul_overflow(x.strides()[d], step, &st[d])) st[d] = x.strides()[d];
  int64_t off = x.offset() + (len > 0 ? start * x.strides()[d] : 0);
  return Tensor::make_view(x, s, st, off);
}

Tensor select_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() > 0, IndexError,
               "select: invalid index of a 0-dim tensor; use "
               "tensor.item() to convert a 0-dim tensor to a number");
  int64_t d = wrap_dim(a.get_int("dim"), x.dim(), "select");
  int64_t n = x.shape()[d], i = a.get_int("index");
  TANDEM_CHECK(i >= -n && i < n, IndexError, "select: index ", i,
               " is out of bounds for dimension ", d, " with size ", n);
  if (i < 0) i += n;
  Shape s = x.shape();
  Strides st = x.strides();
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return Tensor::make_view(x, s, st, x.offset() + i * x.strides()[d]);
}

Tensor diagonal_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() >= 2, ValueError, "diagonal: expected a tensor with at least 2 dims, got ",
               x.dim());
  int64_t d1 = wrap_dim(a.get_int("dim1"), x.dim(), "diagonal");
  int64_t d2 = wrap_dim(a.get_int("dim2"), x.dim(), "diagonal");
  TANDEM_CHECK(d1 != d2, ValueError, "diagonal: dim1 and dim2 cannot be the same (", d1, ")");
  int64_t off = a.get_int("offset");
  int64_t n1 = x.shape()[d1], n2 = x.shape()[d2];
  int64_t len = off >= 0 ? std::max<int64_t>(0, std::min(n1, n2 - off))
                         : std::max<int64_t>(0, std::min(n1 + off, n2));
  int64_t start = x.offset();
  if (len > 0) start += off >= 0 ? off * x.strides()[d2] : -off * x.strides()[d1];
  Shape s;
  Strides st;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != d1 && d != d2) {
      s.push_back(x.shape()[d]);
      st.push_back(x.strides()[d]);
    }
  s.push_back(len);
  st.push_back(x.strides()[d1] + x.strides()[d2]);
  return Tensor::make_view(x, s, st, start);
}

Tensor as_strided_view(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor& x = in[0];
  const auto& s = a.get_ints("shape");
  const auto& st = a.get_ints("strides");
  int64_t off = a.get_int("offset");
  TANDEM_CHECK(s.size() == st.size(), ValueError, "as_strided: shape and strides differ in length");
  TANDEM_CHECK(off >= 0, ValueError, "as_strided: invalid storage offset ", off,
               " (it must be non-negative)");
  int64_t lo = off, hi = off;
  bool overflow = false;
  for (size_t i = 0; i < s.size(); ++i) {
    TANDEM_CHECK(s[i] >= 0, ValueError, "as_strided: negative size ", s[i]);
    if (s[i] == 0) lo = hi = off;
    if (s[i] == 0) break;
    int64_t span;
    overflow |= __builtin_mul_overflow(s[i] - 1, st[i], &span);
    overflow |= __builtin_add_overflow(st[i] >= 0 ? hi : lo, span, st[i] >= 0 ? &hi : &lo);
  }
  TANDEM_CHECK(!overflow, IndexError, "as_strided: the view reaches outside the storage (size ",
               shape_str(s), " with strides ", shape_str(st), " overflows)");
  if (x.storage()) {
    int64_t cap = int64_t(x.storage()->nbytes() / x.itemsize());
    TANDEM_CHECK(numel_of(s) == 0 || (lo >= 0 && hi < cap), IndexError,
                 "as_strided: the view reaches outside the storage (elements ", lo, "..", hi,
                 " of ", cap, ")");
  }
  return Tensor::make_view(x, s, st, off);
}

OpDef make_view_op(const char* name, ViewFn fn) {
  OpDef op;
  op.name = name;
  op.view = fn;
  return op;
}

const OpDef reshape_op = make_view_op("reshape", reshape_view);
const OpDef view_op = make_view_op("view", reshape_view);
const OpDef permute_op = make_view_op("permute", permute_view);
const OpDef expand_op = make_view_op("expand", expand_view);
const OpDef squeeze_op = make_view_op("squeeze", squeeze_view);
const OpDef unsqueeze_op = make_view_op("unsqueeze", unsqueeze_view);
const OpDef slice_op = make_view_op("slice", slice_view);
const OpDef select_op = make_view_op("select", select_view);
const OpDef diagonal_op = make_view_op("diagonal", diagonal_view);
const OpDef as_strided_op = make_view_op("as_strided", as_strided_view);
TANDEM_REGISTER_OP(reshape_op)
TANDEM_REGISTER_OP(view_op)
TANDEM_REGISTER_OP(permute_op)
TANDEM_REGISTER_OP(expand_op)
TANDEM_REGISTER_OP(squeeze_op)
TANDEM_REGISTER_OP(unsqueeze_op)
TANDEM_REGISTER_OP(slice_op)
TANDEM_REGISTER_OP(select_op)
TANDEM_REGISTER_OP(diagonal_op)
TANDEM_REGISTER_OP(as_strided_op)

// --- backward rules ----------------------------------------------------------------------
std::vector<Tensor> reshape_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {reshape(g[0], c.inputs[0].shape())};
}
std::vector<Tensor> permute_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const auto& dims = c.attrs.get_ints("dims");
  std::vector<int64_t> inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    inv[size_t(wrap_dim(dims[i], int64_t(dims.size()), "permute"))] = int64_t(i);
  return {permute(g[0], inv)};
}
// expand: the engine sums the gradient back to the input's shape.
std::vector<Tensor> expand_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {g[0]};
}
TANDEM_DEFINE_VJP(reshape_op, reshape_vjp)
TANDEM_DEFINE_VJP(view_op, reshape_vjp)
TANDEM_DEFINE_VJP(squeeze_op, reshape_vjp)
TANDEM_DEFINE_VJP(unsqueeze_op, reshape_vjp)
TANDEM_DEFINE_VJP(permute_op, permute_vjp)
TANDEM_DEFINE_VJP(expand_op, expand_vjp)
TANDEM_DEFINE_VJP(slice_op, view_vjp)
TANDEM_DEFINE_VJP(select_op, view_vjp)
TANDEM_DEFINE_VJP(diagonal_op, view_vjp)
TANDEM_DEFINE_VJP(as_strided_op, as_strided_vjp)

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  if (shape == x.shape()) return x;
  return dispatch1(reshape_op, {x}, {{"shape", shape}});
}
Tensor view(const Tensor& x, const Shape& shape) {
  return dispatch1(view_op, {x}, {{"shape", shape}});
}
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  return dispatch1(permute_op, {x}, {{"dims", dims}});
}
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  if (x.dim() == 0) {
    wrap_dim_scalar(d0, 0, "transpose");
    wrap_dim_scalar(d1, 0, "transpose");
    return x;
  }
  d0 = wrap_dim(d0, x.dim(), "transpose");
  d1 = wrap_dim(d1, x.dim(), "transpose");
  std::vector<int64_t> p(size_t(x.dim()));
  std::iota(p.begin(), p.end(), 0);
  std::swap(p[d0], p[d1]);
  return permute(x, p);
}
Tensor t(const Tensor& x) {
  TANDEM_CHECK(x.dim() <= 2, ValueError, "t: expects a tensor with <= 2 dims, but got ", x.dim(),
               " dims; use transpose(dim0, dim1) or permute");
  return x.dim() < 2 ? x : transpose(x, 0, 1);
}
Tensor squeeze(const Tensor& x, std::optional<std::vector<int64_t>> dims) {
  if (!dims) return dispatch1(squeeze_op, {x}, {{"all", true}, {"dims", std::vector<int64_t>{}}});
  return dispatch1(squeeze_op, {x}, {{"all", false}, {"dims", *dims}});
}
Tensor unsqueeze(const Tensor& x, int64_t dim) {
  return dispatch1(unsqueeze_op, {x}, {{"dim", dim}});
}
Tensor expand(const Tensor& x, const Shape& shape) {
  return dispatch1(expand_op, {x}, {{"shape", shape}});
}
Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  return expand(x, shape);
}
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  return dispatch1(slice_op, {x},
                   {{"dim", dim},
                    {"start", start.value_or(0)},
                    {"stop", stop.value_or(0)},
                    {"step", step},
                    {"has_start", bool(start)},
                    {"has_stop", bool(stop)}});
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  return dispatch1(select_op, {x}, {{"dim", dim}, {"index", index}});
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  TANDEM_CHECK(x.dim() > 0, IndexError, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.dim(), "narrow");
  int64_t n = x.shape()[d];
  TANDEM_CHECK(start >= -n && start <= n, IndexError, "narrow: start (", start,
               ") is out of range for dimension ", d, " of size ", n);
  if (start < 0) start += n;
  TANDEM_CHECK(length >= 0 && length <= n - start, IndexError, "narrow: start (", start,
               ") + length (", length, ") exceeds dimension size (", n, ")");
  return slice(x, d, start, start + length, 1);
}
Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch1(diagonal_op, {x}, {{"offset", offset}, {"dim1", dim1}, {"dim2", dim2}});
}
Tensor as_strided(const Tensor& x, const Shape& shape, const Strides& strides, int64_t offset) {
  return dispatch1(as_strided_op, {x},
                   {{"shape", shape}, {"strides", strides}, {"offset", offset}});
}
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) {
    // As in PyTorch: a 0-d tensor takes dims in [-1, 0], as if it were 1-d.
    wrap_dim(start_dim, 1, "flatten");
    wrap_dim(end_dim, 1, "flatten");
    return reshape(x, {1});
  }
  int64_t s = wrap_dim(start_dim, x.dim(), "flatten"), e = wrap_dim(end_dim, x.dim(), "flatten");
  TANDEM_CHECK(s <= e, ValueError, "flatten: start_dim (", s, ") cannot come after end_dim (", e,
               ")");
  Shape ns(x.shape().begin(), x.shape().begin() + s);
  int64_t m = 1;
  for (int64_t d = s; d <= e; ++d) m *= x.shape()[d];
  ns.push_back(m);
  ns.insert(ns.end(), x.shape().begin() + e + 1, x.shape().end());
  return reshape(x, ns);
}
Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes) {
  int64_t d = wrap_dim(dim, x.dim(), "unflatten");
  TANDEM_CHECK(!sizes.empty(), ValueError, "unflatten: sizes must be non-empty");
  Shape part = infer_size(sizes, x.shape()[d], "unflatten");
  Shape ns(x.shape().begin(), x.shape().begin() + d);
  ns.insert(ns.end(), part.begin(), part.end());
  ns.insert(ns.end(), x.shape().begin() + d + 1, x.shape().end());
  return view(x, ns);
}

std::vector<Tensor> split_sizes(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  TANDEM_CHECK(x.dim() > 0, ValueError, "split: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    TANDEM_CHECK(s >= 0, ValueError, "split: split sizes must be non-negative, got ", s);
    total += s;
  }
  TANDEM_CHECK(total == x.shape()[d], ValueError, "split: split sizes sum to ", total,
               " but dimension ", d, " has size ", x.shape()[d]);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(x, d, start, start + s, 1));
    start += s;
  }
  return out;
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  TANDEM_CHECK(x.dim() > 0, ValueError, "split: expects at least a 1-dimensional tensor");
  TANDEM_CHECK(split_size > 0, ValueError, "split: split_size must be positive, got ", split_size);
  int64_t n = x.shape()[wrap_dim(dim, x.dim(), "split")];
  std::vector<int64_t> sizes;
  for (int64_t s = 0; s < n; s += split_size) sizes.push_back(std::min(split_size, n - s));
  if (sizes.empty()) sizes.push_back(0);
  return split_sizes(x, sizes, dim);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  TANDEM_CHECK(chunks > 0, ValueError, "chunk: chunks must be positive, got ", chunks);
  TANDEM_CHECK(x.dim() > 0, ValueError, "chunk: expects at least a 1-dimensional tensor");
  int64_t n = x.shape()[wrap_dim(dim, x.dim(), "chunk")];
  // An empty dim gives `chunks` empty pieces, as in PyTorch (split would give one).
  if (n == 0) return split_sizes(x, std::vector<int64_t>(size_t(chunks), 0), dim);
  return split(x, (n - 1) / chunks + 1, dim);  // ceil(n / chunks), no overflow
}
std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  TANDEM_CHECK(x.dim() > 0, ValueError, "unbind: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, x.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < x.shape()[d]; ++i) out.push_back(select(x, d, i));
  return out;
}

}  // namespace tandem
