// Loss functions as composites of tandem ops (so they differentiate and trace through
// them). reduction: "none", "mean" or "sum".
#pragma once
#include <string>

#include "tandem/core/tensor.h"

namespace tandem {

// input: log-probabilities (N, C, d1...) or (C); target: int64 class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = -100, const std::string& reduction = "mean");
// input: logits (N, C, d1...) or (C); target: class indices, or class probabilities with
// input's shape.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const std::string& reduction = "mean", double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// input: probabilities in [0, 1]; logs are clamped at -100 like PyTorch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const Tensor& weight = Tensor(), const std::string& reduction = "mean");
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(),
                                        const Tensor& pos_weight = Tensor(),
                                        const std::string& reduction = "mean");
// input: log-probabilities; reduction may also be "batchmean".
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);

}  // namespace tandem
