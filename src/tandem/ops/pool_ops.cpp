// Pooling OpDefs: max / avg / adaptive pooling and their backward ops.
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/pool_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/float_kernel.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/layout.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {

int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t eff = d * (k - 1) + 1;
  int64_t num = in + 2 * p - eff + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;  // the last window must start inside
  return out;
}

namespace {

Attrs pool_attrs(const Pool2dArgs& a) {
  return {{"kernel", a.kernel},
          {"stride", a.stride},
          {"padding", a.padding},
          {"dilation", a.dilation},
          {"ceil_mode", a.ceil_mode},
          {"count_include_pad", a.count_include_pad},
          {"divisor_override", a.divisor_override}};
}

PoolParams params_of(const Shape& x, const Attrs& at, const char* op) {
  TANDEM_CHECK(x.size() == 4, ValueError, op, ": expected a 4-D input (N, C, H, W), got shape ",
               shape_str(x));
  // As in PyTorch: only the batch may be empty (channels or a spatial size of 0 is a
  // mistake, not an empty result).
  TANDEM_CHECK(x[1] > 0 && x[2] > 0 && x[3] > 0, ValueError, op,
               ": expected a 3-D or 4-D (batch mode) input with non-zero channel and spatial "
               "sizes (only the batch may be 0), got shape ",
               shape_str(x));
  const auto &k = at.get_ints("kernel"), &s = at.get_ints("stride"), &p = at.get_ints("padding"),
             &d = at.get_ints("dilation");
  TANDEM_CHECK(k.size() == 2 && s.size() == 2 && p.size() == 2 && d.size() == 2, ValueError, op,
               ": kernel_size, stride, padding and dilation need 2 values each");
  for (int i = 0; i < 2; ++i) {
    TANDEM_CHECK(k[i] > 0 && s[i] > 0 && d[i] > 0, ValueError, op,
                 ": kernel_size, stride and dilation must be positive, got kernel_size=", k[i],
                 " stride=", s[i], " dilation=", d[i]);
    // PyTorch's rule: half the kernel, whatever the dilation
    TANDEM_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, ValueError, op,
                 ": pad should be non-negative and at most half of the kernel size, got pad=", p[i],
                 " kernel_size=", k[i]);
  }
  PoolParams pp;
  pp.planes = x[0] * x[1];
  pp.H = x[2], pp.W = x[3];
  pp.kh = k[0], pp.kw = k[1], pp.sh = s[0], pp.sw = s[1], pp.ph = p[0], pp.pw = p[1];
  pp.dh = d[0], pp.dw = d[1];
  bool ceil = at.get_bool("ceil_mode");
  pp.OH = pool_output_size(pp.H, pp.kh, pp.sh, pp.ph, pp.dh, ceil);
  pp.OW = pool_output_size(pp.W, pp.kw, pp.sw, pp.pw, pp.dw, ceil);
  TANDEM_CHECK(pp.OH > 0 && pp.OW > 0, ValueError, op, ": the output size (", pp.OH, ", ", pp.OW,
               ") is too small for input ", shape_str(x), " with kernel (", k[0], ", ", k[1], ")");
  pp.count_include_pad = at.get_bool("count_include_pad");
  pp.divisor_override = at.get_int("divisor_override");
  return pp;
}

DType float_dtype(const Tensor& x, const char* op) {
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, op, ": expected a floating point input, got ",
               dtype_name(x.dtype()));
  return x.dtype();
}

// Max pooling reads and writes bfloat16 itself; other 16-bit floats go through float32.
DType max_pool_kernel_dtype(DType t) {
  return t == DType::BFloat16 ? t : float_kernel_dtype(t);
}

// A max pooling's parameters and, through s, its (N, C, H, W) input shape: channel-blocked
// with the "channel_block" attribute (set by the graph's layout pass, ops/layout.h).
PoolParams max_params_of(const Shape& x, const Attrs& at, const char* op, Shape& s) {
  const int64_t L = channel_block_of(at, x, op);
  s = L > 1 ? channel_unblocked_shape(x, L) : x;
  PoolParams p = params_of(s, at, op);
  p.lanes = L;
  p.planes /= L;
  return p;
}

