// Copying shape ops: cat (and stack / hstack / vstack on it), roll, tril / triu, the 1-D diag,
// pad and repeat_interleave as OpDefs; flip, repeat / tile and repeat_interleave with a tensor
// of repeats as composites. Kernels mostly copy_into views of the output, which runs at memcpy
// speed on contiguous pieces and handles any input strides and dtype conversion.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/join_kernels.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

// Views built directly (not through dispatch): kernels work on concrete outputs. Offsets are
// kept exact even for empty views, which are never read but may be widened again (pad).
// t[start : start + len] along d.
Tensor narrow_view(const Tensor& t, int64_t d, int64_t start, int64_t len) {
  Shape s = t.shape();
  s[d] = len;
  return Tensor::make_view(t, s, t.strides(), t.offset() + start * t.strides()[d]);
}
// t[start], t[start - 1], ... (len elements) along d.
Tensor reversed_view(const Tensor& t, int64_t d, int64_t start, int64_t len) {
  Shape s = t.shape();
  Strides st = t.strides();
  s[d] = len;
  st[d] = -st[d];
  return Tensor::make_view(t, s, st, t.offset() + start * t.strides()[d]);
}
// t[index] repeated len times along d.
Tensor repeated_view(const Tensor& t, int64_t d, int64_t index, int64_t len) {
  Shape s = t.shape();
  Strides st = t.strides();
  s[d] = len;
  st[d] = 0;
  return Tensor::make_view(t, s, st, t.offset() + index * t.strides()[d]);
}

// ---- cat ------------------------------------------------------------------------------------

// PyTorch's legacy rule, kept for code that starts from torch.tensor([]) and appends: a 1-D
// tensor of shape (0,) is skipped by the shape checks whatever the other tensors' shapes. It
// still takes part in type promotion, as in PyTorch.
bool cat_skipped(const Tensor& t) {
  return t.dim() == 1 && t.shape()[0] == 0;
}

struct CatPlan {
  int64_t dim = 0;
  Shape shape;
};

CatPlan plan_cat(const std::vector<Tensor>& xs, int64_t dim, const char* op) {
  TANDEM_CHECK(!xs.empty(), ValueError, op, ": expected a non-empty list of tensors");
  int64_t ref = -1;
  for (size_t i = 0; i < xs.size(); ++i) {
    TANDEM_CHECK(xs[i].dim() > 0, ValueError, op, ": zero-dimensional tensor (at position ", i,
                 ") cannot be concatenated; use stack, or unsqueeze it first");
    if (ref < 0 && !cat_skipped(xs[i])) ref = int64_t(i);
  }
  if (ref < 0) {  // only (0,) tensors: the result is one too
    wrap_dim(dim, 1, op);
    return {0, {0}};
  }
  const Tensor& r = xs[ref];
  CatPlan p;
  p.dim = wrap_dim(dim, r.dim(), op);
  p.shape = r.shape();
  p.shape[p.dim] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& t = xs[i];
    if (cat_skipped(t)) continue;
    TANDEM_CHECK(t.dim() == r.dim(), ValueError, op,
                 ": tensors must have the same number of dimensions, but tensor ", ref,
                 " has shape ", shape_str(r.shape()), " and tensor ", i, " has shape ",
                 shape_str(t.shape()));
    for (int64_t k = 0; k < r.dim(); ++k)
      TANDEM_CHECK(k == p.dim || t.shape()[k] == r.shape()[k], ValueError, op,
                   ": sizes of tensors must match except in dimension ", p.dim, ", but tensor ",
                   ref, " has shape ", shape_str(r.shape()), " and tensor ", i, " has shape ",
                   shape_str(t.shape()), " (they differ in dimension ", k, ")");
    p.shape[p.dim] += t.shape()[p.dim];
  }
  return p;
}

std::vector<TensorMeta> cat_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  CatPlan p = plan_cat(in, a.get_int("dim"), "cat");
  return {{p.shape, result_type(in)}};
}

void cat_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& a) {
  CatPlan p = plan_cat(in, a.get_int("dim"), "cat");
  int64_t at = 0;
  for (const Tensor& t : in) {
    if (cat_skipped(t) || t.numel() == 0) continue;
    int64_t n = t.shape()[p.dim];
    copy_into(narrow_view(out[0], p.dim, at, n), t);  // converts to the promoted dtype
    at += n;
  }
}

