#include "compiler/generator/value_range.h"

#include <cmath>
#include <vector>

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

TEST(ValueRangeTest, GatherKeepsTheDataRangeForIndicesInRange) {
  const TensorType out(DType::kF32, Shape{2, 3});
  const ValueFacts data = Facts(0.5, 2, true, DType::kF32, Shape{5, 3});
  const compiler::Attributes axis0 = {{"axis", int64_t{0}}};
  ValueRange r = InferRange(Op::kGather, {data, Facts(-5, 4, true, DType::kI64, Shape{2})}, axis0, out);
  EXPECT_GT(r.lo, 0.4);
  EXPECT_LT(r.hi, 2.1);
  // An index that may be out of range may select 0.
  r = InferRange(Op::kGather, {data, Facts(0, 5, true, DType::kI64, Shape{2})}, axis0, out);
  EXPECT_LE(r.lo, 0);
  EXPECT_TRUE(InferExact(Op::kGather, {data, Facts(0, 4, true, DType::kI32, Shape{2})}, out));
}

TEST(ValueRangeTest, WindowOps) {
  const TensorType out(DType::kF32, Shape{1, 2, 3, 3});
  const ValueFacts x = Facts(-1, 2, true, DType::kF32, Shape{1, 2, 5, 5});
  // conv2d: 2 channels x 3 x 3 taps of products in [-4, 8] (a padded tap adds 0).
  const compiler::Attributes conv = {{"strides", std::vector<int64_t>{2, 2}},
                                     {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                     {"dilations", std::vector<int64_t>{1, 1}},
                                     {"groups", int64_t{1}}};
  ValueRange r = InferRange(Op::kConv2d, {x, Facts(-2, 4, true, DType::kF32, Shape{2, 2, 3, 3})},
                            conv, out);
  EXPECT_LE(r.lo, -72);
  EXPECT_GE(r.hi, 144);
  compiler::Attributes pool = {{"kernel", std::vector<int64_t>{3, 3}},
                               {"strides", std::vector<int64_t>{2, 2}},
                               {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                               {"dilations", std::vector<int64_t>{1, 1}}};
  r = InferRange(Op::kMaxPool2d, {x}, pool, out);
  EXPECT_LT(r.hi, 2.1);
  EXPECT_GT(r.lo, -1.1);
  EXPECT_TRUE(InferExact(Op::kMaxPool2d, {x}, out));
  EXPECT_FALSE(InferExact(Op::kConv2d, {x, x}, out));
  // A window of padding only (taps at -2 and 1 of a width-1 input): -inf.
  pool.Set("kernel", std::vector<int64_t>{1, 2});
  pool.Set("dilations", std::vector<int64_t>{1, 3});
  pool.Set("pads", std::vector<int64_t>{0, 2, 0, 1});
  pool.Set("strides", std::vector<int64_t>{1, 1});
  r = InferRange(Op::kMaxPool2d, {Facts(0, 1, true, DType::kF32, Shape{1, 1, 1, 1})}, pool,
                 TensorType(DType::kF32, Shape{1, 1, 1, 1}));
  EXPECT_FALSE(std::isfinite(r.lo));
  const compiler::Attributes avg = {{"kernel", std::vector<int64_t>{3, 3}},
                                    {"strides", std::vector<int64_t>{2, 2}},
                                    {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                    {"count_include_pad", true}};
  r = InferRange(Op::kAvgPool2d, {Facts(1, 2, true, DType::kF32, Shape{1, 2, 5, 5})}, avg, out);
  EXPECT_LE(r.lo, 0);  // padded zeros count
  EXPECT_GE(r.hi, 2);
}

TEST(ValueRangeTest, IntegersWrapToTheirRange) {
  const TensorType i32(DType::kI32, Shape{4});
  ValueRange r = InferRange(Op::kMul, {Facts(-1e6, 1e6, true, DType::kI32), Facts(-1e6, 1e6, true, DType::kI32)}, {}, i32);
  EXPECT_EQ(r.hi, 2147483647.0);
}

// The raw range shows what the fitted one hides: an integer result past
// kMaxIntMagnitude (the generator then clamps the operands).
TEST(ValueRangeTest, RawRangeOfIntegersIsNotFitted) {
  const TensorType i32(DType::kI32, Shape{4});
  const ValueFacts big = Facts(-1e6, 1e6, true, DType::kI32);
  EXPECT_EQ(InferRawRange(Op::kMul, {big, big}, {}, i32).hi, 1e12);
  EXPECT_GT(InferRawRange(Op::kMul, {big, big}, {}, i32).MaxAbs(), kMaxIntMagnitude);
  EXPECT_LE(InferRawRange(Op::kAdd, {big, big}, {}, i32).MaxAbs(), kMaxIntMagnitude);
}

TEST(ValueRangeTest, DomainsRejectUnsafeOperands) {
  const TensorType f32(DType::kF32, Shape{4});
  EXPECT_FALSE(OperandDomainOk(Op::kLog, 0, Facts(-1, 1), f32));
  EXPECT_TRUE(OperandDomainOk(Op::kLog, 0, Facts(0.5, 2), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kDiv, 1, Facts(-1, 1), f32));
  // Integer divisors: never 0 (x / 0) and never -1 (INT_MIN / -1).
  const TensorType i32(DType::kI32, Shape{4});
  for (Op op : {Op::kDiv, Op::kMod, Op::kFloorDiv}) {
    EXPECT_FALSE(OperandDomainOk(op, 1, Facts(-1, 1, true, DType::kI32), i32));
    EXPECT_FALSE(OperandDomainOk(op, 1, Facts(0, 5, true, DType::kI32), i32));
    EXPECT_FALSE(OperandDomainOk(op, 1, Facts(-5, -1, true, DType::kI32), i32));
    EXPECT_TRUE(OperandDomainOk(op, 1, Facts(1, 5, true, DType::kI32), i32));
    EXPECT_TRUE(OperandDomainOk(op, 1, Facts(-5, -2, true, DType::kI32), i32));
    EXPECT_TRUE(OperandDomainOk(op, 0, Facts(-2147483648.0, 0, true, DType::kI32), i32));
  }
  EXPECT_FALSE(OperandDomainOk(Op::kExp, 0, Facts(0, 50), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kLt, 0, Facts(0, 1, /*exact=*/false), f32));
  EXPECT_FALSE(OperandDomainOk(Op::kCast, 0, Facts(0, 1, false), TensorType(DType::kI32, Shape{4})));
  EXPECT_TRUE(OperandDomainOk(Op::kCast, 0, Facts(0, 1, false), TensorType(DType::kF16, Shape{4})));
}

TEST(ValueRangeTest, ExactnessFollowsTheOps) {
  const TensorType f32(DType::kF32, Shape{4});
  EXPECT_TRUE(InferExact(Op::kRelu, {Facts(-1, 1)}, f32));
  EXPECT_FALSE(InferExact(Op::kExp, {Facts(-1, 1)}, f32));
  EXPECT_FALSE(InferExact(Op::kNeg, {Facts(-1, 1, false)}, f32));
  EXPECT_TRUE(InferExact(Op::kAdd, {Facts(-1, 1, true, DType::kI32), Facts(-1, 1, true, DType::kI32)},
                         TensorType(DType::kI32, Shape{4})));
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

}  // namespace
}  // namespace rk::compiler::generator
