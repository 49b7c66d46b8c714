// The kernels that read and write bfloat16 themselves (convolution on oneDNN and its GEMM
// weight gradient, batch norm, max pooling) against the float32 computation on the same
// bf16-exact values, rounded once; and the F16C float16 conversions against the scalar path.
// Run in the sanitizer build too: the im2col and transpose buffers of the GEMM weight
// gradient and the per-plane accumulators are checked there.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/pool.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {

// A bf16 tensor of random values and the same values in float32.
std::pair<Tensor, Tensor> bf16_pair(const Shape& shape, uint32_t seed) {
  std::vector<float> v;
  for (double d : random_values(size_t(numel_of(shape)), -2.0, 2.0, seed)) v.push_back(float(d));
  Tensor b = to_dtype(from_vec(v, shape), DType::BFloat16);
  return {b, to_dtype(b, DType::Float32)};
}

// got (bf16) within `ulps` bf16 rounding steps of want (float32) at want's scale.
void expect_bf16_close(const Tensor& got, const Tensor& want, double ulps = 2.0) {
  ASSERT_EQ(got.dtype(), DType::BFloat16);
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = values(got), w = values(want);
  double scale = 1e-30;
  for (double x : w) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < g.size(); ++i) {
    const double tol = ulps * std::ldexp(std::max(std::fabs(w[i]), 1e-2 * scale), -8);
    ASSERT_LE(std::fabs(g[i] - w[i]), tol) << "element " << i << ": " << g[i] << " vs " << w[i];
  }
}

struct ConvCase {
  int64_t N, C, H, W, O, k, s, p, d;
};

}  // namespace

TEST(Bf16Kernels, ConvolutionAndBothGradientsMatchFloat32) {
  // oneDNN's direct kernels, the GEMM weight gradient (strided, small maps, dilated) and the
  // float32 fallback for few channels.
  const ConvCase cases[] = {{2, 16, 9, 9, 32, 3, 1, 1, 1}, {2, 32, 12, 10, 16, 3, 2, 1, 1},
                            {3, 64, 3, 3, 32, 3, 1, 1, 1}, {2, 32, 7, 9, 16, 3, 2, 2, 2},
                            {2, 32, 6, 6, 64, 1, 2, 0, 1}, {2, 3, 11, 11, 6, 5, 1, 2, 1}};
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    Conv2dArgs a;
    a.stride = {c.s, c.s};
    a.padding = {c.p, c.p, c.p, c.p};
    a.dilation = {c.d, c.d};
    auto [x, x32] = bf16_pair({c.N, c.C, c.H, c.W}, seed++);
    auto [w, w32] = bf16_pair({c.O, c.C, c.k, c.k}, seed++);
    auto [b, b32] = bf16_pair({c.O}, seed++);
    Tensor y = conv2d(x, w, b, a), y32 = conv2d(x32, w32, b32, a);
    expect_bf16_close(y, y32);
    auto [gy, gy32] = bf16_pair(y.shape(), seed++);
    expect_bf16_close(conv2d_backward_input(gy, w, x.shape(), a),
                      conv2d_backward_input(gy32, w32, x.shape(), a));
    std::vector<Tensor> gw = conv2d_backward_weight(x, gy, w.shape(), a);
    std::vector<Tensor> gw32 = conv2d_backward_weight(x32, gy32, w.shape(), a);
    expect_bf16_close(gw[0], gw32[0]);
    expect_bf16_close(gw[1], gw32[1]);
  }
}

TEST(Bf16Kernels, BatchNormForwardAndBackwardMatchFloat32) {
  auto [x, x32] = bf16_pair({4, 8, 5, 7}, 11);
  auto [gy, gy32] = bf16_pair({4, 8, 5, 7}, 12);
  std::vector<float> wv(8, 1.5f), bv(8, -0.25f);
  Tensor w = from_vec(wv, {8}), bias = from_vec(bv, {8});
  for (bool training : {true, false}) {
    Tensor rm = from_vec(std::vector<float>(8, 0.1f), {8});
    Tensor rv = from_vec(std::vector<float>(8, 2.0f), {8});
    std::vector<Tensor> f = batch_norm_forward(x, w, bias, rm, rv, training, 1e-5);
    std::vector<Tensor> f32 = batch_norm_forward(x32, w, bias, rm, rv, training, 1e-5);
    expect_bf16_close(f[0], f32[0]);
    EXPECT_TRUE(all_close(values(f[1]), values(f32[1]), 1e-6, 1e-6));
    std::vector<Tensor> g = batch_norm_backward(gy, x, w, f[1], f[2], training);
    std::vector<Tensor> g32 = batch_norm_backward(gy32, x32, w, f32[1], f32[2], training);
    expect_bf16_close(g[0], g32[0]);
    EXPECT_TRUE(all_close(values(g[1]), values(g32[1]), 1e-5, 1e-5));
    EXPECT_TRUE(all_close(values(g[2]), values(g32[2]), 1e-5, 1e-5));
  }
}

TEST(Bf16Kernels, MaxPoolIsExactAndItsGradientRoundsOnce) {
  auto [x, x32] = bf16_pair({2, 3, 13, 11}, 21);
  Pool2dArgs a;
  a.kernel = {3, 3};
  a.stride = {2, 2};
  a.padding = {1, 1};
  auto [y, idx] = max_pool2d(x, a);
  auto [y32, idx32] = max_pool2d(x32, a);
  EXPECT_EQ(values(y), values(y32));
  EXPECT_EQ(values(idx), values(idx32));
  auto [gy, gy32] = bf16_pair(y.shape(), 22);
  expect_bf16_close(max_pool2d_backward(gy, idx, x.shape()),
                    max_pool2d_backward(gy32, idx32, x.shape()), 1.0);
}

TEST(Bf16Kernels, Float16ConversionsOfDenseArraysMatchTheScalarPath) {
  // Every float16 bit pattern, widened densely (F16C) and element by element (strided).
  std::vector<uint16_t> h(65536);
  for (size_t i = 0; i < h.size(); ++i) h[i] = uint16_t(i);
  std::vector<float> dense(h.size()), scalar(h.size());
  convert_strided(reinterpret_cast<const char*>(h.data()), 2, DType::Float16,
                  reinterpret_cast<char*>(dense.data()), 4, DType::Float32, int64_t(h.size()));
  for (size_t i = 0; i < h.size(); ++i) scalar[i] = half_to_float(h[i]);
  EXPECT_EQ(0, std::memcmp(dense.data(), scalar.data(), dense.size() * 4));
  // Narrowing: those values, halfway points, overflow, NaN with payloads, odd tail length.
  std::vector<float> f(scalar);
  for (uint32_t u : {0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u, 0x7fa00001u, 0xffc01234u,
                     0x38800000u, 0x387fffffu})
    f.push_back(std::bit_cast<float>(u));
  std::vector<uint16_t> out(f.size());
  convert_strided(reinterpret_cast<const char*>(f.data()), 4, DType::Float32,
                  reinterpret_cast<char*>(out.data()), 2, DType::Float16, int64_t(f.size()));
  for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(out[i], float_to_half(f[i])) << f[i];
}