std::vector<TensorMeta> maxp_infer(const OpDef& op, const std::vector<Tensor>& in,
                                   const Attrs& at) {
  Shape xs;
  PoolParams p = max_params_of(in[0].shape(), at, "max_pool2d", xs);
  Shape s{xs[0], xs[1], p.OH, p.OW};
  if (p.lanes > 1) s = channel_blocked_shape(s, p.lanes);
  return {{s, float_dtype(in[0], "max_pool2d")}, {s, DType::Int64}};
}
void maxp_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& at) {
  Shape xs;
  PoolParams p = max_params_of(in[0].shape(), at, "max_pool2d", xs);
  DType kt = max_pool_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  if (y.numel()) max_pool2d_fwd(p, kt, x.data_ptr(), y.data_ptr(), out[1].data<int64_t>());
  copy_back(y, out[0]);
}

// Inputs: grad_out, indices; attrs input_size.
std::vector<TensorMeta> maxp_bwd_infer(const OpDef&, const std::vector<Tensor>& in,
                                       const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  // grad_output and the indices are channel-blocked with the "channel_block" attribute.
  const int64_t L = channel_block_of(at, in[0].shape(), "max_pool2d_backward");
  const Shape g = L > 1 ? channel_unblocked_shape(in[0].shape(), L) : in[0].shape();
  TANDEM_CHECK(xs.size() == 4 && g.size() == 4 && in[0].shape() == in[1].shape() && g[0] == xs[0] &&
                   g[1] == xs[1],
               ValueError, "max_pool2d_backward: grad_output ", shape_str(in[0].shape()),
               " and indices ", shape_str(in[1].shape()), " don't fit input size ", shape_str(xs));
  TANDEM_CHECK(in[1].dtype() == DType::Int64, TypeError,
               "max_pool2d_backward: indices must be int64");
  return {{L > 1 ? channel_blocked_shape(xs, L) : Shape(xs),
           float_dtype(in[0], "max_pool2d_backward")}};
}
void maxp_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                     const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  const int64_t L = channel_block_of(at, in[0].shape(), "max_pool2d_backward");
  const Shape g = L > 1 ? channel_unblocked_shape(in[0].shape(), L) : in[0].shape();
  PoolParams p{};
  p.planes = xs[0] * xs[1] / L, p.lanes = L, p.H = xs[2], p.W = xs[3], p.OH = g[2], p.OW = g[3];
  DType kt = max_pool_kernel_dtype(out[0].dtype());
  Tensor gy = dense_as(in[0], kt), idx = in[1].contiguous(), gx = kernel_buffer(out[0], kt);
  const int64_t* ip = idx.data<int64_t>();
  const bool ok = gx.numel() ? max_pool2d_bwd(p, kt, gy.data_ptr(), ip, gx.data_ptr()) : false;
  if (!ok) {
    for (int64_t i = 0, n = idx.numel(); i < n; ++i)  // the first culprit, for the message
      TANDEM_CHECK(ip[i] >= -1 && ip[i] < p.H * p.W, IndexError, "max_pool2d_backward: index ",
                   ip[i], " out of range for a ", p.H, "x", p.W, " plane");
  }
  copy_back(gx, out[0]);
}

std::vector<TensorMeta> avgp_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  PoolParams p = params_of(in[0].shape(), at, "avg_pool2d");
  return {{{in[0].shape()[0], in[0].shape()[1], p.OH, p.OW}, float_dtype(in[0], "avg_pool2d")}};
}
void avgp_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& at) {
  PoolParams p = params_of(in[0].shape(), at, "avg_pool2d");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  if (y.numel()) avg_pool2d_fwd(p, kt, x.data_ptr(), y.data_ptr());
  copy_back(y, out[0]);
}

