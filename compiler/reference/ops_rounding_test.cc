// Hand-computed values for the rounding and floor-division ops of
// compiler/ir/ops.def: floor, ceil, round (half to even), clip, mod and
// floordiv (Python's % and //), including negative operands, zero divisors,
// infinities, NaN and the integer edge cases. compiler/reference/ops_test.cc
// has the other ops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

std::vector<bool> SignBits(const HostTensor& t) {
  std::vector<bool> bits;
  for (double v : D(t)) bits.push_back(std::signbit(v));
  return bits;
}

TEST(RoundingOpsTest, FloorAndCeil) {
  const HostTensor x = T(DType::kF64, {7}, {-1.5, -0.5, 0.5, 2, -0.0, kInf, kNaN});
  HostTensor f = Eval1(UnaryGraph("floor", "f64[7]"), {x});
  ExpectValues(D(f), {-2, -1, 0, 2, 0, kInf, kNaN});
  EXPECT_TRUE(std::signbit(f.GetDouble(4)));
  HostTensor c = Eval1(UnaryGraph("ceil", "f64[7]"), {x});
  ExpectValues(D(c), {-1, 0, 1, 2, 0, kInf, kNaN});
  EXPECT_TRUE(std::signbit(c.GetDouble(1)));  // ceil(-0.5) == -0
}

TEST(RoundingOpsTest, RoundIsHalfToEven) {
  const HostTensor x = T(DType::kF64, {12}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -0.4,
                                              0.49999999999999994, 1e300, -kInf});
  HostTensor r = Eval1(UnaryGraph("round", "f64[12]"), {x});
  ExpectValues(D(r), {0, 2, 2, 0, -2, -2, 2, 3, 0, 0, 1e300, -kInf});
  const std::vector<bool> sign = SignBits(r);
  EXPECT_FALSE(sign[0]);
  EXPECT_TRUE(sign[3]);  // round(-0.5) == -0
  EXPECT_TRUE(sign[8]);  // round(-0.4) == -0
  HostTensor n = Eval1(UnaryGraph("round", "f32[2]"), {T(DType::kF32, {2}, {kNaN, 3.5})});
  ExpectValues(D(n), {kNaN, 4});
}

std::string ClipGraph(const std::string& type, const std::string& attrs) {
  return "graph @g(%x: " + type + ") {\n  %y = clip(%x)" + attrs + " : " + type +
         "\n  return %y\n}\n";
}

TEST(RoundingOpsTest, ClipFloat) {
  const HostTensor x = T(DType::kF32, {6}, {-2, -0.5, 0, 0.75, 3, kNaN});
  ExpectValues(D(Eval1(ClipGraph("f32[6]", " {max=1.0, min=-1.0}"), {x})),
               {-1, -0.5, 0, 0.75, 1, kNaN});
  ExpectValues(D(Eval1(ClipGraph("f32[6]", " {min=0.0}"), {x})), {0, 0, 0, 0.75, 3, kNaN});
  ExpectValues(D(Eval1(ClipGraph("f32[6]", " {max=-1.0}"), {x})), {-2, -1, -1, -1, -1, kNaN});
  ExpectValues(D(Eval1(ClipGraph("f32[6]", ""), {x})), {-2, -0.5, 0, 0.75, 3, kNaN});
  // min > max: everything is max.
  ExpectValues(D(Eval1(ClipGraph("f32[6]", " {max=1.0, min=2.0}"), {x})), {1, 1, 1, 1, 1, kNaN});
  // -0 is below +0, as for maximum.
  HostTensor z = Eval1(ClipGraph("f32[1]", " {min=0.0}"), {T(DType::kF32, {1}, {-0.0})});
  EXPECT_FALSE(std::signbit(z.GetDouble(0)));
}

TEST(RoundingOpsTest, ClipBoundsTakeTheDType) {
  // The bound 0.1 is 0.0999755859375 in f16, natively and in fp64 mode.
  const std::string text = ClipGraph("f16[2]", " {max=0.1}");
  const HostTensor x = T(DType::kF16, {2}, {1, -1});
  ExpectValues(D(Eval1(text, {x})), {0.0999755859375, -1});
  EvalOptions fp64;
  fp64.fp64 = true;
  ExpectValues(D(Eval1(text, {x}, fp64)), {0.0999755859375, -1});
  // Integer bounds truncate toward zero, as a cast does.
  const HostTensor i = TI(DType::kI32, {5}, {-5, -2, 0, 7, kMax32});
  EXPECT_EQ(I(Eval1(ClipGraph("i32[5]", " {max=3.9, min=-2.7}"), {i})),
            (std::vector<int64_t>{-2, -2, 0, 3, 3}));
  EXPECT_EQ(I(Eval1(ClipGraph("i32[5]", " {min=0.0}"), {i})),
            (std::vector<int64_t>{0, 0, 0, 7, kMax32}));
}

