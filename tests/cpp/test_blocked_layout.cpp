// Channel-blocked activations (ops/layout.h): the layout conversions, the blocked forms of
// convolution (forward, both gradients, the bf16 GEMM weight gradient) and batch norm
// (forward, backward, folded relu) against their plain forms, the errors of malformed
// blocked nodes, and the graph pass that keeps a network's activations blocked.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/jit.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/layout.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

constexpr int64_t L = kChannelBlock;

Tensor random_tensor(const Shape& s, uint32_t seed, DType dt = DType::Float32) {
  std::vector<float> v;
  for (double d : random_values(size_t(numel_of(s)), -2.0, 2.0, seed)) v.push_back(float(d));
  return to_dtype(from_vec(v, s), dt);
}

Attrs conv_attrs(int64_t s, int64_t p, bool blocked) {
  Attrs at{{"stride", std::vector<int64_t>{s, s}},
           {"padding", std::vector<int64_t>{p, p, p, p}},
           {"dilation", std::vector<int64_t>{1, 1}},
           {"groups", int64_t(1)}};
  if (blocked) at.set("channel_block", L);
  return at;
}

Conv2dArgs conv_args(int64_t s, int64_t p) {
  Conv2dArgs a;
  a.stride = {s, s};
  a.padding = {p, p, p, p};
  return a;
}

void expect_same(const Tensor& got, const Tensor& want, double tol = 0.0) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  const std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - w[i]), tol * (1.0 + std::fabs(w[i])))
        << "element " << i << ": " << g[i] << " vs " << w[i];
}

}  // namespace

TEST(BlockedLayout, ConversionsPlaceEachChannelInItsLane) {
  const Shape s{2, 32, 3, 5};
  Tensor x = iota(s);
  Tensor b = to_channel_blocked(x, L);
  ASSERT_EQ(b.shape(), Shape({2, 2, 3, 5, 16}));
  const float* p = b.data<float>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 32; ++c)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 5; ++w)
          ASSERT_EQ(p[(((n * 2 + c / 16) * 3 + h) * 5 + w) * 16 + c % 16],
                    float(((n * 32 + c) * 3 + h) * 5 + w));
  EXPECT_TRUE(equal(from_channel_blocked(b, L), x));
  // A strided (permuted) source converts by its own strides.
  Tensor xt = permute(iota({2, 3, 5, 32}), {0, 3, 1, 2});
  EXPECT_TRUE(equal(from_channel_blocked(to_channel_blocked(xt, L), L), xt.contiguous()));
  // bf16 and integer tensors move as they are.
  Tensor xi = to_dtype(x, DType::Int32);
  EXPECT_TRUE(equal(from_channel_blocked(to_channel_blocked(xi, L), L), xi));
  EXPECT_THROW(to_channel_blocked(iota({2, 24, 3, 3}), L), ValueError);
  EXPECT_THROW(from_channel_blocked(iota({2, 2, 3, 3, 8}), L), ValueError);
}

