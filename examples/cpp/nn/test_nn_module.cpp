// The C++ nn face: modules, state round trips through safetensors, LR schedules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "nn/attention.h"
#include "nn/layers.h"
#include "nn/lr_scheduler.h"
#include "nn/module.h"
#include "nn/rnn.h"
#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/loss.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "tandem/optim/optimizer.h"

using namespace tandem;

TEST(NnModule, LayersShapesAndParameters) {
  auto net = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Conv2d>(1, 4, 3, 1, 1), std::make_shared<nn::BatchNorm>(4), nn::ReLU(),
      std::make_shared<nn::Pool2d>(true, 2), std::make_shared<nn::Dropout>(0.5), nn::Flatten(),
      std::make_shared<nn::Linear>(4 * 4 * 4, 3)});
  Tensor y = (*net)(randn({2, 1, 8, 8}));
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(net->parameters().size(), 6u);     // conv w/b, bn w/b, linear w/b
  EXPECT_EQ(net->named_buffers().size(), 2u);  // bn running stats
  EXPECT_EQ(net->named_parameters()[0].first, "0.weight");
}

TEST(NnModule, BatchNormUpdatesRunningStatsOnlyInTraining) {
  nn::BatchNorm bn(3);
  Tensor x = add(randn({8, 3, 4, 4}), scalar_tensor(Scalar(5.0)));
  bn(x);
  double m = mean(bn.running_mean).item_double();
  EXPECT_NEAR(m, 0.5, 0.1);  // 0.9 * 0 + 0.1 * 5
  bn.eval();
  bn(x);
  EXPECT_DOUBLE_EQ(mean(bn.running_mean).item_double(), m);
}

TEST(NnModule, SaveLoadRoundTrip) {
  nn::Linear a(4, 2), b(4, 2);
  std::string path = testing::TempDir() + "tandem_linear.safetensors";
  nn::save(a, path);
  nn::load(b, path);
  EXPECT_TRUE(equal(a.weight, b.weight));
  EXPECT_TRUE(equal(a.bias, b.bias));
  nn::Linear c(5, 2);
  EXPECT_THROW(nn::load(c, path), tandem::ValueError);  // shape mismatch
  std::remove(path.c_str());
}

TEST(NnModule, EmbeddingAndLayerNorm) {
  nn::Embedding emb(10, 4);
  Tensor idx = arange(Scalar(int64_t(0)), Scalar(int64_t(6)));
  Tensor e = emb(reshape(idx, {2, 3}));
  EXPECT_EQ(e.shape(), Shape({2, 3, 4}));
  nn::LayerNorm ln({4});
  Tensor y = ln(e);
  EXPECT_NEAR(mean(y).item_double(), 0.0, 1e-5);
}

TEST(LRScheduler, Sequences) {
  Tensor p = zeros({1});
  set_requires_grad(p, true);
  optim::SGD opt({{{p}, {}}}, {{"lr", 1.0}});
  optim::StepLR step(opt, 2, 0.5);
  std::vector<double> seen;
  for (int i = 0; i < 5; ++i) {
    step.step();
    seen.push_back(step.get_last_lr()[0]);
  }
  EXPECT_EQ(seen, (std::vector<double>{1.0, 0.5, 0.5, 0.25, 0.25}));
  optim::SGD opt2({{{p}, {}}}, {{"lr", 1.0}});
  optim::CosineAnnealingLR cos(opt2, 4);
  for (int i = 0; i < 2; ++i) cos.step();
  EXPECT_NEAR(cos.get_last_lr()[0], 0.5, 1e-12);
  EXPECT_NEAR(opt2.option(0, "lr"), 0.5, 1e-12);
}

TEST(LRScheduler, MultiStepLambdaOneCycle) {
  Tensor p = zeros({1});
  set_requires_grad(p, true);
  optim::SGD opt({{{p}, {}}}, {{"lr", 1.0}});
  optim::MultiStepLR ms(opt, {3, 1}, 0.1);
  std::vector<double> seen;
  for (int i = 0; i < 4; ++i) {
    ms.step();
    seen.push_back(ms.get_last_lr()[0]);
  }
  EXPECT_NEAR(seen[0], 0.1, 1e-12);
  EXPECT_NEAR(seen[1], 0.1, 1e-12);
  EXPECT_NEAR(seen[2], 0.01, 1e-12);
  EXPECT_NEAR(seen[3], 0.01, 1e-12);

  optim::SGD opt2({{{p}, {}}}, {{"lr", 2.0}});
  optim::LambdaLR lam(opt2, [](int64_t e) { return 1.0 / double(e + 1); });
  EXPECT_NEAR(opt2.option(0, "lr"), 2.0, 1e-12);
  lam.step();
  lam.step();
  EXPECT_NEAR(opt2.option(0, "lr"), 2.0 / 3.0, 1e-12);

  // Reference sequences from torch.optim.lr_scheduler.OneCycleLR(max_lr=0.1, total_steps=10).
  const std::vector<double> cos_ref = {0.004,
                                       0.052,
                                       0.1,
                                       0.09504846320134738,
                                       0.0811745653949763,
                                       0.06112620219362893,
                                       0.03887419780637107,
                                       0.0188258346050237,
                                       0.004951936798652629,
                                       4e-07};
  const std::vector<double> lin_ref = {0.004,
                                       0.052,
                                       0.1,
                                       0.08571434285714286,
                                       0.07142868571428572,
                                       0.05714302857142858,
                                       0.042857371428571434,
                                       0.028571714285714284,
                                       0.014286057142857148,
                                       4e-07};
  for (bool cosine : {true, false}) {
    optim::SGD o({{{p}, {}}}, {{"lr", 1.0}});
    optim::OneCycleLR oc(o, 0.1, 10, 0.3, cosine);
    const auto& ref = cosine ? cos_ref : lin_ref;
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_NEAR(o.option(0, "lr"), ref[i], 1e-12) << "step " << i << " cosine " << cosine;
      if (i + 1 < ref.size()) oc.step();
    }
    EXPECT_THROW(oc.step(), ValueError);  // past total_steps
  }
}

