// Normalization OpDefs: batch_norm, layer_norm and group_norm forward (output + saved
// statistics) and backward; the running-stat update and instance_norm are composites.
//
// Optional inputs (weight, bias) are left out of the input list and flagged by the
// has_weight / has_bias attributes, so the input order is fixed for each flag combination.
#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/norm_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/float_kernel.h"
#include "tandem/ops/layout.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

// The next input if the attribute flag says it is present, else an undefined tensor.
Tensor take(const std::vector<Tensor>& in, size_t& k, bool present) {
  return present ? in.at(k++) : Tensor();
}

void check_floating(const Tensor& t, const char* op, const char* name) {
  TANDEM_CHECK(is_floating(t.dtype()), TypeError, op, ": expected a floating-point ", name,
               ", got dtype ", dtype_name(t.dtype()));
}

// A per-channel parameter (weight, bias, running stat) must hold one value per channel.
void check_per_channel(const Tensor& t, int64_t C, const Shape& xs, const char* op,
                       const char* name) {
  if (!t.defined()) return;
  check_floating(t, op, name);
  TANDEM_CHECK(t.numel() == C, ValueError, op, ": ", name, " should contain ", C,
               " elements (one per channel of input shape ", shape_str(xs), "), got ", t.numel(),
               " (shape ", shape_str(t.shape()), ")");
}

// torch's CPU norms take weight and bias of the input's dtype, or float32 ones with a
// float16 / bfloat16 input (its "mixed dtype"); any other pair is refused, not converted.
void check_param_dtype(const Tensor& p, const Tensor& x, const char* op, const char* name) {
  if (!p.defined() || !x.defined()) return;
  const DType xt = x.dtype(), pt = p.dtype();
  const bool mixed = pt == DType::Float32 && (xt == DType::Float16 || xt == DType::BFloat16);
  TANDEM_CHECK(pt == xt || mixed, TypeError, op, ": mixed dtype: ", name, " is ", dtype_name(pt),
               " but the input is ", dtype_name(xt),
               "; parameters must have the input's dtype (or float32 with a float16 / "
               "bfloat16 input)");
}

// Input (N, C, *) checks shared by batch and group norm; returns C.
int64_t check_nc_input(const Tensor& x, const char* op) {
  check_floating(x, op, "input");
  TANDEM_CHECK(x.dim() >= 2, ValueError, op, ": expected an input of shape (N, C, *) with at ",
               "least 2 dims, got shape ", shape_str(x.shape()));
  return x.shape()[1];
}

// Elements per channel of an (N, C, *) shape: N * prod(*).
int64_t per_channel_count(const Shape& s) {
  int64_t m = s[0];
  for (size_t i = 2; i < s.size(); ++i) m *= s[i];
  return m;
}
int64_t spatial_size(const Shape& s) {
  int64_t m = 1;
  for (size_t i = 2; i < s.size(); ++i) m *= s[i];
  return m;
}

void check_grad_shape(const Tensor& gy, const Tensor& x, const char* op) {
  check_floating(gy, op, "grad_output");
  TANDEM_CHECK(gy.shape() == x.shape(), ValueError, op, ": grad_output has shape ",
               shape_str(gy.shape()), " but input has shape ", shape_str(x.shape()));
}

void check_stat(const Tensor& t, int64_t n, const char* op, const char* name) {
  check_floating(t, op, name);
  TANDEM_CHECK(t.numel() == n, ValueError, op, ": ", name, " should contain ", n, " elements, got ",
               t.numel(), " (shape ", shape_str(t.shape()), ")");
}

// --- batch_norm ------------------------------------------------------------------------------
// A node of the graph's layout pass (ops/layout.h) has channel-blocked (N, C/L, H, W, L)
// activations: channel_block_of gives L (1 for plain (N, C, *) inputs).
// Inputs: input, [weight], [bias], [running_mean, running_var] (eval mode only).
std::vector<TensorMeta> bn_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor& x = in[0];
  const int64_t L = channel_block_of(at, x.shape(), "batch_norm");
  const int64_t C = check_nc_input(x, "batch_norm") * L;
  // Set only by the graph pass that folds a following relu into the normalization.
  TANDEM_CHECK(!at.has("activation") || at.get_str("activation") == "relu", ValueError,
               "batch_norm: only a relu activation can be folded in");
  size_t k = 1;
  for (const char* name : {"weight", "bias"}) {
    const Tensor p = take(in, k, at.get_bool(std::string("has_") + name));
    check_per_channel(p, C, x.shape(), "batch_norm", name);
    check_param_dtype(p, x, "batch_norm", name);
  }
  const double eps = at.get_float("eps");  // PyTorch's checks: eps > 0 training, >= 0 not
  TANDEM_CHECK(!(eps < 0) && !(eps == 0 && at.get_bool("training")), ValueError, "batch_norm: eps ",
               "must be ", at.get_bool("training") ? "positive during training" : "non-negative",
               ", got ", eps);
  if (at.get_bool("training")) {
    TANDEM_CHECK(per_channel_count(x.shape()) / L != 1, ValueError,
                 "batch_norm: Expected more than 1 value per channel when training, got input "
                 "size ",
                 shape_str(x.shape()));
  } else {
    TANDEM_CHECK(in.size() == k + 2, ValueError,
                 "batch_norm: running_mean and running_var must be defined in evaluation mode "
                 "(training=False)");
    check_per_channel(in[k], C, x.shape(), "batch_norm", "running_mean");
    check_per_channel(in[k + 1], C, x.shape(), "batch_norm", "running_var");
  }
  const DType st = float_kernel_dtype(x.dtype());
  return {{x.shape(), x.dtype()}, {{C}, st}, {{C}, st}};
}

