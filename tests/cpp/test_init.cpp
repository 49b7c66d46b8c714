// nn.init in C++: fans, gains, the Householder Q factor (orthonormal columns, Q R = A with a
// non-negative diagonal) and in-place fills of tensors that require grad.
#include <gtest/gtest.h>

#include <cmath>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/nn/init.h"
#include "tandem/ops/creation.h"
#include "test_util.h"

using namespace tandem;

namespace {

TEST(Init, FansAndGains) {
  auto [fi, fo] = init::calculate_fan_in_and_fan_out(zeros({8, 3, 5, 5}));
  EXPECT_EQ(fi, 75);
  EXPECT_EQ(fo, 200);
  EXPECT_THROW(init::calculate_fan_in_and_fan_out(zeros({4})), ValueError);
  EXPECT_DOUBLE_EQ(init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu", 0.5), std::sqrt(2.0 / 1.25));
  EXPECT_DOUBLE_EQ(init::calculate_gain("tanh"), 5.0 / 3);
  EXPECT_THROW(init::calculate_gain("swish"), ValueError);
}

TEST(Init, HouseholderQReconstructsA) {
  manual_seed(3);
  const int64_t m = 9, n = 5;
  Tensor a = randn({m, n}, DType::Float64);
  Tensor q = init::householder_q(a);
  const double* A = a.data<double>();
  const double* Q = q.data<double>();
  // Q^T Q = I.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < m; ++k) s += Q[k * n + i] * Q[k * n + j];
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12);
    }
  // R = Q^T A is upper triangular with a non-negative diagonal, and Q R = A.
  std::vector<double> R(size_t(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < m; ++k) s += Q[k * n + i] * A[k * n + j];
      R[size_t(i * n + j)] = s;
      if (i > j) EXPECT_NEAR(s, 0.0, 1e-12);
    }
  for (int64_t i = 0; i < n; ++i) EXPECT_GT(R[size_t(i * n + i)], 0.0);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += Q[r * n + k] * R[size_t(k * n + c)];
      EXPECT_NEAR(s, A[r * n + c], 1e-12);
    }
  EXPECT_THROW(init::householder_q(randn({3, 5}, DType::Float64)), ValueError);
  EXPECT_THROW(init::householder_q(randn({5, 3})), TypeError);
}

TEST(Init, FillsLeavesThatRequireGrad) {
  Tensor w = zeros({16, 8});
  set_requires_grad(w, true);
  init::xavier_uniform_(w);
  init::orthogonal_(w, 2.0);
  const float* p = w.data<float>();
  for (int64_t i = 0; i < 8; ++i) {  // columns are orthogonal with norm 2
    double s = 0;
    for (int64_t k = 0; k < 16; ++k) s += double(p[k * 8 + i]) * p[k * 8 + i];
    EXPECT_NEAR(s, 4.0, 1e-4);
  }
  EXPECT_TRUE(is_leaf(w));
  EXPECT_TRUE(requires_grad(w));
  EXPECT_THROW(init::normal_(zeros({3}, DType::Int32)), TypeError);
  EXPECT_THROW(init::eye_(zeros({2, 2, 2})), ValueError);
}

}  // namespace
