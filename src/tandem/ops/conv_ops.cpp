// Convolution OpDefs: conv2d and its two backward ops, which the vjp rules (and
// conv_transpose2d) call. conv1d and conv_transpose2d are composites.
#include <algorithm>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/float_kernel.h"
#include "tandem/ops/layout.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

Attrs conv_attrs(const Conv2dArgs& a) {
  return {
      {"stride", a.stride}, {"padding", a.padding}, {"dilation", a.dilation}, {"groups", a.groups}};
}

void check_args(const Attrs& at, const char* op) {
  const auto &s = at.get_ints("stride"), &p = at.get_ints("padding"), &d = at.get_ints("dilation");
  TANDEM_CHECK(s.size() == 2 && p.size() == 4 && d.size() == 2, ValueError, op,
               ": stride and dilation need 2 values, padding 4");
  for (int64_t v : s) TANDEM_CHECK(v > 0, ValueError, op, ": stride must be positive, got ", v);
  for (int64_t v : d) TANDEM_CHECK(v > 0, ValueError, op, ": dilation must be positive, got ", v);
  for (int64_t v : p)
    TANDEM_CHECK(v >= 0, ValueError, op, ": negative padding is not supported, got ", v);
  TANDEM_CHECK(at.get_int("groups") > 0, ValueError, op, ": groups must be positive, got ",
               at.get_int("groups"));
}

// Full parameter set from input shape, weight shape and attrs; validates everything.
ConvParams params_of(const Shape& x, const Shape& w, const Attrs& at, const char* op) {
  check_args(at, op);
  TANDEM_CHECK(x.size() == 4, ValueError, op, ": expected a 4-D input (N, C, H, W), got shape ",
               shape_str(x));
  TANDEM_CHECK(w.size() == 4, ValueError, op,
               ": expected a 4-D weight (O, C/groups, KH, KW), got shape ", shape_str(w));
  ConvParams p;
  const auto &s = at.get_ints("stride"), &pd = at.get_ints("padding"), &d = at.get_ints("dilation");
  p.N = x[0], p.C = x[1], p.H = x[2], p.W = x[3];
  p.O = w[0], p.KH = w[2], p.KW = w[3];
  p.groups = at.get_int("groups");
  p.sh = s[0], p.sw = s[1], p.dh = d[0], p.dw = d[1];
  p.pt = pd[0], p.pl = pd[1], p.pb = pd[2], p.pr = pd[3];
  TANDEM_CHECK(p.C == w[1] * p.groups, ValueError, op, ": expected input with ", w[1] * p.groups,
               " channels (weight ", shape_str(w), ", groups=", p.groups, ") but got ", p.C,
               " channels (input ", shape_str(x), ")");
  TANDEM_CHECK(p.N == 0 || p.C == 0 || (p.H > 0 && p.W > 0), ValueError, op,
               ": only zero batch or zero channel inputs are supported, got input shape ",
               shape_str(x), " (a spatial size of 0)");
  TANDEM_CHECK(p.O > 0, ValueError, op,
               ": expected weight to have at least 1 output channel, got "
               "weight of shape ",
               shape_str(w));
  TANDEM_CHECK(p.O % p.groups == 0, ValueError, op, ": out_channels (", p.O,
               ") must be divisible by groups (", p.groups, ")");
  int64_t eh = p.H + p.pt + p.pb, ew = p.W + p.pl + p.pr;
  int64_t kh = p.dh * (p.KH - 1) + 1, kw = p.dw * (p.KW - 1) + 1;
  TANDEM_CHECK(kh <= eh && kw <= ew, ValueError, op, ": kernel size (", kh, ", ", kw,
               ") (dilated) can't be greater than the padded input size (", eh, ", ", ew, ")");
  p.OH = (eh - kh) / p.sh + 1;
  p.OW = (ew - kw) / p.sw + 1;
  return p;
}