// Calls f(x_tag, t_tag) with the storage type of batch norm's (N, C, *) arrays for a tensor
// of dtype dt (bfloat16 is read and written as such) and the type it computes in.
template <typename F>
void by_bn_storage(DType dt, F f) {
  if (dt == DType::BFloat16)
    f(BFloat16{}, float{});
  else if (dt == DType::Float64)
    f(double{}, double{});
  else
    f(float{}, float{});
}

// The dtype batch norm's (N, C, *) arrays are processed in for a tensor of dtype dt.
DType bn_storage_dtype(DType dt) {
  return dt == DType::BFloat16 ? dt : float_kernel_dtype(dt);
}

void bn_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& at) {
  const DType kt = float_kernel_dtype(out[0].dtype()), xt = bn_storage_dtype(out[0].dtype());
  const Shape& xs = in[0].shape();
  const int64_t L = channel_block_of(at, in[0].shape(), "batch_norm");
  const int64_t N = xs[0], C = xs[1] * L, S = spatial_size(xs) / L;
  size_t k = 1;
  Tensor x = dense_as(in[0], xt);
  Tensor w = take(in, k, at.get_bool("has_weight")), b = take(in, k, at.get_bool("has_bias"));
  if (w.defined()) w = dense_as(w, kt);
  if (b.defined()) b = dense_as(b, kt);
  const bool training = at.get_bool("training");
  const double eps = at.get_float("eps");
  Tensor y = kernel_buffer(out[0], xt);
  Tensor rv = training ? Tensor() : dense_as(in[k + 1], kt);
  if (!training) copy_into(out[1], reshape(in[k], {C}));
  by_bn_storage(xt, [&](auto xtag, auto tag) {
    using X = decltype(xtag);
    using T = decltype(tag);
    T *mean = out[1].data<T>(), *invstd = out[2].data<T>();
    if (training)
      norm_cpu::batch_norm_stats(x.data<X>(), N, C, S, eps, mean, invstd, L);
    else
      norm_cpu::invstd_from_var(rv.data<T>(), C, eps, invstd);
    norm_cpu::batch_norm_apply(x.data<X>(), N, C, S, mean, invstd, ptr_or_null<T>(w),
                               ptr_or_null<T>(b), y.data<X>(), at.has("activation"), L);
  });
  copy_back(y, out[0]);
}

// Inputs: grad_out, input, [weight], save_mean, save_invstd, [relu_out]. relu_out is there
// when the graph pass folding activations gave the node the relu_backward that fed it
// (attr relu_mask): grad_out counts only where relu_out > 0 (or is NaN), relu_backward's rule.
std::vector<TensorMeta> bn_bwd_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const char* op = "batch_norm_backward";
  const Tensor& x = in[1];
  const int64_t C = check_nc_input(x, op) * channel_block_of(at, x.shape(), op);
  check_grad_shape(in[0], x, op);
  size_t k = 2;
  Tensor w = take(in, k, at.get_bool("has_weight"));
  check_per_channel(w, C, x.shape(), op, "weight");
  const bool relu = at.get_bool_or("relu_mask", false);
  TANDEM_CHECK(in.size() == k + 2 + (relu ? 1 : 0), ValueError, op,
               ": expected save_mean and save_invstd", relu ? " and relu_out" : "");
  check_stat(in[k], C, op, "save_mean");
  check_stat(in[k + 1], C, op, "save_invstd");
  if (relu) check_grad_shape(in[k + 2], x, op);
  const DType wdt = w.defined() ? w.dtype() : x.dtype();
  return {{x.shape(), x.dtype()}, {{C}, wdt}, {{C}, wdt}};
}

void bn_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  const DType kt = float_kernel_dtype(in[1].dtype()), xt = bn_storage_dtype(in[1].dtype());
  const Shape& xs = in[1].shape();
  const int64_t L = channel_block_of(at, in[1].shape(), "batch_norm_backward");
  const int64_t N = xs[0], C = xs[1] * L, S = spatial_size(xs) / L;
  size_t k = 2;
  Tensor gy = dense_as(in[0], xt), x = dense_as(in[1], xt);
  Tensor w = take(in, k, at.get_bool("has_weight"));
  if (w.defined()) w = dense_as(w, kt);
  Tensor mean = dense_as(in[k], kt), invstd = dense_as(in[k + 1], kt);
  const Tensor relu_out = at.get_bool_or("relu_mask", false) ? dense_as(in[k + 2], xt) : Tensor();
  Tensor gx = kernel_buffer(out[0], xt), gw = kernel_buffer(out[1], kt),
         gb = kernel_buffer(out[2], kt);
  by_bn_storage(xt, [&](auto xtag, auto tag) {
    using X = decltype(xtag);
    using T = decltype(tag);
    norm_cpu::batch_norm_backward(gy.data<X>(), x.data<X>(), N, C, S, mean.data<T>(),
                                  invstd.data<T>(), ptr_or_null<T>(w), at.get_bool("training"),
                                  gx.data<X>(), gw.data<T>(), gb.data<T>(),
                                  ptr_or_null<X>(relu_out), L);
  });
  copy_back(gx, out[0]);
  copy_back(gw, out[1]);
  copy_back(gb, out[2]);
}