// ---- roll -----------------------------------------------------------------------------------

// Dims with a non-zero shift, each once, and the shift normalised into [1, size).
struct RollPlan {
  std::vector<int64_t> dims, shifts;
};

RollPlan plan_roll(const Tensor& x, const std::vector<int64_t>& shifts,
                   const std::vector<int64_t>& dims) {
  TANDEM_CHECK(shifts.size() == dims.size(), ValueError,
               "roll: shifts and dims must have the same length, got ", shifts.size(),
               " shifts and ", dims.size(), " dims");
  std::vector<int64_t> total(size_t(std::max<int64_t>(x.dim(), 1)), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "roll");
    int64_t n = x.dim() ? x.shape()[d] : 1;
    if (n > 0) total[d] = (total[d] + shifts[i] % n) % n;  // a repeated dim rolls twice
  }
  RollPlan p;
  for (int64_t d = 0; d < x.dim(); ++d) {
    int64_t n = x.shape()[d];
    if (n == 0) continue;
    int64_t s = (total[d] % n + n) % n;
    if (s == 0) continue;
    p.dims.push_back(d);
    p.shifts.push_back(s);
  }
  return p;
}

std::vector<TensorMeta> roll_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  plan_roll(in[0], a.get_ints("shifts"), a.get_ints("dims"));
  return {{in[0].shape(), in[0].dtype()}};
}

// Each rolled dim splits into two blocks that swap places: 2^k block copies for k dims.
void roll_blocks(const Tensor& dst, const Tensor& src, const RollPlan& p, size_t k) {
  if (k == p.dims.size()) {
    copy_into(dst, src);
    return;
  }
  int64_t d = p.dims[k], n = src.shape()[d], s = p.shifts[k];
  roll_blocks(narrow_view(dst, d, s, n - s), narrow_view(src, d, 0, n - s), p, k + 1);
  roll_blocks(narrow_view(dst, d, 0, s), narrow_view(src, d, n - s, s), p, k + 1);
}

void roll_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& a) {
  if (out[0].numel() == 0) return;
  roll_blocks(out[0], in[0], plan_roll(in[0], a.get_ints("shifts"), a.get_ints("dims")), 0);
}

// ---- tril / triu ----------------------------------------------------------------------------

std::vector<TensorMeta> tri_infer(const OpDef& op, const std::vector<Tensor>& in, const Attrs&) {
  TANDEM_CHECK(in[0].dim() >= 2, ValueError, op.name,
               ": expected a matrix or a batch of matrices (at least 2 dims), got shape ",
               shape_str(in[0].shape()));
  return {{in[0].shape(), in[0].dtype()}};
}

void tri_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& o = out[0];  // dense: dispatch allocates it (kernel_writes_any_out is off)
  if (o.numel() == 0) return;
  const void* src = x.data_ptr();
  if (!x.is_contiguous()) {  // copy first, then zero in place
    copy_into(o, x);
    src = o.data_ptr();
  }
  int64_t rows = x.shape()[x.dim() - 2], cols = x.shape().back();
  // Diagonals past the matrix act like its edge; clamping keeps row + diagonal from overflowing.
  int64_t k = std::clamp<int64_t>(a.get_int("diagonal"), -rows - 1, cols + 1);
  tri_copy(static_cast<const char*>(src), static_cast<char*>(o.data_ptr()),
           o.numel() / (rows * cols), rows, cols, o.itemsize(), k, op.name == "triu");
}

// ---- diag_embed (the 1-D -> 2-D half of diag) -----------------------------------------------

// (..., n) -> (..., m, m) with m = n + |offset|, x on the offset diagonal, zeros elsewhere.
std::vector<TensorMeta> diag_embed_infer(const OpDef&, const std::vector<Tensor>& in,
                                         const Attrs& a) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() >= 1, ValueError, "diag_embed: expected at least a 1-D tensor, got shape ",
               shape_str(x.shape()));
  int64_t k = a.get_int("offset"), m = 0;
  TANDEM_CHECK(k != INT64_MIN && !__builtin_add_overflow(x.shape().back(), k < 0 ? -k : k, &m),
               ValueError, "diag: diagonal ", k, " is too far from the main diagonal");
  Shape s(x.shape().begin(), x.shape().end() - 1);
  s.push_back(m);
  s.push_back(m);
  return {{s, x.dtype()}};
}

