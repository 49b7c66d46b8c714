// The C++ autograd API: requires_grad flags, backward and .grad accumulation, grad() with
// create_graph (second derivatives), grad mode, and the error for an op without a vjp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_TRUE(t.defined());
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// A leaf that requires grad.
Tensor leaf(const std::vector<double>& v, const Shape& shape) {
  Tensor t = from_vec(v, shape);
  set_requires_grad(t, true);
  return t;
}

TEST(Autograd, RequiresGradFlags) {
  Tensor x = from_vec<double>({1, 2, 3}, {3});
  EXPECT_FALSE(requires_grad(x));
  EXPECT_TRUE(is_leaf(x));
  set_requires_grad(x, true);
  EXPECT_TRUE(requires_grad(x));
  Tensor y = mul(x, x);
  EXPECT_TRUE(requires_grad(y));
  EXPECT_FALSE(is_leaf(y));
  EXPECT_EQ(grad_fn_name(y), "mul");
  EXPECT_EQ(grad_fn_name(x), "");
  // Integer tensors can't require grad; non-leaves can't drop it.
  Tensor i = from_vec<int64_t>({1, 2}, {2});
  EXPECT_THROW(set_requires_grad(i, true), Error);
  EXPECT_THROW(set_requires_grad(y, false), Error);
  // Nothing is recorded from tensors that don't require grad.
  Tensor z = add(from_vec<double>({1}, {1}), from_vec<double>({2}, {1}));
  EXPECT_FALSE(requires_grad(z));
  EXPECT_TRUE(is_leaf(z));
}

TEST(Autograd, BackwardAccumulatesIntoGrad) {
  Tensor x = leaf({1, 2, 3}, {3});
  EXPECT_FALSE(grad(x).defined());
  backward({sum(mul(x, x))});  // d/dx sum(x^2) = 2x
  expect_values(grad(x), {2, 4, 6});
  backward({sum(mul(x, x))});
  expect_values(grad(x), {4, 8, 12});
  set_grad(x, Tensor());
  EXPECT_FALSE(grad(x).defined());
}

TEST(Autograd, BackwardWithGradientAndBroadcast) {
  Tensor a = leaf({1, 2, 3}, {3, 1});
  Tensor b = leaf({10, 20}, {1, 2});
  Tensor y = mul(a, b);  // (3, 2)
  Tensor v = from_vec<double>({1, 2, 3, 4, 5, 6}, {3, 2});
  backward({y}, {v});
  // dL/da[i] = sum_j v[i,j] b[j]; dL/db[j] = sum_i v[i,j] a[i]
  expect_values(grad(a), {1 * 10 + 2 * 20, 3 * 10 + 4 * 20, 5 * 10 + 6 * 20});
  expect_values(grad(b), {1 * 1 + 3 * 2 + 5 * 3, 2 * 1 + 4 * 2 + 6 * 3});
  EXPECT_EQ(grad(a).shape(), (Shape{3, 1}));
  // A non-scalar root needs an explicit gradient; a wrong shape is rejected.
  EXPECT_THROW(backward({mul(a, b)}), Error);
  EXPECT_THROW(backward({mul(a, b)}, {from_vec<double>({1, 2}, {2})}), ValueError);
}

