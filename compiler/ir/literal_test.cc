#include "compiler/ir/literal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/ir/half.h"

namespace rk::compiler {
namespace {

TEST(LiteralTest, FormatDoubleIsShortestAndFloatLooking) {
  EXPECT_EQ(FormatDouble(1.0), "1.0");
  EXPECT_EQ(FormatDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e20), "1e+20");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(5e-324), "5e-324");
}

TEST(LiteralTest, ParseDoubleRoundTripsAndRejectsJunk) {
  for (double v : {0.1, -2.5e-300, 1.7976931348623157e308, 5e-324, -0.0}) {
    absl::StatusOr<double> back = ParseDouble(FormatDouble(v));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(std::memcmp(&*back, &v, 8), 0) << FormatDouble(v);
  }
  EXPECT_TRUE(std::signbit(*ParseDouble("-nan")));
  EXPECT_TRUE(std::isnan(*ParseDouble("-nan")));
  EXPECT_FALSE(ParseDouble("1e999").ok());
  EXPECT_FALSE(ParseDouble("abc").ok());
  EXPECT_FALSE(ParseDouble("1.5x").ok());
}

// A finite literal that the dtype cannot hold is an error, not a silent inf.
TEST(LiteralTest, SixteenBitOverflowIsRejected) {
  HostTensor t(TensorType(DType::kF16, {3}));
  absl::Status s = ParseElement("70000", t, 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'70000' overflows f16"), std::string::npos) << s;
  EXPECT_TRUE(ParseElement("65504", t, 1).ok());
  EXPECT_TRUE(ParseElement("inf", t, 2).ok()) << "an explicit inf stays allowed";
  HostTensor b(TensorType(DType::kBF16, {1}));
  EXPECT_TRUE(ParseElement("70000", b, 0).ok()) << "bf16 has f32's range";
}

TEST(LiteralTest, EverySixteenBitPatternRoundTrips) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    HostTensor t(TensorType(dtype, {1}));
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      t.data<uint16_t>()[0] = static_cast<uint16_t>(bits);
      double value = dtype == DType::kF16 ? HalfToDouble(bits) : BFloat16ToDouble(bits);
      std::string text = FormatElement(t, 0);
      HostTensor back(TensorType(dtype, {1}));
      ASSERT_TRUE(ParseElement(text, back, 0).ok()) << text;
      if (std::isnan(value)) {
        EXPECT_EQ(text, (bits & 0x8000) ? "-nan" : "nan");
      } else {
        ASSERT_EQ(back.data<uint16_t>()[0], bits) << DTypeName(dtype) << " " << text;
      }
    }
  }
}

TEST(LiteralTest, SixteenBitValuesPrintShort) {
  HostTensor t(TensorType(DType::kF16, {1}));
  t.data<uint16_t>()[0] = FloatToHalf(0.1f);
  EXPECT_EQ(FormatElement(t, 0), "0.1");
  t.data<uint16_t>()[0] = FloatToHalf(65504.0f);
  EXPECT_EQ(FormatElement(t, 0), "65504.0");
}

TEST(LiteralTest, IntegersAndBools) {
  HostTensor t(TensorType(DType::kI32, {1}));
  EXPECT_TRUE(ParseElement("-2147483648", t, 0).ok());
  EXPECT_EQ(FormatElement(t, 0), "-2147483648");
  EXPECT_FALSE(ParseElement("2147483648", t, 0).ok());
  EXPECT_FALSE(ParseElement("1.0", t, 0).ok());
  HostTensor b(TensorType(DType::kBool, {1}));
  EXPECT_TRUE(ParseElement("true", b, 0).ok());
  EXPECT_EQ(FormatElement(b, 0), "true");
  EXPECT_FALSE(ParseElement("1", b, 0).ok());
}

TEST(LiteralTest, QuoteStringEscapes) {
  EXPECT_EQ(QuoteString("a\"b\\c\n\x01\xff"), "\"a\\\"b\\\\c\\n\\x01\\xff\"");
}

}  // namespace
}  // namespace rk::compiler