void diag_embed_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& o = out[0];  // dense
  if (o.numel() == 0) return;
  std::memset(o.data_ptr(), 0, size_t(o.numel()) * o.itemsize());  // zero bytes = 0 in all dtypes
  int64_t k = a.get_int("offset"), m = o.shape().back();
  Strides st(o.strides().begin(), o.strides().end() - 2);
  st.push_back(m + 1);
  int64_t start = o.offset() + (k >= 0 ? k : -k * m);
  copy_into(Tensor::make_view(o, x.shape(), st, start), x);
}

// ---- repeat_interleave with one repeat count --------------------------------------------

std::vector<TensorMeta> interleave_infer(const OpDef&, const std::vector<Tensor>& in,
                                         const Attrs& a) {
  const Tensor& x = in[0];
  int64_t r = a.get_int("repeats");
  TANDEM_CHECK(r >= 0, ValueError, "repeat_interleave: repeats must be non-negative, got ", r);
  TANDEM_CHECK(x.dim() >= 1, ValueError,
               "repeat_interleave: expected at least a 1-D tensor (pass dim=None to repeat a "
               "0-d one), got shape ",
               shape_str(x.shape()));
  Shape s = x.shape();
  int64_t d = wrap_dim(a.get_int("dim"), x.dim(), "repeat_interleave");
  TANDEM_CHECK(!__builtin_mul_overflow(s[d], r, &s[d]), ValueError, "repeat_interleave: repeating ",
               x.shape()[d], " elements ", r, " times each is too large");
  return {{s, x.dtype()}};
}

void interleave_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& a) {
  const Tensor& o = out[0];  // dense
  if (o.numel() == 0) return;
  Tensor x = in[0].contiguous();
  int64_t d = wrap_dim(a.get_int("dim"), x.dim(), "repeat_interleave");
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= x.shape()[k];
  for (int64_t k = d + 1; k < x.dim(); ++k) inner *= x.shape()[k];
  // A dedicated loop: as a broadcast copy the repeated dim would be the innermost one with
  // stride 0 and a few elements, the elementwise driver's slowest case.
  repeat_blocks(static_cast<const char*>(x.data_ptr()), static_cast<char*>(o.data_ptr()), outer,
                x.shape()[d], inner, a.get_int("repeats"), o.itemsize());
}

// ---- pad ------------------------------------------------------------------------------------

struct PadPlan {
  PadMode mode = PadMode::Constant;
  std::vector<int64_t> lo, hi;  // per dim of the input; zero for dims not padded
};

PadPlan plan_pad(const Tensor& x, const Attrs& a) {
  const auto& pad = a.get_ints("pad");
  const std::string& m = a.get_str("mode");
  PadPlan p;
  if (m == "constant") {
    p.mode = PadMode::Constant;
  } else if (m == "reflect") {
    p.mode = PadMode::Reflect;
  } else if (m == "replicate") {
    p.mode = PadMode::Replicate;
  } else if (m == "circular") {
    p.mode = PadMode::Circular;
  } else {
    throw_error<ValueError>("pad: unknown mode '", m,
                            "'; expected 'constant', 'reflect', 'replicate' or 'circular'");
  }
  TANDEM_CHECK(pad.size() % 2 == 0, ValueError,
               "pad: the padding must be (left, right) pairs, but has an odd length ", pad.size());
  int64_t pairs = int64_t(pad.size() / 2), nd = x.dim();
  TANDEM_CHECK(pairs <= nd, ValueError, "pad: ", pairs, " (left, right) pairs pad ", pairs,
               " dims, but the input has shape ", shape_str(x.shape()), " (", nd, " dims)");
  p.lo.assign(size_t(nd), 0);
  p.hi.assign(size_t(nd), 0);
  for (int64_t i = 0; i < pairs; ++i) {
    int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], n = x.shape()[d];
    int64_t size = 0;
    TANDEM_CHECK(!__builtin_add_overflow(n, l, &size) && !__builtin_add_overflow(size, r, &size),
                 ValueError, "pad: padding (", l, ", ", r, ") at dim ", d, " is too large");
    if (p.mode == PadMode::Constant) {
      TANDEM_CHECK(size >= 0, ValueError, "pad: padding (", l, ", ", r, ") at dim ", d,
                   " of an input with shape ", shape_str(x.shape()), " gives a negative size ",
                   size);
    } else {
      TANDEM_CHECK(l >= 0 && r >= 0, ValueError, "pad: negative padding (", l, ", ", r, ") at dim ",
                   d, " is only supported in 'constant' mode");
      bool any = l > 0 || r > 0;
      if (p.mode == PadMode::Reflect)
        TANDEM_CHECK(!any || (l < n && r < n), ValueError, "pad: reflect padding (", l, ", ", r,
                     ") at dim ", d, " must be smaller than the input size there (", n,
                     "); input shape ", shape_str(x.shape()), ". Use mode='replicate' or pad less");
      if (p.mode == PadMode::Replicate)
        TANDEM_CHECK(!any || n > 0, ValueError, "pad: replicate padding (", l, ", ", r, ") at dim ",
                     d, " needs a non-empty input there, but input shape is ",
                     shape_str(x.shape()));
      if (p.mode == PadMode::Circular)
        TANDEM_CHECK(l <= n && r <= n, ValueError, "pad: circular padding (", l, ", ", r,
                     ") at dim ", d, " can't exceed the input size there (", n, "); input shape ",
                     shape_str(x.shape()));
    }
    p.lo[d] = l;
    p.hi[d] = r;
  }
  return p;
}