// The (N, C, H, W) form of the activation shape s a node reads, and the node's channel block
// L (1: plain NCHW; else oneDNN's nChw16c, set by the graph's layout pass, ops/layout.h).
Shape plain_shape(const Shape& s, const Attrs& at, const char* op, int64_t& L) {
  L = channel_block_of(at, s, op);
  return L > 1 ? channel_unblocked_shape(s, L) : s;
}

// The node's channel block L and the (N, C, H, W) shape of its input-side activation s (x,
// or the input gradient's size): blocked with the node, unless the "plain_input" attribute
// (set by the layout pass on a first layer of few channels) keeps it NCHW.
Shape input_shape(const Shape& s, const Attrs& at, const char* op, int64_t& L, bool& plain_in) {
  plain_in = at.get_bool_or("plain_input", false);
  if (!plain_in) return plain_shape(s, at, op, L);
  L = at.get_int_or("channel_block", 1);
  TANDEM_CHECK(L == kChannelBlock && s.size() == 4, ValueError, op,
               ": plain_input needs channel_block=", kChannelBlock,
               " and an (N, C, H, W) input, got channel_block=", L, " and shape ", shape_str(s));
  return s;
}

// Blocked activations need what oneDNN's blocked kernels need: both channel counts whole
// blocks (the input's unless it stays plain), one group, a non-empty batch, float32 or
// bfloat16.
void check_blocked(const ConvParams& p, int64_t L, DType dt, const char* op) {
  if (L == 1) return;
  TANDEM_CHECK(p.groups == 1 && (p.plain_input || p.C % L == 0) && p.O % L == 0 && p.N > 0,
               ValueError, op,
               ": channel-blocked activations need groups=1, a non-empty batch and channel "
               "counts that are multiples of ",
               L, ", got groups=", p.groups, ", N=", p.N, ", C=", p.C, ", O=", p.O);
  TANDEM_CHECK(dt == DType::Float32 || dt == DType::BFloat16, TypeError, op,
               ": channel-blocked activations must be float32 or bfloat16, got ", dtype_name(dt));
}

DType conv_dtype(const Tensor& x, const Tensor& w, const char* op) {
  TANDEM_CHECK(is_floating(x.dtype()) && x.dtype() == w.dtype(), TypeError, op,
               ": input and weight must have the same floating dtype, got ", dtype_name(x.dtype()),
               " and ", dtype_name(w.dtype()));
  return x.dtype();
}

// The dtype a pass of the convolution runs in for tensors of dtype t: bfloat16 natively
// where oneDNN can, else float32 (float16 always), float64 as is.
DType conv_kernel_dtype(DType t, const ConvParams& p, ConvPass pass) {
  // (an empty reduction never reaches oneDNN, which has no primitive to ask about for it)
  if (t == DType::BFloat16 && p.C > 0 && p.N > 0 && conv2d_native_bf16(p, pass)) return t;
  return float_kernel_dtype(t);
}

// The optional "activation" attribute (set only by the graph pass that folds an activation
// into the convolution): relu, sigmoid or tanh applied to the output.
ConvParams::Act activation_of(const Attrs& at) {
  if (!at.has("activation")) return ConvParams::Act::None;
  const std::string& a = at.get_str("activation");
  if (a == "relu") return ConvParams::Act::Relu;
  if (a == "sigmoid") return ConvParams::Act::Sigmoid;
  TANDEM_CHECK(a == "tanh", ValueError, "conv2d: unknown activation '", a,
               "' (expected relu, sigmoid or tanh)");
  return ConvParams::Act::Tanh;
}

std::vector<TensorMeta> conv2d_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  int64_t L;
  bool plain_in;
  ConvParams p =
      params_of(input_shape(in[0].shape(), at, "conv2d", L, plain_in), in[1].shape(), at, "conv2d");
  p.plain_input = plain_in;
  activation_of(at);  // validates it
  DType dt = conv_dtype(in[0], in[1], "conv2d");
  check_blocked(p, L, dt, "conv2d");
  if (in.size() > 2)
    TANDEM_CHECK(in[2].dim() == 1 && in[2].shape()[0] == p.O, ValueError,
                 "conv2d: bias must have shape (", p.O, "), got ", shape_str(in[2].shape()));
  const Shape y{p.N, p.O, p.OH, p.OW};
  return {{L > 1 ? channel_blocked_shape(y, L) : y, dt}};
}

