// Trains an MLP on a synthetic regression task through the C++ API alone: nn::Sequential of
// nn::Linear layers, autograd backward, and optim::Adam. Prints the loss every 50 steps and
// exits non-zero unless the loss fell by 100x.
#include <cstdio>

#include "nn/module.h"
#include "tandem/autograd/autograd.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/optim/optimizer.h"

using namespace tandem;

int main() {
  manual_seed(0);
  // Target: y = sin(x W1) W2, a smooth function of 8 inputs.
  Tensor x = randn({512, 8});
  Tensor w1 = randn({8, 16}), w2 = randn({16, 1});
  Tensor y = matmul(sin(matmul(x, w1)), mul(w2, scalar_tensor(Scalar(0.3))));

  auto net = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(8, 64), nn::Tanh(), std::make_shared<nn::Linear>(64, 64),
      nn::Tanh(), std::make_shared<nn::Linear>(64, 1)});
  optim::Adam opt({{net->parameters(), {}}}, {{"lr", 3e-3}});

  double first = 0, last = 0;
  for (int step = 0; step <= 400; ++step) {
    Tensor diff = sub((*net)(x), y);
    Tensor loss = mean(mul(diff, diff));
    opt.zero_grad();
    backward({loss});
    opt.step();
    last = loss.item_double();
    if (step == 0) first = last;
    if (step % 50 == 0) std::printf("step %3d  loss %.6f\n", step, last);
  }
  std::printf("loss %.6f -> %.6f\n", first, last);
  return last < first / 100 ? 0 : 1;
}
