#include <gtest/gtest.h>

#include "tandem/core/error.h"
#include "tandem/core/shape.h"
#include "test_util.h"

using namespace tandem;
using tandem::testing::throws_with;

TEST(Shape, NumelAndStr) {
  EXPECT_EQ(numel_of({}), 1);
  EXPECT_EQ(numel_of({2, 3, 4}), 24);
  EXPECT_EQ(numel_of({2, 0, 4}), 0);
  EXPECT_EQ(shape_str({}), "[]");
  EXPECT_EQ(shape_str({2, 3}), "[2, 3]");
}

TEST(Shape, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 3}, "op"), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({4, 3}, {2, 1, 3}, "op"), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {3}, "op"), (Shape{3}));
  EXPECT_EQ(broadcast_shapes({3}, {}, "op"), (Shape{3}));
  EXPECT_EQ(broadcast_shapes({}, {}, "op"), (Shape{}));
  EXPECT_EQ(broadcast_shapes({5, 1}, {1, 6}, "op"), (Shape{5, 6}));
  // Size 0 broadcasts against 1 (and only 1), as in numpy.
  EXPECT_EQ(broadcast_shapes({0}, {1}, "op"), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({5, 0}, {1}, "op"), (Shape{5, 0}));
  EXPECT_EQ(broadcast_shapes({1, 4}, {0, 1}, "op"), (Shape{0, 4}));
  EXPECT_THROW(broadcast_shapes({0}, {2}, "op"), ValueError);
}

TEST(Shape, BroadcastShapesErrorMessage) {
  // The message names the op, both shapes and the offending dimension.
  EXPECT_TRUE(throws_with<ValueError>(
      [] {
        broadcast_shapes({2, 3}, {4, 3}, "myop");
      },
      {"myop: ", "[2, 3]", "[4, 3]", "cannot be broadcast", "dimension 0", "2 vs 4"}));
  // With different ranks the dimension is counted in the broadcast result.
  EXPECT_TRUE(throws_with<ValueError>(
      [] {
        broadcast_shapes({7, 2, 5}, {3, 5}, "add");
      },
      {"add: ", "[7, 2, 5]", "[3, 5]", "dimension 1", "2 vs 3"}));
}

TEST(Shape, WrapDim) {
  EXPECT_EQ(wrap_dim(0, 3, "op"), 0);
  EXPECT_EQ(wrap_dim(2, 3, "op"), 2);
  EXPECT_EQ(wrap_dim(-1, 3, "op"), 2);
  EXPECT_EQ(wrap_dim(-3, 3, "op"), 0);
  // A 0-d tensor has no dims: ops that index shape() with the result must not get one
  // (unflatten(tensor(1.), 0, (1,)) read past the end of an empty shape).
  EXPECT_TRUE(throws_with<IndexError>([] { wrap_dim(0, 0, "unflatten"); },
                                      {"unflatten: ", "no dimensions"}));
  EXPECT_THROW(wrap_dim(-1, 0, "op"), IndexError);
  // Reductions, scans, sorts and gather / scatter take dim 0 and -1 of a 0-d tensor, like
  // PyTorch.
  EXPECT_EQ(wrap_dim_scalar(0, 0, "op"), 0);
  EXPECT_EQ(wrap_dim_scalar(-1, 0, "op"), 0);
  EXPECT_EQ(wrap_dim_scalar(-1, 3, "op"), 2);
  EXPECT_TRUE(
      throws_with<IndexError>([] { wrap_dim(3, 3, "sum"); }, {"sum: ", "[-3, 2]", "got 3"}));
  EXPECT_TRUE(
      throws_with<IndexError>([] { wrap_dim(-4, 3, "mean"); }, {"mean: ", "[-3, 2]", "got -4"}));
  EXPECT_TRUE(throws_with<IndexError>([] { wrap_dim_scalar(1, 0, "op"); }, {"[-1, 0]", "got 1"}));
  EXPECT_THROW(wrap_dim_scalar(-2, 0, "op"), IndexError);
}

TEST(Shape, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({}), (Strides{}));
  EXPECT_EQ(contiguous_strides({5}), (Strides{1}));
  EXPECT_EQ(contiguous_strides({3, 1, 2}), (Strides{2, 2, 1}));
  // Zero-size dims count as 1 (PyTorch's convention), so strides stay positive.
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (Strides{3, 3, 1}));
}

TEST(Shape, BroadcastStrides) {
  // (3, 1) with strides (1, 1) seen as (2, 3, 4): new leading dim and the size-1 dim get 0.
  EXPECT_EQ(broadcast_strides({3, 1}, {1, 1}, {2, 3, 4}), (Strides{0, 1, 0}));
  EXPECT_EQ(broadcast_strides({}, {}, {2, 3}), (Strides{0, 0}));
  EXPECT_EQ(broadcast_strides({2, 3}, {3, 1}, {2, 3}), (Strides{3, 1}));
  // Negative and transposed strides pass through unchanged.
  EXPECT_EQ(broadcast_strides({4, 3}, {-1, 4}, {5, 4, 3}), (Strides{0, -1, 4}));
}
