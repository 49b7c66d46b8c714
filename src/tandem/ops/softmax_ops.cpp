// softmax / log_softmax OpDefs and their backward composites.
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/softmax_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/reduce.h"

namespace tandem {
namespace {

std::vector<TensorMeta> sm_infer(const OpDef& op, const std::vector<Tensor>& in, const Attrs& at) {
  wrap_dim_scalar(at.get_int("dim"), in[0].dim(), op.name.c_str());
  DType t = in[0].dtype();
  return {{in[0].shape(), is_floating(t) ? t : DType::Float32}};
}

void sm_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& at) {
  const Tensor& x = in[0];
  int64_t d = x.dim() == 0 ? 0 : wrap_dim_scalar(at.get_int("dim"), x.dim(), op.name.c_str());
  DType kt = out[0].dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor xc = (x.dtype() == kt ? x : to_dtype(x, kt)).contiguous();
  Tensor y = out[0].dtype() == kt ? out[0] : Tensor::empty(out[0].shape(), kt);
  int64_t O = 1, R = x.dim() == 0 ? 1 : x.shape()[d], I = 1;
  for (int64_t k = 0; k < d; ++k) O *= x.shape()[k];
  for (int64_t k = d + 1; k < x.dim(); ++k) I *= x.shape()[k];
  if (y.numel()) softmax_kernel(kt, op.data != nullptr, xc.data_ptr(), y.data_ptr(), O, R, I);
  if (!y.same(out[0])) copy_into(out[0], y);
}

OpDef make(const char* name, bool log) {
  OpDef op;
  op.name = name;
  op.infer = sm_infer;
  op.kernel = sm_kernel;
  op.data = log ? reinterpret_cast<const void*>(1) : nullptr;
  return op;
}
const OpDef softmax_op = make("softmax", false);
const OpDef log_softmax_op = make("log_softmax", true);
TANDEM_REGISTER_OP(softmax_op)
TANDEM_REGISTER_OP(log_softmax_op)

// Backward ops: inputs (y, grad_out). Rows along the last dim run one fused pass; other
// layouts use the same formula written with ops.
std::vector<TensorMeta> smb_infer(const OpDef& op, const std::vector<Tensor>& in, const Attrs& at) {
  TANDEM_CHECK(in[0].shape() == in[1].shape(), ValueError, op.name, ": output ",
               shape_str(in[0].shape()), " and grad_output ", shape_str(in[1].shape()),
               " must have the same shape");
  TANDEM_CHECK(is_floating(in[0].dtype()), TypeError, op.name, ": expected a floating output");
  wrap_dim_scalar(at.get_int("dim"), in[0].dim(), op.name.c_str());
  return {{in[0].shape(), in[0].dtype()}};
}

void smb_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& at) {
  bool log = op.data != nullptr;
  const Tensor &y = in[0], &gy = in[1];
  int64_t d = y.dim() == 0 ? 0 : wrap_dim_scalar(at.get_int("dim"), y.dim(), op.name.c_str());
  DType dt = out[0].dtype();
  if ((dt == DType::Float32 || dt == DType::Float64) && y.dim() > 0 && d == y.dim() - 1 &&
      gy.dtype() == dt) {
    Tensor yc = y.contiguous(), gc = gy.contiguous();
    int64_t R = y.shape()[d];
    if (out[0].numel())
      softmax_backward_rows(dt, log, yc.data_ptr(), gc.data_ptr(), out[0].data_ptr(),
                            out[0].numel() / R, R);
    return;
  }
  std::vector<int64_t> dims{d};
  Tensor r = log ? sub(gy, mul(exp(y), sum(gy, dims, true)))
                 : mul(y, sub(gy, sum(mul(gy, y), dims, true)));
  copy_into(out[0], r);
}

const OpDef softmax_bwd_op = make_op("softmax_backward", smb_infer, smb_kernel);
const OpDef log_softmax_bwd_op =
    make_op("log_softmax_backward", smb_infer, smb_kernel, false, reinterpret_cast<const void*>(1));
TANDEM_REGISTER_OP(softmax_bwd_op)
TANDEM_REGISTER_OP(log_softmax_bwd_op)

// --- backward rules ------------------------------------------------------------------------
std::vector<int64_t> dim_of(const VjpCtx& c, const Tensor& y) {
  return {y.dim() == 0 ? 0 : wrap_dim_scalar(c.attrs.get_int("dim"), y.dim(), c.op.name.c_str())};
}

std::vector<Tensor> softmax_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  return {dispatch1(softmax_bwd_op, {c.outputs[0], g[0]}, c.attrs)};
}
std::vector<Tensor> log_softmax_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  return {dispatch1(log_softmax_bwd_op, {c.outputs[0], g[0]}, c.attrs)};
}

// out = y * (gy - s), s = sum(gy * y). Symmetric in gy: d/dgy = y * (G - sum(G * y)), i.e.
// softmax_backward(y, G); d/dy = G * (gy - s) - gy * sum(G * y).
std::vector<Tensor> softmax_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &y = c.inputs[0], &gy = c.inputs[1], &G = g[0];
  std::vector<int64_t> d = dim_of(c, y);
  Tensor gyy;
  if (c.needs_grad[0]) {
    Tensor s = sum(mul(gy, y), d, true), sg = sum(mul(G, y), d, true);
    gyy = sub(mul(G, sub(gy, s)), mul(gy, sg));
  }
  return {gyy, c.needs_grad[1] ? dispatch1(softmax_bwd_op, {y, G}, c.attrs) : Tensor()};
}

// out = gy - exp(y) * sum(gy): d/dgy = G - sum(G * exp(y)); d/dy = -G * exp(y) * sum(gy).
std::vector<Tensor> log_softmax_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &y = c.inputs[0], &gy = c.inputs[1], &G = g[0];
  std::vector<int64_t> d = dim_of(c, y);
  Tensor p = exp(y);
  return {c.needs_grad[0] ? neg(mul(mul(G, p), sum(gy, d, true))) : Tensor(),
          c.needs_grad[1] ? sub(G, sum(mul(G, p), d, true)) : Tensor()};
}
TANDEM_DEFINE_VJP(softmax_op, softmax_vjp)
TANDEM_DEFINE_VJP(log_softmax_op, log_softmax_vjp)
TANDEM_DEFINE_VJP(softmax_bwd_op, softmax_bwd_vjp)
TANDEM_DEFINE_VJP(log_softmax_bwd_op, log_softmax_bwd_vjp)

Tensor cast_opt(const Tensor& x, std::optional<DType> dt) {
  return dt ? to_dtype(x, *dt) : x;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return dispatch1(softmax_op, {cast_opt(x, dtype)}, {{"dim", dim}});
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return dispatch1(log_softmax_op, {cast_opt(x, dtype)}, {{"dim", dim}});
}
Tensor softmax_backward(const Tensor& y, const Tensor& grad_out, int64_t dim) {
  return dispatch1(softmax_bwd_op, {y, grad_out}, {{"dim", dim}});
}
Tensor log_softmax_backward(const Tensor& y, const Tensor& grad_out, int64_t dim) {
  return dispatch1(log_softmax_bwd_op, {y, grad_out}, {{"dim", dim}});
}

}  // namespace tandem
