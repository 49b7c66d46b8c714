// Resampling (interpolate) and im2col (unfold / fold) OpDefs.
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/resize_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/float_kernel.h"
#include "tandem/ops/nn.h"

namespace tandem {
namespace {

bool bilinear(const OpDef& op) {
  return op.name.find("bilinear") != std::string::npos;
}

ResizeParams resize_params(const Shape& x, const Shape& y, const Attrs& at) {
  ResizeParams p;
  p.planes = x[0] * x[1], p.H = x[2], p.W = x[3], p.OH = y[2], p.OW = y[3];
  p.align_corners = at.get_bool("align_corners");
  p.scale_h = at.get_float("scale_h");
  p.scale_w = at.get_float("scale_w");
  return p;
}

std::vector<TensorMeta> resize_infer(const OpDef& op, const std::vector<Tensor>& in,
                                     const Attrs& at) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() == 4, ValueError, op.name, ": expected a 4-D input (N, C, H, W), got shape ",
               shape_str(x.shape()));
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, op.name, ": expected a floating input, got ",
               dtype_name(x.dtype()));
  const auto& s = at.get_ints("size");
  TANDEM_CHECK(s.size() == 2 && s[0] > 0 && s[1] > 0, ValueError, op.name,
               ": output size must be two positive ints, got ", shape_str(s));
  TANDEM_CHECK(x.shape()[2] > 0 && x.shape()[3] > 0, ValueError, op.name,
               ": input spatial size must be positive, got ", shape_str(x.shape()));
  return {{{x.shape()[0], x.shape()[1], s[0], s[1]}, x.dtype()}};
}
void resize_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  ResizeParams p = resize_params(x.shape(), y.shape(), at);
  if (y.numel())
    (bilinear(op) ? resize_bilinear : resize_nearest)(p, kt, x.data_ptr(), y.data_ptr());
  copy_back(y, out[0]);
}

// Input: grad_out (N, C, OH, OW); attrs input_size.
std::vector<TensorMeta> resize_bwd_infer(const OpDef& op, const std::vector<Tensor>& in,
                                         const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  TANDEM_CHECK(
      xs.size() == 4 && in[0].dim() == 4 && in[0].shape()[0] == xs[0] && in[0].shape()[1] == xs[1],
      ValueError, op.name, ": grad_output ", shape_str(in[0].shape()), " doesn't fit input size ",
      shape_str(xs));
  return {{xs, in[0].dtype()}};
}
void resize_bwd_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& at) {
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor gy = dense_as(in[0], kt), gx = kernel_buffer(out[0], kt);
  ResizeParams p = resize_params(gx.shape(), gy.shape(), at);
  if (gx.numel())
    (bilinear(op) ? resize_bilinear_backward : resize_nearest_backward)(p, kt, gy.data_ptr(),
                                                                        gx.data_ptr());
  copy_back(gx, out[0]);
}

ConvParams im2col_params(const Shape& x, const Attrs& at, const char* op) {
  const auto &k = at.get_ints("kernel"), &d = at.get_ints("dilation"), &pd = at.get_ints("padding"),
             &s = at.get_ints("stride");
  TANDEM_CHECK(k.size() == 2 && d.size() == 2 && pd.size() == 2 && s.size() == 2, ValueError, op,
               ": kernel_size, dilation, padding and stride need 2 values each");
  for (int i = 0; i < 2; ++i)
    TANDEM_CHECK(k[i] > 0 && d[i] > 0 && s[i] > 0 && pd[i] >= 0, ValueError, op,
                 ": kernel_size, dilation and stride must be positive and padding non-negative");
  ConvParams p{};
  p.N = x[0], p.C = x[1], p.H = x[2], p.W = x[3];
  p.KH = k[0], p.KW = k[1], p.dh = d[0], p.dw = d[1], p.sh = s[0], p.sw = s[1];
  p.pt = p.pb = pd[0];
  p.pl = p.pr = pd[1];
  p.groups = 1;
  int64_t eh = p.H + 2 * pd[0] - d[0] * (k[0] - 1) - 1,
          ew = p.W + 2 * pd[1] - d[1] * (k[1] - 1) - 1;
  TANDEM_CHECK(eh >= 0 && ew >= 0, ValueError, op, ": the kernel (", k[0], ", ", k[1],
               ") with dilation doesn't fit the padded input ", shape_str(x));
  p.OH = eh / s[0] + 1;
  p.OW = ew / s[1] + 1;
  return p;
}