void conv2d_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  int64_t L;
  bool plain_in;
  ConvParams p =
      params_of(input_shape(in[0].shape(), at, "conv2d", L, plain_in), in[1].shape(), at, "conv2d");
  p.blocked = L > 1;
  p.plain_input = plain_in;
  ConvParams::Act act = activation_of(at);
  DType kt = conv_kernel_dtype(out[0].dtype(), p, ConvPass::Forward);
  // oneDNN applies the activation to the float32 accumulator in its output pass; where the
  // output is converted afterwards (float16) or computed by the reference path (float64),
  // the eager op runs over the result (same math as the unfused graph).
  if (kt != DType::Float64 && out[0].dtype() == kt) p.act = act;
  Tensor x = dense_as(in[0], kt), w = dense_as(in[1], kt);
  Tensor b = in.size() > 2 ? dense_as(in[2], kt) : Tensor();
  Tensor y = out[0].dtype() == kt ? out[0] : Tensor::empty(out[0].shape(), kt);
  // Set by the runtime's lowering (graph/inference_passes.h) on a frozen model's weights.
  if (at.get_bool_or("const_weight", false) && w.same(in[1]) && w.storage()) {
    p.weight_serial = w.storage()->serial();
    p.weight_offset = w.offset();
  }
  if (y.numel() > 0 && x.numel() == 0) {
    // No input channels: every output is the bias (0 without one), as in torch; oneDNN has
    // no primitive for an empty reduction. The activation then runs eagerly below.
    copy_into(y, b.defined() ? reshape(b, {1, p.O, 1, 1}) : Tensor::wrap_scalar(Scalar(0.0), kt));
    p.act = ConvParams::Act::None;
  } else if (y.numel() > 0) {
    conv2d_forward(p, kt, x.data_ptr(), w.data_ptr(), b.defined() ? b.data_ptr() : nullptr,
                   y.data_ptr());
  }
  if (!y.same(out[0])) copy_into(out[0], y);
  if (act != ConvParams::Act::None && p.act == ConvParams::Act::None && out[0].numel() > 0) {
    const OpDef& f = *find_op(at.get_str("activation").c_str());
    std::vector<Tensor> io{out[0]};
    f.kernel(f, io, io, {});  // elementwise kernels may write over their input
  }
}

// Inputs: grad_out, weight; attrs + input_size.
std::vector<TensorMeta> bwd_input_infer(const OpDef&, const std::vector<Tensor>& in,
                                        const Attrs& at) {
  const char* op = "conv2d_backward_input";
  const auto& xs = at.get_ints("input_size");
  const int64_t L = channel_block_of(at, in[0].shape(), op);
  ConvParams p = params_of(xs, in[1].shape(), at, op);
  p.plain_input = at.get_bool_or("plain_input", false);
  const DType dt = conv_dtype(in[0], in[1], op);
  check_blocked(p, L, dt, op);
  Shape gy{p.N, p.O, p.OH, p.OW};
  if (L > 1) gy = channel_blocked_shape(gy, L);
  TANDEM_CHECK(in[0].shape() == gy, ValueError, op, ": grad_output has shape ",
               shape_str(in[0].shape()), ", expected ", shape_str(gy));
  return {{L > 1 && !p.plain_input ? channel_blocked_shape(xs, L) : Shape(xs), dt}};
}

void bwd_input_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                      const Attrs& at) {
  ConvParams p = params_of(at.get_ints("input_size"), in[1].shape(), at, "conv2d_backward_input");
  p.blocked = channel_block_of(at, in[0].shape(), "conv2d_backward_input") > 1;
  p.plain_input = at.get_bool_or("plain_input", false);
  DType kt = conv_kernel_dtype(out[0].dtype(), p, ConvPass::BackwardData);
  Tensor gy = dense_as(in[0], kt), w = dense_as(in[1], kt);
  Tensor gx = out[0].dtype() == kt ? out[0] : Tensor::empty(out[0].shape(), kt);
  if (gx.numel() > 0) {
    if (gy.numel() == 0)
      copy_into(gx, Tensor::wrap_scalar(Scalar(0.0), kt));
    else
      conv2d_backward_data(p, kt, gy.data_ptr(), w.data_ptr(), gx.data_ptr());
  }
  if (!gx.same(out[0])) copy_into(out[0], gx);
}