TEST(Autograd, RetainGraph) {
  Tensor x = leaf({0.5, -1}, {2});
  Tensor y = sum(exp(x));
  backward({y}, {}, /*retain_graph=*/true);
  backward({y});
  expect_values(grad(x), {2 * std::exp(0.5), 2 * std::exp(-1.0)});
  try {
    backward({y});
    FAIL() << "a third backward through a freed graph must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
}

TEST(Autograd, GradFunctionLeavesDotGradAlone) {
  Tensor x = leaf({1, 2}, {2});
  Tensor w = leaf({3, 4}, {2});
  Tensor y = sum(mul(mul(x, x), w));  // sum(w x^2)
  std::vector<Tensor> g = grad({y}, {x, w});
  ASSERT_EQ(g.size(), 2u);
  expect_values(g[0], {2 * 1 * 3, 2 * 2 * 4});
  expect_values(g[1], {1, 4});
  EXPECT_FALSE(grad(x).defined());
  EXPECT_FALSE(grad(w).defined());
  // An unused input: error unless allow_unused, then undefined.
  Tensor u = leaf({1}, {1});
  EXPECT_THROW(grad({sum(mul(x, x))}, {u}), Error);
  std::vector<Tensor> gu = grad({sum(mul(x, x))}, {x, u}, {}, false, false, true);
  EXPECT_TRUE(gu[0].defined());
  EXPECT_FALSE(gu[1].defined());
}

TEST(Autograd, GradOfIntermediateDoesNotConsumeTheRest) {
  Tensor a = leaf({1, 2}, {2});
  Tensor h = mul(a, a);
  std::vector<Tensor> g = grad({sum(mul(h, h))}, {h});  // d/dh sum(h^2) = 2h
  expect_values(g[0], {2, 8});
  // h's own history was not run (nor freed) by that grad call.
  backward({sum(h)});
  expect_values(grad(a), {2, 4});
}

TEST(Autograd, SecondDerivativeWithCreateGraph) {
  Tensor x = leaf({2, -1}, {2});
  Tensor y = sum(mul(mul(x, x), x));  // sum(x^3)
  // As in PyTorch, a graph to differentiate again must be retained.
  std::vector<Tensor> g = grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  expect_values(g[0], {12, 3});  // 3x^2
  EXPECT_TRUE(requires_grad(g[0]));
  std::vector<Tensor> h = grad({sum(g[0])}, {x});
  expect_values(h[0], {12, -6});  // 6x
  // Without create_graph the gradient has no history.
  Tensor y2 = sum(mul(mul(x, x), x));
  std::vector<Tensor> g2 = grad({y2}, {x});
  EXPECT_FALSE(requires_grad(g2[0]));
}

TEST(Autograd, MatmulGradient) {
  Tensor a = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = leaf({1, 0, -1, 2, 0.5, 1}, {3, 2});
  backward({sum(matmul(a, b))});
  // d/da sum(a b) = ones(2,2) b^T; d/db = a^T ones(2,2)
  expect_values(grad(a), {1, 1, 1.5, 1, 1, 1.5});
  expect_values(grad(b), {5, 5, 7, 7, 9, 9});
}

TEST(Autograd, GradModeGuard) {
  Tensor x = leaf({1, 2}, {2});
  EXPECT_TRUE(is_grad_enabled());
  {
    GradModeGuard off(false);
    EXPECT_FALSE(is_grad_enabled());
    Tensor y = mul(x, x);
    EXPECT_FALSE(requires_grad(y));
    {
      GradModeGuard on(true);
      EXPECT_TRUE(is_grad_enabled());
      EXPECT_TRUE(requires_grad(mul(x, x)));
    }
    EXPECT_FALSE(is_grad_enabled());
    // In-place updates of a leaf are allowed with grad mode off (an optimizer step).
    apply_inplace("sub", x, from_vec<double>({0.5, 0.5}, {2}));
    EXPECT_TRUE(is_leaf(x));
  }
  EXPECT_TRUE(is_grad_enabled());
  expect_values(x, {0.5, 1.5});
  EXPECT_THROW(apply_inplace("sub", x, from_vec<double>({0.5, 0.5}, {2})), Error);
  // backward works inside a no-grad scope (the engine sets its own mode).
  Tensor y = sum(mul(x, x));
  {
    GradModeGuard off(false);
    backward({y});
  }
  expect_values(grad(x), {1, 3});
}

TEST(Autograd, HooksAndRetainGrad) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = mul(x, from_vec<double>({3, 3}, {2}));
  retain_grad(y);
  int calls = 0;
  register_hook(y, [&](const Tensor& g) {
    ++calls;
    return mul(g, from_vec<double>({10, 10}, {2}));
  });
  backward({sum(mul(y, y))});
  EXPECT_EQ(calls, 1);
  expect_values(grad(y), {60, 120});   // 2y, scaled by the hook
  expect_values(grad(x), {180, 360});  // 3 * the replaced gradient
  EXPECT_THROW(register_hook(from_vec<double>({1}, {1}), nullptr), Error);
}