// --- layer_norm ------------------------------------------------------------------------------
// Rows M and normalized size D of input for normalized_shape; validates the shapes.
std::pair<int64_t, int64_t> ln_dims(const Tensor& x, const std::vector<int64_t>& ns,
                                    const char* op) {
  check_floating(x, op, "input");
  TANDEM_CHECK(!ns.empty(), ValueError, op,
               ": expected normalized_shape to be at least 1-dimensional, i.e., containing at "
               "least one element, but got normalized_shape = []");
  const int64_t nd = int64_t(ns.size()), xd = x.dim();
  bool ok = xd >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = x.shape()[xd - nd + i] == ns[i];
  TANDEM_CHECK(ok, ValueError, op, ": given normalized_shape=", shape_str(ns),
               ", expected input with shape [*, ", shape_str(ns).substr(1),
               " (the trailing dims), but got input of size ", shape_str(x.shape()));
  int64_t D = 1;
  for (int64_t v : ns) D *= v;
  int64_t M = 1;
  for (int64_t i = 0; i < xd - nd; ++i) M *= x.shape()[i];
  return {M, D};
}

void check_ln_param(const Tensor& t, const std::vector<int64_t>& ns, const char* op,
                    const char* name) {
  if (!t.defined()) return;
  check_floating(t, op, name);
  TANDEM_CHECK(t.shape() == ns, ValueError, op, ": expected ", name,
               " to be of same shape as normalized_shape, but got ", name, " of shape ",
               shape_str(t.shape()), " and normalized_shape = ", shape_str(ns));
}

// mean / rstd shape: input's leading dims, then a 1 per normalized dim.
Shape ln_stat_shape(const Tensor& x, size_t nd) {
  Shape s = x.shape();
  for (size_t i = s.size() - nd; i < s.size(); ++i) s[i] = 1;
  return s;
}

// Inputs: input, [weight], [bias].
std::vector<TensorMeta> ln_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const auto& ns = at.get_ints("normalized_shape");
  ln_dims(in[0], ns, "layer_norm");
  size_t k = 1;
  for (const char* name : {"weight", "bias"}) {
    const Tensor p = take(in, k, at.get_bool(std::string("has_") + name));
    check_ln_param(p, ns, "layer_norm", name);
    check_param_dtype(p, in[0], "layer_norm", name);
  }
  const DType st = float_kernel_dtype(in[0].dtype());
  const Shape ss = ln_stat_shape(in[0], ns.size());
  return {{in[0].shape(), in[0].dtype()}, {ss, st}, {ss, st}};
}

void ln_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& at) {
  // Plain variables, not a structured binding: the lambda below captures them (clang < 16).
  const auto dims = ln_dims(in[0], at.get_ints("normalized_shape"), "layer_norm");
  const int64_t M = dims.first, D = dims.second;
  const DType kt = float_kernel_dtype(out[0].dtype());
  size_t k = 1;
  Tensor x = dense_as(in[0], kt);
  Tensor w = take(in, k, at.get_bool("has_weight")), b = take(in, k, at.get_bool("has_bias"));
  if (w.defined()) w = dense_as(w, kt);
  if (b.defined()) b = dense_as(b, kt);
  Tensor y = kernel_buffer(out[0], kt);
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    norm_cpu::layer_norm_forward(x.data<T>(), M, D, at.get_float("eps"), ptr_or_null<T>(w),
                                 ptr_or_null<T>(b), y.data<T>(), out[1].data<T>(),
                                 out[2].data<T>());
  });
  copy_back(y, out[0]);
}

// Inputs: grad_out, input, mean, rstd, [weight].
std::vector<TensorMeta> ln_bwd_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const char* op = "layer_norm_backward";
  const auto& ns = at.get_ints("normalized_shape");
  const auto [M, D] = ln_dims(in[1], ns, op);
  check_grad_shape(in[0], in[1], op);
  check_stat(in[2], M, op, "mean");
  check_stat(in[3], M, op, "rstd");
  size_t k = 4;
  Tensor w = take(in, k, at.get_bool("has_weight"));
  check_ln_param(w, ns, op, "weight");
  const DType wdt = w.defined() ? w.dtype() : in[1].dtype();
  return {{in[1].shape(), in[1].dtype()}, {ns, wdt}, {ns, wdt}};
}

