// Pooling over NCHW (2-D) and NCL (1-D) tensors, with the backward ops the vjp rules use.
// 2-D arguments are {h, w} pairs; inputs may also be unbatched (C, H, W).
#pragma once
#include <utility>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

struct Pool2dArgs {
  std::vector<int64_t> kernel{1, 1}, stride{1, 1}, padding{0, 0}, dilation{1, 1};
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg only
  int64_t divisor_override = 0;   // avg only; 0 = none
};

// (values, flat indices into each H*W plane)
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a);
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& indices,
                           const std::vector<int64_t>& input_size);
Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a);
Tensor avg_pool2d_backward(const Tensor& grad_out, const std::vector<int64_t>& input_size,
                           const Pool2dArgs& a);
Tensor adaptive_avg_pool2d(const Tensor& x, const std::vector<int64_t>& output_size);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_out, const std::vector<int64_t>& input_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x,
                                              const std::vector<int64_t>& output_size);
// PyTorch's pooled output size for one dim.
int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);

}  // namespace tandem