std::vector<TensorMeta> avgp_bwd_infer(const OpDef&, const std::vector<Tensor>& in,
                                       const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  PoolParams p = params_of(xs, at, "avg_pool2d_backward");
  TANDEM_CHECK(in[0].shape() == Shape({xs[0], xs[1], p.OH, p.OW}), ValueError,
               "avg_pool2d_backward: grad_output has shape ", shape_str(in[0].shape()),
               ", expected ", shape_str({xs[0], xs[1], p.OH, p.OW}));
  return {{xs, float_dtype(in[0], "avg_pool2d_backward")}};
}
void avgp_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                     const Attrs& at) {
  PoolParams p = params_of(at.get_ints("input_size"), at, "avg_pool2d_backward");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor gy = dense_as(in[0], kt), gx = kernel_buffer(out[0], kt);
  if (gx.numel()) avg_pool2d_bwd(p, kt, gy.data_ptr(), gx.data_ptr());
  copy_back(gx, out[0]);
}

PoolParams adaptive_params(const Shape& x, const std::vector<int64_t>& os, const char* op) {
  TANDEM_CHECK(x.size() == 4, ValueError, op, ": expected a 4-D input (N, C, H, W), got shape ",
               shape_str(x));
  // An output size of 0 is an empty result, as in torch.
  TANDEM_CHECK(os.size() == 2 && os[0] >= 0 && os[1] >= 0, ValueError, op,
               ": output_size must be two non-negative ints, got ", shape_str(os));
  TANDEM_CHECK(x[2] > 0 && x[3] > 0, ValueError, op, ": input spatial size must be positive, got ",
               shape_str(x));
  PoolParams p{};
  p.planes = x[0] * x[1], p.H = x[2], p.W = x[3], p.OH = os[0], p.OW = os[1];
  return p;
}

std::vector<TensorMeta> aavg_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  PoolParams p = adaptive_params(in[0].shape(), at.get_ints("output_size"), "adaptive_avg_pool2d");
  return {{{in[0].shape()[0], in[0].shape()[1], p.OH, p.OW},
           float_dtype(in[0], "adaptive_avg_pool2d")}};
}
void aavg_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& at) {
  PoolParams p = adaptive_params(in[0].shape(), at.get_ints("output_size"), "adaptive_avg_pool2d");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  if (y.numel()) adaptive_avg_pool2d_fwd(p, kt, x.data_ptr(), y.data_ptr());
  copy_back(y, out[0]);
}
std::vector<TensorMeta> aavg_bwd_infer(const OpDef&, const std::vector<Tensor>& in,
                                       const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  TANDEM_CHECK(
      xs.size() == 4 && in[0].dim() == 4 && in[0].shape()[0] == xs[0] && in[0].shape()[1] == xs[1],
      ValueError, "adaptive_avg_pool2d_backward: grad_output ", shape_str(in[0].shape()),
      " doesn't fit input size ", shape_str(xs));
  return {{xs, float_dtype(in[0], "adaptive_avg_pool2d_backward")}};
}
void aavg_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                     const Attrs& at) {
  const auto& xs = at.get_ints("input_size");
  PoolParams p =
      adaptive_params(xs, {in[0].shape()[2], in[0].shape()[3]}, "adaptive_avg_pool2d_backward");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor gy = dense_as(in[0], kt), gx = kernel_buffer(out[0], kt);
  if (gx.numel()) adaptive_avg_pool2d_bwd(p, kt, gy.data_ptr(), gx.data_ptr());
  copy_back(gx, out[0]);
}

std::vector<TensorMeta> amax_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  PoolParams p = adaptive_params(in[0].shape(), at.get_ints("output_size"), "adaptive_max_pool2d");
  Shape s{in[0].shape()[0], in[0].shape()[1], p.OH, p.OW};
  return {{s, float_dtype(in[0], "adaptive_max_pool2d")}, {s, DType::Int64}};
}
void amax_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& at) {
  PoolParams p = adaptive_params(in[0].shape(), at.get_ints("output_size"), "adaptive_max_pool2d");
  DType kt = float_kernel_dtype(out[0].dtype());
  Tensor x = dense_as(in[0], kt), y = kernel_buffer(out[0], kt);
  if (y.numel()) adaptive_max_pool2d_fwd(p, kt, x.data_ptr(), y.data_ptr(), out[1].data<int64_t>());
  copy_back(y, out[0]);
}

