// The fused recurrent layer (ops/rnn.h) against the same recurrence written with plain ops
// (matmul, sigmoid, tanh, ...) and differentiated by the tape: outputs and every gradient,
// for each mode, both directions, float32 and float64, sizes that leave partial SIMD lanes
// and cross the threaded-gates grain. Run under the sanitizer build too.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tandem/autograd/autograd.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/rnn.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

int gates(const std::string& mode) {
  return mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1;
}

// h of every step (and LSTM's c) by the textbook recurrence on ops.
std::pair<Tensor, Tensor> reference(const std::string& mode, const Tensor& xw, const Tensor& h0,
                                    const Tensor& c0, const Tensor& w, const Tensor& b,
                                    bool reverse) {
  const int64_t L = xw.shape()[0], H = h0.shape()[1];
  std::vector<Tensor> hs(static_cast<size_t>(L)), cs(static_cast<size_t>(L));
  Tensor h = h0, c = c0;
  auto chunk = [&](const Tensor& t, int k) { return narrow(t, 1, k * H, H); };
  for (int64_t s = 0; s < L; ++s) {
    const int64_t t = reverse ? L - 1 - s : s;
    Tensor gh = add(matmul(h, transpose(w, 0, 1)), b);
    Tensor x = select(xw, 0, t);
    if (mode == "LSTM") {
      Tensor g = add(x, gh);
      Tensor i = sigmoid(chunk(g, 0)), f = sigmoid(chunk(g, 1)), gg = tanh(chunk(g, 2)),
             o = sigmoid(chunk(g, 3));
      c = add(mul(f, c), mul(i, gg));
      h = mul(o, tanh(c));
      cs[size_t(t)] = c;
    } else if (mode == "GRU") {
      Tensor r = sigmoid(add(chunk(x, 0), chunk(gh, 0)));
      Tensor z = sigmoid(add(chunk(x, 1), chunk(gh, 1)));
      Tensor n = tanh(add(chunk(x, 2), mul(r, chunk(gh, 2))));
      h = add(n, mul(z, sub(h, n)));
    } else {
      Tensor pre = add(x, gh);
      h = mode == "RNN_TANH" ? tanh(pre) : relu(pre);
    }
    hs[size_t(t)] = h;
  }
  return {stack(hs, 0), mode == "LSTM" ? stack(cs, 0) : Tensor()};
}

void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_TRUE(a.defined() && b.defined()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  std::vector<double> x = values(a), y = values(b);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  EXPECT_LE(worst, tol) << what;
}

Tensor leaf_randn(const Shape& s, DType dt, double scale) {
  Tensor t = mul(randn(s, dt), scalar_tensor(Scalar(scale)));
  Tensor c = t.contiguous();
  set_requires_grad(c, true);
  return c;
}

using Case = std::tuple<std::string, bool, DType, int64_t, int64_t>;  // mode, reverse, dt, N, H

class FusedRnn : public ::testing::TestWithParam<Case> {};

TEST_P(FusedRnn, MatchesTheOpRecurrence) {
  const auto [mode, reverse, dt, N, H] = GetParam();
  manual_seed(11);
  const int64_t L = 4, G = gates(mode) * H;
  const bool lstm = mode == "LSTM";
  Tensor xw = leaf_randn({L, N, G}, dt, 1.0), h0 = leaf_randn({N, H}, dt, 1.0);
  Tensor c0 = lstm ? leaf_randn({N, H}, dt, 1.0) : Tensor();
  Tensor w = leaf_randn({G, H}, dt, 0.3), b = leaf_randn({G}, dt, 1.0);
  std::vector<Tensor> leaves{xw, h0, w, b};
  if (lstm) leaves.push_back(c0);
  // Random output weights make every element of every output matter to the loss.
  Tensor wo = randn({L, N, H}, dt), wc = randn({L, N, H}, dt);
  auto loss_of = [&](const Tensor& out, const Tensor& c) {
    Tensor l = sum(mul(out, wo));
    return lstm ? add(l, sum(mul(c, wc))) : l;
  };
  auto [ref_out, ref_c] = reference(mode, xw, h0, c0, w, b, reverse);
  std::vector<Tensor> ref_grads = grad({loss_of(ref_out, ref_c)}, leaves);
  std::vector<Tensor> fused = rnn_layer(mode, xw, h0, c0, w, b, reverse);
  std::vector<Tensor> grads = grad({loss_of(fused[0], fused[1])}, leaves);
  const double tol = dt == DType::Float64 ? 1e-11 : 2e-5;
  expect_close(fused[0], ref_out, tol, "out");
  if (lstm) expect_close(fused[1], ref_c, tol, "c");
  const char* names[] = {"d xw", "d h0", "d w_hh", "d b_hh", "d c0"};
  for (size_t i = 0; i < leaves.size(); ++i)
    expect_close(grads[i], ref_grads[i], tol * 20, names[i]);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, FusedRnn,
    ::testing::Combine(::testing::Values("LSTM", "GRU", "RNN_TANH", "RNN_RELU"), ::testing::Bool(),
                       ::testing::Values(DType::Float32, DType::Float64),
                       ::testing::Values(int64_t(3)), ::testing::Values(int64_t(19))));
// Wide enough for the threaded gates (N * G * H past the grain), odd H for partial lanes.
INSTANTIATE_TEST_SUITE_P(Threaded, FusedRnn,
                         ::testing::Combine(::testing::Values("LSTM", "GRU"), ::testing::Bool(),
                                            ::testing::Values(DType::Float32),
                                            ::testing::Values(int64_t(40)),
                                            ::testing::Values(int64_t(67))));

TEST(FusedRnn, NoBiasAndErrors) {
  Tensor xw = randn({2, 3, 8}), h0 = zeros({3, 2}), w = randn({8, 2});
  auto r = rnn_layer("LSTM", xw, h0, h0, w, Tensor(), true);
  EXPECT_EQ(r[0].shape(), (Shape{2, 3, 2}));
  EXPECT_THROW(rnn_layer("LSTM", xw, h0, Tensor(), w, Tensor(), false), ValueError);
  EXPECT_THROW(rnn_layer("GRU", xw, h0, Tensor(), w, Tensor(), false), ValueError);
  EXPECT_THROW(rnn_layer("lstm", xw, h0, h0, w, Tensor(), false), ValueError);
  EXPECT_THROW(
      rnn_layer("RNN_TANH", randn({0, 3, 2}), h0, Tensor(), randn({2, 2}), Tensor(), false),
      ValueError);
}

}  // namespace
