// Recurrent layers (Elman RNN, LSTM, GRU) in PyTorch's layout: time-major (L, N, H_in)
// input unless batch_first, parameters weight_ih_l{k}[_reverse] / weight_hh / bias_ih /
// bias_hh, gate order i, f, g, o (LSTM) and r, z, n (GRU). Built from differentiable ops.
#pragma once
#include "nn/module.h"

namespace tandem::nn {

enum class RNNMode { Tanh, Relu, LSTM, GRU };

struct RNNOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;  // between layers, in training mode
  bool bidirectional = false;
};

// Output sequence plus final hidden (and, for LSTM, cell) state of every layer/direction.
struct RNNResult {
  Tensor output;  // (L, N, dirs * H), or (N, L, dirs * H) with batch_first
  Tensor h_n;     // (num_layers * dirs, N, H)
  Tensor c_n;     // LSTM only; undefined otherwise
};

class RNN : public Module {
 public:
  RNN(RNNMode mode, int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  // Runs the whole sequence; h0 / c0 default to zeros, shape (num_layers * dirs, N, H).
  RNNResult run(const Tensor& input, const Tensor& h0 = Tensor(), const Tensor& c0 = Tensor());
  // The output sequence only, so an RNN composes inside Sequential.
  Tensor forward(const Tensor& input) override { return run(input).output; }

 private:
  RNNMode mode_;
  int64_t input_size_, hidden_size_;
  RNNOptions opt_;
  struct Weights {
    Tensor w_ih, w_hh, b_ih, b_hh;
  };
  std::vector<Weights> weights_;  // layer-major, then direction
};

}  // namespace tandem::nn
