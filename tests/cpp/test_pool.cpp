// max_pool2d's undilated fast path (stride phases, whole-plane taps) against a direct scan,
// over odd sizes, strides, padding and ceil_mode, with ties, NaN and -inf windows: runs
// in the sanitizer build, which checks the phase buffers' bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tandem/ops/elementwise.h"
#include "tandem/ops/pool.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

struct Ref {
  std::vector<double> y;
  std::vector<int64_t> idx;
};

Ref scan(const std::vector<double>& x, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
         const Pool2dArgs& a) {
  Ref r{std::vector<double>(size_t(planes * OH * OW)),
        std::vector<int64_t>(size_t(planes * OH * OW))};
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t bi = -1;
        for (int64_t i = 0; i < a.kernel[0]; ++i)
          for (int64_t j = 0; j < a.kernel[1]; ++j) {
            int64_t ih = oh * a.stride[0] - a.padding[0] + i;
            int64_t iw = ow * a.stride[1] - a.padding[1] + j;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = x[size_t((pl * H + ih) * W + iw)];
            if (v > best || bi < 0 || (std::isnan(v) && !std::isnan(best)))
              best = v, bi = ih * W + iw;
          }
        size_t o = size_t((pl * OH + oh) * OW + ow);
        r.y[o] = best;
        r.idx[o] = bi;
      }
  return r;
}

}  // namespace

TEST(Pool, MaxPoolFastPathMatchesTheScan) {
  struct Case {
    int64_t H, W, kh, kw, sh, sw, ph, pw;
    bool ceil;
  };
  const Case cases[] = {{48, 48, 3, 3, 2, 2, 1, 1, false}, {13, 17, 3, 3, 2, 2, 1, 1, true},
                        {7, 9, 2, 2, 2, 2, 0, 0, true},    {11, 5, 3, 2, 1, 2, 1, 1, false},
                        {9, 10, 3, 3, 3, 3, 1, 0, true},   {5, 6, 1, 1, 1, 1, 0, 0, false},
                        {6, 31, 2, 3, 2, 1, 1, 1, true}};
  uint32_t seed = 1;
  for (const Case& c : cases)
    for (DType dt : {DType::Float32, DType::Float64}) {
      const int64_t N = 2, C = 3;
      std::vector<double> x = random_values(size_t(N * C * c.H * c.W), -3, 3, seed++);
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = std::round(x[i]);  // ties
        if (i % 37 == 5) x[i] = std::nan("");
        if (i % 23 == 2 || i < size_t(c.W) * 2) x[i] = -std::numeric_limits<double>::infinity();
      }
      Pool2dArgs a;
      a.kernel = {c.kh, c.kw};
      a.stride = {c.sh, c.sw};
      a.padding = {c.ph, c.pw};
      a.ceil_mode = c.ceil;
      Tensor xt = from_vec(x, {N, C, c.H, c.W});
      if (dt == DType::Float32) xt = to_dtype(xt, dt);
      auto [y, idx] = max_pool2d(xt, a);
      const int64_t OH = y.shape()[2], OW = y.shape()[3];
      EXPECT_EQ(OH, pool_output_size(c.H, c.kh, c.sh, c.ph, 1, c.ceil));
      std::vector<double> xs = values(xt);  // as rounded to the dtype
      Ref r = scan(xs, N * C, c.H, c.W, OH, OW, a);
      std::vector<double> got = values(y), gi = values(idx);
      for (size_t o = 0; o < r.y.size(); ++o) {
        ASSERT_EQ(int64_t(gi[o]), r.idx[o]) << "case H=" << c.H << " W=" << c.W << " at " << o;
        if (std::isnan(r.y[o]))
          ASSERT_TRUE(std::isnan(got[o]));
        else
          ASSERT_EQ(got[o], r.y[o]);
      }
    }
}

// The backward's scatter checks its indices itself, on every thread's share: -1 sends
// nothing, overlapping windows sum, and an index outside the plane raises (never writes).
TEST(Pool, MaxPoolBackwardScattersAndRejectsBadIndices) {
  const int64_t planes = 6000, H = 6, W = 6;  // 36,000 outputs: two threads' worth
  const int64_t pattern[6] = {0, 7, 7, -1, 35, 14};
  std::vector<double> idx(size_t(planes * 6)), gy(size_t(planes * 6));
  for (size_t i = 0; i < idx.size(); ++i) {
    idx[i] = double(pattern[i % 6]);
    gy[i] = double(i % 5 + 1);
  }
  const std::vector<int64_t> shape{1, planes, 2, 3}, in_size{1, planes, H, W};
  Tensor g = to_dtype(from_vec(gy, shape), DType::Float32);
  Tensor gx = max_pool2d_backward(g, to_dtype(from_vec(idx, shape), DType::Int64), in_size);
  std::vector<double> expect(size_t(planes * H * W), 0.0), got = values(gx);
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] >= 0) expect[(i / 6) * H * W + size_t(idx[i])] += gy[i];
  ASSERT_EQ(got.size(), expect.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expect[i]) << i;
  for (double bad : {36.0, -2.0, 1e12}) {
    std::vector<double> wrong = idx;
    wrong.back() = bad;  // the last plane: the second thread's share
    EXPECT_THROW(max_pool2d_backward(g, to_dtype(from_vec(wrong, shape), DType::Int64), in_size),
                 Error);
  }
}
