// Dtype conversion and copies: cast (an OpDef, so graphs see conversions), clone, copy_, fill_.
#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

std::vector<TensorMeta> cast_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& a) {
  return {{in[0].shape(), a.get_dtype("dtype")}};
}
void cast_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs&) {
  copy_into(out[0], in[0]);
}
const OpDef cast_op = [] {
  OpDef op;
  op.name = "cast";
  op.infer = cast_infer;
  op.kernel = cast_kernel;
  op.kernel_writes_any_out = true;
  return op;
}();
TANDEM_REGISTER_OP(cast_op)

// A cast's gradient is cast back by the engine to the input's dtype.
std::vector<Tensor> cast_vjp(const VjpCtx&, const std::vector<Tensor>& g) {
  return {g[0]};
}
TANDEM_DEFINE_VJP(cast_op, cast_vjp)

}  // namespace

Tensor to_dtype(const Tensor& x, DType dtype, bool copy) {
  if (x.dtype() == dtype && !copy) return x;
  return dispatch1(cast_op, {x}, {{"dtype", int64_t(dtype)}});
}

Tensor clone(const Tensor& x) {
  return to_dtype(x, x.dtype(), true);
}

const Tensor& copy_(const Tensor& dst, const Tensor& src) {
  Shape b = broadcast_shapes(dst.shape(), src.shape(), "copy_");
  TANDEM_CHECK(b == dst.shape(), ValueError, "copy_: source of shape ", shape_str(src.shape()),
               " cannot be broadcast to the destination's shape ", shape_str(dst.shape()));
  check_no_internal_overlap(dst, "copy_");
  dispatch_out(cast_op, {expand(src, dst.shape())}, {{"dtype", int64_t(dst.dtype())}}, dst);
  return dst;
}

const Tensor& fill_(const Tensor& dst, const Tensor& value) {
  TANDEM_CHECK(value.dim() == 0, ValueError,
               "fill_: only a 0-dimension value tensor is supported, got one with ", value.dim(),
               " dimensions (use copy_ to write a tensor of values)");
  // "fill": one value everywhere may go into an expanded view (dispatch_out's overlap rule).
  dispatch_out(cast_op, {expand(value, dst.shape())},
               {{"dtype", int64_t(dst.dtype())}, {"fill", true}}, dst);
  return dst;
}

const Tensor& fill_(const Tensor& dst, Scalar value) {
  check_fill_fits(value, dst.dtype(), "fill_");
  return fill_(dst, Tensor::wrap_scalar(value, dst.dtype()));
}

}  // namespace tandem
