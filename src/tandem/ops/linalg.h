// Linear algebra: the matmul family (numpy / PyTorch semantics), contractions and small
// matrix helpers.
#pragma once
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// numpy matmul: 1-D operands are promoted to a matrix and the added dim removed after;
// batch dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);   // 2-D only
Tensor bmm(const Tensor& a, const Tensor& b);  // 3-D only, equal batch sizes
Tensor mv(const Tensor& a, const Tensor& v);   // 2-D x 1-D
Tensor dot(const Tensor& a, const Tensor& b);  // 1-D x 1-D
Tensor outer(const Tensor& a, const Tensor& b);
// beta * input + alpha * (m1 @ m2)
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, Scalar beta = 1,
             Scalar alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, Scalar beta = 1,
               Scalar alpha = 1);
// x @ weight^T + bias (bias may be undefined).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// Contraction over the listed dims of a and b.
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& dims_a,
                 const std::vector<int64_t>& dims_b);
// Einstein summation for equations of single-letter subscripts with optional "->".
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
Tensor trace(const Tensor& x);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
// Pairwise p-norm distances between the rows of x1 (.., P, M) and x2 (.., R, M).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0);
// Inverse of square matrices (batched), by Gauss-Jordan elimination with partial pivoting.
Tensor inv(const Tensor& x);

}  // namespace tandem
