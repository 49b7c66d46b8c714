#include "nn/layers.h"

#include <cmath>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/loss.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::nn {
namespace {

// PyTorch's default for conv weights and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
Tensor fan_in_uniform(const Shape& shape, int64_t fan_in) {
  GradModeGuard off(false);
  double bound = 1.0 / std::sqrt(double(fan_in));
  return uniform(-bound, bound, shape, DType::Float32);
}

}  // namespace

Conv1d::Conv1d(int64_t in, int64_t out, int64_t k, int64_t stride_, int64_t padding_, bool has_bias)
    : stride(stride_), padding(padding_) {
  TANDEM_CHECK(in > 0 && out > 0 && k > 0 && stride_ > 0 && padding_ >= 0, ValueError,
               "Conv1d: channels, kernel_size and stride must be positive and padding >= 0");
  weight = register_parameter("weight", fan_in_uniform({out, in, k}, in * k));
  if (has_bias) bias = register_parameter("bias", fan_in_uniform({out}, in * k));
}

Tensor Conv1d::forward(const Tensor& x) {
  return conv1d(x, weight, bias, stride, {padding, padding}, 1, 1);
}

ConvTranspose2d::ConvTranspose2d(int64_t in, int64_t out, int64_t k, int64_t stride_,
                                 int64_t padding_, int64_t output_padding_, bool has_bias)
    : stride(stride_), padding(padding_), output_padding(output_padding_) {
  TANDEM_CHECK(in > 0 && out > 0 && k > 0 && stride_ > 0 && padding_ >= 0, ValueError,
               "ConvTranspose2d: channels, kernel_size and stride must be positive and "
               "padding >= 0");
  // PyTorch computes fan_in from weight dim 1 (= out_channels) for transposed convolutions.
  weight = register_parameter("weight", fan_in_uniform({in, out, k, k}, out * k * k));
  if (has_bias) bias = register_parameter("bias", fan_in_uniform({out}, out * k * k));
}

Tensor ConvTranspose2d::forward(const Tensor& x) {
  return conv_transpose2d(x, weight, bias, {stride, stride}, {padding, padding},
                          {output_padding, output_padding}, 1, {1, 1});
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps_)
    : num_groups(groups), eps(eps_) {
  TANDEM_CHECK(groups > 0 && channels % groups == 0, ValueError, "GroupNorm: num_channels (",
               channels, ") must be divisible by num_groups (", groups, ")");
  GradModeGuard off(false);
  weight = register_parameter("weight", ones({channels}));
  bias = register_parameter("bias", zeros({channels}));
}

Tensor GroupNorm::forward(const Tensor& x) {
  return group_norm(x, num_groups, weight, bias, eps);
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) {
  return adaptive_avg_pool2d(x, size_);
}

Loss::Loss(std::string kind, std::string reduction)
    : kind_(std::move(kind)), reduction_(std::move(reduction)) {
  static const char* known[] = {"cross_entropy", "nll",   "mse", "l1",
                                "smooth_l1",     "huber", "bce", "bce_with_logits",
                                "kl_div"};
  bool ok = false;
  for (const char* k : known) ok = ok || kind_ == k;
  TANDEM_CHECK(ok, ValueError, "nn::Loss: unknown loss '", kind_,
               "'; use cross_entropy, nll, mse, l1, smooth_l1, huber, bce, bce_with_logits or "
               "kl_div");
  TANDEM_CHECK(reduction_ == "none" || reduction_ == "mean" || reduction_ == "sum" ||
                   (reduction_ == "batchmean" && kind_ == "kl_div"),
               ValueError, "nn::Loss(", kind_, "): reduction must be 'none', 'mean' or 'sum'",
               kind_ == "kl_div" ? " (or 'batchmean')" : "", ", got '", reduction_, "'");
}

Tensor Loss::operator()(const Tensor& input, const Tensor& target) const {
  const std::string& r = reduction_;
  if (kind_ == "cross_entropy") return cross_entropy(input, target, Tensor(), -100, r);
  if (kind_ == "nll") return nll_loss(input, target, Tensor(), -100, r);
  if (kind_ == "mse") return mse_loss(input, target, r);
  if (kind_ == "l1") return l1_loss(input, target, r);
  if (kind_ == "smooth_l1") return smooth_l1_loss(input, target, r);
  if (kind_ == "huber") return huber_loss(input, target, r);
  if (kind_ == "bce") return binary_cross_entropy(input, target, Tensor(), r);
  if (kind_ == "bce_with_logits")
    return binary_cross_entropy_with_logits(input, target, Tensor(), Tensor(), r);
  return kl_div(input, target, r);
}

}  // namespace tandem::nn