void ln_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  const auto dims = ln_dims(in[1], at.get_ints("normalized_shape"), "layer_norm_backward");
  const int64_t M = dims.first, D = dims.second;
  const DType kt = float_kernel_dtype(in[1].dtype());
  size_t k = 4;
  Tensor gy = dense_as(in[0], kt), x = dense_as(in[1], kt);
  Tensor mean = dense_as(in[2], kt), rstd = dense_as(in[3], kt);
  Tensor w = take(in, k, at.get_bool("has_weight"));
  if (w.defined()) w = dense_as(w, kt);
  Tensor gx = kernel_buffer(out[0], kt), gw = kernel_buffer(out[1], kt),
         gb = kernel_buffer(out[2], kt);
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    norm_cpu::layer_norm_backward(gy.data<T>(), x.data<T>(), M, D, mean.data<T>(), rstd.data<T>(),
                                  ptr_or_null<T>(w), gx.data<T>(), gw.data<T>(), gb.data<T>());
  });
  copy_back(gx, out[0]);
  copy_back(gw, out[1]);
  copy_back(gb, out[2]);
}

// --- group_norm ------------------------------------------------------------------------------
int64_t check_groups(const Tensor& x, int64_t G, const char* op) {
  const int64_t C = check_nc_input(x, op);
  TANDEM_CHECK(G > 0, ValueError, op, ": num_groups must be positive, got ", G);
  TANDEM_CHECK(C % G == 0, ValueError, op,
               ": expected number of channels in input to be divisible by num_groups, but got "
               "input of shape ",
               shape_str(x.shape()), " (", C, " channels) and num_groups=", G);
  return C;
}

// Inputs: input, [weight], [bias].
std::vector<TensorMeta> gn_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor& x = in[0];
  const int64_t G = at.get_int("num_groups"), C = check_groups(x, G, "group_norm");
  size_t k = 1;
  for (const char* name : {"weight", "bias"}) {
    const Tensor t = take(in, k, at.get_bool(std::string("has_") + name));
    check_per_channel(t, C, x.shape(), "group_norm", name);
    check_param_dtype(t, x, "group_norm", name);
    TANDEM_CHECK(!t.defined() || t.dim() == 1, ValueError, "group_norm: expected ", name,
                 " to be a vector of size equal to the number of channels in input, but got ", name,
                 " of shape ", shape_str(t.shape()), " and input of shape ", shape_str(x.shape()));
  }
  // PyTorch's F.group_norm check: one value per group across the batch normalizes to 0.
  TANDEM_CHECK(x.numel() / G != 1, ValueError,
               "group_norm: Expected more than 1 value per channel when training, got input "
               "size ",
               shape_str(x.shape()), " with num_groups=", G);
  const DType st = float_kernel_dtype(x.dtype());
  return {{x.shape(), x.dtype()}, {{x.shape()[0], G}, st}, {{x.shape()[0], G}, st}};
}

void gn_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& at) {
  const DType kt = float_kernel_dtype(out[0].dtype());
  const Shape& xs = in[0].shape();
  const int64_t N = xs[0], C = xs[1], S = spatial_size(xs), G = at.get_int("num_groups");
  size_t k = 1;
  Tensor x = dense_as(in[0], kt);
  Tensor w = take(in, k, at.get_bool("has_weight")), b = take(in, k, at.get_bool("has_bias"));
  if (w.defined()) w = dense_as(w, kt);
  if (b.defined()) b = dense_as(b, kt);
  Tensor y = kernel_buffer(out[0], kt);
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    norm_cpu::group_norm_forward(x.data<T>(), N, C, S, G, at.get_float("eps"), ptr_or_null<T>(w),
                                 ptr_or_null<T>(b), y.data<T>(), out[1].data<T>(),
                                 out[2].data<T>());
  });
  copy_back(y, out[0]);
}

// Inputs: grad_out, input, mean, rstd, [weight].
std::vector<TensorMeta> gn_bwd_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const char* op = "group_norm_backward";
  const Tensor& x = in[1];
  const int64_t G = at.get_int("num_groups"), C = check_groups(x, G, op);
  check_grad_shape(in[0], x, op);
  check_stat(in[2], x.shape()[0] * G, op, "mean");
  check_stat(in[3], x.shape()[0] * G, op, "rstd");
  size_t k = 4;
  Tensor w = take(in, k, at.get_bool("has_weight"));
  check_per_channel(w, C, x.shape(), op, "weight");
  const DType wdt = w.defined() ? w.dtype() : x.dtype();
  return {{x.shape(), x.dtype()}, {{C}, wdt}, {{C}, wdt}};
}