// Inputs: x, grad_out; attrs + weight_size. Outputs: grad_weight, grad_bias.
std::vector<TensorMeta> bwd_weight_infer(const OpDef&, const std::vector<Tensor>& in,
                                         const Attrs& at) {
  const char* op = "conv2d_backward_weight";
  const auto& ws = at.get_ints("weight_size");
  int64_t L;
  bool plain_in;
  ConvParams p = params_of(input_shape(in[0].shape(), at, op, L, plain_in), ws, at, op);
  p.plain_input = plain_in;
  DType dt = conv_dtype(in[0], in[1], op);
  check_blocked(p, L, dt, op);
  Shape gy{p.N, p.O, p.OH, p.OW};
  if (L > 1) gy = channel_blocked_shape(gy, L);
  TANDEM_CHECK(in[1].shape() == gy, ValueError, op, ": grad_output has shape ",
               shape_str(in[1].shape()), ", expected ", shape_str(gy));
  return {{ws, dt}, {{p.O}, dt}};
}

void bwd_weight_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& at) {
  int64_t L;
  bool plain_in;
  ConvParams p = params_of(input_shape(in[0].shape(), at, "conv2d_backward_weight", L, plain_in),
                           at.get_ints("weight_size"), at, "conv2d_backward_weight");
  p.blocked = L > 1;
  p.plain_input = plain_in;
  DType kt = conv_kernel_dtype(out[0].dtype(), p, ConvPass::BackwardWeights);
  Tensor x = dense_as(in[0], kt), gy = dense_as(in[1], kt);
  Tensor gw = out[0].dtype() == kt ? out[0] : Tensor::empty(out[0].shape(), kt);
  Tensor gb = out[1].dtype() == kt ? out[1] : Tensor::empty(out[1].shape(), kt);
  if (gy.numel() == 0 || x.numel() == 0) {
    copy_into(gw, Tensor::wrap_scalar(Scalar(0.0), kt));
    // Without input channels the output is the bias, so its gradient is still gy's sum.
    copy_into(gb, gy.numel() == 0 ? Tensor::wrap_scalar(Scalar(0.0), kt)
                                  : sum(gy, std::vector<int64_t>{0, 2, 3}));
  } else {
    conv2d_backward_weights(p, kt, x.data_ptr(), gy.data_ptr(), gw.data_ptr(), gb.data_ptr());
  }
  if (!gw.same(out[0])) copy_into(out[0], gw);
  if (!gb.same(out[1])) copy_into(out[1], gb);
}

const OpDef conv2d_op = make_op("conv2d", conv2d_infer, conv2d_kernel);
const OpDef conv2d_bwd_input_op =
    make_op("conv2d_backward_input", bwd_input_infer, bwd_input_kernel);
const OpDef conv2d_bwd_weight_op =
    make_op("conv2d_backward_weight", bwd_weight_infer, bwd_weight_kernel);
TANDEM_REGISTER_OP(conv2d_op)
TANDEM_REGISTER_OP(conv2d_bwd_input_op)
TANDEM_REGISTER_OP(conv2d_bwd_weight_op)

// --- backward rules ------------------------------------------------------------------------
// conv2d is bilinear in (x, w): with C(x, w) = conv2d(x, w), the backward ops are its
// adjoints, Bx(gy, w) = C(., w)^T gy and Bw(x, gy) = C(x, .)^T gy. Both are themselves
// bilinear, so their vjps are again C, Bx and Bw with the arguments swapped.
Conv2dArgs args_of(const Attrs& at) {
  Conv2dArgs a;
  a.stride = at.get_ints("stride");
  a.padding = at.get_ints("padding");
  a.dilation = at.get_ints("dilation");
  a.groups = at.get_int("groups");
  return a;
}

