// The C++ optimizer API on a small quadratic f(x) = 0.5 * sum(a * (x - c)^2): exact first
// updates, convergence of every optimizer, groups and options, explicit gradients, state
// export / import and the argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"
#include "tandem/optim/optimizer.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

const std::vector<double> kA = {1.0, 2.0, 0.5, 4.0};
const std::vector<double> kC = {3.0, -1.0, 0.5, 2.0};
const std::vector<double> kX0 = {0.0, 0.0, 1.0, -1.0};

Tensor leaf(const std::vector<double>& v) {
  Tensor t = from_vec(v, {int64_t(v.size())});
  set_requires_grad(t, true);
  return t;
}

// Fills x.grad with the quadratic's gradient through autograd.
double backward_quadratic(const Tensor& x) {
  Tensor a = from_vec(kA, {4}), c = from_vec(kC, {4});
  Tensor d = sub(x, c);
  Tensor f = mul(sum(mul(a, mul(d, d))), scalar_tensor(0.5));
  backward({f});
  return f.item_double();
}

double distance_to_c(const Tensor& x) {
  std::vector<double> v = values(x);
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) d = std::max(d, std::abs(v[i] - kC[i]));
  return d;
}

TEST(Optim, SgdMomentumFirstUpdatesExact) {
  Tensor x = leaf(kX0);
  optim::SGD opt({{{x}, {}}}, {{"lr", 0.1}, {"momentum", 0.9}});
  std::vector<double> buf(4), want = kX0;
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    backward_quadratic(x);
    opt.step();
    for (size_t i = 0; i < 4; ++i) {
      double g = kA[i] * (want[i] - kC[i]);
      buf[i] = step == 0 ? g : 0.9 * buf[i] + g;
      want[i] -= 0.1 * buf[i];
    }
    EXPECT_TRUE(all_close(values(x), want, 1e-12, 1e-14));
  }
  EXPECT_TRUE(is_leaf(x));
  EXPECT_TRUE(all_close(values(opt.state(0).tensors.at("momentum_buffer")), buf, 1e-12, 1e-14));
}

TEST(Optim, EveryOptimizerConverges) {
  const std::vector<std::pair<std::string, optim::Options>> cases = {
      {"SGD", {{"lr", 0.1}, {"momentum", 0.5}}},
      {"SGD", {{"lr", 0.1}, {"momentum", 0.5}, {"nesterov", 1}}},
      {"Adam", {{"lr", 0.1}}},
      {"Adam", {{"lr", 0.1}, {"amsgrad", 1}}},
      {"AdamW", {{"lr", 0.1}, {"weight_decay", 0.0}}},
      {"RMSprop", {{"lr", 0.02}, {"centered", 1}}},
      {"Adagrad", {{"lr", 0.5}}},
      {"Adadelta", {{"lr", 20.0}}},
      {"Momentum", {{"lr", 0.05}, {"momentum", 0.8}}},
      {"Momentum", {{"lr", 0.05}, {"momentum", 0.8}, {"nesterov", 1}}},
  };
  for (const auto& [name, options] : cases) {
    Tensor x = leaf(kX0);
    auto opt = optim::create(name, {{{x}, {}}}, options);
    for (int i = 0; i < 300; ++i) {
      opt->zero_grad();
      backward_quadratic(x);
      opt->step();
    }
    EXPECT_LT(distance_to_c(x), 2e-2) << name;
  }
}

TEST(Optim, StepWithExplicitGradsAndSkips) {
  Tensor x = leaf(kX0), y = leaf(kX0);
  optim::Momentum opt({{{x, y}, {{"lr", 0.5}, {"momentum", 0.9}}}});
  opt.step_with({from_vec<double>({1, 1, 1, 1}, {4}), Tensor()});
  EXPECT_TRUE(all_close(values(x), {-0.5, -0.5, 0.5, -1.5}));
  EXPECT_TRUE(all_close(values(y), kX0));
  EXPECT_TRUE(opt.state(1).empty());
  // accum = 0.9 * 1 + 1 = 1.9
  opt.step_with({from_vec<double>({1, 1, 1, 1}, {4}), Tensor()});
  EXPECT_TRUE(all_close(values(x), {-1.45, -1.45, -0.45, -2.45}, 1e-12, 1e-14));
  EXPECT_THROW(opt.step_with({from_vec<double>({1, 1, 1, 1}, {4})}), ValueError);
  EXPECT_THROW(opt.step_with({from_vec<double>({1, 1}, {2}), Tensor()}), ValueError);
}

TEST(Optim, GroupsAndOptions) {
  Tensor x = leaf(kX0), y = leaf(kX0);
  optim::SGD opt({{{x}, {}}, {{y}, {{"lr", 0.01}}}}, {{"lr", 0.1}});
  EXPECT_EQ(opt.num_groups(), 2);
  EXPECT_EQ(opt.num_params(), 2);
  EXPECT_DOUBLE_EQ(opt.option(0, "lr"), 0.1);
  EXPECT_DOUBLE_EQ(opt.option(1, "lr"), 0.01);
  Tensor g = from_vec<double>({1, 2, 3, 4}, {4});
  opt.step_with({g, g});
  EXPECT_TRUE(all_close(values(x), {-0.1, -0.2, 0.7, -1.4}));
  EXPECT_TRUE(all_close(values(y), {-0.01, -0.02, 0.97, -1.04}));
  opt.set_options(1, {{"lr", 1.0}});
  opt.step_with({Tensor(), g});
  EXPECT_TRUE(all_close(values(y), {-1.01, -2.02, -2.03, -5.04}));
  EXPECT_THROW(opt.set_options(0, {{"lr", -1.0}}), ValueError);
  EXPECT_DOUBLE_EQ(opt.option(0, "lr"), 0.1);  // a rejected change leaves the group as it was
  EXPECT_THROW(opt.set_options(0, {{"betas", 0.9}}), ValueError);
  EXPECT_THROW(opt.set_options(5, {{"lr", 0.1}}), IndexError);
  EXPECT_THROW(opt.add_param_group({x}), ValueError);  // already in group 0
}

