// view_scatter: the adjoint of any view. Given the gradient of a view, it builds the
// gradient of the viewed tensor (zeros outside the view). The view's geometry is stored
// relative to a dense tensor of the base's shape, so the op works on any input.
#include "tandem/autograd/view_scatter.h"

#include <algorithm>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

std::vector<TensorMeta> vs_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  TANDEM_CHECK(in[0].shape() == Shape(a.get_ints("view_shape")), Error,
               "internal: view_scatter: gradient shape ", shape_str(in[0].shape()),
               " differs from the view's ", shape_str(a.get_ints("view_shape")));
  return {{a.get_ints("base_shape"), in[0].dtype()}};
}

void vs_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& a) {
  copy_into(out[0], Tensor::wrap_scalar(Scalar(int64_t(0)), out[0].dtype()));
  // view_offset counts from the start of the output, which need not start its storage.
  Tensor region = Tensor::make_view(out[0], a.get_ints("view_shape"), a.get_ints("view_strides"),
                                    out[0].offset() + a.get_int("view_offset"));
  copy_into(region, in[0]);
}

// as_strided_backward(grad): as_strided reads storage, not its input's elements: a view
// element may be an input element reached several times (overlapping windows), or none of
// them (the view reaches outside a sliced input). As torch's as_strided backward, each
// storage element gets the sum of the gradients of the view elements on it, shared equally
// by the input elements on it (an expanded input). The op maps a tensor laid out by one
// geometry (src: shape, strides, offset) to one laid out by another (dst): scatter-add by
// position, divide by how often the input geometry reaches each position, gather. Positions
// are relative to the input's first element, so nothing depends on where the storage lies.
// Its adjoint is the same op with src and dst swapped (the input geometry still counts),
// which makes it its own vjp.
struct Geometry {
  Shape shape;
  Strides strides;
  int64_t offset;
};

Geometry geometry(const Attrs& a, const char* which) {
  const std::string w = which;
  return {a.get_ints(w + "_shape"), a.get_ints(w + "_strides"), a.get_int(w + "_offset")};
}

std::vector<TensorMeta> asb_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  TANDEM_CHECK(in[0].shape() == Shape(a.get_ints("src_shape")), Error,
               "internal: as_strided_backward: gradient shape ", shape_str(in[0].shape()));
  return {{a.get_ints("dst_shape"), in[0].dtype()}};
}