Tensor sum_nhw(const Tensor& g) {
  return sum(g, std::vector<int64_t>{0, 2, 3});
}

std::vector<Tensor> conv2d_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &x = c.inputs[0], &w = c.inputs[1];
  // Folded activations appear only in optimized graphs, after differentiation.
  TANDEM_CHECK(!c.attrs.has("activation"), NotImplementedError,
               "conv2d: differentiating a convolution with a folded activation");
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError,
               "conv2d: differentiating a convolution on channel-blocked activations");
  Conv2dArgs a = args_of(c.attrs);
  std::vector<Tensor> r(c.inputs.size());
  if (c.needs_grad[0]) r[0] = conv2d_backward_input(g[0], w, x.shape(), a);
  bool bias = c.inputs.size() > 2 && c.needs_grad[2];
  if (c.needs_grad[1]) {
    // The weight kernel computes the bias gradient in the same pass over grad_output; its
    // second output is differentiable too (conv2d_bwd_weight_vjp).
    std::vector<Tensor> gwb = conv2d_backward_weight(x, g[0], w.shape(), a);
    r[1] = gwb[0];
    if (bias) r[2] = gwb[1];
  } else if (bias) {
    r[2] = sum_nhw(g[0]);
  }
  return r;
}

// Bx(gy, w) = C(., w)^T gy: <G, Bx(gy, w)> = <gy, C(G, w)>.
// Channel-blocked nodes appear only in optimized graphs, after differentiation.
void check_plain(const VjpCtx& c, const char* op) {
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError, op,
               ": differentiating a node on channel-blocked activations");
}

std::vector<Tensor> conv2d_bwd_input_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  check_plain(c, "conv2d_backward_input");
  const Tensor &gy = c.inputs[0], &w = c.inputs[1];
  Conv2dArgs a = args_of(c.attrs);
  return {c.needs_grad[0] ? conv2d(g[0], w, Tensor(), a) : Tensor(),
          c.needs_grad[1] ? conv2d_backward_weight(g[0], gy, w.shape(), a)[0] : Tensor()};
}

// (Bw(x, gy), sum_nhw(gy)): <Gw, Bw(x, gy)> + <Gb, sum_nhw(gy)> = <gy, C(x, Gw) + Gb>, and
// <Gw, Bw(x, gy)> = <Bx(gy, Gw), x>.
std::vector<Tensor> conv2d_bwd_weight_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  check_plain(c, "conv2d_backward_weight");
  const Tensor &x = c.inputs[0], &gy = c.inputs[1];
  Conv2dArgs a = args_of(c.attrs);
  Tensor gx, ggy;
  if (c.needs_grad[0]) gx = conv2d_backward_input(gy, g[0], x.shape(), a);
  if (c.needs_grad[1]) ggy = conv2d(x, g[0], g[1], a);
  return {gx, ggy};
}
TANDEM_DEFINE_VJP(conv2d_op, conv2d_vjp)
TANDEM_DEFINE_VJP(conv2d_bwd_input_op, conv2d_bwd_input_vjp)
TANDEM_DEFINE_VJP(conv2d_bwd_weight_op, conv2d_bwd_weight_vjp)

}  // namespace

std::vector<int64_t> same_padding(const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& dilation) {
  std::vector<int64_t> lo, hi;
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t total = dilation[i] * (kernel[i] - 1);
    lo.push_back(total / 2);
    hi.push_back(total - total / 2);
  }
  lo.insert(lo.end(), hi.begin(), hi.end());
  return lo;
}

