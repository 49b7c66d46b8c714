#include "nn/attention.h"

#include <cmath>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/nn/init.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::nn {

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout,
                                       bool bias, bool batch_first)
    : embed_dim_(embed_dim), num_heads_(num_heads), dropout_(dropout), batch_first_(batch_first) {
  TANDEM_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0, ValueError,
               "MultiheadAttention: embed_dim (", embed_dim, ") must be a positive multiple of ",
               "num_heads (", num_heads, ")");
  TANDEM_CHECK(dropout >= 0 && dropout <= 1, ValueError,
               "MultiheadAttention: dropout must be in [0, 1], got ", dropout);
  GradModeGuard off(false);
  // PyTorch's initialisation: xavier_uniform_ projections, zero biases.
  in_proj_weight = register_parameter("in_proj_weight", zeros({3 * embed_dim, embed_dim}));
  init::xavier_uniform_(in_proj_weight);
  if (bias) in_proj_bias = register_parameter("in_proj_bias", zeros({3 * embed_dim}));
  out_proj = register_module("out_proj", std::make_shared<Linear>(embed_dim, embed_dim, bias));
  if (bias) init::zeros_(out_proj->bias);
}

AttentionResult MultiheadAttention::attend(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const Tensor& attn_mask,
                                           bool need_weights) {
  for (const Tensor* t : {&query, &key, &value})
    TANDEM_CHECK(t->dim() == 3 && t->shape()[2] == embed_dim_, ValueError,
                 "MultiheadAttention: query/key/value must be 3-D with embed_dim=", embed_dim_,
                 " features, got shape ", shape_str(t->shape()));
  Tensor q = batch_first_ ? transpose(query, 0, 1) : query;
  Tensor k = batch_first_ ? transpose(key, 0, 1) : key;
  Tensor v = batch_first_ ? transpose(value, 0, 1) : value;
  const int64_t L = q.shape()[0], N = q.shape()[1], S = k.shape()[0];
  TANDEM_CHECK(k.shape()[1] == N && v.shape()[1] == N && v.shape()[0] == S, ValueError,
               "MultiheadAttention: key/value batch and length must match (query ",
               shape_str(q.shape()), ", key ", shape_str(k.shape()), ", value ",
               shape_str(v.shape()), ")");
  const int64_t H = num_heads_, d = embed_dim_ / H;
  auto w = chunk(in_proj_weight, 3, 0);
  std::vector<Tensor> b =
      in_proj_bias.defined() ? chunk(in_proj_bias, 3, 0) : std::vector<Tensor>(3);
  // (len, N, E) -> (N * H, len, d): heads become batch entries of one bmm.
  auto heads = [&](const Tensor& x, int64_t len) {
    return transpose(reshape(x, {len, N * H, d}), 0, 1);
  };
  Tensor qh = heads(linear(q, w[0], b[0]), L);
  Tensor kh = heads(linear(k, w[1], b[1]), S);
  Tensor vh = heads(linear(v, w[2], b[2]), S);
  Tensor scale = full({}, Scalar(1.0 / std::sqrt(double(d))), qh.dtype());
  Tensor scores = bmm(mul(qh, scale), transpose(kh, 1, 2));  // (N * H, L, S)
  if (attn_mask.defined()) {
    const Shape& ms = attn_mask.shape();
    TANDEM_CHECK(ms == Shape({L, S}) || ms == Shape({N * H, L, S}), ValueError,
                 "MultiheadAttention: attn_mask must have shape (", L, ", ", S, ") or (", N * H,
                 ", ", L, ", ", S, "), got ", shape_str(ms));
    scores = attn_mask.dtype() == DType::Bool
                 ? masked_fill(scores, attn_mask, full({}, Scalar(-INFINITY), scores.dtype()))
                 : add(scores, attn_mask);
  }
  Tensor attn = softmax(scores, -1);
  if (dropout_ > 0 && is_training()) attn = dropout(attn, dropout_, true);
  Tensor out = reshape(transpose(bmm(attn, vh), 0, 1), {L, N, embed_dim_});
  AttentionResult r;
  r.output = (*out_proj)(out);
  if (batch_first_) r.output = transpose(r.output, 0, 1);
  if (need_weights) r.weights = mean(reshape(attn, {N, H, L, S}), std::vector<int64_t>{1});
  return r;
}

}  // namespace tandem::nn