void gn_bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs& at) {
  const DType kt = float_kernel_dtype(in[1].dtype());
  const Shape& xs = in[1].shape();
  const int64_t N = xs[0], C = xs[1], S = spatial_size(xs), G = at.get_int("num_groups");
  size_t k = 4;
  Tensor gy = dense_as(in[0], kt), x = dense_as(in[1], kt);
  Tensor mean = dense_as(in[2], kt), rstd = dense_as(in[3], kt);
  Tensor w = take(in, k, at.get_bool("has_weight"));
  if (w.defined()) w = dense_as(w, kt);
  Tensor gx = kernel_buffer(out[0], kt), gw = kernel_buffer(out[1], kt),
         gb = kernel_buffer(out[2], kt);
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    norm_cpu::group_norm_backward(gy.data<T>(), x.data<T>(), N, C, S, G, mean.data<T>(),
                                  rstd.data<T>(), ptr_or_null<T>(w), gx.data<T>(), gw.data<T>(),
                                  gb.data<T>());
  });
  copy_back(gx, out[0]);
  copy_back(gw, out[1]);
  copy_back(gb, out[2]);
}

const OpDef batch_norm_op = make_op("batch_norm", bn_infer, bn_kernel);
const OpDef batch_norm_bwd_op = make_op("batch_norm_backward", bn_bwd_infer, bn_bwd_kernel);
const OpDef layer_norm_op = make_op("layer_norm", ln_infer, ln_kernel);
const OpDef layer_norm_bwd_op = make_op("layer_norm_backward", ln_bwd_infer, ln_bwd_kernel);
const OpDef group_norm_op = make_op("group_norm", gn_infer, gn_kernel);
const OpDef group_norm_bwd_op = make_op("group_norm_backward", gn_bwd_infer, gn_bwd_kernel);
TANDEM_REGISTER_OP(batch_norm_op)
TANDEM_REGISTER_OP(batch_norm_bwd_op)
TANDEM_REGISTER_OP(layer_norm_op)
TANDEM_REGISTER_OP(layer_norm_bwd_op)
TANDEM_REGISTER_OP(group_norm_op)
TANDEM_REGISTER_OP(group_norm_bwd_op)

// --- backward rules ------------------------------------------------------------------------
// The forward ops' statistics outputs are detached by the *_forward functions, so only y
// brings a gradient. The *_backward ops have no rule yet (no double backward through norms).

// Positions of the optional weight / bias among a forward op's inputs (SIZE_MAX if absent).
struct ParamSlots {
  size_t w = SIZE_MAX, b = SIZE_MAX, next = 1;
};
ParamSlots param_slots(const Attrs& at) {
  ParamSlots s;
  if (at.get_bool("has_weight")) s.w = s.next++;
  if (at.get_bool("has_bias")) s.b = s.next++;
  return s;
}
bool wants(const VjpCtx& c, size_t i) {
  return i < c.inputs.size() && c.needs_grad[i];
}

// Puts the backward op's {gx, gw, gb} at the input slots that want them.
std::vector<Tensor> place(const VjpCtx& c, const ParamSlots& s, const std::vector<Tensor>& r) {
  std::vector<Tensor> out(c.inputs.size());
  if (c.needs_grad[0]) out[0] = r[0];
  if (wants(c, s.w)) out[s.w] = reshape(r[1], c.inputs[s.w].shape());
  if (wants(c, s.b)) out[s.b] = reshape(r[2], c.inputs[s.b].shape());
  return out;
}

// A per-channel (C) tensor shaped to broadcast over an (N, C, *) input.
Tensor per_channel(const Tensor& t, int64_t ndim) {
  Shape s(size_t(ndim), 1);
  s[1] = t.numel();
  return reshape(t, s);
}

std::vector<Tensor> batch_norm_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor& x = c.inputs[0];
  TANDEM_CHECK(!c.attrs.has("activation"), NotImplementedError,
               "batch_norm: differentiating a normalization with a folded activation");
  // Channel-blocked nodes too appear only in optimized graphs.
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError,
               "batch_norm: differentiating a channel-blocked normalization");
  const ParamSlots s = param_slots(c.attrs);
  const bool training = c.attrs.get_bool("training");
  const Tensor w = s.w != SIZE_MAX ? c.inputs[s.w] : Tensor();
  const Tensor &mean = c.outputs[1], &invstd = c.outputs[2];
  std::vector<Tensor> out(c.inputs.size());
  if (c.needs_grad[0] || wants(c, s.w) || wants(c, s.b))
    out = place(c, s, batch_norm_backward(g[0], x, w, mean, invstd, training));
  if (!training) {
    // Eval: y = (x - running_mean) * (running_var + eps)^(-1/2) * w + b.
    const size_t rm = s.next, rv = s.next + 1;
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    const int64_t nd = x.dim();
    Tensor scale = w.defined() ? mul(invstd, reshape(w, {-1})) : invstd;
    if (wants(c, rm)) out[rm] = reshape(neg(mul(sum(g[0], dims), scale)), c.inputs[rm].shape());
    if (wants(c, rv)) {
      Tensor centered = sub(x, per_channel(c.inputs[rm], nd));
      Tensor dvar = mul(sum(mul(g[0], centered), dims),
                        mul(scale, mul(mul(invstd, invstd), scalar_tensor(Scalar(-0.5)))));
      out[rv] = reshape(dvar, c.inputs[rv].shape());
    }
  }
  return out;
}