// The blocked convolution runs the same oneDNN primitive on the same values as the plain one
// (which reorders to the blocked layout itself), so the results are equal bit for bit; the
// bf16 GEMM weight gradient reads the blocked layout directly, the same sums in the same order.
TEST(BlockedLayout, ConvolutionMatchesThePlainLayout) {
  struct Case {
    int64_t N, C, H, W, O, k, s, p;
  };
  const Case cases[] = {
      {2, 32, 10, 10, 32, 3, 1, 1},  // Winograd (float32)
      {2, 16, 9, 7, 32, 3, 2, 1},    // strided direct; bf16: GEMM weight gradient
      {3, 64, 3, 3, 16, 3, 1, 1},    // small map; bf16: GEMM weight gradient
      {2, 32, 8, 8, 48, 1, 2, 0},    // 1x1 stride 2
      {1, 16, 5, 6, 16, 5, 1, 2},
      {16, 64, 6, 6, 64, 3, 1, 1},  // float32: Winograd F(3x3, 3x3), conv_winograd3.cpp
      {2, 64, 9, 9, 80, 3, 1, 1},   // F(3x3, 3x3) on 3 x 3 tiles, overlapping windows
      {16, 64, 3, 6, 64, 3, 1, 1},  // F(3x3, 3x3) on a map of two tiles
      // F(3x3, 3x3) on 3x3 maps (AVX-512: the panel GEMMs): two chunks of k each way, half
      // panels, and the weight gradient's second block of input channels
      {16, 160, 3, 3, 144, 3, 1, 1},
  };
  uint32_t seed = 1;
  for (DType dt : {DType::Float32, DType::BFloat16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " C=" + std::to_string(c.C) + " O=" +
                   std::to_string(c.O) + " k=" + std::to_string(c.k) + " s=" + std::to_string(c.s));
      Tensor x = random_tensor({c.N, c.C, c.H, c.W}, seed++, dt);
      Tensor w = random_tensor({c.O, c.C, c.k, c.k}, seed++, dt);
      Tensor b = random_tensor({c.O}, seed++, dt);
      const Attrs plain = conv_attrs(c.s, c.p, false), blocked = conv_attrs(c.s, c.p, true);
      const OpDef &fwd = *find_op("conv2d"), &bx = *find_op("conv2d_backward_input"),
                  &bw = *find_op("conv2d_backward_weight");
      Tensor y = dispatch1(fwd, {x, w, b}, plain);
      Tensor yb = dispatch1(fwd, {to_channel_blocked(x, L), w, b}, blocked);
      ASSERT_EQ(yb.shape(), channel_blocked_shape(y.shape(), L));
      expect_same(from_channel_blocked(yb, L), y);

      Tensor gy = random_tensor(y.shape(), seed++, dt), gyb = to_channel_blocked(gy, L);
      Attrs pi = plain, bi = blocked;
      pi.set("input_size", x.shape());
      bi.set("input_size", x.shape());
      Tensor gx = dispatch1(bx, {gy, w}, pi);
      Tensor gxb = dispatch1(bx, {gyb, w}, bi);
      expect_same(from_channel_blocked(gxb, L), gx);

      Attrs pw = plain, bwt = blocked;
      pw.set("weight_size", w.shape());
      bwt.set("weight_size", w.shape());
      std::vector<Tensor> g = dispatch(bw, {x, gy}, pw);
      std::vector<Tensor> gb = dispatch(bw, {to_channel_blocked(x, L), gyb}, bwt);
      expect_same(gb[0], g[0]);
      expect_same(gb[1], g[1]);
    }
  }
}

// A first layer of 1-4 input channels takes them plain (the "plain_input" attribute) and gives
// a blocked output; its input gradient is plain. oneDNN runs the same primitive on the same
// values as for the plain convolution.
TEST(BlockedLayout, FirstLayerTakesItsFewChannelsPlain) {
  struct Case {
    int64_t N, C, H, O, k, s, p;
  };
  const Case cases[] = {{2, 1, 19, 16, 7, 2, 3}, {3, 3, 10, 32, 3, 1, 1}};
  const OpDef &fwd = *find_op("conv2d"), &bx = *find_op("conv2d_backward_input"),
              &bw = *find_op("conv2d_backward_weight");
  uint32_t seed = 300;
  for (const Case& c : cases) {
    SCOPED_TRACE("C=" + std::to_string(c.C) + " O=" + std::to_string(c.O));
    Tensor x = random_tensor({c.N, c.C, c.H, c.H}, seed++),
           w = random_tensor({c.O, c.C, c.k, c.k}, seed++);
    Tensor b = random_tensor({c.O}, seed++);
    const Attrs plain = conv_attrs(c.s, c.p, false);
    Attrs mixed = conv_attrs(c.s, c.p, true);
    mixed.set("plain_input", true);
    Tensor y = dispatch1(fwd, {x, w, b}, plain);
    Tensor yb = dispatch1(fwd, {x, w, b}, mixed);
    ASSERT_EQ(yb.shape(), channel_blocked_shape(y.shape(), L));
    expect_same(from_channel_blocked(yb, L), y, 1e-6);

    Tensor gy = random_tensor(y.shape(), seed++), gyb = to_channel_blocked(gy, L);
    Attrs pi = plain, mi = mixed;
    pi.set("input_size", x.shape());
    mi.set("input_size", x.shape());
    Tensor gx = dispatch1(bx, {gy, w}, pi);
    Tensor gxm = dispatch1(bx, {gyb, w}, mi);
    expect_same(gxm, gx, 1e-6);  // plain, as x

    Attrs pw = plain, mw = mixed;
    pw.set("weight_size", w.shape());
    mw.set("weight_size", w.shape());
    std::vector<Tensor> g = dispatch(bw, {x, gy}, pw), gm = dispatch(bw, {x, gyb}, mw);
    expect_same(gm[0], g[0], 1e-5);
    expect_same(gm[1], g[1], 1e-5);

    // plain_input with a blocked input, or without a channel block, is a malformed node.
    EXPECT_THROW(
        dispatch1(fwd,
                  {to_channel_blocked(randn({c.N, 16, c.H, c.H}), L), randn({c.O, 16, c.k, c.k})},
                  mixed),
        ValueError);
    Attrs unblocked = plain;
    unblocked.set("plain_input", true);
    EXPECT_THROW(dispatch1(fwd, {x, w, b}, unblocked), ValueError);
  }
}