Tensor conv2d(const Tensor& x_, const Tensor& weight_, const Tensor& bias_, const Conv2dArgs& a) {
  const Tensor x = autocast_lower(x_), weight = autocast_lower(weight_);
  const Tensor bias = autocast_lower(bias_);
  TANDEM_CHECK(x.dim() == 3 || x.dim() == 4, ValueError,
               "conv2d: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape ",
               shape_str(x.shape()));
  bool unbatched = x.dim() == 3;
  Tensor xb = unbatched ? unsqueeze(x, 0) : x;
  std::vector<Tensor> in{xb, weight};
  if (bias.defined()) in.push_back(bias);
  Tensor y = dispatch1(conv2d_op, in, conv_attrs(a));
  return unbatched ? squeeze(y, std::vector<int64_t>{0}) : y;
}

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t stride,
              std::vector<int64_t> padding, int64_t dilation, int64_t groups) {
  TANDEM_CHECK(x.dim() == 2 || x.dim() == 3, ValueError,
               "conv1d: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape ",
               shape_str(x.shape()));
  TANDEM_CHECK(weight.dim() == 3, ValueError,
               "conv1d: expected a 3-D weight (O, C/groups, K), got shape ",
               shape_str(weight.shape()));
  TANDEM_CHECK(padding.size() == 2, ValueError, "conv1d: padding needs {left, right}");
  // conv1d runs as a conv2d of height 1: its arguments are checked here, so that errors
  // speak of conv1d and of the 3-D shapes the caller passed.
  TANDEM_CHECK(is_floating(x.dtype()) && x.dtype() == weight.dtype(), TypeError,
               "conv1d: input and weight must have the same floating dtype, got ",
               dtype_name(x.dtype()), " and ", dtype_name(weight.dtype()));
  TANDEM_CHECK(stride > 0 && dilation > 0, ValueError,
               "conv1d: stride and dilation must be positive, got ", stride, " and ", dilation);
  TANDEM_CHECK(padding[0] >= 0 && padding[1] >= 0, ValueError,
               "conv1d: negative padding is not supported, got ", padding[0], ", ", padding[1]);
  TANDEM_CHECK(groups > 0, ValueError, "conv1d: groups must be positive, got ", groups);
  const Shape& w = weight.shape();
  int64_t c = x.shape()[size_t(x.dim() - 2)], len = x.shape()[size_t(x.dim() - 1)];
  TANDEM_CHECK(c == w[1] * groups, ValueError, "conv1d: expected input with ", w[1] * groups,
               " channels (weight ", shape_str(w), ", groups=", groups, ") but got ", c,
               " channels (input ", shape_str(x.shape()), ")");
  TANDEM_CHECK(w[0] > 0, ValueError,
               "conv1d: expected weight to have at least 1 output "
               "channel, got weight of shape ",
               shape_str(w));
  TANDEM_CHECK(w[0] % groups == 0, ValueError, "conv1d: out_channels (", w[0],
               ") must be divisible by groups (", groups, ")");
  int64_t k = dilation * (w[2] - 1) + 1, padded = len + padding[0] + padding[1];
  TANDEM_CHECK(k <= padded, ValueError, "conv1d: kernel size ", k,
               " (dilated) can't be greater than the padded input length ", padded);
  TANDEM_CHECK(!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == w[0]), ValueError,
               "conv1d: bias must have shape (", w[0], "), got ",
               bias.defined() ? shape_str(bias.shape()) : "");
  Conv2dArgs a;
  a.stride = {1, stride};
  a.padding = {0, padding[0], 0, padding[1]};
  a.dilation = {1, dilation};
  a.groups = groups;
  Tensor y = conv2d(unsqueeze(x, -2), unsqueeze(weight, 2), bias, a);
  return squeeze(y, std::vector<int64_t>{-2});
}

Tensor conv2d_backward_input(const Tensor& grad_out, const Tensor& weight,
                             const std::vector<int64_t>& input_size, const Conv2dArgs& a) {
  Attrs at = conv_attrs(a);
  at.set("input_size", input_size);
  return dispatch1(conv2d_bwd_input_op, {grad_out, weight}, at);
}

std::vector<Tensor> conv2d_backward_weight(const Tensor& x, const Tensor& grad_out,
                                           const std::vector<int64_t>& weight_size,
                                           const Conv2dArgs& a) {
  Attrs at = conv_attrs(a);
  at.set("weight_size", weight_size);
  return dispatch(conv2d_bwd_weight_op, {x, grad_out}, at);
}