struct FloorCase {
  double a, b, mod, floordiv;
};

TEST(RoundingOpsTest, FloatModAndFloorDivFollowNumpy) {
  const std::vector<FloorCase> cases = {
      {5.5, 2, 1.5, 2},       {-5.5, 2, 0.5, -3},    {5.5, -2, -0.5, -3},
      {-5.5, -2, -1.5, 2},    {6, 3, 0, 2},          {-6, 3, 0, -2},
      {0, 2, 0, 0},           {-0.0, -2, -0.0, 0},   {1, 0, kNaN, kInf},
      {-1, 0, kNaN, -kInf},   {0, 0, kNaN, kNaN},    {1, kInf, 1, 0},
      {-1, kInf, kInf, -1},   {kInf, 2, kNaN, kNaN}, {3, kNaN, kNaN, kNaN},
      {0.3, 0.1, 0.09999999999999998, 2},
  };
  std::vector<double> a, b, mod, floordiv;
  for (const FloorCase& c : cases) {
    a.push_back(c.a);
    b.push_back(c.b);
    mod.push_back(c.mod);
    floordiv.push_back(c.floordiv);
  }
  const int64_t n = static_cast<int64_t>(cases.size());
  const std::string type = "f64[" + std::to_string(n) + "]";
  const std::vector<HostTensor> in = {T(DType::kF64, {n}, a), T(DType::kF64, {n}, b)};
  HostTensor m = Eval1(BinaryGraph("mod", type, type, type), in);
  HostTensor q = Eval1(BinaryGraph("floordiv", type, type, type), in);
  ExpectValues(D(m), mod);
  ExpectValues(D(q), floordiv);
  // A zero remainder has the divisor's sign; a zero quotient that of a / b.
  const std::vector<bool> msign = SignBits(m);
  EXPECT_FALSE(msign[4]);
  EXPECT_FALSE(msign[5]);
  EXPECT_TRUE(msign[7]);
  const std::vector<bool> qsign = SignBits(q);
  EXPECT_FALSE(qsign[6]);
  EXPECT_FALSE(qsign[7]);
}

TEST(RoundingOpsTest, ModAndFloorDivBroadcastInF32) {
  HostTensor m = Eval1(BinaryGraph("mod", "f32[2,2]", "f32[2]", "f32[2,2]"),
                       {T(DType::kF32, {2, 2}, {7, -7, 2.5, -2.5}), T(DType::kF32, {2}, {3, -3})});
  ExpectValues(D(m), {1, -1, 2.5, -2.5});
  HostTensor q = Eval1(BinaryGraph("floordiv", "f32[2,2]", "f32[2]", "f32[2,2]"),
                       {T(DType::kF32, {2, 2}, {7, -7, 2.5, -2.5}), T(DType::kF32, {2}, {3, -3})});
  ExpectValues(D(q), {2, 2, 0, 0});
}

TEST(RoundingOpsTest, IntegerModAndFloorDiv) {
  const HostTensor a = TI(DType::kI32, {10}, {7, -7, 7, -7, 6, -6, 5, kMin32, kMin32, 0});
  const HostTensor b = TI(DType::kI32, {10}, {2, 2, -2, -2, 3, 3, 0, -1, 2, -3});
  EXPECT_EQ(I(Eval1(BinaryGraph("mod", "i32[10]", "i32[10]", "i32[10]"), {a, b})),
            (std::vector<int64_t>{1, 1, -1, -1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(I(Eval1(BinaryGraph("floordiv", "i32[10]", "i32[10]", "i32[10]"), {a, b})),
            (std::vector<int64_t>{3, -4, -4, 3, 2, -2, 0, kMin32, kMin32 / 2, 0}));
  const HostTensor c = TI(DType::kI64, {3}, {kMin64, kMin64, -1});
  const HostTensor d = TI(DType::kI64, {3}, {-1, 3, kMin64});
  EXPECT_EQ(I(Eval1(BinaryGraph("mod", "i64[3]", "i64[3]", "i64[3]"), {c, d})),
            (std::vector<int64_t>{0, 1, -1}));
  EXPECT_EQ(I(Eval1(BinaryGraph("floordiv", "i64[3]", "i64[3]", "i64[3]"), {c, d})),
            (std::vector<int64_t>{kMin64, kMin64 / 3 - 1, 0}));
}

}  // namespace
}  // namespace rk::compiler::reference_test