std::vector<Tensor> layer_norm_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const ParamSlots s = param_slots(c.attrs);
  const Tensor w = s.w != SIZE_MAX ? c.inputs[s.w] : Tensor();
  return place(c, s,
               layer_norm_backward(g[0], c.inputs[0], c.attrs.get_ints("normalized_shape"),
                                   c.outputs[1], c.outputs[2], w));
}

std::vector<Tensor> group_norm_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const ParamSlots s = param_slots(c.attrs);
  const Tensor w = s.w != SIZE_MAX ? c.inputs[s.w] : Tensor();
  return place(c, s,
               group_norm_backward(g[0], c.inputs[0], c.attrs.get_int("num_groups"), c.outputs[1],
                                   c.outputs[2], w));
}
TANDEM_DEFINE_VJP(batch_norm_op, batch_norm_vjp)
TANDEM_DEFINE_VJP(layer_norm_op, layer_norm_vjp)
TANDEM_DEFINE_VJP(group_norm_op, group_norm_vjp)

// Appends the defined optional tensors and records which were present.
void add_optional(std::vector<Tensor>& in, Attrs& at, const Tensor& w, const Tensor& b) {
  at.set("has_weight", w.defined());
  at.set("has_bias", b.defined());
  if (w.defined()) in.push_back(w);
  if (b.defined()) in.push_back(b);
}

// running = (1 - momentum) * running + momentum * stat, written in place.
void update_running(const Tensor& running, const Tensor& stat, double momentum) {
  Tensor next = add(mul(running, scalar_tensor(1.0 - momentum)),
                    mul(reshape(stat, running.shape()), scalar_tensor(momentum)));
  copy_(running, next);
}

// The saved statistics are for the backward op, not differentiable outputs: without history
// a use of them (the running-stat update, user code) neither records nor gets a silently
// wrong gradient.
std::vector<Tensor> stats_detached(std::vector<Tensor> r) {
  detach_(r[1]);
  detach_(r[2]);
  return r;
}

// --- double backward: the backward ops re-expressed with ops, differentiated by autograd ---
Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}
Tensor mean_(const Tensor& t, const std::vector<int64_t>& d) {
  return mean(t, d, true);
}
// The saved statistics, recomputed from x so that a second derivative sees how they depend
// on x: mean(x) and 1/sqrt(var(x) + eps), with eps recovered from the saved rstd (constant).
std::pair<Tensor, Tensor> live_stats(const Tensor& x, const Tensor& rstd,
                                     const std::vector<int64_t>& red) {
  Tensor mu = mean(x, red, true);
  Tensor dev = sub(x, mu);
  Tensor var = mean(mul(dev, dev), red, true);
  Tensor eps = detach(sub(reciprocal(mul(rstd, rstd)), var));
  return {mu, rsqrt(add(var, eps))};
}

std::vector<int64_t> all_but(int64_t keep, int64_t ndim) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < ndim; ++i)
    if (i != keep) d.push_back(i);
  return d;
}

// Inputs (gy, x, [w], mean, invstd): batch-norm gradients over channel dim 1.
std::vector<Tensor> bn_bwd_composite(const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor &gy = in[0], &x = in[1];
  size_t k = 2;
  Tensor w = at.get_bool("has_weight") ? in[k++] : Tensor();
  const Tensor &mean = in[k], &invstd = in[k + 1];
  Shape vs(size_t(x.dim()), 1);
  vs[1] = x.shape()[1];
  std::vector<int64_t> red = all_but(1, x.dim());
  Tensor inv = reshape(invstd, vs), mu = reshape(mean, vs);
  if (at.get_bool("training")) std::tie(mu, inv) = live_stats(x, inv, red);
  Tensor xhat = mul(sub(x, mu), inv);
  Tensor gb = sum(gy, red), gw = sum(mul(gy, xhat), red);
  Tensor scale = w.defined() ? mul(reshape(w, vs), inv) : inv;
  Tensor gx;
  if (at.get_bool("training")) {
    double n = double(x.numel() / std::max<int64_t>(x.shape()[1], 1));
    gx = mul(scale,
             sub(sub(gy, div(reshape(gb, vs), num(n))), mul(xhat, div(reshape(gw, vs), num(n)))));
  } else {
    gx = mul(gy, scale);
  }
  return {gx, gw, gb};
}

// Inputs (gy, x, mean, rstd, [w]): normalisation over the trailing dims.
std::vector<Tensor> ln_bwd_composite(const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor &gy = in[0], &x = in[1], &rstd = in[3];  // in[2] (mean) is recomputed from x
  Tensor w = at.get_bool("has_weight") ? in[4] : Tensor();
  const auto& ns = at.get_ints("normalized_shape");
  int64_t lead = x.dim() - int64_t(ns.size());
  std::vector<int64_t> red, keep;
  for (int64_t d = 0; d < x.dim(); ++d) (d >= lead ? red : keep).push_back(d);
  auto [mu, r] = live_stats(x, rstd, red);
  Tensor xhat = mul(sub(x, mu), r);
  Tensor gxhat = w.defined() ? mul(gy, w) : gy;
  Tensor gx = mul(r, sub(sub(gxhat, mean_(gxhat, red)), mul(xhat, mean_(mul(gxhat, xhat), red))));
  Tensor gw = keep.empty() ? mul(gy, xhat) : sum(mul(gy, xhat), keep);
  Tensor gb = keep.empty() ? gy : sum(gy, keep);
  return {gx, reshape(gw, ns), reshape(gb, ns)};
}

