// The seed document's graph-mode examples in C++: @jit add_func(10, 20) and x + x + x,
// compiled once per signature, with the compiler's report.
#include <cstdio>

#include "tandem/graph/jit.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"

using namespace tandem;

int main() {
  auto add_func =
      jit([](const std::vector<Tensor>& in) { return std::vector<Tensor>{add(in[0], in[1])}; });
  Tensor a = full({1}, Scalar(int64_t(10))), b = full({1}, Scalar(int64_t(20)));
  std::printf("add_func(10, 20) = %lld\n",
              static_cast<long long>(add_func({a, b})[0].item().to_int()));

  auto triple = jit([](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{add(add(in[0], in[0]), in[0])};
  });
  manual_seed(0);
  Tensor x = randn({1024, 1024});
  Tensor y = triple({x})[0];
  triple({randn({1024, 1024})});  // same signature: runs the cached graph
  std::printf("max |(x + x + x) - 3x| = %g, graphs compiled: %zu\n",
              amax(abs(sub(y, mul(x, scalar_tensor(Scalar(3.0)))))).item_double(),
              triple.num_compiled());
  std::printf("%s", triple.explain({x}).c_str());
  return 0;
}
