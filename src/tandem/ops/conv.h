// Convolutions (NCHW). Padding is given per side; the Python layer turns PyTorch's
// int / tuple / 'same' / 'valid' forms into that.
#pragma once
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

struct Conv2dArgs {
  std::vector<int64_t> stride{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0};  // top, left, bottom, right
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
};

// x (N, C, H, W) or (C, H, W); weight (O, C / groups, KH, KW); bias (O) or undefined.
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv2dArgs& a);
// x (N, C, L) or (C, L); weight (O, C / groups, K); padding {left, right}.
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t stride,
              std::vector<int64_t> padding, int64_t dilation, int64_t groups);
// Gradient of conv2d with respect to its input, for an input of shape input_size.
Tensor conv2d_backward_input(const Tensor& grad_out, const Tensor& weight,
                             const std::vector<int64_t>& input_size, const Conv2dArgs& a);
// Gradients with respect to weight and bias: {grad_weight, grad_bias}.
std::vector<Tensor> conv2d_backward_weight(const Tensor& x, const Tensor& grad_out,
                                           const std::vector<int64_t>& weight_size,
                                           const Conv2dArgs& a);
// weight (C_in, C_out / groups, KH, KW); padding symmetric {ph, pw}.
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                        std::vector<int64_t> stride, std::vector<int64_t> padding,
                        std::vector<int64_t> output_padding, int64_t groups,
                        std::vector<int64_t> dilation);
// Per-side padding for PyTorch's padding='same' (left gets the smaller half).
std::vector<int64_t> same_padding(const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& dilation);

}  // namespace tandem
