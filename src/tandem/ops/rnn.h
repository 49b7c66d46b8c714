// Fused recurrent layers: one direction of one RNN / LSTM / GRU layer over a whole sequence
// as one op (and its backward through time as another), so a step costs one GEMM and one
// pass over the gates instead of a dozen small ops and their tape entries.
#pragma once
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// mode: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU". xw [L, N, G*H] is the input projection of
// every step (x W_ih^T + b_ih); h0, c0 [N, H] (c0: LSTM only, else undefined); w_hh
// [G*H, H]; b_hh [G*H] or undefined. reverse runs t = L-1 .. 0. Returns {out, c}: out
// [L, N, H] is h of every step, c [L, N, H] LSTM's cell state of every step (undefined for
// the other modes). Differentiable in every tensor argument; not twice.
std::vector<Tensor> rnn_layer(const std::string& mode, const Tensor& xw, const Tensor& h0,
                              const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                              bool reverse);

}  // namespace tandem