std::vector<TensorMeta> pad_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  PadPlan p = plan_pad(in[0], a);
  Shape s = in[0].shape();
  for (size_t d = 0; d < s.size(); ++d) s[d] += p.lo[d] + p.hi[d];
  return {{s, in[0].dtype()}};
}

void pad_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& o = out[0];
  PadPlan p = plan_pad(x, a);
  if (o.numel() == 0) return;
  // Output j along a dim maps to input j - lo; a negative pad (constant mode) crops the input.
  // Copy the kept input into the interior, then fill the borders one dim at a time. `region`
  // spans the full output along dims done so far and the interior along the rest, so each
  // output element is written once and corners come out as padding applied dim after dim
  // (numpy's and PyTorch's results). Outside constant mode every padded input dim is
  // non-empty, so the border sources below exist.
  int64_t nd = x.dim();
  std::vector<int64_t> lo(size_t(nd), 0), hi(size_t(nd), 0), len(size_t(nd), 0);
  Tensor src = x, region = o;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t n = x.shape()[d], size = o.shape()[d];
    int64_t cut_l = std::min(std::max<int64_t>(-p.lo[d], 0), n);
    int64_t cut_r = std::min(std::max<int64_t>(-p.hi[d], 0), n - cut_l);
    len[d] = n - cut_l - cut_r;
    // Cropping past the far end leaves no interior: then lo + hi covers the whole size.
    lo[d] = std::min(std::max<int64_t>(p.lo[d], 0), size - len[d]);
    hi[d] = size - len[d] - lo[d];
    src = narrow_view(src, d, cut_l, len[d]);
    region = narrow_view(region, d, lo[d], len[d]);
  }
  copy_into(region, src);
  Tensor value;
  if (p.mode == PadMode::Constant)
    value = Tensor::wrap_scalar(Scalar(a.get_float("value")), o.dtype());
  for (int64_t d = 0; d < nd; ++d) {
    int64_t l = lo[d], r = hi[d], n = len[d];
    if (l == 0 && r == 0) continue;
    if (d == nd - 1) {
      // Last, `region` spans whole output rows: fill their ends with a row loop, since the
      // views below would be copies of a few elements per row.
      pad_rows(static_cast<char*>(o.data_ptr()), o.numel() / (l + n + r), l, n, r, o.itemsize(),
               p.mode, value.defined() ? value.data_ptr() : nullptr);
      break;
    }
    Tensor base = narrow_view(region, d, -l, l + n + r);  // interior at [l, l + n)
    Tensor left, right;
    switch (p.mode) {
      case PadMode::Constant:
        left = right = value;
        break;
      case PadMode::Reflect:  // mirror without repeating the edge element
        left = reversed_view(base, d, 2 * l, l);
        right = reversed_view(base, d, l + n - 2, r);
        break;
      case PadMode::Replicate:
        left = repeated_view(base, d, l, l);
        right = repeated_view(base, d, l + n - 1, r);
        break;
      default:  // circular: wrap around
        left = narrow_view(base, d, n, l);
        right = narrow_view(base, d, l, r);
        break;
    }
    // Sources inside the output are read from a copy by copy_into (they share storage).
    if (l > 0) copy_into(narrow_view(base, d, 0, l), left);
    if (r > 0) copy_into(narrow_view(base, d, l + n, r), right);
    region = base;
  }
}

