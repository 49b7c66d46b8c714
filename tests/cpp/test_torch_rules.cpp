// Argument rules the differential fuzzer found missing against PyTorch, checked at the C++
// API (the Python faces add nothing to them): index bounds without wrapping, value checks
// that run where the values exist, convolutions without input channels, zero-variance
// gradients.
#include <gtest/gtest.h>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

TEST(TorchRules, IndexSelectAndIndexAddTakeNoNegativeIndices) {
  Tensor x = from_vec<float>({1, 2, 3}, {3});
  Tensor neg = from_vec<int64_t>({0, -1}, {2});
  EXPECT_THROW(index_select(x, 0, neg), IndexError);
  EXPECT_THROW(index_add(x, 0, neg, from_vec<float>({1, 1}, {2})), IndexError);
  // index / index_put themselves still count negative indices from the end
  EXPECT_EQ(read_at(index(x, {0}, {neg}), 1), 3.0);
  // a 0-d input adds into its one element
  Tensor s = index_add(from_vec<int64_t>({1}, {}), 0, from_vec<int64_t>({0}, {}),
                       from_vec<int64_t>({5}, {}), Scalar(int64_t(1)));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(read_at(s, 0), 6.0);
  // a float alpha is truncated for an integer input, as torch converts it
  Tensor t = index_add(from_vec<int64_t>({1, 1}, {2}), 0, from_vec<int64_t>({0}, {1}),
                       from_vec<int64_t>({7}, {1}), Scalar(-3.25));
  EXPECT_EQ(read_at(t, 0), 1.0 - 21.0);
}

TEST(TorchRules, CheckBetweenAndCheckFitsRaiseWhereValuesExist) {
  Tensor p = from_vec<float>({0.2f, 0.9f}, {2});
  EXPECT_TRUE(check_between(p, 0, 1, "probs").same(p));  // eager: no op recorded
  EXPECT_THROW(check_between(from_vec<float>({-0.5f, 0.5f}, {2}), 0, 1, "probs"), ValueError);
  EXPECT_THROW(check_between(from_vec<float>({NAN, 0.5f}, {2}), 0, 1, "probs"), ValueError);
  EXPECT_THROW(check_between(from_vec<int64_t>({3}, {1}), 0, 2, "idx", "", true), Error);
  EXPECT_THROW(check_fits(from_vec<double>({1e30}, {}), DType::Int8, "fill"), ValueError);
  EXPECT_NO_THROW(check_fits(from_vec<double>({INFINITY}, {}), DType::Float16, "fill"));
  EXPECT_THROW(
      masked_fill(zeros({2}, DType::Int8), from_bools({1, 0}, {2}), from_vec<double>({300.0}, {})),
      ValueError);
}

TEST(TorchRules, GatherWithAZeroDIndexPicksOneElement) {
  Tensor g = gather(from_vec<float>({1, 2, 3}, {3}), -1, from_vec<int64_t>({2}, {}));
  EXPECT_EQ(g.dim(), 0);
  EXPECT_EQ(read_at(g, 0), 3.0);
}

TEST(TorchRules, CrossNeedsThreeVectorsInBothOperands) {
  EXPECT_THROW(cross(ones({5, 3, 2}), ones({1, 1, 2}), 1), ValueError);
  EXPECT_NO_THROW(cross(ones({4, 3}), ones({1, 3}), 1));  // batch dims broadcast
}

TEST(TorchRules, ConvolutionWithoutInputChannelsIsItsBias) {
  Tensor x = zeros({2, 0, 4, 3}), w = ones({5, 0, 2, 2});
  Tensor b = from_vec<float>({1, 2, 3, 4, 5}, {5});
  Tensor y = conv2d(x, w, b, Conv2dArgs{});
  ASSERT_EQ(y.shape(), Shape({2, 5, 3, 2}));
  EXPECT_EQ(read_at(y, 0), 1.0);
  EXPECT_EQ(read_at(y, 6 * 4), 5.0);  // channel 4 of the first image
  std::vector<Tensor> g = conv2d_backward_weight(x, ones({2, 5, 3, 2}), {5, 0, 2, 2}, {});
  EXPECT_EQ(read_at(g[1], 0), 12.0);  // the bias gradient sums N * OH * OW ones
}

TEST(TorchRules, StdOfAConstantSliceHasZeroGradient) {
  Tensor x = from_vec<double>({2, 2, 1, 3}, {2, 2});
  set_requires_grad(x, true);
  sum(tandem::std(x, std::vector<int64_t>{1})).backward();
  Tensor g = grad(x);
  for (int64_t i = 0; i < 2; ++i) EXPECT_EQ(read_at(g, i), 0.0);  // was NaN (0 * inf)
  EXPECT_NEAR(read_at(g, 2), -0.7071067811865476, 1e-12);
}
