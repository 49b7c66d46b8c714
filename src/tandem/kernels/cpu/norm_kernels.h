// Normalization loops (batch, layer and group norm, forward and backward) on dense float or
// double arrays. Statistics accumulate in double (two passes: mean, then centred squares) so
// float32 inputs with a large mean keep their variance. Callers validate shapes and convert
// 16-bit floats to float32 first (batch norm reads and writes bfloat16 itself); nothing here
// throws.
#pragma once
#include <cstdint>

namespace tandem::norm_cpu {

// --- batch norm: x viewed as (N, C, S), statistics per channel over N * S elements ---------
// L (lanes): 1 for plain (N, C, S) arrays; L > 1 (C a multiple of L) for channel-blocked ones,
// (N, C / L, S, L) with channel c = cb * L + l, oneDNN's nChw16c for L = 16.
// X is the storage type of the (N, C, S) arrays: float, double, or BFloat16 computed in
// float32 (compute_t<X>, storage_io.h); per-channel arrays are in the compute type T.
// mean[c] and invstd[c] = 1 / sqrt(biased_var + eps) from the batch.
template <typename X, typename T>
void batch_norm_stats(const X* x, int64_t N, int64_t C, int64_t S, double eps, T* mean, T* invstd,
                      int64_t L = 1);
// invstd[c] = 1 / sqrt(running_var[c] + eps) (eval mode).
template <typename T>
void invstd_from_var(const T* var, int64_t C, double eps, T* invstd);
// y = (x - mean[c]) * invstd[c] * w[c] + b[c]; w / b may be null (1 / 0).
// relu: the output goes through relu (a graph that folded the activation into the norm).
template <typename X, typename T>
void batch_norm_apply(const X* x, int64_t N, int64_t C, int64_t S, const T* mean, const T* invstd,
                      const T* w, const T* b, X* y, bool relu = false, int64_t L = 1);
// Gradients of batch_norm_apply (w may be null). training: mean / invstd came from x itself,
// so the gradient flows through them too; otherwise they were constants (running stats).
// relu_out (may be null): the output of a relu after the norm, whose backward is applied to
// gy as it is read (gy counts where relu_out > 0 or is NaN), one pass fewer.
template <typename X, typename T>
void batch_norm_backward(const X* gy, const X* x, int64_t N, int64_t C, int64_t S, const T* mean,
                         const T* invstd, const T* w, bool training, X* gx, T* gw, T* gb,
                         const X* relu_out = nullptr, int64_t L = 1);

// --- layer norm: x viewed as (M rows, D normalized elements); w / b have D elements -------
template <typename T>
void layer_norm_forward(const T* x, int64_t M, int64_t D, double eps, const T* w, const T* b, T* y,
                        T* mean, T* rstd);
template <typename T>
void layer_norm_backward(const T* gy, const T* x, int64_t M, int64_t D, const T* mean,
                         const T* rstd, const T* w, T* gx, T* gw, T* gb);

// --- group norm: x viewed as (N, C, S), C = G groups of C / G channels; mean / rstd (N, G);
// w / b have C elements ----------------------------------------------------------------------
template <typename T>
void group_norm_forward(const T* x, int64_t N, int64_t C, int64_t S, int64_t G, double eps,
                        const T* w, const T* b, T* y, T* mean, T* rstd);
template <typename T>
void group_norm_backward(const T* gy, const T* x, int64_t N, int64_t C, int64_t S, int64_t G,
                         const T* mean, const T* rstd, const T* w, T* gx, T* gw, T* gb);

}  // namespace tandem::norm_cpu
