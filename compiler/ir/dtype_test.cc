#include "compiler/ir/dtype.h"

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(DTypeTest, NamesRoundTrip) {
  for (DType d : kAllDTypes) {
    ASSERT_EQ(ParseDType(DTypeName(d)), d);
  }
  EXPECT_EQ(DTypeName(DType::kBF16), "bf16");
  EXPECT_EQ(DTypeName(DType::kBool), "bool");
  EXPECT_EQ(ParseDType("f8"), std::nullopt);
  EXPECT_EQ(ParseDType("F32"), std::nullopt);
  EXPECT_EQ(ParseDType(""), std::nullopt);
}

TEST(DTypeTest, SizesAndClasses) {
  EXPECT_EQ(DTypeSize(DType::kF16), 2);
  EXPECT_EQ(DTypeSize(DType::kBF16), 2);
  EXPECT_EQ(DTypeSize(DType::kF32), 4);
  EXPECT_EQ(DTypeSize(DType::kF64), 8);
  EXPECT_EQ(DTypeSize(DType::kI32), 4);
  EXPECT_EQ(DTypeSize(DType::kI64), 8);
  EXPECT_EQ(DTypeSize(DType::kBool), 1);
  for (DType d : kAllDTypes) {
    // Every dtype is exactly one of float, integer or bool.
    EXPECT_EQ(IsFloat(d) + IsInteger(d) + (d == DType::kBool), 1) << DTypeName(d);
    if (IsLowPrecision(d)) {
      EXPECT_TRUE(IsFloat(d));
    }
  }
  EXPECT_TRUE(IsLowPrecision(DType::kF16));
  EXPECT_TRUE(IsLowPrecision(DType::kBF16));
  EXPECT_FALSE(IsLowPrecision(DType::kF32));
  EXPECT_TRUE(IsInteger(DType::kI64));
  EXPECT_FALSE(IsInteger(DType::kBool));
}

}  // namespace
}  // namespace rk::compiler