TEST(Autograd, InplaceOnSavedTensorIsDetected) {
  Tensor x = leaf({0.5, 1}, {2});
  Tensor y = exp(x);  // exp's rule reads its output
  apply_inplace("mul", y, from_vec<double>({2, 2}, {2}));
  try {
    backward({sum(y)});
    FAIL() << "backward through a modified saved output must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos)
        << e.what();
  }
  // mul's rule doesn't read its output: rebasing y = 2x; y += 1 is fine.
  Tensor z = mul(x, from_vec<double>({2, 2}, {2}));
  apply_inplace("add", z, from_vec<double>({1, 1}, {2}));
  backward({sum(z)});
  expect_values(grad(x), {2, 2});
}

TEST(Autograd, DetachSharesDataWithoutHistory) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = mul(x, x);
  Tensor d = detach(y);
  EXPECT_FALSE(requires_grad(d));
  EXPECT_TRUE(d.shares_storage(y));
  detach_(y);
  EXPECT_TRUE(is_leaf(y));
  EXPECT_FALSE(requires_grad(y));
}

TEST(Autograd, DeepChainFreesAndBackpropsIteratively) {
  Tensor x = leaf({1}, {1});
  Tensor one = from_vec<double>({1}, {1});
  {
    Tensor s = x;
    for (int i = 0; i < 100000; ++i) s = add(s, one);
  }  // freeing 100k nodes must not recurse
  Tensor s = x;
  for (int i = 0; i < 100000; ++i) s = add(s, x);
  backward({sum(s)});
  expect_values(grad(x), {100001});
}

// An op registered here without a backward rule: backward must name it.
std::vector<TensorMeta> novjp_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), in[0].dtype()}};
}
void novjp_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs&) {
  Tensor src = in[0].contiguous();
  const double* s = src.data<double>();
  double* d = out[0].data<double>();
  for (int64_t i = 0; i < src.numel(); ++i) d[i] = s[i] * s[i];
}
const OpDef novjp_op = make_op("test_square_without_vjp", novjp_infer, novjp_kernel);

TEST(Autograd, MissingVjpNamesTheOp) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = dispatch1(novjp_op, {x});
  EXPECT_TRUE(requires_grad(y));  // recorded: the error comes at backward, not forward
  try {
    backward({sum(y)});
    FAIL() << "backward through an op without a vjp must throw";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("test_square_without_vjp"), std::string::npos) << e.what();
  }
  // grad() only runs the rules on the way to its inputs, so an op outside that path is fine.
  Tensor w = leaf({3, 4}, {2});
  Tensor z = sum(mul(dispatch1(novjp_op, {x}), w));
  expect_values(grad({z}, {w})[0], {1, 4});
}

}  // namespace

TEST(AutogradFunctional, ValueAndGradMatchesAnalytic) {
  using namespace tandem;
  // f(x, w) = sum(x * x * w): df/dx = 2 x w, df/dw = x^2.
  Tensor x = arange(Scalar(1.0), Scalar(4.0), Scalar(1.0), DType::Float64);
  Tensor w = full({3}, Scalar(2.0), DType::Float64);
  set_requires_grad(w, true);
  auto vg = value_and_grad(
      [&](const std::vector<Tensor>& a) { return sum(mul(mul(a[0], a[0]), w)); }, {0}, {w});
  auto [value, grads] = vg({x});
  EXPECT_DOUBLE_EQ(value.item_double(), 2.0 * (1 + 4 + 9));
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_DOUBLE_EQ(grads[0].contiguous().data<double>()[2], 2 * 3.0 * 2.0);
  EXPECT_DOUBLE_EQ(grads[1].contiguous().data<double>()[1], 4.0);
  EXPECT_FALSE(tandem::grad(x).defined());  // the caller's tensor is untouched
}

TEST(AutogradFunctional, TensorBackwardMember) {
  using namespace tandem;
  Tensor x = full({2}, Scalar(3.0), DType::Float64);
  set_requires_grad(x, true);
  sum(mul(x, x)).backward();
  EXPECT_DOUBLE_EQ(tandem::grad(x).contiguous().data<double>()[0], 6.0);
}