// Inputs (gy, x, mean, rstd, [w]) with mean / rstd of shape (N, G).
std::vector<Tensor> gn_bwd_composite(const std::vector<Tensor>& in, const Attrs& at) {
  const Tensor &gy = in[0], &x = in[1], &rstd = in[3];  // in[2] (mean) is recomputed from x
  Tensor w = at.get_bool("has_weight") ? in[4] : Tensor();
  int64_t N = x.shape()[0], C = x.shape()[1], G = at.get_int("num_groups");
  Shape vs(size_t(x.dim()), 1);
  vs[1] = C;
  Tensor gxhat = w.defined() ? mul(gy, reshape(w, vs)) : gy;
  Tensor xg = reshape(x, {N, G, -1}), gg = reshape(gxhat, {N, G, -1});
  std::vector<int64_t> last{-1};
  auto [m, r] = live_stats(xg, unsqueeze(reshape(rstd, {N, G}), -1), last);
  Tensor xhat = mul(sub(xg, m), r);
  Tensor gx = mul(r, sub(sub(gg, mean_(gg, last)), mul(xhat, mean_(mul(gg, xhat), last))));
  std::vector<int64_t> red = all_but(1, x.dim());
  Tensor xhat_full = reshape(xhat, x.shape());
  return {reshape(gx, x.shape()), sum(mul(gy, xhat_full), red), sum(gy, red)};
}

std::vector<Tensor> bn_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  // Folded relu masks appear only in optimized graphs, after differentiation.
  TANDEM_CHECK(!c.attrs.get_bool_or("relu_mask", false), NotImplementedError,
               "batch_norm_backward: differentiating a node with a folded relu_backward");
  TANDEM_CHECK(!c.attrs.has("channel_block"), NotImplementedError,
               "batch_norm_backward: differentiating a channel-blocked node");
  return vjp_via_composite(
      c, g, [&](const std::vector<Tensor>& in) { return bn_bwd_composite(in, c.attrs); });
}
std::vector<Tensor> ln_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return vjp_via_composite(
      c, g, [&](const std::vector<Tensor>& in) { return ln_bwd_composite(in, c.attrs); });
}
std::vector<Tensor> gn_bwd_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return vjp_via_composite(
      c, g, [&](const std::vector<Tensor>& in) { return gn_bwd_composite(in, c.attrs); });
}
TANDEM_DEFINE_VJP(batch_norm_bwd_op, bn_bwd_vjp)
TANDEM_DEFINE_VJP(layer_norm_bwd_op, ln_bwd_vjp)
TANDEM_DEFINE_VJP(group_norm_bwd_op, gn_bwd_vjp)
}  // namespace

std::vector<Tensor> batch_norm_forward(const Tensor& input, const Tensor& weight,
                                       const Tensor& bias, const Tensor& running_mean,
                                       const Tensor& running_var, bool training, double eps) {
  std::vector<Tensor> in{input};
  Attrs at{{"training", training}, {"eps", eps}};
  add_optional(in, at, weight, bias);
  if (!training) {
    TANDEM_CHECK(running_mean.defined() && running_var.defined(), ValueError,
                 "batch_norm: running_mean and running_var must be defined in evaluation mode "
                 "(training=False)");
    in.push_back(running_mean);
    in.push_back(running_var);
  }
  return stats_detached(dispatch(batch_norm_op, in, at));
}

std::vector<Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        const Tensor& weight, const Tensor& save_mean,
                                        const Tensor& save_invstd, bool training) {
  std::vector<Tensor> in{grad_out, input};
  Attrs at{{"training", training}};
  add_optional(in, at, weight, Tensor());
  in.push_back(save_mean);
  in.push_back(save_invstd);
  return dispatch(batch_norm_bwd_op, in, at);
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  TANDEM_CHECK(input.defined(), ValueError, "batch_norm: input is None");
  // Validate the running stats up front: in training they are not op inputs.
  const int64_t C = check_nc_input(input, "batch_norm");
  TANDEM_CHECK(running_mean.defined() == running_var.defined(), ValueError,
               "batch_norm: running_mean and running_var must either both be None or neither "
               "be None");
  check_per_channel(running_mean, C, input.shape(), "batch_norm", "running_mean");
  check_per_channel(running_var, C, input.shape(), "batch_norm", "running_var");
  // Parameters and statistics have input's dtype, or float32 beside a 16-bit input (mixed
  // precision), as torch's CPU batch norm requires; anything else is an error, not a cast.
  for (const Tensor* p : {&running_mean, &running_var, &weight, &bias}) {
    if (!p->defined() || p->dtype() == input.dtype()) continue;
    const bool mixed = (input.dtype() == DType::Float16 || input.dtype() == DType::BFloat16) &&
                       p->dtype() == DType::Float32;
    TANDEM_CHECK(mixed, TypeError,
                 "batch_norm: parameters and running statistics must have "
                 "input's dtype ",
                 dtype_name(input.dtype()),
                 is_floating(input.dtype()) && input.itemsize() == 2 ? " (or float32)" : "",
                 ", got ", dtype_name(p->dtype()), "; convert them with .to(input.dtype)");
  }
  const int64_t count = per_channel_count(input.shape());
  std::vector<Tensor> r =
      batch_norm_forward(input, weight, bias, running_mean, running_var, training, eps);
  // An empty batch has no statistics: the running ones stay as they are (PyTorch).
  if (training && count > 0) {
    if (running_mean.defined()) update_running(running_mean, r[1], momentum);
    if (running_var.defined()) {
      // The op saves 1 / sqrt(var + eps); recover the biased variance in float64 (clamped at
      // 0 against rounding) and apply Bessel's correction, as PyTorch's running_var uses the
      // unbiased variance.
      const int64_t m = count;
      Tensor is = to_dtype(r[2], DType::Float64);
      Tensor var = clamp(sub(reciprocal(mul(is, is)), scalar_tensor(eps)),
                         std::optional<Scalar>(Scalar(0.0)), std::nullopt);
      var = mul(var, scalar_tensor(double(m) / double(m - 1)));
      update_running(running_var, var, momentum);
    }
  }
  return r[0];
}