std::vector<TensorMeta> unfold_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  TANDEM_CHECK(in[0].dim() == 4, ValueError,
               "unfold: expected a 4-D input (N, C, H, W), got shape ", shape_str(in[0].shape()));
  TANDEM_CHECK(is_floating(in[0].dtype()), TypeError, "unfold: expected a floating input");
  // Only the batch may be empty, as in torch.
  const Shape& xs = in[0].shape();
  TANDEM_CHECK(xs[1] > 0 && xs[2] > 0 && xs[3] > 0, ValueError,
               "unfold: expected non-zero sizes for the non-batch dimensions, got shape ",
               shape_str(xs));
  ConvParams p = im2col_params(in[0].shape(), at, "unfold");
  return {{{p.N, p.C * p.KH * p.KW, p.OH * p.OW}, in[0].dtype()}};
}
void unfold_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  ConvParams p = im2col_params(in[0].shape(), at, "unfold");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  int64_t per_in = p.C * p.H * p.W, per_out = p.C * p.KH * p.KW * p.OH * p.OW;
  for (int64_t n = 0; n < p.N; ++n) {
    if (kt == DType::Float32)
      conv_ref::im2col(p, x.data<float>() + n * per_in, p.C, y.data<float>() + n * per_out);
    else
      conv_ref::im2col(p, x.data<double>() + n * per_in, p.C, y.data<double>() + n * per_out);
  }
  copy_back(y, out[0]);
}

std::vector<TensorMeta> fold_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor& x = in[0];
  const auto& os = at.get_ints("output_size");
  TANDEM_CHECK(x.dim() == 3, ValueError, "fold: expected a 3-D input (N, C*kh*kw, L), got shape ",
               shape_str(x.shape()));
  TANDEM_CHECK(os.size() == 2, ValueError, "fold: output_size needs 2 values");
  TANDEM_CHECK(x.shape()[1] > 0 && x.shape()[2] > 0, ValueError,
               "fold: expected an input with non-zero dims (only the batch may be 0), got shape ",
               shape_str(x.shape()));
  const auto& k = at.get_ints("kernel");
  TANDEM_CHECK(k.size() == 2 && k[0] > 0 && k[1] > 0 && x.shape()[1] % (k[0] * k[1]) == 0,
               ValueError, "fold: dim 1 of the input (", x.shape()[1],
               ") must be divisible by the product of kernel_size");
  int64_t C = x.shape()[1] / (k[0] * k[1]);
  ConvParams p = im2col_params({x.shape()[0], C, os[0], os[1]}, at, "fold");
  TANDEM_CHECK(x.shape()[2] == p.OH * p.OW, ValueError, "fold: expected L = ", p.OH * p.OW,
               " blocks for output_size ", shape_str(os), ", got ", x.shape()[2]);
  return {{{x.shape()[0], C, os[0], os[1]}, x.dtype()}};
}
void fold_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& at) {
  ConvParams p = im2col_params(out[0].shape(), at, "fold");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  copy_into(y, Tensor::wrap_scalar(Scalar(0.0), kt));
  int64_t per_out = p.C * p.H * p.W, per_in = p.C * p.KH * p.KW * p.OH * p.OW;
  for (int64_t n = 0; n < p.N; ++n) {
    if (kt == DType::Float32)
      conv_ref::col2im(p, x.data<float>() + n * per_in, p.C, y.data<float>() + n * per_out);
    else
      conv_ref::col2im(p, x.data<double>() + n * per_in, p.C, y.data<double>() + n * per_out);
  }
  copy_back(y, out[0]);
}

const OpDef nearest_op = make_op("upsample_nearest2d", resize_infer, resize_kernel);
const OpDef bilinear_op = make_op("upsample_bilinear2d", resize_infer, resize_kernel);
const OpDef nearest_bwd_op =
    make_op("upsample_nearest2d_backward", resize_bwd_infer, resize_bwd_kernel);
const OpDef bilinear_bwd_op =
    make_op("upsample_bilinear2d_backward", resize_bwd_infer, resize_bwd_kernel);
const OpDef unfold_op = make_op("unfold", unfold_infer, unfold_kernel);
const OpDef fold_op = make_op("fold", fold_infer, fold_kernel);
TANDEM_REGISTER_OP(nearest_op)
TANDEM_REGISTER_OP(bilinear_op)
TANDEM_REGISTER_OP(nearest_bwd_op)
TANDEM_REGISTER_OP(bilinear_bwd_op)
TANDEM_REGISTER_OP(unfold_op)
TANDEM_REGISTER_OP(fold_op)

