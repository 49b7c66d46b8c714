// Parameter initialisation (PyTorch's torch.nn.init). Each function fills its tensor in
// place under no_grad, draws from the one seeded generator (manual_seed makes it
// reproducible) and returns the tensor.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "tandem/core/tensor.h"

namespace tandem::init {

// (fan_in, fan_out) of a weight: dim 1 / dim 0 times the receptive field (the product of
// the dims after the first two). Needs at least 2 dims.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);
// Recommended gain for a nonlinearity: linear, conv{1,2,3}d, conv_transpose{1,2,3}d,
// sigmoid -> 1; tanh -> 5/3; relu -> sqrt(2); leaky_relu -> sqrt(2 / (1 + slope^2)) with
// slope = param (default 0.01); selu -> 3/4.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);

const Tensor& uniform_(const Tensor& t, double a = 0, double b = 1);
const Tensor& normal_(const Tensor& t, double mean = 0, double std = 1);
const Tensor& constant_(const Tensor& t, Scalar value);
const Tensor& zeros_(const Tensor& t);
const Tensor& ones_(const Tensor& t);
// The identity matrix (2-D tensors only).
const Tensor& eye_(const Tensor& t);
// U(-a, a) / N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)), a = sqrt(3) * std.
const Tensor& xavier_uniform_(const Tensor& t, double gain = 1);
const Tensor& xavier_normal_(const Tensor& t, double gain = 1);
// std = calculate_gain(nonlinearity, a) / sqrt(fan), fan per mode ("fan_in" / "fan_out").
const Tensor& kaiming_uniform_(const Tensor& t, double a = 0, const std::string& mode = "fan_in",
                               const std::string& nonlinearity = "leaky_relu");
const Tensor& kaiming_normal_(const Tensor& t, double a = 0, const std::string& mode = "fan_in",
                              const std::string& nonlinearity = "leaky_relu");
// N(mean, std^2) truncated to [a, b], sampled exactly by the inverse CDF (in float64).
const Tensor& trunc_normal_(const Tensor& t, double mean = 0, double std = 1, double a = -2,
                            double b = 2);
// A (semi-)orthogonal matrix (t viewed as dim0 x rest) times gain: the Q of a QR
// decomposition of a standard normal matrix, with R's diagonal made positive.
const Tensor& orthogonal_(const Tensor& t, double gain = 1);

// Q of the reduced QR decomposition of a tall float64 matrix (m x n, m >= n), with column j
// multiplied by the sign of R[j, j] (so R has a non-negative diagonal and Q is unique).
Tensor householder_q(const Tensor& a);

}  // namespace tandem::init
