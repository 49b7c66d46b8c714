// The C++ nn face: modules, state round trips through safetensors, LR schedules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/nn/module.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "tandem/optim/lr_scheduler.h"

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
