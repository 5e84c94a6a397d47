// Hand-computed values for cumsum (every combination of exclusive and
// reverse, any axis, integer wrapping, one rounding per element) and pad
// (every dtype, the fill converted to the dtype, empty operands, fp64 mode).
// compiler/reference/ops_test.cc has the other ops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

std::string CumsumGraph(const std::string& type, int axis, bool exclusive, bool reverse) {
  return "graph @g(%x: " + type + ") {\n  %y = cumsum(%x) {axis=" + std::to_string(axis) +
         ", exclusive=" + (exclusive ? "true" : "false") + ", reverse=" +
         (reverse ? "true" : "false") + "} : " + type + "\n  return %y\n}\n";
}

TEST(ScanPadOpsTest, CumsumExclusiveAndReverse) {
  const HostTensor x = T(DType::kF64, {4}, {1, 2, 3, 4});
  ExpectValues(D(Eval1(CumsumGraph("f64[4]", 0, false, false), {x})), {1, 3, 6, 10});
  ExpectValues(D(Eval1(CumsumGraph("f64[4]", 0, true, false), {x})), {0, 1, 3, 6});
  ExpectValues(D(Eval1(CumsumGraph("f64[4]", -1, false, true), {x})), {10, 9, 7, 4});
  ExpectValues(D(Eval1(CumsumGraph("f64[4]", 0, true, true), {x})), {9, 7, 4, 0});
}

TEST(ScanPadOpsTest, CumsumAlongEitherAxis) {
  const HostTensor x = T(DType::kF32, {2, 3}, {1, 2, 3, -1, -2, -3});
  ExpectValues(D(Eval1(CumsumGraph("f32[2,3]", 0, false, false), {x})), {1, 2, 3, 0, 0, 0});
  ExpectValues(D(Eval1(CumsumGraph("f32[2,3]", 1, false, false), {x})), {1, 3, 6, -1, -3, -6});
  ExpectValues(D(Eval1(CumsumGraph("f32[2,3]", -2, true, true), {x})), {-1, -2, -3, 0, 0, 0});
  // NaN and infinities propagate down the scan only.
  const HostTensor y = T(DType::kF32, {4}, {1, kNaN, 2, kInf});
  ExpectValues(D(Eval1(CumsumGraph("f32[4]", 0, false, false), {y})), {1, kNaN, kNaN, kNaN});
  ExpectValues(D(Eval1(CumsumGraph("f32[4]", 0, false, true), {y})), {kNaN, kNaN, kInf, kInf});
}

TEST(ScanPadOpsTest, CumsumRoundsEachSumOnce) {
  // In f16, 2048 + 1 rounds to 2048; summed in double, 2048 + 1 + 1 = 2050.
  const HostTensor x = T(DType::kF16, {3}, {2048, 1, 1});
  ExpectValues(D(Eval1(CumsumGraph("f16[3]", 0, false, false), {x})), {2048, 2048, 2050});
}

TEST(ScanPadOpsTest, CumsumOnIntegersWraps) {
  const int64_t kMax32 = std::numeric_limits<int32_t>::max();
  const int64_t kMin32 = std::numeric_limits<int32_t>::min();
  const HostTensor x = TI(DType::kI32, {3}, {kMax32, 1, -5});
  EXPECT_EQ(I(Eval1(CumsumGraph("i32[3]", 0, false, false), {x})),
            (std::vector<int64_t>{kMax32, kMin32, kMin32 - 5 + (int64_t{1} << 32)}));
  const HostTensor y = TI(DType::kI64, {2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(I(Eval1(CumsumGraph("i64[2,2]", 0, true, false), {y})),
            (std::vector<int64_t>{0, 0, 1, 2}));
}

std::string PadGraph(const std::string& in, const std::string& attrs, const std::string& out) {
  return "graph @g(%x: " + in + ") {\n  %y = pad(%x) {" + attrs + "} : " + out +
         "\n  return %y\n}\n";
}

TEST(ScanPadOpsTest, PadPlacesTheOperandAtItsBegins) {
  const HostTensor x = T(DType::kF32, {2, 2}, {1, 2, 3, 4});
  // One row before, one column after.
  ExpectValues(D(Eval1(PadGraph("f32[2,2]", "pads=[1,0,0,1], value=-1.0", "f32[3,3]"), {x})),
               {-1, -1, -1, 1, 2, -1, 3, 4, -1});
  ExpectValues(D(Eval1(PadGraph("f32[2,2]", "pads=[0,0,0,0], value=7.0", "f32[2,2]"), {x})),
               {1, 2, 3, 4});
  ExpectValues(D(Eval1(PadGraph("f32[2,2]", "pads=[0,2,1,0], value=0.0", "f32[3,4]"), {x})),
               {0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0});
  // An empty operand gives the fill alone; a rank-0 operand needs no pads.
  ExpectValues(D(Eval1(PadGraph("f32[0,2]", "pads=[1,0,1,0], value=nan", "f32[2,2]"),
                       {T(DType::kF32, {0, 2}, {})})),
               {kNaN, kNaN, kNaN, kNaN});
  ExpectValues(D(Eval1(PadGraph("f32[]", "pads=[], value=1.0", "f32[]"),
                       {T(DType::kF32, {}, {5})})),
               {5});
}

TEST(ScanPadOpsTest, PadValueTakesTheDType) {
  const HostTensor i = TI(DType::kI32, {2}, {5, 6});
  EXPECT_EQ(I(Eval1(PadGraph("i32[2]", "pads=[1,1], value=-2.7", "i32[4]"), {i})),
            (std::vector<int64_t>{-2, 5, 6, -2}));
  const HostTensor b = TI(DType::kBool, {1}, {0});
  EXPECT_EQ(I(Eval1(PadGraph("bool[1]", "pads=[2,0], value=0.5", "bool[3]"), {b})),
            (std::vector<int64_t>{1, 1, 0}));
  // 0.1 is 0.0999755859375 in f16, natively and in fp64 mode.
  const std::string text = PadGraph("f16[1]", "pads=[0,1], value=0.1", "f16[2]");
  const HostTensor h = T(DType::kF16, {1}, {3});
  ExpectValues(D(Eval1(text, {h})), {3, 0.0999755859375});
  EvalOptions fp64;
  fp64.fp64 = true;
  ExpectValues(D(Eval1(text, {h}, fp64)), {3, 0.0999755859375});
}

}  // namespace
}  // namespace rk::compiler::reference_test
