#include <gtest/gtest.h>

#include <cmath>

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
