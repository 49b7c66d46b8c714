// Neural-network compute ops of tandem._C (convolution; more families append here).
#include "common.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/layout.h"
#include "tandem/ops/loss.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/rnn.h"

namespace tandem::py {

void bind_nn_ops(nb::module_& m) {
  using nb::arg;
  m.def(
      "conv2d",
      [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, std::vector<int64_t> stride,
         std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups) {
        return conv2d(x, w, b.value_or(Tensor()), Conv2dArgs{stride, padding, dilation, groups});
      },
      arg("input"), arg("weight"), arg("bias").none(), arg("stride"), arg("padding"),
      arg("dilation"), arg("groups"));
  m.def(
      "conv1d",
      [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, int64_t stride,
         std::vector<int64_t> padding, int64_t dilation, int64_t groups) {
        return conv1d(x, w, b.value_or(Tensor()), stride, padding, dilation, groups);
      },
      arg("input"), arg("weight"), arg("bias").none(), arg("stride"), arg("padding"),
      arg("dilation"), arg("groups"));
  m.def(
      "conv2d_backward_input",
      [](const Tensor& gy, const Tensor& w, std::vector<int64_t> size, std::vector<int64_t> stride,
         std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups) {
        return conv2d_backward_input(gy, w, size, Conv2dArgs{stride, padding, dilation, groups});
      },
      arg("grad_output"), arg("weight"), arg("input_size"), arg("stride"), arg("padding"),
      arg("dilation"), arg("groups"));
  m.def(
      "conv2d_backward_weight",
      [](const Tensor& x, const Tensor& gy, std::vector<int64_t> size, std::vector<int64_t> stride,
         std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups) {
        auto r = conv2d_backward_weight(x, gy, size, Conv2dArgs{stride, padding, dilation, groups});
        return std::make_pair(r[0], r[1]);
      },
      arg("input"), arg("grad_output"), arg("weight_size"), arg("stride"), arg("padding"),
      arg("dilation"), arg("groups"));
  // The layout conversions compiled graphs put around channel-blocked regions.
  m.def("to_channel_blocked", &to_channel_blocked, arg("input"), arg("channel_block") = 16);
  m.def("from_channel_blocked", &from_channel_blocked, arg("input"), arg("channel_block") = 16);
  m.def(
      "conv_transpose2d",
      [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, std::vector<int64_t> stride,
         std::vector<int64_t> padding, std::vector<int64_t> output_padding, int64_t groups,
         std::vector<int64_t> dilation) {
        return conv_transpose2d(x, w, b.value_or(Tensor()), stride, padding, output_padding, groups,
                                dilation);
      },
      arg("input"), arg("weight"), arg("bias").none(), arg("stride"), arg("padding"),
      arg("output_padding"), arg("groups"), arg("dilation"));

  auto pool_args = [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                      std::vector<int64_t> d, bool ceil, bool cip, int64_t div) {
    Pool2dArgs a;
    a.kernel = k, a.stride = s, a.padding = p, a.dilation = d;
    a.ceil_mode = ceil, a.count_include_pad = cip, a.divisor_override = div;
    return a;
  };
  m.def(
      "max_pool2d",
      [=](const Tensor& x, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
          std::vector<int64_t> d,
          bool ceil) { return max_pool2d(x, pool_args(k, s, p, d, ceil, true, 0)); },
      arg("input"), arg("kernel_size"), arg("stride"), arg("padding"), arg("dilation"),
      arg("ceil_mode"));
  m.def("max_pool2d_backward", &max_pool2d_backward, arg("grad_output"), arg("indices"),
        arg("input_size"));
  m.def(
      "avg_pool2d",
      [=](const Tensor& x, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
          bool ceil, bool cip, int64_t div) {
        return avg_pool2d(x, pool_args(k, s, p, {1, 1}, ceil, cip, div));
      },
      arg("input"), arg("kernel_size"), arg("stride"), arg("padding"), arg("ceil_mode"),
      arg("count_include_pad"), arg("divisor_override"));
  m.def(
      "avg_pool2d_backward",
      [=](const Tensor& gy, std::vector<int64_t> xs, std::vector<int64_t> k, std::vector<int64_t> s,
          std::vector<int64_t> p, bool ceil, bool cip, int64_t div) {
        return avg_pool2d_backward(gy, xs, pool_args(k, s, p, {1, 1}, ceil, cip, div));
      },
      arg("grad_output"), arg("input_size"), arg("kernel_size"), arg("stride"), arg("padding"),
      arg("ceil_mode"), arg("count_include_pad"), arg("divisor_override"));
  m.def("adaptive_avg_pool2d", &adaptive_avg_pool2d, arg("input"), arg("output_size"));
  m.def("adaptive_avg_pool2d_backward", &adaptive_avg_pool2d_backward, arg("grad_output"),
        arg("input_size"));
  m.def("adaptive_max_pool2d", &adaptive_max_pool2d, arg("input"), arg("output_size"));
  m.def("softmax", &softmax, arg("input"), arg("dim"), arg("dtype").none() = nb::none());
  m.def("log_softmax", &log_softmax, arg("input"), arg("dim"), arg("dtype").none() = nb::none());
  m.def("softmax_backward", &softmax_backward, arg("output"), arg("grad_output"), arg("dim"));
  m.def("log_softmax_backward", &log_softmax_backward, arg("output"), arg("grad_output"),
        arg("dim"));
  m.def("dropout", &dropout, arg("input"), arg("p"), arg("training"));
  m.def("dropout2d", &dropout2d, arg("input"), arg("p"), arg("training"));
  m.def("embedding", &embedding, arg("input"), arg("weight"), arg("padding_idx") = -1);
  m.def("embedding_backward", &embedding_backward, arg("grad_output"), arg("indices"),
        arg("num_weights"), arg("padding_idx") = -1);

  auto opt = [](const std::optional<Tensor>& t) { return t.value_or(Tensor()); };
  m.def(
      "nll_loss",
      [=](const Tensor& x, const Tensor& t, std::optional<Tensor> w, int64_t ii,
          const std::string& r) { return nll_loss(x, t, opt(w), ii, r); },
      arg("input"), arg("target"), arg("weight").none(), arg("ignore_index"), arg("reduction"));
  m.def(
      "cross_entropy",
      [=](const Tensor& x, const Tensor& t, std::optional<Tensor> w, int64_t ii,
          const std::string& r, double ls) { return cross_entropy(x, t, opt(w), ii, r, ls); },
      arg("input"), arg("target"), arg("weight").none(), arg("ignore_index"), arg("reduction"),
      arg("label_smoothing"));
  m.def("mse_loss", &mse_loss, arg("input"), arg("target"), arg("reduction"));
  m.def("l1_loss", &l1_loss, arg("input"), arg("target"), arg("reduction"));
  m.def("smooth_l1_loss", &smooth_l1_loss, arg("input"), arg("target"), arg("reduction"),
        arg("beta"));
  m.def("huber_loss", &huber_loss, arg("input"), arg("target"), arg("reduction"), arg("delta"));
  m.def(
      "binary_cross_entropy",
      [=](const Tensor& x, const Tensor& t, std::optional<Tensor> w, const std::string& r) {
        return binary_cross_entropy(x, t, opt(w), r);
      },
      arg("input"), arg("target"), arg("weight").none(), arg("reduction"));
  m.def(
      "binary_cross_entropy_with_logits",
      [=](const Tensor& x, const Tensor& t, std::optional<Tensor> w, std::optional<Tensor> pw,
          const std::string& r) {
        return binary_cross_entropy_with_logits(x, t, opt(w), opt(pw), r);
      },
      arg("input"), arg("target"), arg("weight").none(), arg("pos_weight").none(),
      arg("reduction"));
  m.def("kl_div", &kl_div, arg("input"), arg("target"), arg("reduction"), arg("log_target"));
  m.def("interpolate", &interpolate, arg("input"), arg("size"), arg("mode"), arg("align_corners"),
        arg("scales") = std::vector<double>{});
  m.def("interpolate_backward", &interpolate_backward, arg("grad_output"), arg("input_size"),
        arg("mode"), arg("align_corners"), arg("scales") = std::vector<double>{});
  m.def("unfold", &unfold, arg("input"), arg("kernel_size"), arg("dilation"), arg("padding"),
        arg("stride"));
  m.def("fold", &fold, arg("input"), arg("output_size"), arg("kernel_size"), arg("dilation"),
        arg("padding"), arg("stride"));
  m.def(
      "rnn_layer",
      [](const std::string& mode, const Tensor& xw, const Tensor& h0, std::optional<Tensor> c0,
         const Tensor& w_hh, std::optional<Tensor> b_hh,
         bool reverse) -> std::pair<Tensor, std::optional<Tensor>> {
        auto r =
            rnn_layer(mode, xw, h0, c0.value_or(Tensor()), w_hh, b_hh.value_or(Tensor()), reverse);
        return {r[0], r[1].defined() ? std::optional<Tensor>(r[1]) : std::nullopt};
      },
      arg("mode"), arg("xw"), arg("h0"), arg("c0").none(), arg("w_hh"), arg("b_hh").none(),
      arg("reverse"),
      "One direction of one fused RNN / LSTM / GRU layer over the sequence: (out [L, N, H], "
      "LSTM's cell states [L, N, H] or None) from the input projection xw [L, N, G*H].");
}

}  // namespace tandem::py