// One LSTM step written out by hand against the module's parameters.
TEST(RNN, LstmMatchesHandWrittenCellAndShapes) {
  manual_seed(3);
  nn::RNN lstm(nn::RNNMode::LSTM, 3, 4);
  Tensor x = randn({1, 2, 3});
  auto r = lstm.run(x);
  auto named = lstm.named_parameters();
  ASSERT_EQ(named.size(), 4u);
  EXPECT_EQ(named[0].first, "weight_ih_l0");
  Tensor g = add(linear(select(x, 0, 0), named[0].second, named[2].second), named[3].second);
  auto q = chunk(g, 4, -1);
  Tensor c = mul(sigmoid(q[0]), tanh(q[2]));
  Tensor h = mul(sigmoid(q[3]), tanh(c));
  EXPECT_TRUE(allclose(select(r.h_n, 0, 0), h, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(select(r.c_n, 0, 0), c, 1e-5, 1e-6));

  nn::RNNOptions o;
  o.num_layers = 2;
  o.bidirectional = true;
  o.batch_first = true;
  for (auto mode : {nn::RNNMode::Tanh, nn::RNNMode::Relu, nn::RNNMode::GRU, nn::RNNMode::LSTM}) {
    nn::RNN rnn(mode, 3, 5, o);
    auto out = rnn.run(randn({2, 7, 3}));  // (N, L, H_in)
    EXPECT_EQ(out.output.shape(), Shape({2, 7, 10}));
    EXPECT_EQ(out.h_n.shape(), Shape({4, 2, 5}));
    // The forward direction's last output is its final hidden state.
    Tensor last = narrow(select(out.output, 1, 6), 1, 0, 5);
    EXPECT_TRUE(allclose(last, select(out.h_n, 0, 2), 1e-6, 1e-7));
    EXPECT_EQ(out.c_n.defined(), mode == nn::RNNMode::LSTM);
  }
  EXPECT_THROW(lstm.run(randn({2, 3})), ValueError);
  EXPECT_THROW(lstm.run(randn({2, 1, 5})), ValueError);
  EXPECT_THROW(lstm.run(x, zeros({1, 1, 4})), ValueError);
}

// A GRU learns to output the running sum's sign; the loss must fall through backward().
TEST(RNN, GruTrains) {
  manual_seed(0);
  nn::RNN gru(nn::RNNMode::GRU, 1, 8);
  nn::Linear head(8, 1);
  std::vector<Tensor> params = gru.parameters();
  for (auto& p : head.parameters()) params.push_back(p);
  optim::Adam opt({{params, {}}}, {{"lr", 0.02}});
  Tensor x = randn({6, 16, 1});
  Tensor y = sign(sum(x, std::vector<int64_t>{0}));
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    opt.zero_grad();
    Tensor loss = mse_loss(head(select(gru.run(x).output, 0, 5)), y);
    backward({loss});
    opt.step();
    (step == 0 ? first : last) = loss.item_double();
  }
  EXPECT_LT(last, 0.5 * first);
}