// Max pooling on blocked planes: the same values and indices (within each channel's plane)
// as on plain ones, NaN and -inf included, and the same gradient; a bad index still raises.
TEST(BlockedLayout, MaxPoolMatchesThePlainLayout) {
  const OpDef &mp = *find_op("max_pool2d"), &mpb = *find_op("max_pool2d_backward");
  struct Case {
    int64_t k, s, p, d;
    bool ceil;
  };
  const Case cases[] = {{3, 2, 1, 1, false}, {2, 2, 0, 1, true}, {3, 1, 1, 2, false}};
  uint32_t seed = 400;
  for (DType dt : {DType::Float32, DType::BFloat16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " k=" + std::to_string(c.k) +
                   " d=" + std::to_string(c.d));
      const Shape xs{2, 32, 9, 11};
      std::vector<double> xv = random_values(size_t(numel_of(xs)), -2.0, 2.0, seed++);
      const double inf = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < xv.size(); i += 37) xv[i] = std::nan("");
      for (size_t i = 5; i < xv.size(); i += 23) xv[i] = -inf;
      for (size_t i = 0; i < 99; ++i) xv[1000 + i] = -inf;  // all -inf windows
      Tensor x = to_dtype(from_vec(xv, xs), dt);
      Attrs at{{"kernel", std::vector<int64_t>{c.k, c.k}},
               {"stride", std::vector<int64_t>{c.s, c.s}},
               {"padding", std::vector<int64_t>{c.p, c.p}},
               {"dilation", std::vector<int64_t>{c.d, c.d}},
               {"ceil_mode", c.ceil},
               {"count_include_pad", true},
               {"divisor_override", int64_t(0)}};
      Attrs atb = at;
      atb.set("channel_block", L);
      std::vector<Tensor> p = dispatch(mp, {x}, at),
                          q = dispatch(mp, {to_channel_blocked(x, L)}, atb);
      const std::vector<double> pv = values(p[0]), qv = values(from_channel_blocked(q[0], L));
      ASSERT_EQ(pv.size(), qv.size());
      for (size_t i = 0; i < pv.size(); ++i)
        ASSERT_TRUE(pv[i] == qv[i] || (std::isnan(pv[i]) && std::isnan(qv[i])))
            << "element " << i << ": " << qv[i] << " vs " << pv[i];
      expect_same(from_channel_blocked(q[1], L), p[1]);

      Tensor gy = random_tensor(p[0].shape(), seed++, dt);
      at.set("input_size", xs);
      atb.set("input_size", xs);
      Tensor gx = dispatch1(mpb, {gy, p[1]}, at);
      Tensor gxb = dispatch1(mpb, {to_channel_blocked(gy, L), q[1]}, atb);
      expect_same(from_channel_blocked(gxb, L), gx);

      std::vector<double> bad = values(q[1]);
      bad[bad.size() / 2] = double(xs[2] * xs[3]);
      EXPECT_THROW(
          dispatch1(
              mpb, {to_channel_blocked(gy, L), to_dtype(from_vec(bad, q[1].shape()), DType::Int64)},
              atb),
          IndexError);
    }
  }
}

