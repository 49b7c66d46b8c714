// The float32 and bfloat16 weight gradient of convolutions on small output maps, computed as one
// GEMM per kernel tap over the positions where the tap meets the image
// (kernels/cpu/conv_wgrad_taps.cpp), against the float64 im2col reference on the same values (bf16:
// against float32 on the same bf16-exact values, rounded once): strides, asymmetric padding,
// dilation, non-square kernels, a tap that never meets the image, and the channel-blocked
// layout. Run in the sanitizer build too (the gathers index by hand).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tandem/kernels/cpu/conv.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/layout.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

Tensor random_tensor(const Shape& s, uint32_t seed) {
  std::vector<float> v;
  for (double d : random_values(size_t(numel_of(s)), -2.0, 2.0, seed)) v.push_back(float(d));
  return from_vec(v, s);
}

struct Case {
  int64_t N, C, H, W, O, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw;
};

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - w[i]), 1e-4 * (1.0 + std::fabs(w[i])))
        << what << " element " << i << ": " << g[i] << " vs " << w[i];
}

}  // namespace

TEST(ConvWgradTaps, MatchesTheFloat64ReferenceOnSmallMaps) {
  const Case cases[] = {
      {3, 64, 3, 3, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  // ResNet's last stage, scaled down
      {2, 32, 6, 6, 48, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},  // stride 2 into 3x3
      {2, 32, 8, 8, 32, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1},  // 1x1 stride 2 (4x4 out)
      {2, 48, 4, 5, 32, 2, 3, 1, 1, 0, 2, 1, 0, 1, 1},  // asymmetric padding, 2x3 kernel
      {1, 32, 5, 5, 32, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},  // dilation 2
      {2, 32, 2, 2, 32, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1},  // the centre row and column of taps
                                                        // never meet the image
  };
  uint32_t seed = 7;
  for (const Case& c : cases) {
    ConvParams p{c.N,  c.C,  c.H,  c.W,  c.O,  c.KH, c.KW, 0,    0,
                 c.sh, c.sw, c.pt, c.pl, c.pb, c.pr, c.dh, c.dw, 1};
    p.OH = (c.H + c.pt + c.pb - c.dh * (c.KH - 1) - 1) / c.sh + 1;
    p.OW = (c.W + c.pl + c.pr - c.dw * (c.KW - 1) - 1) / c.sw + 1;
    const std::string what = "C=" + std::to_string(c.C) + " H=" + std::to_string(c.H) +
                             " k=" + std::to_string(c.KH) + "x" + std::to_string(c.KW) +
                             " s=" + std::to_string(c.sh);
    ASSERT_TRUE(conv2d_bwd_weights_prefers_taps(p)) << what;  // the path under test
    Conv2dArgs a;
    a.stride = {c.sh, c.sw};
    a.padding = {c.pt, c.pl, c.pb, c.pr};
    a.dilation = {c.dh, c.dw};
    Tensor x = random_tensor({c.N, c.C, c.H, c.W}, seed++);
    Tensor gy = random_tensor({c.N, c.O, p.OH, p.OW}, seed++);
    const Shape ws{c.O, c.C, c.KH, c.KW};
    std::vector<Tensor> got = conv2d_backward_weight(x, gy, ws, a);
    std::vector<Tensor> want =
        conv2d_backward_weight(to_dtype(x, DType::Float64), to_dtype(gy, DType::Float64), ws, a);
    expect_close(got[0], want[0], what + " weight");
    expect_close(got[1], want[1], what + " bias");
  }
}

TEST(ConvWgradTaps, BlockedInputsGiveThePlainResultBitForBit) {
  ConvParams p{2, 32, 3, 3, 48, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  Tensor x = random_tensor({2, 32, 3, 3}, 1), gy = random_tensor({2, 48, 3, 3}, 2);
  Tensor xb = to_channel_blocked(x, kChannelBlock), gyb = to_channel_blocked(gy, kChannelBlock);
  Tensor gw = Tensor::empty({48, 32, 3, 3}, DType::Float32),
         gb = Tensor::empty({48}, DType::Float32);
  Tensor gwb = Tensor::empty({48, 32, 3, 3}, DType::Float32),
         gbb = Tensor::empty({48}, DType::Float32);
  ASSERT_TRUE(conv2d_backward_weights_taps(p, DType::Float32, x.data_ptr(), gy.data_ptr(),
                                           gw.data_ptr(), gb.data_ptr()));
  p.blocked = true;
  ASSERT_TRUE(conv2d_backward_weights_taps(p, DType::Float32, xb.data_ptr(), gyb.data_ptr(),
                                           gwb.data_ptr(), gbb.data_ptr()));
  EXPECT_TRUE(equal(gw, gwb));
  EXPECT_TRUE(equal(gb, gbb));
  // Other dtypes are not this path's: nothing written, false.
  EXPECT_FALSE(conv2d_backward_weights_taps(p, DType::Float64, xb.data_ptr(), gyb.data_ptr(),
                                            gwb.data_ptr(), nullptr));
}

TEST(ConvWgradTaps, Bfloat16MatchesFloat32OnTheSameValues) {
  // ResNet's last stage scaled down, a strided one, and blocked inputs.
  struct C2 {
    int64_t N, C, H, O, s;
  };
  uint32_t seed = 40;
  for (const C2& c : {C2{3, 64, 3, 32, 1}, C2{2, 32, 6, 48, 2}}) {
    Conv2dArgs a;
    a.stride = {c.s, c.s};
    a.padding = {1, 1, 1, 1};
    const int64_t OH = (c.H + 2 - 3) / c.s + 1;
    Tensor x = to_dtype(random_tensor({c.N, c.C, c.H, c.H}, seed++), DType::BFloat16);
    Tensor gy = to_dtype(random_tensor({c.N, c.O, OH, OH}, seed++), DType::BFloat16);
    const Shape ws{c.O, c.C, 3, 3};
    std::vector<Tensor> got = conv2d_backward_weight(x, gy, ws, a);
    std::vector<Tensor> want =
        conv2d_backward_weight(to_dtype(x, DType::Float32), to_dtype(gy, DType::Float32), ws, a);
    ASSERT_EQ(got[0].dtype(), DType::BFloat16);
    for (int i = 0; i < 2; ++i) {
      const std::vector<double> g = values(got[size_t(i)]), w = values(want[size_t(i)]);
      ASSERT_EQ(g.size(), w.size());
      for (size_t k = 0; k < g.size(); ++k)  // one bf16 rounding: 2^-8 relative
        ASSERT_LE(std::fabs(g[k] - w[k]), std::ldexp(1.0, -8) * std::fabs(w[k]) + 1e-6)
            << "C=" << c.C << " s=" << c.s << " output " << i << " element " << k;
    }
    ConvParams p{c.N, c.C, c.H, c.H, c.O, 3, 3, OH, OH, c.s, c.s, 1, 1, 1, 1, 1, 1, 1};
    Tensor gw = Tensor::empty(ws, DType::BFloat16), gwb = Tensor::empty(ws, DType::BFloat16);
    // Without native bf16 (TANDEM_ISA=avx2) the path declines and the op computes in float32.
    if (!conv2d_native_bf16(p, ConvPass::BackwardWeights)) {
      EXPECT_FALSE(conv2d_backward_weights_taps(p, DType::BFloat16, x.data_ptr(), gy.data_ptr(),
                                                gw.data_ptr(), nullptr));
      continue;
    }
    ASSERT_TRUE(conv2d_backward_weights_taps(p, DType::BFloat16, x.data_ptr(), gy.data_ptr(),
                                             gw.data_ptr(), nullptr));
    p.blocked = true;
    Tensor xb = to_channel_blocked(x, kChannelBlock), gyb = to_channel_blocked(gy, kChannelBlock);
    ASSERT_TRUE(conv2d_backward_weights_taps(p, DType::BFloat16, xb.data_ptr(), gyb.data_ptr(),
                                             gwb.data_ptr(), nullptr));
    EXPECT_TRUE(equal(gw, gwb));
  }
}
