// One direction of one recurrent layer (Elman tanh / relu, LSTM, GRU) over a whole sequence,
// forward and backward through time, on dense row-major buffers of float or double.
//
// The input projection of every time step (xw = x W_ih^T + b_ih, [L, N, G*H]) is computed by
// the caller as one GEMM. Per step the forward runs one GEMM for the recurrent projection
// h_{t-1} W_hh^T and one pass over the gates; the backward runs one pass over the gates and
// one GEMM for dh_{t-1}, and the weight gradient of all steps is one GEMM at the end. Gate
// order and formulas are PyTorch's: LSTM i, f, g, o; GRU r, z, n with
// n = tanh(x_n + r * (h W_hn^T + b_hn)) and h' = (1 - z) n + z h.
#pragma once
#include <cstdint>

namespace tandem::rnn_cpu {

enum class Mode { Tanh, Relu, Lstm, Gru };

// Gates per mode (rows of W_ih / W_hh are G * H).
inline int gates_of(Mode m) {
  return m == Mode::Lstm ? 4 : m == Mode::Gru ? 3 : 1;
}
// Saved activations per step, in units of H: LSTM i, f, g, o; GRU r, z, n and h W_hn^T + b_hn.
inline int saved_of(Mode m) {
  return m == Mode::Lstm || m == Mode::Gru ? 4 : 0;
}

struct Dims {
  Mode mode;
  int64_t L, N, H;
  bool reverse;  // processes t = L-1 .. 0
};

// xw [L, N, G*H]; h0, c0 [N, H] (c0 and cseq only for LSTM); w_hh [G*H, H]; b_hh [G*H] or
// null. Writes out [L, N, H] (h of every step), cseq [L, N, H] (LSTM's c of every step) and
// saved [L, N, saved_of(mode) * H] for the backward.
template <typename T>
void forward(const Dims& d, const T* xw, const T* h0, const T* c0, const T* w_hh, const T* b_hh,
             T* out, T* cseq, T* saved);

// Gradients from g_out [L, N, H] (dL/d out) and g_c [L, N, H] (dL/d cseq, LSTM; may be
// null): dxw [L, N, G*H], dh0, dc0 [N, H] (dc0 LSTM only), dw_hh [G*H, H] and db_hh [G*H]
// (null when the layer has no bias).
template <typename T>
void backward(const Dims& d, const T* g_out, const T* g_c, const T* h0, const T* c0, const T* w_hh,
              const T* out, const T* cseq, const T* saved, T* dxw, T* dh0, T* dc0, T* dw_hh,
              T* db_hh);

}  // namespace tandem::rnn_cpu
