// rnn_layer / rnn_layer_backward: infer, kernel hookup and backward rule of the fused
// recurrent layer (kernels/cpu/rnn_kernels.h has the loops).
//
// rnn_layer inputs: xw, h0, [c0 (LSTM)], w_hh, [b_hh]; attrs mode, reverse, has_bias.
// Outputs: out [L, N, H], c [L, N, H] (LSTM; an empty [0] for the other modes, so every mode
// has the three outputs the model op-set declares), saved [L, N, S*H]. The last output holds
// the activations the backward needs; it never carries a gradient (OpDef::last_output_saved).
#include "tandem/ops/rnn.h"

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/rnn_kernels.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/float_kernel.h"
#include "tandem/ops/op_def.h"

namespace tandem {
namespace {

using rnn_cpu::Mode;

Mode mode_of(const std::string& m, const char* op) {
  if (m == "LSTM") return Mode::Lstm;
  if (m == "GRU") return Mode::Gru;
  if (m == "RNN_TANH") return Mode::Tanh;
  if (m == "RNN_RELU") return Mode::Relu;
  throw_error<ValueError>(op, ": mode must be 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU', got '", m,
                          "'");
}

// Positions of the inputs of either op, which differ by mode and bias.
struct Slots {
  Mode mode;
  bool lstm, bias;
};
Slots slots_of(const Attrs& at, const char* op) {
  Slots s{mode_of(at.get_str("mode"), op), false, at.get_bool("has_bias")};
  s.lstm = s.mode == Mode::Lstm;
  return s;
}

void check_shape(const Tensor& t, const Shape& want, const char* op, const char* name, DType dt) {
  TANDEM_CHECK(t.shape() == want, ValueError, op, ": expected ", name, " of shape ",
               shape_str(want), ", got ", shape_str(t.shape()));
  TANDEM_CHECK(t.dtype() == dt, TypeError, op, ": ", name, " has dtype ", dtype_name(t.dtype()),
               " but the input projection has ", dtype_name(dt), "; cast them to one dtype");
}

std::vector<TensorMeta> fwd_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const char* op = "rnn_layer";
  const Slots s = slots_of(at, op);
  const Tensor& xw = in[0];
  TANDEM_CHECK(is_floating(xw.dtype()), TypeError, op, ": expected a floating-point input, got ",
               dtype_name(xw.dtype()));
  TANDEM_CHECK(xw.dim() == 3, ValueError, op, ": expected the input projection [L, N, G*H], got ",
               shape_str(xw.shape()));
  const int64_t L = xw.shape()[0], N = xw.shape()[1];
  TANDEM_CHECK(L > 0, ValueError, op, ": expected a sequence length > 0, got shape ",
               shape_str(xw.shape()));
  TANDEM_CHECK(in[1].dim() == 2, ValueError, op, ": expected h0 [N, H], got ",
               shape_str(in[1].shape()));
  const int64_t H = in[1].shape()[1], G = rnn_cpu::gates_of(s.mode) * H;
  const DType dt = xw.dtype();
  check_shape(xw, {L, N, G}, op, "input projection", dt);
  check_shape(in[1], {N, H}, op, "h0", dt);
  size_t k = 2;
  if (s.lstm) check_shape(in[k++], {N, H}, op, "c0", dt);
  check_shape(in[k++], {G, H}, op, "weight_hh", dt);
  if (s.bias) check_shape(in[k++], {G}, op, "bias_hh", dt);
  return {{{L, N, H}, dt},
          {s.lstm ? Shape{L, N, H} : Shape{0}, dt},
          {{L, N, rnn_cpu::saved_of(s.mode) * H}, dt}};
}

template <typename T>
const T* ptr(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void fwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& at) {
  const Slots s = slots_of(at, "rnn_layer");
  const DType kt = float_kernel_dtype(in[0].dtype());
  std::vector<Tensor> d;
  for (const Tensor& t : in) d.push_back(dense_as(t, kt));
  size_t k = 2;
  Tensor c0 = s.lstm ? d[k++] : Tensor();
  Tensor w = d[k++];
  Tensor b = s.bias ? d[k++] : Tensor();
  std::vector<Tensor> buf;
  for (const Tensor& o : out) buf.push_back(kernel_buffer(o, kt));
  const rnn_cpu::Dims dims{s.mode, in[0].shape()[0], in[0].shape()[1], in[1].shape()[1],
                           at.get_bool("reverse")};
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    rnn_cpu::forward<T>(dims, d[0].data<T>(), d[1].data<T>(), ptr<T>(c0), w.data<T>(), ptr<T>(b),
                        buf[0].data<T>(), s.lstm ? buf[1].data<T>() : nullptr,
                        buf.back().data<T>());
  });
  for (size_t i = 0; i < out.size(); ++i) copy_back(buf[i], out[i]);
}

// rnn_layer_backward inputs: g_out, [g_c], h0, [c0], w_hh, out, [c], saved. Outputs: dxw,
// dh0, [dc0], dw_hh, [db_hh].
std::vector<TensorMeta> bwd_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  const Slots s = slots_of(at, "rnn_layer_backward");
  const size_t h0 = s.lstm ? 2 : 1;
  const Tensor& w = in[h0 + (s.lstm ? 2 : 1)];
  const DType dt = in[0].dtype();
  const int64_t L = in[0].shape()[0], N = in[0].shape()[1], H = in[0].shape()[2];
  std::vector<TensorMeta> out{{{L, N, w.shape()[0]}, dt}, {{N, H}, dt}};
  if (s.lstm) out.push_back({{N, H}, dt});
  out.push_back({w.shape(), dt});
  if (s.bias) out.push_back({{w.shape()[0]}, dt});
  return out;
}

