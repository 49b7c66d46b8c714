// A small network for the deployment tests (model format, runtime): conv -> batch norm ->
// relu -> max pool -> linear, with non-trivial batch-norm statistics, exported by
// deploy::export_model.
#pragma once
#include <unistd.h>
#include <cstdio>
#include <string>

#include "tandem/export/export.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

namespace tandem::testing {

inline Tensor rand_tensor(const Shape& s, uint32_t seed, double lo = -1, double hi = 1) {
  auto v = random_values(size_t(numel_of(s)), lo, hi, seed);
  return from_vec(std::vector<float>(v.begin(), v.end()), s);
}

struct SmallNet {
  Tensor w1 = rand_tensor({4, 1, 3, 3}, 1), b1 = rand_tensor({4}, 2);
  Tensor gamma = rand_tensor({4}, 3, 0.5, 1.5), beta = rand_tensor({4}, 4);
  Tensor mean = rand_tensor({4}, 5), var = rand_tensor({4}, 6, 0.5, 2.0);
  Tensor w2 = rand_tensor({3, 4 * 4 * 4}, 7), b2 = rand_tensor({3}, 8);

  // x: (N, 1, 8, 8) -> (N, 3)
  Tensor operator()(const Tensor& x) const {
    Conv2dArgs a;
    a.padding = {1, 1, 1, 1};
    Tensor y = conv2d(x, w1, b1, a);
    y = relu(batch_norm(y, mean, var, gamma, beta, false));
    Pool2dArgs p;
    p.kernel = {2, 2};
    p.stride = {2, 2};
    y = max_pool2d(y, p).first;
    y = reshape(y, {y.shape()[0], 4 * 4 * 4});
    return linear(y, w2, b2);
  }
  deploy::ExportFn fn() const {
    return [this](const std::vector<Tensor>& xs) { return std::vector<Tensor>{(*this)(xs[0])}; };
  }
  runtime::ModelFile export_file(int64_t batch, bool dynamic) const {
    deploy::ExportOptions opt;
    opt.dynamic_batch = dynamic;
    opt.names = {{w1, "conv.weight"}, {w2, "fc.weight"}};
    return deploy::export_model(fn(), {rand_tensor({batch, 1, 8, 8}, 9)}, opt);
  }
};

// A file path in the test's temporary directory, removed with the object.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name)
      : path(::testing::TempDir() + "/" + name + "." + std::to_string(::getpid())) {}
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace tandem::testing