// --- backward rules ------------------------------------------------------------------------
// Resampling and im2col are linear; each backward op (and fold) is the adjoint of its
// forward, so every vjp is the partner op with the same attributes.
Attrs without(const Attrs& at, const char* key) {
  Attrs r;
  for (const auto& [k, v] : at.items())
    if (k != key) r.set(k, v);
  return r;
}
std::vector<int64_t> spatial(const Tensor& t) {
  return {t.shape()[2], t.shape()[3]};
}

std::vector<Tensor> resize_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  Attrs at = without(c.attrs, "size");
  const Shape& xs = c.inputs[0].shape();
  at.set("input_size", std::vector<int64_t>(xs.begin(), xs.end()));
  return {dispatch1(bilinear(c.op) ? bilinear_bwd_op : nearest_bwd_op, {g[0]}, at)};
}
std::vector<Tensor> resize_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  Attrs at = without(c.attrs, "input_size");
  at.set("size", spatial(c.inputs[0]));
  return {dispatch1(bilinear(c.op) ? bilinear_op : nearest_op, {g[0]}, at)};
}
std::vector<Tensor> unfold_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  Attrs at = c.attrs;
  at.set("output_size", spatial(c.inputs[0]));
  return {dispatch1(fold_op, {g[0]}, at)};
}
std::vector<Tensor> fold_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  return {dispatch1(unfold_op, {g[0]}, without(c.attrs, "output_size"))};
}
TANDEM_DEFINE_VJP(nearest_op, resize_vjp)
TANDEM_DEFINE_VJP(bilinear_op, resize_vjp)
TANDEM_DEFINE_VJP(nearest_bwd_op, resize_bwd_vjp)
TANDEM_DEFINE_VJP(bilinear_bwd_op, resize_bwd_vjp)
TANDEM_DEFINE_VJP(unfold_op, unfold_vjp)
TANDEM_DEFINE_VJP(fold_op, fold_vjp)

const OpDef& resize_op(const std::string& mode, bool backward) {
  if (mode == "nearest") return backward ? nearest_bwd_op : nearest_op;
  if (mode == "bilinear") return backward ? bilinear_bwd_op : bilinear_op;
  throw_error<ValueError>("interpolate: mode must be 'nearest' or 'bilinear' for 4-D input, got '",
                          mode, "'");
}

Attrs resize_attrs(bool align, const std::vector<double>& scales) {
  double sh = scales.size() == 2 && scales[0] > 0 ? 1.0 / scales[0] : 0.0;
  double sw = scales.size() == 2 && scales[1] > 0 ? 1.0 / scales[1] : 0.0;
  return {{"align_corners", align}, {"scale_h", sh}, {"scale_w", sw}};
}

Attrs im2col_attrs(const std::vector<int64_t>& k, const std::vector<int64_t>& d,
                   const std::vector<int64_t>& p, const std::vector<int64_t>& s) {
  return {{"kernel", k}, {"dilation", d}, {"padding", p}, {"stride", s}};
}

}  // namespace

Tensor interpolate(const Tensor& x, const std::vector<int64_t>& size, const std::string& mode,
                   bool align_corners, const std::vector<double>& scales) {
  TANDEM_CHECK(!(mode == "nearest" && align_corners), ValueError,
               "interpolate: align_corners only has an effect with linear modes");
  Attrs at = resize_attrs(align_corners, scales);
  at.set("size", size);
  return dispatch1(resize_op(mode, false), {x}, at);
}
Tensor interpolate_backward(const Tensor& gy, const std::vector<int64_t>& input_size,
                            const std::string& mode, bool align_corners,
                            const std::vector<double>& scales) {
  Attrs at = resize_attrs(align_corners, scales);
  at.set("input_size", input_size);
  return dispatch1(resize_op(mode, true), {gy}, at);
}
Tensor unfold(const Tensor& x, const std::vector<int64_t>& k, const std::vector<int64_t>& d,
              const std::vector<int64_t>& p, const std::vector<int64_t>& s) {
  return dispatch1(unfold_op, {x}, im2col_attrs(k, d, p, s));
}
Tensor fold(const Tensor& x, const std::vector<int64_t>& os, const std::vector<int64_t>& k,
            const std::vector<int64_t>& d, const std::vector<int64_t>& p,
            const std::vector<int64_t>& s) {
  Attrs at = im2col_attrs(k, d, p, s);
  at.set("output_size", os);
  return dispatch1(fold_op, {x}, at);
}

}  // namespace tandem