TEST(BlockedLayout, ConvolutionRejectsWhatTheBlockedKernelsCannotRun) {
  const OpDef& fwd = *find_op("conv2d");
  Tensor w = randn({16, 16, 3, 3});
  // An activation that is not (N, C/16, H, W, 16).
  EXPECT_THROW(dispatch1(fwd, {randn({2, 16, 5, 5}), w}, conv_attrs(1, 1, true)), ValueError);
  // Output channels not whole blocks.
  EXPECT_THROW(
      dispatch1(fwd, {randn({2, 1, 5, 5, 16}), randn({8, 16, 3, 3})}, conv_attrs(1, 1, true)),
      ValueError);
  // A block other than 16.
  Attrs at = conv_attrs(1, 1, true);
  at.set("channel_block", int64_t(8));
  EXPECT_THROW(dispatch1(fwd, {randn({2, 2, 5, 5, 8}), w}, at), ValueError);
  // float64 runs on the plain reference path only.
  EXPECT_THROW(
      dispatch1(fwd,
                {to_dtype(randn({2, 1, 5, 5, 16}), DType::Float64), to_dtype(w, DType::Float64)},
                conv_attrs(1, 1, true)),
      TypeError);
  // Grouped convolutions keep the plain layout.
  Attrs grouped = conv_attrs(1, 1, true);
  grouped.set("groups", int64_t(2));
  EXPECT_THROW(dispatch1(fwd, {randn({2, 2, 5, 5, 16}), randn({32, 16, 3, 3})}, grouped),
               ValueError);
}

// Blocked batch norm sums each channel's values in another order than the plain one (lane by
// lane instead of plane by plane), in double: the float results agree to rounding.
TEST(BlockedLayout, BatchNormMatchesThePlainLayout) {
  const OpDef &bn = *find_op("batch_norm"), &bnb = *find_op("batch_norm_backward");
  uint32_t seed = 100;
  for (DType dt : {DType::Float32, DType::BFloat16}) {
    const double tol = dt == DType::Float32 ? 1e-6 : 1e-2;
    for (bool training : {true, false}) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + (training ? " training" : " eval") +
                     (relu ? " relu" : ""));
        Tensor x = add(random_tensor({3, 32, 5, 4}, seed++, dt),
                       Tensor::wrap_scalar(Scalar(3.0), dt));  // a mean far from 0
        Tensor w = random_tensor({32}, seed++), b = random_tensor({32}, seed++);
        Tensor rm = random_tensor({32}, seed++),
               rv = add(random_tensor({32}, seed++),
                        Tensor::wrap_scalar(Scalar(3.0), DType::Float32));
        Attrs at{{"training", training}, {"eps", 1e-5}, {"has_weight", true}, {"has_bias", true}};
        if (relu) at.set("activation", std::string("relu"));
        Attrs atb = at;
        atb.set("channel_block", L);
        std::vector<Tensor> in{x, w, b}, inb{to_channel_blocked(x, L), w, b};
        if (!training) {
          in.insert(in.end(), {rm, rv});
          inb.insert(inb.end(), {rm, rv});
        }
        std::vector<Tensor> p = dispatch(bn, in, at), q = dispatch(bn, inb, atb);
        expect_same(from_channel_blocked(q[0], L), p[0], tol);
        expect_same(q[1], p[1], 1e-6);
        expect_same(q[2], p[2], 1e-5);

        Tensor gy = random_tensor(x.shape(), seed++, dt);
        Attrs bat{{"training", training}, {"has_weight", true}, {"has_bias", true}};
        std::vector<Tensor> bin{gy, x, w, p[1], p[2]};
        std::vector<Tensor> binb{to_channel_blocked(gy, L), to_channel_blocked(x, L), w, p[1],
                                 p[2]};
        if (relu) {
          bat.set("relu_mask", true);
          bin.push_back(p[0]);
          binb.push_back(to_channel_blocked(p[0], L));
        }
        Attrs batb = bat;
        batb.set("channel_block", L);
        std::vector<Tensor> g = dispatch(bnb, bin, bat), gb = dispatch(bnb, binb, batb);
        expect_same(from_channel_blocked(gb[0], L), g[0], tol);
        expect_same(gb[1], g[1], 1e-4);
        expect_same(gb[2], g[2], 1e-4);
      }
    }
  }
  Attrs bad{{"training", true},
            {"eps", 1e-5},
            {"has_weight", false},
            {"has_bias", false},
            {"channel_block", int64_t(16)}};
  EXPECT_THROW(dispatch(bn, {randn({2, 32, 3, 3})}, bad), ValueError);
  // Only the block the kernels are written for (a wider one overran their per-block sums).
  bad.set("channel_block", int64_t(128));
  EXPECT_THROW(dispatch(bn, {randn({2, 1, 3, 3, 128})}, bad), ValueError);
}