TEST(Optim, ExportImportResumesExactly) {
  Tensor x = leaf(kX0);
  optim::Adam a({{{x}, {}}}, {{"lr", 0.1}, {"amsgrad", 1}});
  for (int i = 0; i < 2; ++i) {
    a.zero_grad();
    backward_quadratic(x);
    a.step();
  }
  std::vector<optim::ParamState> saved = a.export_state();
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_DOUBLE_EQ(saved[0].scalars.at("step"), 2.0);
  EXPECT_EQ(saved[0].tensors.size(), 3u);  // exp_avg, exp_avg_sq, max_exp_avg_sq

  Tensor x2 = leaf(values(x));
  optim::Adam b({{{x2}, {}}}, {{"lr", 0.1}, {"amsgrad", 1}});
  b.import_state(saved);
  for (int i = 0; i < 3; ++i) {
    for (auto* p : {&x, &x2}) {
      set_grad(*p, Tensor());
      backward_quadratic(*p);
    }
    a.step();
    b.step();
    EXPECT_EQ(values(x), values(x2));
  }
  // The export was a copy: the later steps did not change it.
  EXPECT_DOUBLE_EQ(saved[0].scalars.at("step"), 2.0);
  EXPECT_NE(values(saved[0].tensors.at("exp_avg")), values(a.state(0).tensors.at("exp_avg")));

  optim::ParamState bad;
  bad.tensors["exp_avg"] = from_vec<double>({1, 2}, {2});
  EXPECT_THROW(b.import_state({bad}), ValueError);
  EXPECT_THROW(b.import_state({}), ValueError);
}

TEST(Optim, ZeroGrad) {
  Tensor x = leaf(kX0);
  optim::SGD opt({{{x}, {}}}, {{"lr", 0.1}});
  backward_quadratic(x);
  opt.zero_grad(false);
  EXPECT_TRUE(all_close(values(grad(x)), {0, 0, 0, 0}));
  opt.zero_grad();
  EXPECT_FALSE(grad(x).defined());
  opt.step();  // no gradient: nothing changes
  EXPECT_TRUE(all_close(values(x), kX0));
}

TEST(Optim, ArgumentErrors) {
  Tensor x = leaf(kX0);
  EXPECT_THROW(optim::SGD({{{x}, {}}}, {{"lr", -0.1}}), ValueError);
  EXPECT_THROW(optim::SGD({{{x}, {}}}, {{"lr", 0.1}, {"nesterov", 1}}), ValueError);
  EXPECT_THROW(optim::Adam({{{x}, {}}}, {{"beta1", 1.0}}), ValueError);
  EXPECT_THROW(optim::Adagrad({{{x}, {}}}, {{"lr_decay", -1.0}}), ValueError);
  EXPECT_THROW(optim::SGD({{{x, x}, {}}}), ValueError);
  EXPECT_THROW(optim::SGD({{{from_vec<int64_t>({1, 2}, {2})}, {}}}), TypeError);
  EXPECT_THROW(optim::SGD({{{mul(x, scalar_tensor(2.0))}, {}}}), ValueError);
  EXPECT_THROW(optim::create("Lion", {}), ValueError);
  try {
    optim::RMSprop({{{x}, {}}}, {{"beta", 0.9}});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("known options"), std::string::npos) << e.what();
  }
}

}  // namespace

// A group reading its rate from a tensor: the update uses the tensor's value when it runs
// (every optimizer), matches the lr option, and a bad tensor is rejected.
TEST(Optim, LearningRateTensorIsReadAtEachUpdate) {
  for (const char* name : {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Momentum"}) {
    Tensor x = leaf(kX0), y = leaf(kX0);
    auto by_option = optim::create(name, {{{x}, {}}}, {{"lr", 0.05}});
    auto by_tensor = optim::create(name, {{{y}, {}}}, {{"lr", 123.0}});  // ignored
    Tensor lr = from_vec<double>({0.05}, {});
    by_tensor->set_lr_tensor(0, lr);
    for (int step = 0; step < 3; ++step) {
      for (auto* p : {&x, &y}) {
        Tensor g = mul(sub(*p, from_vec(kC, {4})), from_vec(kA, {4}));
        (p == &x ? by_option : by_tensor)->step_with({g});
      }
      EXPECT_TRUE(all_close(values(y), values(x), 1e-12, 1e-14)) << name;
    }
    // A new value in the same tensor changes the next update; zero freezes the parameter.
    *static_cast<double*>(lr.data_ptr()) = 0.0;
    std::vector<double> before = values(y);
    by_tensor->step_with({from_vec<double>({1, 1, 1, 1}, {4})});
    EXPECT_EQ(values(y), before) << name;
    by_tensor->set_lr_tensor(0, Tensor());  // back to the option (123): it moves
    by_tensor->step_with({from_vec<double>({1, 1, 1, 1}, {4})});
    EXPECT_NE(values(y), before) << name;
    EXPECT_THROW(by_tensor->set_lr_tensor(0, from_vec<double>({0.1, 0.2}, {2})), ValueError);
    EXPECT_THROW(by_tensor->set_lr_tensor(3, lr), IndexError);
  }
}