std::vector<Tensor> layer_norm_forward(const Tensor& input,
                                       const std::vector<int64_t>& normalized_shape,
                                       const Tensor& weight, const Tensor& bias, double eps) {
  std::vector<Tensor> in{input};
  Attrs at{{"normalized_shape", normalized_shape}, {"eps", eps}};
  add_optional(in, at, weight, bias);
  return stats_detached(dispatch(layer_norm_op, in, at));
}

std::vector<Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        const std::vector<int64_t>& normalized_shape,
                                        const Tensor& mean, const Tensor& rstd,
                                        const Tensor& weight) {
  std::vector<Tensor> in{grad_out, input, mean, rstd};
  Attrs at{{"normalized_shape", normalized_shape}};
  add_optional(in, at, weight, Tensor());
  return dispatch(layer_norm_bwd_op, in, at);
}

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  return layer_norm_forward(input, normalized_shape, weight, bias, eps)[0];
}

std::vector<Tensor> group_norm_forward(const Tensor& input, int64_t num_groups,
                                       const Tensor& weight, const Tensor& bias, double eps) {
  std::vector<Tensor> in{input};
  Attrs at{{"num_groups", num_groups}, {"eps", eps}};
  add_optional(in, at, weight, bias);
  return stats_detached(dispatch(group_norm_op, in, at));
}

std::vector<Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        int64_t num_groups, const Tensor& mean, const Tensor& rstd,
                                        const Tensor& weight) {
  std::vector<Tensor> in{grad_out, input, mean, rstd};
  Attrs at{{"num_groups", num_groups}};
  add_optional(in, at, weight, Tensor());
  return dispatch(group_norm_bwd_op, in, at);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return group_norm_forward(input, num_groups, weight, bias, eps)[0];
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats,
                     double momentum, double eps) {
  const char* op = "instance_norm";
  TANDEM_CHECK(input.defined(), ValueError, op, ": input is None");
  const int64_t C = check_nc_input(input, op), N = input.shape()[0];
  const std::pair<Tensor, const char*> params[] = {{running_mean, "running_mean"},
                                                   {running_var, "running_var"},
                                                   {weight, "weight"},
                                                   {bias, "bias"}};
  for (const auto& [t, name] : params) check_per_channel(t, C, input.shape(), op, name);
  if (use_input_stats) {
    TANDEM_CHECK(spatial_size(input.shape()) != 1, ValueError, op,
                 ": Expected more than 1 spatial element when training, got input size ",
                 shape_str(input.shape()));
  } else {
    TANDEM_CHECK(running_mean.defined() && running_var.defined(), ValueError, op,
                 ": running_mean and running_var must be defined when use_input_stats=False");
  }
  // Each (n, c) pair becomes a channel of a batch of one.
  Shape s = input.shape();
  s[0] = 1;
  s[1] = N * C;
  auto per_instance = [&](const Tensor& t) {
    return t.defined() ? repeat(reshape(t, {C}), {N}) : Tensor();
  };
  Tensor rm = per_instance(running_mean), rv = per_instance(running_var);
  Tensor y = batch_norm(reshape(input, s), rm, rv, per_instance(weight), per_instance(bias),
                        use_input_stats, momentum, eps);
  if (use_input_stats) {
    // Each running stat takes the mean over the batch of the N per-instance updates.
    if (running_mean.defined())
      copy_(running_mean,
            reshape(mean(reshape(rm, {N, C}), std::vector<int64_t>{0}), running_mean.shape()));
    if (running_var.defined())
      copy_(running_var,
            reshape(mean(reshape(rv, {N, C}), std::vector<int64_t>{0}), running_var.shape()));
  }
  return reshape(y, input.shape());
}

}  // namespace tandem