// Per-head attention written with narrow + batched matmul, against the module's reshape path.
TEST(MultiheadAttention, MatchesPerHeadFormulaAndMasks) {
  manual_seed(1);
  const int64_t E = 6, H = 3, d = 2, N = 2, L = 4, S = 5;
  nn::MultiheadAttention mha(E, H, 0.0, true, /*batch_first=*/true);
  Tensor q = randn({N, L, E}), kv = randn({N, S, E});
  auto r = mha.attend(q, kv, kv);
  EXPECT_EQ(r.output.shape(), Shape({N, L, E}));
  EXPECT_EQ(r.weights.shape(), Shape({N, L, S}));

  auto w = chunk(mha.in_proj_weight, 3, 0);
  auto b = chunk(mha.in_proj_bias, 3, 0);
  Tensor qp = linear(q, w[0], b[0]), kp = linear(kv, w[1], b[1]), vp = linear(kv, w[2], b[2]);
  std::vector<Tensor> outs;
  Tensor avg = zeros({N, L, S});
  for (int64_t h = 0; h < H; ++h) {
    Tensor qh = narrow(qp, 2, h * d, d), kh = narrow(kp, 2, h * d, d);
    Tensor sc = div(matmul(qh, transpose(kh, 1, 2)), full({}, Scalar(std::sqrt(double(d)))));
    Tensor a = softmax(sc, -1);
    avg = add(avg, div(a, full({}, Scalar(double(H)))));
    outs.push_back(matmul(a, narrow(vp, 2, h * d, d)));
  }
  Tensor ref = (*mha.out_proj)(cat(outs, 2));
  EXPECT_TRUE(allclose(r.output, ref, 1e-4, 1e-5));
  EXPECT_TRUE(allclose(r.weights, avg, 1e-4, 1e-6));

  // A boolean mask (true = blocked) and the equivalent additive -inf mask agree, and blocked
  // positions get zero weight.
  Tensor blocked = gt(reshape(arange(Scalar(int64_t(0)), Scalar(S)), {1, S}),  // causal
                      reshape(arange(Scalar(int64_t(0)), Scalar(L)), {L, 1}));
  auto rb = mha.attend(q, kv, kv, blocked);
  Tensor additive = masked_fill(zeros({L, S}), blocked, full({}, Scalar(-INFINITY)));
  auto rf = mha.attend(q, kv, kv, additive);
  EXPECT_TRUE(allclose(rb.output, rf.output, 1e-5, 1e-6));
  EXPECT_NEAR(
      sum(masked_fill(rb.weights, logical_not(blocked), full({}, Scalar(0.0)))).item_double(), 0.0,
      1e-7);
  EXPECT_THROW(mha.attend(q, kv, kv, zeros({L, L})), ValueError);
  EXPECT_THROW(mha.attend(randn({N, L, 5}), kv, kv), ValueError);
  EXPECT_THROW(nn::MultiheadAttention(5, 2), ValueError);
}

TEST(NnLayers, ConvFamilyGroupNormPoolAndLosses) {
  manual_seed(5);
  // Conv1d is a height-1 Conv2d.
  nn::Conv1d c1(3, 4, 3, 2, 1);
  Tensor x1 = randn({2, 3, 9});
  Conv2dArgs a;
  a.stride = {1, 2};
  a.padding = {0, 1, 0, 1};
  Tensor via2d = squeeze(conv2d(unsqueeze(x1, 2), unsqueeze(c1.weight, 2), c1.bias, a),
                         std::vector<int64_t>{2});
  EXPECT_EQ(c1(x1).shape(), Shape({2, 4, 5}));
  EXPECT_TRUE(allclose(c1(x1), via2d, 1e-5, 1e-6));

  // ConvTranspose2d (no bias) is the adjoint of Conv2d with the same weight:
  // <convT(y), x> == <y, conv(x)>.
  nn::ConvTranspose2d ct(4, 3, 3, 2, 1, 1, false);
  Tensor y = randn({1, 4, 5, 5});
  Tensor up = ct(y);
  EXPECT_EQ(up.shape(), Shape({1, 3, 10, 10}));  // (5-1)*2 - 2 + 3 + 1
  Tensor x = randn({1, 3, 10, 10});
  Conv2dArgs b;
  b.stride = {2, 2};
  b.padding = {1, 1, 1, 1};
  Tensor down = conv2d(x, ct.weight, Tensor(), b);
  EXPECT_NEAR(sum(mul(up, x)).item_double(), sum(mul(y, down)).item_double(), 1e-3);

  nn::GroupNorm gn(2, 4);
  Tensor g = gn(add(mul(randn({3, 4, 5}), full({}, Scalar(3.0))), full({}, Scalar(7.0))));
  Tensor grouped = reshape(g, {3, 2, 10});
  EXPECT_TRUE(allclose(mean(grouped, std::vector<int64_t>{2}), zeros({3, 2}), 0, 1e-5));
  EXPECT_TRUE(allclose(var(grouped, std::vector<int64_t>{2}, 0), ones({3, 2}), 1e-3, 1e-3));
  EXPECT_THROW(nn::GroupNorm(3, 4), ValueError);

  nn::AdaptiveAvgPool2d gap({1, 1});
  auto flat = nn::Flatten();
  Tensor img = randn({2, 3, 4, 4});
  EXPECT_TRUE(allclose((*flat)(gap(img)), mean(img, std::vector<int64_t>{2, 3}), 1e-5, 1e-6));

  Tensor p = randn({4, 3}), t = randn({4, 3});
  Tensor d = sub(p, t);
  EXPECT_NEAR(nn::Loss("mse", "sum")(p, t).item_double(), sum(mul(d, d)).item_double(), 1e-4);
  EXPECT_NEAR(nn::Loss("l1")(p, t).item_double(), mean(abs(d)).item_double(), 1e-6);
  EXPECT_THROW(nn::Loss("hinge"), ValueError);
  EXPECT_THROW(nn::Loss("mse", "batchmean"), ValueError);
}
