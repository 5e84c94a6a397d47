#include "compiler/ir/half.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool IsHalfNaN(uint16_t b) { return (b & 0x7C00) == 0x7C00 && (b & 0x03FF) != 0; }
bool IsBF16NaN(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(DoubleToHalf(1.0), 0x3C00);
  EXPECT_EQ(DoubleToHalf(-2.0), 0xC000);
  EXPECT_EQ(DoubleToHalf(0.5), 0x3800);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7BFF);  // largest finite
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(DoubleToHalf(std::ldexp(1023.0, -24)), 0x03FF);  // largest subnormal
  EXPECT_EQ(HalfToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(HalfToDouble(0x8001), -std::ldexp(1.0, -24));
}

TEST(HalfTest, SignedZero) {
  EXPECT_EQ(DoubleToHalf(0.0), 0x0000);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_TRUE(std::signbit(HalfToDouble(0x8000)));
  EXPECT_EQ(DoubleToHalf(-std::ldexp(1.0, -30)), 0x8000);  // underflow keeps the sign
  EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::denorm_min()), 0x0000);
}

TEST(HalfTest, TiesRoundToEven) {
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3C00);      // 1 + half ulp -> 1
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // -> even neighbour
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40)), 0x3C00);
  // Subnormal ties.
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(DoubleToHalf(std::ldexp(3.0, -25)), 0x0002);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25) * 1.0000001), 0x0001);
  // The largest subnormal rounding up becomes the smallest normal.
  EXPECT_EQ(DoubleToHalf(std::ldexp(1023.5, -24)), 0x0400);
}

TEST(HalfTest, NoDoubleRounding) {
  // Through float this would first round to 1 + 2^-11 (a tie) and then to 1.
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30);
  EXPECT_EQ(DoubleToHalf(v), 0x3C01);
  EXPECT_EQ(DoubleToBFloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
}

TEST(HalfTest, OverflowAndSpecials) {
  EXPECT_EQ(DoubleToHalf(65519.99), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);  // tie between max and 2^16 goes to Inf
  EXPECT_EQ(DoubleToHalf(1e300), 0x7C00);
  EXPECT_EQ(DoubleToHalf(-1e300), 0xFC00);
  EXPECT_EQ(DoubleToHalf(kInf), 0x7C00);
  EXPECT_EQ(DoubleToHalf(-kInf), 0xFC00);
  EXPECT_TRUE(IsHalfNaN(DoubleToHalf(std::nan(""))));
  EXPECT_TRUE(IsHalfNaN(DoubleToHalf(-std::nan(""))));
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7E00)));
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7C01)));  // signalling pattern still reads as NaN
  EXPECT_EQ(HalfToDouble(0xFC00), -kInf);
}

TEST(HalfTest, RoundTripsEveryPattern) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    if (IsHalfNaN(bits)) {
      EXPECT_TRUE(IsHalfNaN(DoubleToHalf(HalfToDouble(bits))));
      continue;
    }
    ASSERT_EQ(DoubleToHalf(HalfToDouble(bits)), bits) << std::hex << b;
  }
}

// Midpoints between neighbouring finite halves round to the even one, and the
// nearest doubles on either side round to the nearer neighbour.
TEST(HalfTest, EveryMidpoint) {
  for (uint16_t b = 0; b < 0x7BFF; ++b) {
    const double lo = HalfToDouble(b);
    const double hi = HalfToDouble(b + 1);
    const double mid = (lo + hi) / 2;  // exact in double
    const uint16_t even = (b & 1) == 0 ? b : static_cast<uint16_t>(b + 1);
    ASSERT_EQ(DoubleToHalf(mid), even) << std::hex << b;
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, 0.0)), b);
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, kInf)), b + 1);
    ASSERT_EQ(DoubleToHalf(-mid), even | 0x8000);
  }
}

