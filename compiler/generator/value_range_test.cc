#include "compiler/generator/value_range.h"

#include "gtest/gtest.h"

namespace rk::compiler::generator {
namespace {

using compiler::DType;
using compiler::Op;
using compiler::Shape;
using compiler::TensorType;

ValueFacts Facts(double lo, double hi, bool exact = true, DType dtype = DType::kF32,
                 Shape shape = Shape{4}) {
  return {TensorType(dtype, shape), {lo, hi}, exact};
}

TEST(ValueRangeTest, PropagatesThroughArithmetic) {
  const TensorType f32(DType::kF32, Shape{4});
  ValueRange r = InferRange(Op::kMul, {Facts(-2, 3), Facts(1, 4)}, {}, f32);
  EXPECT_LE(r.lo, -8);
  EXPECT_GE(r.hi, 12);
  r = InferRange(Op::kReciprocal, {Facts(0.5, 2)}, {}, f32);
  EXPECT_LE(r.lo, 0.5);
  EXPECT_GE(r.hi, 2);
  r = InferRange(Op::kReduceSum, {Facts(-1, 1, true, DType::kF32, Shape{8, 4})}, {}, f32);
  EXPECT_GE(r.hi, 2);  // 2 elements summed per output
  r = InferRange(Op::kMatmul,
                 {Facts(-1, 1, true, DType::kF32, Shape{2, 8}), Facts(0, 2, true, DType::kF32, Shape{8, 4})},
                 {}, TensorType(DType::kF32, Shape{2, 4}));
  EXPECT_LE(r.lo, -16);
  EXPECT_GE(r.hi, 16);
}

TEST(ValueRangeTest, RoundingAndFloorDivision) {
  const TensorType f32(DType::kF32, Shape{4});
  ValueRange r = InferRange(Op::kFloor, {Facts(-1.5, 2.5)}, {}, f32);
  EXPECT_LE(r.lo, -2);
  EXPECT_GE(r.hi, 2);
  r = InferRange(Op::kRound, {Facts(2.5, 3.5)}, {}, f32);  // half to even: 2 and 4
  EXPECT_LE(r.lo, 2);
  EXPECT_GE(r.hi, 4);
  r = InferRange(Op::kClip, {Facts(-5, 5)}, {{"min", -1.0}, {"max", 2.0}}, f32);
  EXPECT_LE(r.lo, -1);
  EXPECT_GE(r.hi, 2);
  EXPECT_LT(r.hi, 2.1);
  r = InferRange(Op::kClip, {Facts(-5, 5, true, DType::kI32)}, {{"max", 2.7}},
                 TensorType(DType::kI32, Shape{4}));
  EXPECT_EQ(r.lo, -5);
  EXPECT_EQ(r.hi, 2);
  r = InferRange(Op::kMod, {Facts(-9, 9), Facts(-3, -2)}, {}, f32);
  EXPECT_LE(r.lo, -3);
  EXPECT_GE(r.hi, 0);
  r = InferRange(Op::kFloorDiv, {Facts(-9, 9), Facts(2, 3)}, {}, f32);
  EXPECT_LE(r.lo, -5);  // floor(-9 / 2)
  EXPECT_GE(r.hi, 4);
  r = InferRange(Op::kFloorDiv, {Facts(-9, 9, true, DType::kI64), Facts(-3, 3, true, DType::kI64)},
                 {}, TensorType(DType::kI64, Shape{4}));
  EXPECT_EQ(r.lo, -9);  // INT_MIN floordiv -1 keeps the magnitude
  EXPECT_EQ(r.hi, 9);
}

TEST(ValueRangeTest, CumsumAndPad) {
  const TensorType f32(DType::kF32, Shape{3, 5});
  const ValueFacts x = Facts(-1, 2, true, DType::kF32, Shape{3, 5});
  ValueRange r = InferRange(Op::kCumsum, {x}, {{"axis", int64_t{-1}}}, f32);
  EXPECT_LE(r.lo, -5);  // up to 5 elements summed
  EXPECT_GE(r.hi, 10);
  r = InferRange(Op::kCumsum, {Facts(1, 2, true, DType::kF32, Shape{3, 5})}, {{"axis", int64_t{0}}},
                 f32);
  EXPECT_LE(r.lo, 0);  // an exclusive scan starts at 0
  EXPECT_GE(r.hi, 6);
  r = InferRange(Op::kPad, {Facts(1, 2)}, {{"pads", std::vector<int64_t>{1, 1}}, {"value", -3.0}},
                 TensorType(DType::kF32, Shape{6}));
  EXPECT_LE(r.lo, -3);
  EXPECT_GE(r.hi, 2);
  r = InferRange(Op::kPad, {Facts(1, 2, true, DType::kI32)},
                 {{"pads", std::vector<int64_t>{1, 1}}, {"value", 7.9}},
                 TensorType(DType::kI32, Shape{6}));
  EXPECT_EQ(r.hi, 7);
  EXPECT_TRUE(InferExact(Op::kPad, {Facts(1, 2)}, f32));
  EXPECT_FALSE(InferExact(Op::kCumsum, {x}, f32));
}

TEST(ValueRangeTest, IntegersWrapToTheirRange) {
  const TensorType i32(DType::kI32, Shape{4});
  ValueRange r = InferRange(Op::kMul, {Facts(-1e6, 1e6, true, DType::kI32), Facts(-1e6, 1e6, true, DType::kI32)}, {}, i32);
  EXPECT_EQ(r.hi, 2147483647.0);
}

TEST(ValueRangeTest, DomainsRejectUnsafeOperands) {
  const TensorType f32(DType::kF32, Shape{4});
  EXPECT_FALSE(OperandDomainOk(Op::kLog, 0, Facts(-1, 1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kLog, 0, Facts(0.5, 2), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kDiv, 1, Facts(-1, 1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kDiv, 1, Facts(-1, 1, true, DType::kI32), TensorType(DType::kI32, Shape{4})));
  EXPECT_FALSE(OperandDomainOk(Op::kExp, 0, Facts(0, 50), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kLt, 0, Facts(0, 1, /*exact=*/false), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kCast, 0, Facts(0, 1, false), TensorType(DType::kI32, Shape{4})));
  EXPECT_TRUE(OperandDomainOk(Op::kCast, 0, Facts(0, 1, false), TensorType(DType::kF16, Shape{4})));
  // Discontinuous ops read exact floats only; a float divisor stays away from 0.
  EXPECT_FALSE(OperandDomainOk(Op::kFloor, 0, Facts(0, 1, false), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kRound, 0, Facts(0, 1), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kMod, 0, Facts(0, 1, false), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kMod, 1, Facts(-1, 1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kMod, 1, Facts(0.5, 1), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kFloorDiv, 1, Facts(0.5, 1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kFloorDiv, 1, Facts(-3, -1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kFloorDiv, 1, Facts(-3, 3, true, DType::kI32),
                              TensorType(DType::kI32, Shape{4})));
}

TEST(ValueRangeTest, ExactnessFollowsTheOps) {
  const TensorType f32(DType::kF32, Shape{4});
  EXPECT_TRUE(InferExact(Op::kRelu, {Facts(-1, 1)}, f32));
  EXPECT_FALSE(InferExact(Op::kExp, {Facts(-1, 1)}, f32));
  EXPECT_FALSE(InferExact(Op::kNeg, {Facts(-1, 1, false)}, f32));
  EXPECT_TRUE(InferExact(Op::kFloor, {Facts(-1, 1)}, f32));
  EXPECT_TRUE(InferExact(Op::kClip, {Facts(-1, 1)}, f32));
  EXPECT_FALSE(InferExact(Op::kMod, {Facts(-1, 1), Facts(1, 2)}, f32));
  EXPECT_TRUE(InferExact(Op::kAdd, {Facts(-1, 1, true, DType::kI32), Facts(-1, 1, true, DType::kI32)},
                         TensorType(DType::kI32, Shape{4})));
}

}  // namespace
}  // namespace rk::compiler::generator
