// Normalization ops: batch, layer, group and instance norm (PyTorch semantics).
//
// Each of batch / layer / group norm is a forward OpDef returning the output together with the
// statistics its backward needs, plus a backward OpDef returning (grad_input, grad_weight,
// grad_bias); the autodiff module wires the two together. The plain functions (batch_norm,
// layer_norm, ...) return only the output. An undefined Tensor() stands for an absent weight
// (all ones), bias (all zeros) or running statistic.
//
// Dtypes: input is any floating dtype; float16 / bfloat16 compute in float32. The statistics
// (save_mean, save_invstd, mean, rstd) are float64 for float64 input and float32 otherwise;
// statistics always accumulate in double. Parameters of another floating dtype are converted.
#pragma once
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// input (N, C, *). training: normalise with the batch's mean and biased variance, then update
// running_mean / running_var in place (when defined) as
//   running = (1 - momentum) * running + momentum * batch_stat,
// with the unbiased variance for running_var, as PyTorch does. Eval: normalise with the
// running statistics, which must then be defined. Both need weight / bias / running stats of C
// elements. Training needs more than one value per channel.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);
// The forward op, without touching the running statistics: {y, save_mean, save_invstd}, the
// last two of shape (C). In eval mode they are the running mean and 1 / sqrt(running_var +
// eps), so batch_norm_backward works the same in both modes.
std::vector<Tensor> batch_norm_forward(const Tensor& input, const Tensor& weight,
                                       const Tensor& bias, const Tensor& running_mean,
                                       const Tensor& running_var, bool training, double eps);
// {grad_input, grad_weight, grad_bias} of batch_norm_forward. training must match the forward
// call: then the gradient also flows through the batch statistics. grad_weight / grad_bias
// are computed even when weight is undefined (as for a weight of ones).
std::vector<Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        const Tensor& weight, const Tensor& save_mean,
                                        const Tensor& save_invstd, bool training);

// Normalises over the trailing dims given by normalized_shape; weight / bias have that shape.
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps = 1e-5);
// {y, mean, rstd}; mean / rstd have the leading dims of input and a 1 per normalized dim.
std::vector<Tensor> layer_norm_forward(const Tensor& input,
                                       const std::vector<int64_t>& normalized_shape,
                                       const Tensor& weight, const Tensor& bias, double eps);
std::vector<Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        const std::vector<int64_t>& normalized_shape,
                                        const Tensor& mean, const Tensor& rstd,
                                        const Tensor& weight);

// input (N, C, *); the C channels form num_groups groups normalised separately per sample;
// weight / bias have C elements.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps = 1e-5);
// {y, mean, rstd}; mean / rstd have shape (N, num_groups).
std::vector<Tensor> group_norm_forward(const Tensor& input, int64_t num_groups,
                                       const Tensor& weight, const Tensor& bias, double eps);
std::vector<Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                        int64_t num_groups, const Tensor& mean, const Tensor& rstd,
                                        const Tensor& weight);

// input (N, C, *), each (sample, channel) normalised over its spatial elements. A composite,
// formulated as PyTorch does: batch_norm over the input viewed as (1, N * C, *) with weight,
// bias and running stats repeated N times; with use_input_stats the running stats (C) then
// receive the batch-mean of the N per-instance updates. use_input_stats=false normalises with
// the running stats, which must then be defined.
Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);

}  // namespace tandem