#if defined(__FLT16_MAX__)
// The compiler's own double -> _Float16 conversion rounds once, correctly.
TEST(HalfTest, AgreesWithCompilerFloat16) {
  uint64_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    // Random magnitudes from 2^-30 to 2^17 with random mantissa bits.
    const double v = std::ldexp(1.0 + static_cast<double>(state >> 12) * 0x1.0p-52,
                                static_cast<int>((state >> 3) % 48) - 30) *
                     ((state & 1) ? -1 : 1);
    const _Float16 h = static_cast<_Float16>(v);
    uint16_t expected;
    std::memcpy(&expected, &h, 2);
    ASSERT_EQ(DoubleToHalf(v), expected) << v;
  }
}
#endif

TEST(BFloat16Test, ExactValuesAndTies) {
  EXPECT_EQ(DoubleToBFloat16(1.0), 0x3F80);
  EXPECT_EQ(DoubleToBFloat16(-1.0), 0xBF80);
  EXPECT_EQ(BFloat16ToDouble(0x3F80), 1.0);
  EXPECT_EQ(DoubleToBFloat16(1.0 + std::ldexp(1.0, -8)), 0x3F80);      // tie -> even
  EXPECT_EQ(DoubleToBFloat16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);  // tie -> even
  EXPECT_EQ(DoubleToBFloat16(std::ldexp(1.0, -133)), 0x0001);          // smallest subnormal
  EXPECT_EQ(DoubleToBFloat16(std::ldexp(1.0, -134)), 0x0000);          // tie -> zero
  EXPECT_EQ(DoubleToBFloat16(-0.0), 0x8000);
  EXPECT_EQ(BFloat16ToDouble(0x7F7F), std::ldexp(255.0, 120));  // largest finite
}

TEST(BFloat16Test, OverflowAndSpecials) {
  EXPECT_EQ(DoubleToBFloat16(std::numeric_limits<float>::max()), 0x7F80);  // above the midpoint
  EXPECT_EQ(DoubleToBFloat16(std::ldexp(255.0, 120)), 0x7F7F);
  EXPECT_EQ(DoubleToBFloat16(1e39), 0x7F80);
  EXPECT_EQ(DoubleToBFloat16(-kInf), 0xFF80);
  EXPECT_TRUE(IsBF16NaN(DoubleToBFloat16(std::nan(""))));
  EXPECT_TRUE(std::isnan(BFloat16ToDouble(0x7FC0)));
}

// bfloat16 is the top half of a float: for values exact in float, rounding
// the float's bits with the classic add-and-shift gives the same answer.
TEST(BFloat16Test, AgreesWithFloatBitRounding) {
  uint32_t state = 7;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &state, 4);
    if (std::isnan(f)) continue;
    uint32_t bits = state;
    const uint32_t rounded = bits + 0x7FFF + ((bits >> 16) & 1);
    uint16_t expected = static_cast<uint16_t>(rounded >> 16);
    if (std::isinf(f)) expected = static_cast<uint16_t>(bits >> 16);
    ASSERT_EQ(DoubleToBFloat16(f), expected) << f;
  }
}

TEST(BFloat16Test, RoundTripsEveryPattern) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    if (IsBF16NaN(bits)) continue;
    ASSERT_EQ(DoubleToBFloat16(BFloat16ToDouble(bits)), bits) << std::hex << b;
  }
}

TEST(HalfTest, RoundHelpersAndFloatWrappers) {
  EXPECT_EQ(RoundToF16(1.0 + std::ldexp(1.0, -12)), 1.0);
  EXPECT_EQ(RoundToF16(70000.0), kInf);
  EXPECT_EQ(RoundToBF16(1.0 + std::ldexp(1.0, -9)), 1.0);
  EXPECT_EQ(RoundToBF16(3.0), 3.0);
  EXPECT_EQ(FloatToHalf(1.5f), 0x3E00);
  EXPECT_EQ(HalfToFloat(0x3E00), 1.5f);
  EXPECT_EQ(FloatToBFloat16(1.5f), 0x3FC0);
  EXPECT_EQ(BFloat16ToFloat(0x3FC0), 1.5f);
}

}  // namespace
}  // namespace rk::compiler