// ---- registration ---------------------------------------------------------------------------

const OpDef cat_op = make_op("cat", cat_infer, cat_kernel);
const OpDef roll_op = make_op("roll", roll_infer, roll_kernel);
const OpDef tril_op = make_op("tril", tri_infer, tri_kernel);
const OpDef triu_op = make_op("triu", tri_infer, tri_kernel);
const OpDef diag_embed_op = make_op("diag_embed", diag_embed_infer, diag_embed_kernel);
const OpDef pad_op = make_op("pad", pad_infer, pad_kernel);
const OpDef repeat_interleave_op =
    make_op("repeat_interleave", interleave_infer, interleave_kernel);
TANDEM_REGISTER_OP(cat_op)
TANDEM_REGISTER_OP(roll_op)
TANDEM_REGISTER_OP(tril_op)
TANDEM_REGISTER_OP(triu_op)
TANDEM_REGISTER_OP(diag_embed_op)
TANDEM_REGISTER_OP(pad_op)
TANDEM_REGISTER_OP(repeat_interleave_op)

// ---- backward rules -------------------------------------------------------------------------

// cat: each input gets its slice of the gradient.
std::vector<Tensor> cat_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  CatPlan p = plan_cat(c.inputs, c.attrs.get_int("dim"), "cat");
  std::vector<Tensor> out(c.inputs.size());
  int64_t at = 0;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& t = c.inputs[i];
    if (cat_skipped(t)) continue;  // took no part in the result
    int64_t n = t.shape()[p.dim];
    if (c.needs_grad[i]) out[i] = slice(g[0], p.dim, at, at + n);
    at += n;
  }
  return out;
}

Tensor int64_vector(const std::vector<int64_t>& v) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Int64);
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

// pad: constant padding's adjoint is the opposite padding (crops what was added, zero-fills
// what was cropped). The other modes read input position src(j) for output j along each dim
// in turn, so their adjoint adds the gradient back at those positions one dim at a time.
std::vector<Tensor> pad_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  if (c.attrs.get_str("mode") == "constant") {
    std::vector<int64_t> neg = c.attrs.get_ints("pad");
    for (int64_t& v : neg) v = -v;
    return {pad(g[0], neg, "constant", 0.0)};
  }
  PadPlan p = plan_pad(x, c.attrs);
  Tensor r = g[0];
  for (int64_t d = 0; d < x.dim(); ++d) {
    int64_t l = p.lo[size_t(d)], h = p.hi[size_t(d)], n = x.shape()[d];
    if (l == 0 && h == 0) continue;
    std::vector<int64_t> src(size_t(l + n + h));
    for (int64_t j = 0; j < l + n + h; ++j) {
      int64_t t = j - l;
      if (p.mode == PadMode::Reflect)
        src[size_t(j)] = t < 0 ? -t : t >= n ? 2 * (n - 1) - t : t;
      else if (p.mode == PadMode::Replicate)
        src[size_t(j)] = std::clamp<int64_t>(t, 0, n - 1);
      else
        src[size_t(j)] = (t % n + n) % n;
    }
    Shape s = r.shape();
    s[size_t(d)] = n;
    r = index_add(zeros(s, r.dtype()), d, int64_vector(src), r);
  }
  return {r};
}

std::vector<Tensor> roll_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  std::vector<int64_t> back = c.attrs.get_ints("shifts");
  for (int64_t& v : back) v = -v;
  return {roll(g[0], back, c.attrs.get_ints("dims"))};
}

std::vector<Tensor> tri_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  int64_t k = c.attrs.get_int("diagonal");
  return {c.op.name == "triu" ? triu(g[0], k) : tril(g[0], k)};
}

