// The seed document's compute(x, y) and x + x + x through the C++ API alone.
#include <cstdio>

#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

using namespace tandem;

Tensor compute(const Tensor& x, const Tensor& y) {
  Tensor z = add(x, y);
  return mul(z, scalar_tensor(Scalar(int64_t(2))));
}

int main() {
  Tensor x = full({1}, Scalar(int64_t(1))), y = full({1}, Scalar(int64_t(2)));
  std::printf("compute(1, 2) = %lld\n", static_cast<long long>(compute(x, y).item().to_int()));

  manual_seed(0);
  Tensor a = randn({3, 4});
  Tensor three_a = add(add(a, a), a);
  std::printf("max |(a + a + a) - 3a| = %g\n",
              amax(abs(sub(three_a, mul(a, scalar_tensor(Scalar(3.0)))))).item_double());
  Tensor m = matmul(a, t(a));  // (3, 3) Gram matrix
  std::printf("trace(a a^T) = %g, sum(a^2) = %g\n", trace(m).item_double(),
              sum(mul(a, a)).item_double());
  return 0;
}