// A ResNet block's training step: every convolution, batch norm, elementwise op and the max
// pooling run blocked, with conversions only at the input, its gradient and the gradient
// arriving at the pooling's output, and the step equals the eager one.
TEST(BlockedLayout, GraphKeepsAResidualBlockBlocked) {
  if (!cpu_use_avx512()) GTEST_SKIP() << "the pass runs where oneDNN blocks channels by 16";
  Tensor x = randn({4, 16, 8, 8});
  Tensor w1 = randn({32, 16, 3, 3}), w2 = randn({32, 32, 3, 3}), w3 = randn({32, 16, 1, 1});
  Tensor g1 = ones({32}), b1 = zeros({32}), g2 = ones({32}), b2 = zeros({32});
  for (Tensor* p : {&w1, &w2, &w3, &g1, &b1, &g2, &b2}) set_requires_grad(*p, true);
  auto step = [&](const std::vector<Tensor>& in) {
    Conv2dArgs a = conv_args(1, 1);
    Tensor rm, rv;
    Tensor h = relu(batch_norm(conv2d(in[0], w1, Tensor(), a), rm, rv, g1, b1, true, 0.1, 1e-5));
    Tensor y = batch_norm(conv2d(h, w2, Tensor(), a), rm, rv, g2, b2, true, 0.1, 1e-5);
    Tensor out = relu(add(y, conv2d(in[0], w3, Tensor(), conv_args(1, 0))));
    Pool2dArgs pa;
    pa.kernel = {2, 2};
    pa.stride = {2, 2};
    Tensor loss = sum(max_pool2d(out, pa).first);
    return grad({loss}, {in[0], w1, w2, w3, g1, b1});
  };
  Tensor xg = x;
  set_requires_grad(xg, true);
  auto exe = graph::compile(step, {xg});
  int to = 0, from = 0, blocked = 0;
  for (const graph::Node& n : exe.graph().nodes) {
    to += n.op->name == "to_channel_blocked";
    from += n.op->name == "from_channel_blocked";
    blocked += n.attrs.has("channel_block") && n.op->name.rfind("conv2d", 0) == 0;
  }
  EXPECT_EQ(to, 2) << exe.graph().str();       // the input, the gradient of the pooling's output
  EXPECT_EQ(from, 1) << exe.graph().str();     // the input's gradient (the pooling is blocked)
  EXPECT_EQ(blocked, 9) << exe.graph().str();  // 3 convolutions x (forward + 2 gradients)
  std::vector<Tensor> got = exe.run({xg});
  std::vector<Tensor> want = step({xg});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_same(got[i], want[i], 1e-5);
}
