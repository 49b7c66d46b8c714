#include "nn/rnn.h"

#include <cmath>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::nn {
namespace {

int64_t gate_count(RNNMode m) {
  return m == RNNMode::LSTM ? 4 : m == RNNMode::GRU ? 3 : 1;
}

const char* mode_name(RNNMode m) {
  return m == RNNMode::LSTM ? "LSTM" : m == RNNMode::GRU ? "GRU" : "RNN";
}

}  // namespace

RNN::RNN(RNNMode mode, int64_t input_size, int64_t hidden_size, RNNOptions options)
    : mode_(mode), input_size_(input_size), hidden_size_(hidden_size), opt_(options) {
  TANDEM_CHECK(input_size > 0 && hidden_size > 0 && opt_.num_layers > 0, ValueError,
               mode_name(mode), ": input_size, hidden_size and num_layers must be positive, got ",
               input_size, ", ", hidden_size, ", ", opt_.num_layers);
  TANDEM_CHECK(opt_.dropout >= 0 && opt_.dropout <= 1, ValueError, mode_name(mode),
               ": dropout must be in [0, 1], got ", opt_.dropout);
  // PyTorch's default: every parameter ~ U(-1/sqrt(H), 1/sqrt(H)).
  const double k = 1.0 / std::sqrt(double(hidden_size));
  const int64_t gates = gate_count(mode) * hidden_size;
  const int64_t dirs = opt_.bidirectional ? 2 : 1;
  GradModeGuard off(false);
  for (int64_t layer = 0; layer < opt_.num_layers; ++layer) {
    const int64_t in = layer == 0 ? input_size : hidden_size * dirs;
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string sfx = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
      Weights w;
      w.w_ih = register_parameter("weight_ih" + sfx, uniform(-k, k, {gates, in}, DType::Float32));
      w.w_hh = register_parameter("weight_hh" + sfx,
                                  uniform(-k, k, {gates, hidden_size}, DType::Float32));
      if (opt_.bias) {
        w.b_ih = register_parameter("bias_ih" + sfx, uniform(-k, k, {gates}, DType::Float32));
        w.b_hh = register_parameter("bias_hh" + sfx, uniform(-k, k, {gates}, DType::Float32));
      }
      weights_.push_back(w);
    }
  }
}

RNNResult RNN::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  const char* name = mode_name(mode_);
  TANDEM_CHECK(input.dim() == 3, ValueError, name, ": expected a 3-D input (L, N, H_in), got ",
               input.dim(), "-D; add a batch dimension with unsqueeze");
  TANDEM_CHECK(input.shape()[2] == input_size_, ValueError, name, ": input has ", input.shape()[2],
               " features, expected input_size=", input_size_);
  const bool lstm = mode_ == RNNMode::LSTM;
  const int64_t dirs = opt_.bidirectional ? 2 : 1;
  Tensor x = opt_.batch_first ? transpose(input, 0, 1) : input;
  const int64_t steps = x.shape()[0], batch = x.shape()[1];
  const Shape state_shape{opt_.num_layers * dirs, batch, hidden_size_};
  auto initial = [&](const Tensor& s, const char* what) {
    if (!s.defined()) return zeros(state_shape, x.dtype());
    TANDEM_CHECK(s.shape() == state_shape, ValueError, name, ": expected ", what, " of shape ",
                 shape_str(state_shape), ", got ", shape_str(s.shape()));
    return s;
  };
  Tensor h_init = initial(h0, "h0"), c_init = lstm ? initial(c0, "c0") : Tensor();

  std::vector<Tensor> h_n, c_n;
  Tensor layer_in = x;
  for (int64_t layer = 0; layer < opt_.num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t idx = layer * dirs + d;
      const Weights& w = weights_[size_t(idx)];
      Tensor xw = linear(layer_in, w.w_ih, w.b_ih);  // all time steps in one GEMM
      Tensor h = select(h_init, 0, idx);
      Tensor c = lstm ? select(c_init, 0, idx) : Tensor();
      std::vector<Tensor> seq(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = d ? steps - 1 - i : i;
        Tensor xt = select(xw, 0, t);
        Tensor gh = linear(h, w.w_hh, w.b_hh);
        if (lstm) {
          auto g = chunk(add(xt, gh), 4, -1);
          c = add(mul(sigmoid(g[1]), c), mul(sigmoid(g[0]), tanh(g[2])));
          h = mul(sigmoid(g[3]), tanh(c));
        } else if (mode_ == RNNMode::GRU) {
          auto xg = chunk(xt, 3, -1), hg = chunk(gh, 3, -1);
          Tensor r = sigmoid(add(xg[0], hg[0]));
          Tensor z = sigmoid(add(xg[1], hg[1]));
          Tensor n = tanh(add(xg[2], mul(r, hg[2])));
          h = add(n, mul(z, sub(h, n)));
        } else {
          Tensor pre = add(xt, gh);
          h = mode_ == RNNMode::Tanh ? tanh(pre) : relu(pre);
        }
        seq[size_t(t)] = h;
      }
      outs.push_back(stack(seq, 0));
      h_n.push_back(h);
      if (lstm) c_n.push_back(c);
    }
    layer_in = dirs == 1 ? outs[0] : cat(outs, -1);
    if (opt_.dropout > 0 && is_training() && layer + 1 < opt_.num_layers)
      layer_in = dropout(layer_in, opt_.dropout, true);
  }
  RNNResult r;
  r.output = opt_.batch_first ? transpose(layer_in, 0, 1) : layer_in;
  r.h_n = stack(h_n, 0);
  if (lstm) r.c_n = stack(c_n, 0);
  return r;
}

}  // namespace tandem::nn