// The position of every element of g in row-major order.
std::vector<int64_t> positions_of(const Geometry& g) {
  const int64_t n = numel_of(g.shape);
  std::vector<int64_t> out;
  out.reserve(size_t(n));
  std::vector<int64_t> idx(g.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = g.offset;
    for (size_t d = 0; d < g.shape.size(); ++d) pos += idx[d] * g.strides[d];
    out.push_back(pos);
    for (size_t d = g.shape.size(); d-- > 0;) {  // last dim fastest
      if (++idx[d] < g.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

void asb_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& a) {
  const std::vector<int64_t> src = positions_of(geometry(a, "src"));
  const std::vector<int64_t> dst = positions_of(geometry(a, "dst"));
  const std::vector<int64_t>& input = a.get_bool("dst_is_input") ? dst : src;
  Tensor dense = Tensor::empty(a.get_ints("dst_shape"), DType::Float64);
  double* o = dense.data<double>();
  std::fill(o, o + dst.size(), 0.0);
  if (!input.empty()) {  // positions outside the input's span carry nothing
    const auto [lo, hi] = std::minmax_element(input.begin(), input.end());
    const int64_t base = *lo, span = *hi - *lo + 1;
    auto inside = [&](int64_t p) { return p >= base && p - base < span; };
    std::vector<double> acc(size_t(span), 0.0);
    std::vector<int64_t> count(size_t(span), 0);
    for (int64_t p : input) count[size_t(p - base)]++;
    const Tensor g = to_dtype(in[0], DType::Float64).contiguous();
    const double* gp = g.data<double>();
    for (size_t k = 0; k < src.size(); ++k)
      if (inside(src[k])) acc[size_t(src[k] - base)] += gp[k];
    for (size_t j = 0; j < dst.size(); ++j)
      if (inside(dst[j]) && count[size_t(dst[j] - base)])
        o[j] = acc[size_t(dst[j] - base)] / double(count[size_t(dst[j] - base)]);
  }
  copy_into(out[0], dense);
}

Attrs asb_attrs(const Geometry& src, const Geometry& dst, bool dst_is_input) {
  return {{"src_shape", src.shape},      {"src_strides", src.strides}, {"src_offset", src.offset},
          {"dst_shape", dst.shape},      {"dst_strides", dst.strides}, {"dst_offset", dst.offset},
          {"dst_is_input", dst_is_input}};
}

const OpDef as_strided_bwd_op = make_op("as_strided_backward", asb_infer, asb_kernel);
TANDEM_REGISTER_OP(as_strided_bwd_op)

std::vector<Tensor> asb_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Geometry src = geometry(c.attrs, "src"), dst = geometry(c.attrs, "dst");
  return {
      dispatch1(as_strided_bwd_op, {g[0]}, asb_attrs(dst, src, !c.attrs.get_bool("dst_is_input")))};
}
TANDEM_DEFINE_VJP(as_strided_bwd_op, asb_vjp)

// The gradient of the scattered values is the same view of the output gradient.
std::vector<Tensor> vs_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  Tensor gb = g[0].contiguous();
  return {as_strided(gb, c.attrs.get_ints("view_shape"), c.attrs.get_ints("view_strides"),
                     c.attrs.get_int("view_offset"))};
}

const OpDef view_scatter_op = make_op("view_scatter", vs_infer, vs_kernel);
TANDEM_REGISTER_OP(view_scatter_op)
TANDEM_DEFINE_VJP(view_scatter_op, vs_vjp)

// view_assign(base, value): inputs base and the view's new value.
std::vector<TensorMeta> va_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  TANDEM_CHECK(in[1].shape() == Shape(a.get_ints("view_shape")), Error,
               "internal: view_assign: value shape ", shape_str(in[1].shape()),
               " differs from "
               "the view's ",
               shape_str(a.get_ints("view_shape")));
  return {{in[0].shape(), in[0].dtype()}};
}
void va_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& a) {
  copy_into(out[0], in[0]);
  copy_into(Tensor::make_view(out[0], a.get_ints("view_shape"), a.get_ints("view_strides"),
                              out[0].offset() + a.get_int("view_offset")),
            in[1]);
}
// The base keeps the gradient outside the region; the value gets the region.
std::vector<Tensor> va_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const auto &vs = c.attrs.get_ints("view_shape"), &vst = c.attrs.get_ints("view_strides");
  int64_t off = c.attrs.get_int("view_offset");
  Tensor gd = g[0].contiguous();
  Tensor region = as_strided(gd, vs, vst, off);
  Tensor g_base =
      c.needs_grad[0] ? sub(gd, view_scatter(region, gd.shape(), vs, vst, off)) : Tensor();
  return {g_base, c.needs_grad[1] ? region : Tensor()};
}
const OpDef view_assign = make_op("view_assign", va_infer, va_kernel);
TANDEM_REGISTER_OP(view_assign)
TANDEM_DEFINE_VJP(view_assign, va_vjp)

}  // namespace

Tensor view_scatter(const Tensor& grad, const Shape& base_shape, const Shape& view_shape,
                    const Strides& view_strides, int64_t view_offset) {
  return dispatch1(view_scatter_op, {grad},
                   {{"base_shape", base_shape},
                    {"view_shape", view_shape},
                    {"view_strides", view_strides},
                    {"view_offset", view_offset}});
}

const OpDef& view_assign_op() {
  return view_assign;
}

std::vector<Tensor> as_strided_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  const Geometry view{c.attrs.get_ints("shape"), c.attrs.get_ints("strides"),
                      c.attrs.get_int("offset") - x.offset()};
  const Geometry input{x.shape(), x.strides(), 0};
  std::vector<Tensor> out(c.inputs.size());
  out[0] = dispatch1(as_strided_bwd_op, {g[0]}, asb_attrs(view, input, true));
  return out;
}

std::vector<Tensor> view_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  // Replay the view on a storage-less dense tensor of x's shape to get its geometry.
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = x.shape();
  impl->strides = contiguous_strides(x.shape());
  impl->dtype = x.dtype();
  std::vector<Tensor> ins = c.inputs;
  ins[0] = Tensor(impl);
  Tensor v = c.op.view(c.op, ins, c.attrs);
  std::vector<Tensor> out(c.inputs.size());
  out[0] = view_scatter(g[0], x.shape(), v.shape(), v.strides(), v.offset());
  return out;
}

}  // namespace tandem