// repeat_interleave: sum the gradient over each element's copies.
std::vector<Tensor> interleave_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  int64_t d = wrap_dim(c.attrs.get_int("dim"), x.dim(), "repeat_interleave");
  Shape s = x.shape();
  s.insert(s.begin() + d + 1, c.attrs.get_int("repeats"));
  return {sum(reshape(g[0], s), std::vector<int64_t>{d + 1})};
}

std::vector<Tensor> diag_embed_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  int64_t nd = g[0].dim();
  return {diagonal(g[0], c.attrs.get_int("offset"), nd - 2, nd - 1)};
}

TANDEM_DEFINE_VJP(cat_op, cat_vjp)
TANDEM_DEFINE_VJP(pad_op, pad_vjp)
TANDEM_DEFINE_VJP(roll_op, roll_vjp)
TANDEM_DEFINE_VJP(tril_op, tri_vjp)
TANDEM_DEFINE_VJP(triu_op, tri_vjp)
TANDEM_DEFINE_VJP(repeat_interleave_op, interleave_vjp)
TANDEM_DEFINE_VJP(diag_embed_op, diag_embed_vjp)

// numpy's atleast_1d / atleast_2d (1-D (n,) -> (1, n)).
Tensor at_least(const Tensor& x, int64_t nd) {
  if (x.dim() >= nd) return x;
  Shape s(size_t(nd - x.dim()), 1);
  s.insert(s.end(), x.shape().begin(), x.shape().end());
  return reshape(x, s);
}

}  // namespace

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  TANDEM_CHECK(!xs.empty(), ValueError, "cat: expected a non-empty list of tensors");
  return dispatch1(cat_op, xs, {{"dim", dim}});
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  TANDEM_CHECK(!xs.empty(), ValueError, "stack: expected a non-empty list of tensors");
  for (size_t i = 1; i < xs.size(); ++i)
    TANDEM_CHECK(xs[i].shape() == xs[0].shape(), ValueError,
                 "stack: expects each tensor to be equal size, but tensor 0 has shape ",
                 shape_str(xs[0].shape()), " and tensor ", i, " has shape ",
                 shape_str(xs[i].shape()));
  int64_t d = wrap_dim(dim, xs[0].dim() + 1, "stack");
  std::vector<Tensor> us;
  us.reserve(xs.size());
  for (const Tensor& x : xs) us.push_back(unsqueeze(x, d));
  return cat(us, d);
}

Tensor hstack(const std::vector<Tensor>& xs) {
  TANDEM_CHECK(!xs.empty(), ValueError, "hstack: expected a non-empty list of tensors");
  std::vector<Tensor> us;
  for (const Tensor& x : xs) us.push_back(at_least(x, 1));
  int64_t dim = us[0].dim() == 1 ? 0 : 1;  // 1-D inputs join end to end, like numpy
  plan_cat(us, dim, "hstack");             // errors under this op's name
  return cat(us, dim);
}

