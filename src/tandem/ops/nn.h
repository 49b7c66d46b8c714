// Neural-network functional ops that are not convolution or pooling: softmax family,
// dropout, embedding. (Convolutions: conv.h; pooling: pool.h; normalization: norm.h.)
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Gradients given the forward output y and the output gradient.
Tensor softmax_backward(const Tensor& y, const Tensor& grad_out, int64_t dim);
Tensor log_softmax_backward(const Tensor& y, const Tensor& grad_out, int64_t dim);

// Zeroes elements with probability p and scales the rest by 1 / (1 - p) when training.
Tensor dropout(const Tensor& x, double p, bool training);
// Zeroes whole channels (dim 1) of (N, C, ...) input with probability p.
Tensor dropout2d(const Tensor& x, double p, bool training);
// Rows of weight (num_embeddings, dim) at the int64 indices.
Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx = -1);
// Gradient of embedding: rows accumulated per index; the padding_idx row stays zero.
Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx = -1);

// Resamples (N, C, H, W) to `size` {OH, OW}; mode "nearest" or "bilinear". scales are the
// user's scale factors (0 = derive from the sizes), used like PyTorch for the source index.
Tensor interpolate(const Tensor& x, const std::vector<int64_t>& size, const std::string& mode,
                   bool align_corners, const std::vector<double>& scales = {});
Tensor interpolate_backward(const Tensor& grad_out, const std::vector<int64_t>& input_size,
                            const std::string& mode, bool align_corners,
                            const std::vector<double>& scales = {});
// im2col: (N, C, H, W) -> (N, C * kh * kw, L); fold is its adjoint (sums overlaps).
Tensor unfold(const Tensor& x, const std::vector<int64_t>& kernel,
              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& stride);
Tensor fold(const Tensor& x, const std::vector<int64_t>& output_size,
            const std::vector<int64_t>& kernel, const std::vector<int64_t>& dilation,
            const std::vector<int64_t>& padding, const std::vector<int64_t>& stride);

}  // namespace tandem
