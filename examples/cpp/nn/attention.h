// Multi-head attention in PyTorch's layout: in_proj_weight (3E, E), in_proj_bias (3E),
// out_proj Linear; time-major (L, N, E) inputs unless batch_first.
#pragma once
#include "nn/module.h"

namespace tandem::nn {

struct AttentionResult {
  Tensor output;   // like query
  Tensor weights;  // (N, L, S), averaged over heads; undefined unless need_weights
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool batch_first = false);
  // softmax(Q K^T / sqrt(d) + mask) V per head. attn_mask: (L, S) or (N * heads, L, S),
  // boolean (true = masked out) or float (added to the scores).
  AttentionResult attend(const Tensor& query, const Tensor& key, const Tensor& value,
                         const Tensor& attn_mask = Tensor(), bool need_weights = true);
  // Self-attention on x, so the module composes inside Sequential.
  Tensor forward(const Tensor& x) override { return attend(x, x, x, Tensor(), false).output; }

  Tensor in_proj_weight, in_proj_bias;
  std::shared_ptr<Linear> out_proj;

 private:
  int64_t embed_dim_, num_heads_;
  double dropout_;
  bool batch_first_;
};

}  // namespace tandem::nn