Tensor conv_transpose2d(const Tensor& x_, const Tensor& weight_, const Tensor& bias_,
                        std::vector<int64_t> stride, std::vector<int64_t> padding,
                        std::vector<int64_t> output_padding, int64_t groups,
                        std::vector<int64_t> dilation) {
  TANDEM_CHECK(x_.dim() == 3 || x_.dim() == 4, ValueError,
               "conv_transpose2d: expected a 3-D or 4-D input, got shape ", shape_str(x_.shape()));
  const Tensor x = autocast_lower(x_), weight = autocast_lower(weight_);
  const Tensor bias = autocast_lower(bias_);
  TANDEM_CHECK(weight.dim() == 4, ValueError,
               "conv_transpose2d: expected a 4-D weight (C_in, C_out/groups, KH, KW), got ",
               shape_str(weight.shape()));
  TANDEM_CHECK(stride.size() == 2 && padding.size() == 2 && output_padding.size() == 2 &&
                   dilation.size() == 2,
               ValueError,
               "conv_transpose2d: stride, padding, output_padding and dilation need 2 values each");
  bool unbatched = x.dim() == 3;
  Tensor xb = unbatched ? unsqueeze(x, 0) : x;
  TANDEM_CHECK(xb.shape()[1] == weight.shape()[0], ValueError,
               "conv_transpose2d: expected input with ", weight.shape()[0], " channels, got ",
               xb.shape()[1]);
  for (int k = 0; k < 2; ++k)
    TANDEM_CHECK(padding[k] >= 0, ValueError,
                 "conv_transpose2d: negative padding is not supported, got ", padding[k]);
  for (int k = 0; k < 2; ++k)
    TANDEM_CHECK(output_padding[k] >= 0 && output_padding[k] < std::max(stride[k], dilation[k]),
                 ValueError, "conv_transpose2d: output_padding (", output_padding[k],
                 ") must be smaller than either stride or dilation");
  int64_t oh = (xb.shape()[2] - 1) * stride[0] - 2 * padding[0] +
               dilation[0] * (weight.shape()[2] - 1) + output_padding[0] + 1;
  int64_t ow = (xb.shape()[3] - 1) * stride[1] - 2 * padding[1] +
               dilation[1] * (weight.shape()[3] - 1) + output_padding[1] + 1;
  TANDEM_CHECK(oh > 0 && ow > 0, ValueError, "conv_transpose2d: output size (", oh, ", ", ow,
               ") is not positive; reduce padding");
  // The input gradient of a conv2d whose input is oh x ow and whose output is x. The extra
  // output_padding rows / cols are covered by shrinking that conv's bottom / right padding;
  // those beyond it (output_padding > padding) are reached by no window, so they are computed
  // on a smaller input and zero-filled after. (Keeping the full size and symmetric padding
  // breaks when output_padding >= stride, which dilation > stride allows.)
  int64_t cut_h = std::max<int64_t>(output_padding[0] - padding[0], 0);
  int64_t cut_w = std::max<int64_t>(output_padding[1] - padding[1], 0);
  Conv2dArgs a;
  a.stride = stride;
  a.padding = {padding[0], padding[1], std::max<int64_t>(padding[0] - output_padding[0], 0),
               std::max<int64_t>(padding[1] - output_padding[1], 0)};
  a.dilation = dilation;
  a.groups = groups;
  int64_t cout = weight.shape()[1] * groups;
  TANDEM_CHECK(!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == cout), ValueError,
               "conv_transpose2d: bias must have shape (", cout, "), got ",
               shape_str(bias.shape()));
  Tensor y = conv2d_backward_input(xb, weight, {xb.shape()[0], cout, oh - cut_h, ow - cut_w}, a);
  if (cut_h || cut_w) y = pad(y, {0, cut_w, 0, cut_h});
  if (bias.defined()) y = add(y, reshape(bias, {1, cout, 1, 1}));
  return unbatched ? squeeze(y, std::vector<int64_t>{0}) : y;
}

}  // namespace tandem
