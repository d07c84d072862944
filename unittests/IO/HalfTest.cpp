//===- HalfTest.cpp - f32 <-> f16 conversions -----------------------------===//
#include "kiln/IO/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kiln::io;

namespace {

TEST(Half, ExactValues) {
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalfBits(0.5f), 0x3800);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bff); // largest finite half
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
}

TEST(Half, InfinityAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToHalfBits(inf), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-inf), 0xfc00);
  uint16_t nan = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A signalling NaN whose payload sits only in the low bits stays a NaN.
  EXPECT_NE(floatToHalfBits(bitsToFloat(0x7f800001u)) & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7e00)));
  EXPECT_EQ(halfBitsToFloat(0x7c00), inf);
  EXPECT_EQ(halfBitsToFloat(0xfc00), -inf);
}

TEST(Half, OverflowRoundsToInfinityOnlyPastTheHalfwayPoint) {
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7bff); // below halfway to 65536
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7c00); // halfway: ties to even = inf
  EXPECT_EQ(floatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-1e10f), 0xfc00);
}

TEST(Half, Subnormals) {
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001); // smallest
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000); // tie -> even 0
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.5f, -25)), 0x0001); // above the tie
  EXPECT_EQ(floatToHalfBits(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp: tie -> 2
  EXPECT_EQ(floatToHalfBits(std::ldexp(1023.0f, -24)), 0x03ff); // largest
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(floatToHalfBits(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0x8001), -std::ldexp(1.0f, -24));
  // Rounding the largest subnormal up carries into the smallest normal.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1023.75f, -24)), 0x0400);
}

TEST(Half, TiesGoToEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1.
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3·2^-11 is halfway between 0x3c01 and 0x3c02: even is 0x3c02.
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above a tie rounds up.
  EXPECT_EQ(floatToHalfBits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)),
            0x3c01);
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t half = static_cast<uint16_t>(bits);
    float value = halfBitsToFloat(half);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(halfBitsToFloat(floatToHalfBits(value))));
      continue;
    }
    ASSERT_EQ(floatToHalfBits(value), half) << "half bits " << bits;
  }
}

#if defined(__FLT16_MAX__)
// The compiler's own conversion (hardware or libgcc) is the oracle for a
// sweep across the whole f32 range.
TEST(Half, MatchesCompilerFloat16OnASweep) {
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4093) {
    float value = bitsToFloat(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    _Float16 reference = static_cast<_Float16>(value);
    uint16_t referenceBits;
    std::memcpy(&referenceBits, &reference, 2);
    ASSERT_EQ(floatToHalfBits(value), referenceBits) << "f32 bits " << bits;
  }
}
#endif

} // namespace