const OpDef max_pool2d_op = make_op("max_pool2d", maxp_infer, maxp_kernel);
const OpDef max_pool2d_bwd_op = make_op("max_pool2d_backward", maxp_bwd_infer, maxp_bwd_kernel);
const OpDef avg_pool2d_op = make_op("avg_pool2d", avgp_infer, avgp_kernel);
const OpDef avg_pool2d_bwd_op = make_op("avg_pool2d_backward", avgp_bwd_infer, avgp_bwd_kernel);
const OpDef aavg_op = make_op("adaptive_avg_pool2d", aavg_infer, aavg_kernel);
const OpDef aavg_bwd_op = make_op("adaptive_avg_pool2d_backward", aavg_bwd_infer, aavg_bwd_kernel);
const OpDef amax_op = make_op("adaptive_max_pool2d", amax_infer, amax_kernel);
TANDEM_REGISTER_OP(max_pool2d_op)
TANDEM_REGISTER_OP(max_pool2d_bwd_op)
TANDEM_REGISTER_OP(avg_pool2d_op)
TANDEM_REGISTER_OP(avg_pool2d_bwd_op)
TANDEM_REGISTER_OP(aavg_op)
TANDEM_REGISTER_OP(aavg_bwd_op)
TANDEM_REGISTER_OP(amax_op)

// --- backward rules ------------------------------------------------------------------------
// Every backward op here is linear in grad_out and is the adjoint of its forward op, so its
// vjp is the forward (or, for max pooling, a gather at the saved indices).
Attrs with_input_size(const Attrs& at, const Shape& xs) {
  Attrs r = at;
  r.set("input_size", std::vector<int64_t>(xs.begin(), xs.end()));
  return r;
}

// Gradient of the values output of max_pool2d / adaptive_max_pool2d (the indices output is
// integer and gets none).
std::vector<Tensor> max_pool_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  // Channel-blocked nodes appear only in optimized graphs, after differentiation.
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError,
               "max_pool2d: differentiating a node on channel-blocked activations");
  if (!c.needs_grad[0]) return {Tensor()};
  return {max_pool2d_backward(g[0], c.outputs[1], c.inputs[0].shape())};
}

// max_pool2d_backward scatters grad_out into the input plane at the indices; its adjoint
// gathers G there. Index -1 (an empty window) contributed nothing and gets 0.
std::vector<Tensor> max_pool2d_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError,
               "max_pool2d_backward: differentiating a node on channel-blocked activations");
  if (!c.needs_grad[0]) return {Tensor(), Tensor()};
  const Tensor& idx = c.inputs[1];
  const Shape& s = idx.shape();
  Tensor flat_idx = reshape(idx, {s[0], s[1], -1});
  Tensor safe = clamp(flat_idx, Scalar(int64_t(0)), std::nullopt);
  Tensor picked = gather(reshape(g[0], {s[0], s[1], -1}), 2, safe);
  picked =
      where(ge(flat_idx, scalar_tensor(Scalar(int64_t(0)))), picked, scalar_tensor(Scalar(0.0)));
  return {reshape(picked, s), Tensor()};
}

std::vector<Tensor> avg_pool_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  return {dispatch1(avg_pool2d_bwd_op, {g[0]}, with_input_size(c.attrs, c.inputs[0].shape()))};
}
std::vector<Tensor> avg_pool_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  Attrs at;
  for (const auto& [k, v] : c.attrs.items())
    if (k != "input_size") at.set(k, v);
  return {dispatch1(avg_pool2d_op, {g[0]}, at)};
}

