// The rest of the C++ layer set: 1-D / transposed convolution, group norm, adaptive
// pooling, Identity and loss modules (Flatten is nn::Flatten() in module.h). Defaults follow
// PyTorch.
#pragma once
#include <string>

#include "nn/module.h"

namespace tandem::nn {

// (N, C, L) convolution; padding on both sides.
class Conv1d : public Module {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
         int64_t padding = 0, bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  int64_t stride, padding;
};

// (N, C, H, W) transposed convolution; weight (C_in, C_out, K, K).
class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                  int64_t stride = 1, int64_t padding = 0, int64_t output_padding = 0,
                  bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  int64_t stride, padding, output_padding;
};

// Normalises each of num_groups channel groups; affine weight / bias per channel.
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  int64_t num_groups;
  double eps;
};

// Average pooling to a fixed (H, W) output.
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(std::vector<int64_t> output_size) : size_(std::move(output_size)) {}
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<int64_t> size_;
};

class Identity : public Module {
 public:
  Tensor forward(const Tensor& x) override { return x; }
};

// A loss as an object: kind is one of cross_entropy, nll, mse, l1, smooth_l1, huber,
// bce, bce_with_logits, kl_div; reduction "none", "mean" or "sum" ("batchmean" for kl_div).
class Loss {
 public:
  explicit Loss(std::string kind, std::string reduction = "mean");
  Tensor operator()(const Tensor& input, const Tensor& target) const;

 private:
  std::string kind_, reduction_;
};

}  // namespace tandem::nn
