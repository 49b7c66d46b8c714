// dropout and embedding as composites of random, elementwise and indexing ops, so they
// differentiate and trace through those ops.
#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {

Tensor dropout(const Tensor& x, double p, bool training) {
  TANDEM_CHECK(p >= 0 && p <= 1, ValueError,
               "dropout: probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0) return x;
  if (p == 1) return mul(x, scalar_tensor(Scalar(0.0)));
  Tensor keep = bernoulli(x.shape(), 1.0 - p, is_floating(x.dtype()) ? x.dtype() : DType::Float32);
  return mul(x, mul(keep, scalar_tensor(Scalar(1.0 / (1.0 - p)))));
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  TANDEM_CHECK(p >= 0 && p <= 1, ValueError,
               "dropout2d: probability has to be between 0 and 1, but got ", p);
  TANDEM_CHECK(x.dim() == 3 || x.dim() == 4, ValueError,
               "dropout2d: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape ",
               shape_str(x.shape()));
  if (!training || p == 0) return x;
  Shape ms = x.shape();
  for (size_t d = x.dim() == 4 ? 2 : 1; d < ms.size(); ++d) ms[d] = 1;
  Tensor keep = bernoulli(ms, 1.0 - p, is_floating(x.dtype()) ? x.dtype() : DType::Float32);
  return mul(x, mul(keep, scalar_tensor(Scalar(p == 1 ? 0.0 : 1.0 / (1.0 - p)))));
}

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx) {
  TANDEM_CHECK(weight.dim() == 2, ValueError,
               "embedding: weight must be 2-D (num_embeddings, dim), got shape ",
               shape_str(weight.shape()));
  TANDEM_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, TypeError,
               "embedding: indices must be an integer tensor (int64), got ",
               dtype_name(indices.dtype()));
  // An index must name a row: index_select's kernel refuses negative and too large ones
  // (IndexError naming embedding) as it gathers, also in a compiled graph, where the indices
  // have no values while tracing.
  Tensor flat = reshape(indices, {-1});
  Tensor rows = index_select_for("embedding", weight, 0, flat);
  if (padding_idx >= 0 && requires_grad(rows)) {
    // The padding row's value is returned as is but receives no gradient (PyTorch).
    Tensor keep = unsqueeze(ne(flat, scalar_tensor(Scalar(padding_idx))), 1);
    rows = where(keep, rows, detach(rows));
  }
  Shape s = indices.shape();
  s.push_back(weight.shape()[1]);
  return reshape(rows, s);
}

Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx) {
  TANDEM_CHECK(grad_out.dim() == indices.dim() + 1, ValueError, "embedding_backward: grad_output ",
               shape_str(grad_out.shape()), " must be the indices' shape ",
               shape_str(indices.shape()), " plus the embedding dim");
  TANDEM_CHECK(padding_idx < num_weights, IndexError, "embedding_backward: padding_idx ",
               padding_idx, " is out of range for ", num_weights, " embeddings");
  int64_t d = grad_out.shape().back();
  Tensor g = reshape(grad_out, {indices.numel(), d});  // not -1: ambiguous when d is 0
  Tensor idx = reshape(indices, {-1});
  // index_add's kernel checks the bounds (a direct call's bad index raises IndexError naming
  // embedding_backward), so neither eager nor a traced step reads the indices beforehand.
  Tensor gw =
      index_add_for("embedding_backward", zeros({num_weights, d}, grad_out.dtype()), 0, idx, g);
  if (padding_idx >= 0) fill_(select(gw, 0, padding_idx), Scalar(0.0));
  return gw;
}

}  // namespace tandem