std::vector<Tensor> adaptive_avg_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  const Shape& xs = c.inputs[0].shape();
  return {adaptive_avg_pool2d_backward(g[0], std::vector<int64_t>(xs.begin(), xs.end()))};
}
std::vector<Tensor> adaptive_avg_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  if (!c.needs_grad[0]) return {Tensor()};
  const Shape& gs = c.inputs[0].shape();
  return {adaptive_avg_pool2d(g[0], {gs[2], gs[3]})};
}
TANDEM_DEFINE_VJP(max_pool2d_op, max_pool_vjp)
TANDEM_DEFINE_VJP(amax_op, max_pool_vjp)
TANDEM_DEFINE_VJP(max_pool2d_bwd_op, max_pool2d_bwd_vjp)
TANDEM_DEFINE_VJP(avg_pool2d_op, avg_pool_vjp)
TANDEM_DEFINE_VJP(avg_pool2d_bwd_op, avg_pool_bwd_vjp)
TANDEM_DEFINE_VJP(aavg_op, adaptive_avg_vjp)
TANDEM_DEFINE_VJP(aavg_bwd_op, adaptive_avg_bwd_vjp)

// Which dims of a pool's input may be empty, as in torch: only the batch dim (max / avg
// pools), dims after the first (adaptive max pool), any (adaptive avg pool).
enum class EmptyDims { BatchOnly, FirstOnly, Any };

// Runs f on a batched view of x ((C, H, W) gets a leading 1) and strips it again.
template <typename F>
auto batched(const Tensor& x, const char* op, F&& f, EmptyDims empty = EmptyDims::BatchOnly) {
  TANDEM_CHECK(x.dim() == 3 || x.dim() == 4, ValueError, op,
               ": expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape ",
               shape_str(x.shape()));
  const int64_t first = empty == EmptyDims::Any                         ? x.dim()
                        : x.dim() == 4 || empty == EmptyDims::FirstOnly ? 1
                                                                        : 0;
  for (int64_t k = first; k < x.dim(); ++k)
    TANDEM_CHECK(x.shape()[size_t(k)] > 0, ValueError, op,
                 ": expected non-zero sizes for the non-batch dimensions, got shape ",
                 shape_str(x.shape()));
  return x.dim() == 3 ? std::forward<F>(f)(unsqueeze(x, 0), true) : std::forward<F>(f)(x, false);
}
Tensor unbatch(const Tensor& t, bool u) {
  return u ? squeeze(t, std::vector<int64_t>{0}) : t;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a) {
  return batched(x, "max_pool2d", [&](const Tensor& xb, bool u) {
    auto r = dispatch(max_pool2d_op, {xb}, pool_attrs(a));
    return std::make_pair(unbatch(r[0], u), unbatch(r[1], u));
  });
}
Tensor max_pool2d_backward(const Tensor& gy, const Tensor& idx, const std::vector<int64_t>& xs) {
  return dispatch1(max_pool2d_bwd_op, {gy, idx}, {{"input_size", xs}});
}
Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a) {
  return batched(x, "avg_pool2d", [&](const Tensor& xb, bool u) {
    return unbatch(dispatch1(avg_pool2d_op, {xb}, pool_attrs(a)), u);
  });
}
Tensor avg_pool2d_backward(const Tensor& gy, const std::vector<int64_t>& xs, const Pool2dArgs& a) {
  Attrs at = pool_attrs(a);
  at.set("input_size", xs);
  return dispatch1(avg_pool2d_bwd_op, {gy}, at);
}
Tensor adaptive_avg_pool2d(const Tensor& x, const std::vector<int64_t>& os) {
  return batched(
      x, "adaptive_avg_pool2d",
      [&](const Tensor& xb, bool u) {
        return unbatch(dispatch1(aavg_op, {xb}, {{"output_size", os}}), u);
      },
      EmptyDims::Any);
}
Tensor adaptive_avg_pool2d_backward(const Tensor& gy, const std::vector<int64_t>& xs) {
  return dispatch1(aavg_bwd_op, {gy}, {{"input_size", xs}});
}
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const std::vector<int64_t>& os) {
  return batched(
      x, "adaptive_max_pool2d",
      [&](const Tensor& xb, bool u) {
        auto r = dispatch(amax_op, {xb}, {{"output_size", os}});
        return std::make_pair(unbatch(r[0], u), unbatch(r[1], u));
      },
      EmptyDims::FirstOnly);
}

}  // namespace tandem