Tensor vstack(const std::vector<Tensor>& xs) {
  TANDEM_CHECK(!xs.empty(), ValueError, "vstack: expected a non-empty list of tensors");
  std::vector<Tensor> us;
  for (const Tensor& x : xs) us.push_back(at_least(x, 2));
  plan_cat(us, 0, "vstack");
  return cat(us, 0);
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& dims) {
  std::vector<bool> seen(size_t(std::max<int64_t>(x.dim(), 1)), false);
  Tensor v = x;
  for (int64_t d : dims) {
    int64_t w = wrap_dim_scalar(d, x.dim(), "flip");
    TANDEM_CHECK(!seen[w], ValueError, "flip: dim ", w, " appears multiple times in dims");
    seen[w] = true;
    if (x.dim() > 0) v = slice(v, w, std::nullopt, std::nullopt, -1);
  }
  return clone(v);  // reads the negative-stride view into a fresh dense tensor
}

Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  if (dims.empty()) {  // roll the flattened tensor, then restore the shape
    TANDEM_CHECK(shifts.size() == 1, ValueError,
                 "roll: without dims the tensor is rolled flattened and shifts must be a "
                 "single int, got ",
                 shifts.size(), " shifts");
    return reshape(roll(flatten(x), shifts, {0}), x.shape());
  }
  return dispatch1(roll_op, {x}, {{"shifts", shifts}, {"dims", dims}});
}

Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats) {
  int64_t n = int64_t(repeats.size());
  TANDEM_CHECK(n >= x.dim(), ValueError, "repeat: the number of repeats (", n,
               ") can't be smaller than the tensor's number of dims (", x.dim(),
               "); pass one per dim");
  for (int64_t r : repeats)
    TANDEM_CHECK(r >= 0, ValueError, "repeat: repeats can't be negative, got ", shape_str(repeats));
  // View x as (1, s0, 1, s1, ...), broadcast to (r0, s0, r1, s1, ...), copy once, merge pairs.
  Shape padded(size_t(n - x.dim()), 1);
  padded.insert(padded.end(), x.shape().begin(), x.shape().end());
  Tensor v = reshape(x, padded);
  Shape wide, out;
  for (int64_t i = 0; i < n; ++i) {
    v = unsqueeze(v, 2 * i);
    wide.push_back(repeats[i]);
    wide.push_back(padded[i]);
    out.push_back(repeats[i] * padded[i]);
  }
  return reshape(clone(expand(v, wide)), out);
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  std::vector<int64_t> r(size_t(std::max<int64_t>(x.dim() - int64_t(reps.size()), 0)), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  return repeat(x, r);
}

namespace {
// The tensor repeat_interleave works on and the dim it repeats along.
std::pair<Tensor, int64_t> interleave_target(const Tensor& x, std::optional<int64_t> dim) {
  Tensor v = dim ? x : flatten(x);
  if (v.dim() == 0) v = reshape(v, {1});
  return {v, dim ? wrap_dim(*dim, v.dim(), "repeat_interleave") : 0};
}
}  // namespace

Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim) {
  auto [v, d] = interleave_target(x, dim);
  return dispatch1(repeat_interleave_op, {v}, {{"repeats", repeats}, {"dim", d}});
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim) {
  TANDEM_CHECK(is_integral(repeats.dtype()), TypeError,
               "repeat_interleave: repeats must be an integer tensor, got ",
               dtype_name(repeats.dtype()));
  TANDEM_CHECK(repeats.dim() <= 1, ValueError,
               "repeat_interleave: repeats must be a 0-d or 1-d tensor, got shape ",
               shape_str(repeats.shape()));
  if (repeats.numel() == 1) return repeat_interleave(x, repeats.item().to_int(), dim);
  auto [v, d] = interleave_target(x, dim);
  TANDEM_CHECK(repeats.numel() == v.shape()[d], ValueError,
               "repeat_interleave: repeats must have one entry per element along dim ", d,
               " (size ", v.shape()[d], "), or a single entry, but it has ", repeats.numel());
  // The output size depends on the values of repeats, so this gathers with an index built
  // from them (as PyTorch does) instead of being an OpDef with a shape-only infer.
  Tensor r = to_dtype(repeats, DType::Int64).contiguous();
  int64_t total = repeat_total(r.data<int64_t>(), r.numel(), "repeat_interleave");
  Tensor idx = Tensor::empty({total}, DType::Int64);
  repeat_index(r.data<int64_t>(), r.numel(), idx.data<int64_t>());
  return index_select(v, d, idx);
}

Tensor tril(const Tensor& x, int64_t diagonal) {
  return dispatch1(tril_op, {x}, {{"diagonal", diagonal}});
}

Tensor triu(const Tensor& x, int64_t diagonal) {
  return dispatch1(triu_op, {x}, {{"diagonal", diagonal}});
}

Tensor diag(const Tensor& x, int64_t diagonal) {
  TANDEM_CHECK(x.dim() == 1 || x.dim() == 2, ValueError,
               "diag: expected a 1-D tensor (to build a matrix) or a 2-D tensor (to read a "
               "diagonal), got shape ",
               shape_str(x.shape()));
  if (x.dim() == 2) return clone(tandem::diagonal(x, diagonal, 0, 1));
  return dispatch1(diag_embed_op, {x}, {{"offset", diagonal}});
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pad, const std::string& mode,
           double value) {
  if (mode == "constant" && x.defined()) check_scalar_fits(Scalar(value), x.dtype(), "pad");
  return dispatch1(pad_op, {x}, {{"pad", pad}, {"mode", mode}, {"value", value}});
}

}  // namespace tandem