void bwd_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs& at) {
  const Slots s = slots_of(at, "rnn_layer_backward");
  const DType kt = float_kernel_dtype(in[0].dtype());
  std::vector<Tensor> d;
  for (const Tensor& t : in) d.push_back(dense_as(t, kt));
  size_t k = 0;
  Tensor g_out = d[k++], g_c = s.lstm ? d[k++] : Tensor();
  Tensor h0 = d[k++], c0 = s.lstm ? d[k++] : Tensor();
  Tensor w = d[k++], o = d[k++], c = s.lstm ? d[k++] : Tensor(), saved = d[k++];
  std::vector<Tensor> buf;
  for (const Tensor& t : out) buf.push_back(kernel_buffer(t, kt));
  const rnn_cpu::Dims dims{s.mode, g_out.shape()[0], g_out.shape()[1], g_out.shape()[2],
                           at.get_bool("reverse")};
  by_kernel_dtype(kt, [&](auto tag) {
    using T = decltype(tag);
    size_t j = 2;
    T* dc0 = s.lstm ? buf[j++].data<T>() : nullptr;
    T* dw = buf[j++].data<T>();
    T* db = s.bias ? buf[j++].data<T>() : nullptr;
    rnn_cpu::backward<T>(dims, g_out.data<T>(), ptr<T>(g_c), h0.data<T>(), ptr<T>(c0), w.data<T>(),
                         o.data<T>(), ptr<T>(c), saved.data<T>(), buf[0].data<T>(),
                         buf[1].data<T>(), dc0, dw, db);
  });
  for (size_t i = 0; i < out.size(); ++i) copy_back(buf[i], out[i]);
}

const OpDef rnn_layer_op = make_op("rnn_layer", fwd_infer, fwd_kernel);
const OpDef rnn_layer_bwd_op = make_op("rnn_layer_backward", bwd_infer, bwd_kernel);
TANDEM_REGISTER_OP(rnn_layer_op)
TANDEM_REGISTER_OP(rnn_layer_bwd_op)
const int rnn_layer_saved_set = [] {
  rnn_layer_op.last_output_saved = true;
  return 0;
}();

std::vector<Tensor> rnn_layer_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Slots s = slots_of(c.attrs, "rnn_layer");
  std::vector<Tensor> in{g[0]};
  if (s.lstm) in.push_back(g[1]);
  in.push_back(c.inputs[1]);  // h0
  size_t k = 2;
  if (s.lstm) in.push_back(c.inputs[k++]);  // c0
  in.push_back(c.inputs[k]);                // w_hh
  in.push_back(c.outputs[0]);
  if (s.lstm) in.push_back(c.outputs[1]);
  in.push_back(c.outputs[2]);
  std::vector<Tensor> r = dispatch(rnn_layer_bwd_op, in, c.attrs);
  // r = dxw, dh0, [dc0], dw_hh, [db_hh]: the same order as the forward's inputs.
  std::vector<Tensor> out(c.inputs.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (c.needs_grad[i]) out[i] = r[i];
  return out;
}

// Second derivatives would need the backward through time re-expressed with ops (as the
// composite cells are); PyTorch's fused (cuDNN) RNN backward is not differentiable either.
std::vector<Tensor> rnn_layer_bwd_vjp(const VjpCtx&, const std::vector<Tensor>&) {
  throw_error<NotImplementedError>(
      "rnn_layer_backward: double backward through a fused RNN / LSTM / GRU layer is not "
      "supported; build the layer from cells of linear / sigmoid / tanh ops (as the D2L "
      "from-scratch models do) to differentiate it twice");
}
TANDEM_DEFINE_VJP(rnn_layer_op, rnn_layer_vjp)
TANDEM_DEFINE_VJP(rnn_layer_bwd_op, rnn_layer_bwd_vjp)

}  // namespace

std::vector<Tensor> rnn_layer(const std::string& mode, const Tensor& xw, const Tensor& h0,
                              const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                              bool reverse) {
  const Mode m = mode_of(mode, "rnn_layer");
  TANDEM_CHECK(xw.defined() && h0.defined() && w_hh.defined(), ValueError,
               "rnn_layer: the input projection, h0 and weight_hh must be tensors");
  TANDEM_CHECK((m == Mode::Lstm) == c0.defined(), ValueError,
               "rnn_layer: c0 is required for LSTM and not accepted for the other modes");
  std::vector<Tensor> in{xw, h0};
  if (c0.defined()) in.push_back(c0);
  in.push_back(w_hh);
  if (b_hh.defined()) in.push_back(b_hh);
  Attrs at{{"mode", mode}, {"reverse", reverse}, {"has_bias", b_hh.defined()}};
  std::vector<Tensor> r = dispatch(rnn_layer_op, in, at);
  detach_(r.back());
  return {r[0], m == Mode::Lstm ? r[1] : Tensor()};
}

}  // namespace tandem
