// dispatch's eager path (operands by pointer, OpDef::eager) must give what the general path
// gives: values, dtypes, broadcasting, strided operands, and autograd recording. And
// parallel_region: one run of the body on one thread, every loop iteration exactly once.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <vector>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

Tensor iota(Shape shape, DType dtype) {
  Tensor t = arange(1, double(numel_of(shape)) + 1, 1, DType::Float64);  // no 0: no 0 / 0
  return to_dtype(reshape(t, shape), dtype);
}

std::vector<double> values(const Tensor& t) {
  Tensor c = to_dtype(t, DType::Float64).contiguous();
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

// The general path: find_op + dispatch1 over a vector, as the graph executor and any caller
// with attributes use it.
Tensor general(const char* op, const Tensor& a, const Tensor& b) {
  return dispatch1(*find_op(op), {a, b});
}

TEST(EagerDispatch, BinaryOpsMatchTheGeneralPath) {
  Tensor a = iota({3, 4}, DType::Float32), b = iota({4}, DType::Int32);
  Tensor at = transpose(iota({4, 3}, DType::Float32), 0, 1);  // strided: the general kernel
  Tensor s = scalar_tensor(Scalar(2.5));
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "lt", "pow"}) {
    for (auto [x, y] : {std::pair{a, b}, std::pair{at, a}, std::pair{a, s}, std::pair{s, b}}) {
      Tensor fast = dispatch_binary(*find_op(op), x, y);
      Tensor slow = general(op, x, y);
      EXPECT_EQ(fast.dtype(), slow.dtype()) << op;
      EXPECT_EQ(fast.shape(), slow.shape()) << op;
      EXPECT_EQ(values(fast), values(slow)) << op;
    }
  }
}

TEST(EagerDispatch, UnaryOpsMatchTheGeneralPath) {
  Tensor a = iota({5}, DType::Float64);
  Tensor fast = dispatch_unary(*find_op("exp"), a);
  Tensor slow = dispatch1(*find_op("exp"), {a});
  EXPECT_EQ(values(fast), values(slow));
}

TEST(EagerDispatch, ErrorsAreTheGeneralPathsErrors) {
  Tensor a = iota({3}, DType::Float32), b = iota({4}, DType::Float32);
  EXPECT_THROW(add(a, b), ValueError);         // no broadcast
  EXPECT_THROW(add(a, Tensor()), ValueError);  // a missing operand
  EXPECT_THROW(bitwise_and(a, a), TypeError);  // float bitwise
}

TEST(EagerDispatch, RecordsGradientsWhenAnOperandRequiresThem) {
  Tensor x = iota({3}, DType::Float32);
  set_requires_grad(x, true);
  Tensor y = mul(x, x);
  ASSERT_TRUE(requires_grad(y));
  backward({sum(y)});
  EXPECT_EQ(values(grad(x)), (std::vector<double>{2, 4, 6}));
  {
    GradModeGuard off(false);
    EXPECT_FALSE(requires_grad(mul(x, x)));
  }
}

TEST(ParallelRegion, OneThreadRunsTheBodyOnceAndEveryIteration) {
  int runs = 0;
  std::vector<int> seen(100, 0);
  parallel_region(1, [&] {
    ++runs;
#pragma omp for schedule(static)
    for (int i = 0; i < 100; ++i) seen[size_t(i)]++;
  });
  EXPECT_EQ(runs, 1);
  for (int v : seen) EXPECT_EQ(v, 1);
}

TEST(ParallelRegion, SeveralThreadsShareTheLoop) {
  std::atomic<int> runs{0};
  std::vector<int> seen(1000, 0);
  parallel_region(2, [&] {
    runs++;
#pragma omp for schedule(static) collapse(2)
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 100; ++j) seen[size_t(i * 100 + j)]++;
  });
  EXPECT_EQ(runs.load(), 2);
  for (int v : seen) EXPECT_EQ(v, 1);
}

}  // namespace
}  // namespace tandem
