// view_scatter: the adjoint of any view. Given the gradient of a view, it builds the
// gradient of the viewed tensor (zeros outside the view). The view's geometry is stored
// relative to a dense tensor of the base's shape, so the op works on any input.
#include "tandem/autograd/view_scatter.h"

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
