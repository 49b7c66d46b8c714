#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tandem/core/dtype.h"
#include "tandem/core/error.h"

using namespace tandem;

TEST(DType, PromotionTable) {
  EXPECT_EQ(promote_types(DType::Bool, DType::Int8), DType::Int8);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float16), DType::Float16);
  EXPECT_EQ(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote_types(DType::Int32, DType::Int64), DType::Int64);
  EXPECT_EQ(promote_types(DType::Bool, DType::Bool), DType::Bool);
  // Symmetric over every pair.
  for (int a = 0; a < kNumDTypes; ++a)
    for (int b = 0; b < kNumDTypes; ++b)
      EXPECT_EQ(promote_types(DType(a), DType(b)), promote_types(DType(b), DType(a)));
}

TEST(DType, CanCast) {
  EXPECT_FALSE(can_cast(DType::Float32, DType::Int64));
  EXPECT_FALSE(can_cast(DType::Int64, DType::Bool));
  EXPECT_TRUE(can_cast(DType::Int64, DType::Float32));
  EXPECT_TRUE(can_cast(DType::Bool, DType::UInt8));
}

TEST(DType, HalfRoundTrip) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.1f})
    EXPECT_FLOAT_EQ(half_to_float(float_to_half(f)), half_to_float(float_to_half(f)));
  EXPECT_EQ(half_to_float(float_to_half(1.0f)), 1.0f);
  EXPECT_EQ(half_to_float(float_to_half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_EQ(half_to_float(float_to_half(5.9604645e-08f)), 5.9604645e-08f);  // smallest subnormal
  EXPECT_NEAR(half_to_float(float_to_half(0.1f)), 0.1f, 1e-4);
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f)), 1.0f);
  EXPECT_NEAR(bf16_to_float(float_to_bf16(3.14159f)), 3.14159f, 0.02);
}

// The whole table from the README (PyTorch's promote_types), row by row.
TEST(DType, PromotionTableMatchesReadme) {
  using D = DType;
  const D order[] = {D::Bool,  D::UInt8,   D::Int8,     D::Int16,   D::Int32,
                     D::Int64, D::Float16, D::BFloat16, D::Float32, D::Float64};
  const D table[10][10] = {
      {D::Bool, D::UInt8, D::Int8, D::Int16, D::Int32, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::UInt8, D::UInt8, D::Int16, D::Int16, D::Int32, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::Int8, D::Int16, D::Int8, D::Int16, D::Int32, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::Int16, D::Int16, D::Int16, D::Int16, D::Int32, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::Int32, D::Int32, D::Int32, D::Int32, D::Int32, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, D::Float16, D::BFloat16,
       D::Float32, D::Float64},
      {D::Float16, D::Float16, D::Float16, D::Float16, D::Float16, D::Float16, D::Float16,
       D::Float32, D::Float32, D::Float64},
      {D::BFloat16, D::BFloat16, D::BFloat16, D::BFloat16, D::BFloat16, D::BFloat16, D::Float32,
       D::BFloat16, D::Float32, D::Float64},
      {D::Float32, D::Float32, D::Float32, D::Float32, D::Float32, D::Float32, D::Float32,
       D::Float32, D::Float32, D::Float64},
      {D::Float64, D::Float64, D::Float64, D::Float64, D::Float64, D::Float64, D::Float64,
       D::Float64, D::Float64, D::Float64},
  };
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b)
      EXPECT_EQ(promote_types(order[a], order[b]), table[a][b])
          << dtype_name(order[a]) << " + " << dtype_name(order[b]);
}

TEST(DType, NamesAndSizes) {
  EXPECT_STREQ(dtype_name(DType::BFloat16), "BFloat16");
  EXPECT_STREQ(dtype_short_name(DType::UInt8), "uint8");
  const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (int d = 0; d < kNumDTypes; ++d) EXPECT_EQ(itemsize(DType(d)), sizes[d]) << d;
  EXPECT_TRUE(is_floating(DType::BFloat16));
  EXPECT_FALSE(is_floating(DType::Int64));
  EXPECT_FALSE(is_integral(DType::Bool));
  EXPECT_TRUE(is_integral(DType::Bool, true));
  EXPECT_FALSE(is_signed(DType::UInt8));
  EXPECT_TRUE(is_signed(DType::Int8));
}

#if defined(__FLT16_MAX__)
// The compiler's _Float16 conversions are IEEE round-to-nearest-even: an independent oracle.
TEST(DType, HalfMatchesCompilerFloat16) {
  for (uint32_t b = 0; b < 65536; ++b) {
    _Float16 h;
    uint16_t bits = uint16_t(b);
    std::memcpy(&h, &bits, 2);
    float want = float(h), got = half_to_float(bits);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << b;
      continue;
    }
    ASSERT_EQ(std::memcmp(&want, &got, 4), 0) << "half bits " << b;  // also checks -0
  }
  // float -> half over the interesting exponent range plus random bit patterns.
  uint32_t x = 2463534242u;
  for (int i = 0; i < 400000; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    uint32_t u = i < 200000 ? (x & 0x80000000u) | (0x30000000u + (x % 0x18000000u)) : x;
    float f;
    std::memcpy(&f, &u, 4);
    _Float16 h = _Float16(f);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    uint16_t got = float_to_half(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(got)));
      continue;
    }
    ASSERT_EQ(got, want) << "float bits " << u;
  }
}
#endif

TEST(DType, BFloat16RoundsToNearestEven) {
  // Reference: pick the nearer of the two bf16 neighbours in double, ties to the even one.
  auto ref = [](float f) -> uint16_t {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint32_t lo = u & 0xffff0000u, hi = lo + 0x10000u;
    float flo, fhi;
    std::memcpy(&flo, &lo, 4);
    std::memcpy(&fhi, &hi, 4);
    double dl = std::fabs(double(f) - double(flo)), dh = std::fabs(double(fhi) - double(f));
    // Above the largest finite bf16 the upper neighbour is inf (dh is inf too): the halfway
    // point decides, and the tie goes to inf because 0x7f7f is odd.
    if ((lo & 0x7fffffffu) == 0x7f7f0000u)
      return uint16_t(((u & 0xffffu) >= 0x8000u ? hi : lo) >> 16);
    if (dl < dh || (dl == dh && ((lo >> 16) & 1) == 0)) return uint16_t(lo >> 16);
    return uint16_t(hi >> 16);
  };
  uint32_t x = 88172645u;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    float f;
    std::memcpy(&f, &x, 4);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(f))));
      continue;
    }
    if (std::isinf(f)) continue;
    ASSERT_EQ(float_to_bf16(f), ref(f)) << "float bits " << x;
  }
  EXPECT_EQ(float_to_bf16(INFINITY), 0x7f80);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
}
