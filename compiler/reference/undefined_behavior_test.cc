// The reference interpreter reports undefined behavior (interpreter.h,
// undefined_behavior.h): each kind once, at the right node, with what
// happened; and graphs that only come near the edge report nothing.
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;
using reference_test::kInf;
using reference_test::kNaN;
using reference_test::MustEval;
using reference_test::T;
using reference_test::TI;

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// The undefined behavior `text` reports on `inputs`, as its message; "" when
// none. Native and fp64 evaluations must agree on it.
std::string Undefined(const std::string& text, const std::vector<HostTensor>& inputs) {
  const EvalResult native = MustEval(text, inputs);
  EvalOptions fp64;
  fp64.fp64 = true;
  const EvalResult wide = MustEval(text, inputs, fp64);
  EXPECT_EQ(native.undefined.has_value(), wide.undefined.has_value());
  return native.undefined.has_value() ? native.undefined->Message() : "";
}

std::string BinaryGraph(const char* op, const char* dtype) {
  return absl::StrCat("graph @g(%a: ", dtype, "[3], %b: ", dtype, "[3]) {\n  %q = ", op,
                      "(%a, %b) : ", dtype, "[3]\n  return %q\n}\n");
}

TEST(UndefinedBehaviorTest, IntegerDivisionByZero) {
  for (const char* op : {"div", "mod", "floordiv"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Undefined(BinaryGraph(op, "i32"),
                          {TI(DType::kI32, Shape{3}, {7, 8, 9}), TI(DType::kI32, Shape{3}, {1, 0, 2})}),
                AllOf(HasSubstr("undefined behavior at %q: integer"), HasSubstr("by zero"),
                      HasSubstr("element 1: 8")));
    EXPECT_EQ(Undefined(BinaryGraph(op, "i64"), {TI(DType::kI64, Shape{3}, {7, -8, 9}),
                                                 TI(DType::kI64, Shape{3}, {1, -3, 2})}),
              "");
  }
}

TEST(UndefinedBehaviorTest, BroadcastDivisorOfZero) {
  EXPECT_THAT(Undefined("graph @g(%a: i64[2,2], %b: i64[]) {\n"
                        "  %q = div(%a, %b) : i64[2,2]\n  return %q\n}\n",
                        {TI(DType::kI64, Shape{2, 2}, {1, 2, 3, 4}), TI(DType::kI64, Shape{}, {0})}),
              HasSubstr("integer division by zero (element 0: 1 / 0)"));
}

TEST(UndefinedBehaviorTest, MinDividedByMinusOne) {
  for (const char* op : {"div", "mod", "floordiv"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Undefined(BinaryGraph(op, "i32"), {TI(DType::kI32, Shape{3}, {kI32Min, 1, 2}),
                                                   TI(DType::kI32, Shape{3}, {-1, -1, -1})}),
                HasSubstr("overflow (element 0: -2147483648"));
  }
  // Float division by zero is IEEE's, defined.
  EXPECT_EQ(Undefined(BinaryGraph("div", "f32"),
                      {T(DType::kF32, Shape{3}, {1, 0, -1}), T(DType::kF32, Shape{3}, {0, 0, 0})}),
            "");
}

TEST(UndefinedBehaviorTest, SignedOverflow) {
  EXPECT_THAT(Undefined(BinaryGraph("add", "i32"), {TI(DType::kI32, Shape{3}, {2147483647, 0, 0}),
                                                    TI(DType::kI32, Shape{3}, {1, 0, 0})}),
              HasSubstr("signed integer overflow in i32 (element 0: the exact result is 2147483648)"));
  EXPECT_THAT(Undefined(BinaryGraph("mul", "i64"), {TI(DType::kI64, Shape{3}, {1, 4000000000, 0}),
                                                    TI(DType::kI64, Shape{3}, {1, 4000000000, 0})}),
              HasSubstr("signed integer overflow in i64 (element 1"));
  // i64 is checked in f64: past -2^63 by more than f64's spacing there (2048).
  EXPECT_THAT(Undefined(BinaryGraph("sub", "i64"), {TI(DType::kI64, Shape{3}, {kI64Min, 0, 0}),
                                                    TI(DType::kI64, Shape{3}, {4096, 0, 0})}),
              HasSubstr("overflow"));
  EXPECT_THAT(Undefined("graph @g(%a: i32[2]) {\n  %n = abs(%a) : i32[2]\n  return %n\n}\n",
                        {TI(DType::kI32, Shape{2}, {3, kI32Min})}),
              HasSubstr("undefined behavior at %n: signed integer overflow in i32 (element 1"));
  EXPECT_THAT(Undefined("graph @g(%a: i32[2]) {\n  %n = neg(%a) : i32[2]\n  return %n\n}\n",
                        {TI(DType::kI32, Shape{2}, {kI32Min, 3})}),
              HasSubstr("overflow"));
  EXPECT_THAT(Undefined("graph @g(%a: i32[3]) {\n"
                        "  %s = reduce_sum(%a) {axes=[0], keepdim=false} : i32[]\n  return %s\n}\n",
                        {TI(DType::kI32, Shape{3}, {2000000000, 2000000000, -5})}),
              HasSubstr("at %s: signed integer overflow"));
  EXPECT_THAT(Undefined("graph @g(%a: i64[3]) {\n"
                        "  %c = cumsum(%a) {axis=0, exclusive=false, reverse=false} : i64[3]\n"
                        "  return %c\n}\n",
                        {TI(DType::kI64, Shape{3}, {kI64Max, 1, -5})}),
              HasSubstr("at %c: signed integer overflow in i64"));
  EXPECT_THAT(Undefined("graph @g(%a: i32[1,2], %b: i32[2,1]) {\n"
                        "  %m = matmul(%a, %b) : i32[1,1]\n  return %m\n}\n",
                        {TI(DType::kI32, Shape{1, 2}, {65536, 65536}),
                         TI(DType::kI32, Shape{2, 1}, {32768, 32768})}),
              HasSubstr("at %m: signed integer overflow"));
  // Right at the edge: no overflow.
  EXPECT_EQ(Undefined(BinaryGraph("add", "i32"), {TI(DType::kI32, Shape{3}, {2147483646, kI32Min, 0}),
                                                  TI(DType::kI32, Shape{3}, {1, 0, 0})}),
            "");
}

TEST(UndefinedBehaviorTest, FloatToIntCastOutOfRange) {
  const std::string graph = "graph @g(%x: f32[4]) {\n  %c = cast(%x) {dtype=i32} : i32[4]\n  return %c\n}\n";
  EXPECT_THAT(Undefined(graph, {T(DType::kF32, Shape{4}, {1.5, kNaN, 0, 0})}),
              HasSubstr("at %c: cast of nan to i32 (element 1)"));
  EXPECT_THAT(Undefined(graph, {T(DType::kF32, Shape{4}, {-kInf, 0, 0, 0})}),
              HasSubstr("cast of -inf to i32"));
  EXPECT_THAT(Undefined(graph, {T(DType::kF32, Shape{4}, {0, 0, 0, 3e9})}),
              HasSubstr("cast of 3e+09 to i32 (element 3)"));
  // Truncation toward zero keeps -2147483648.9 in range; bool casts are defined.
  EXPECT_EQ(Undefined("graph @g(%x: f64[2]) {\n  %c = cast(%x) {dtype=i32} : i32[2]\n"
                      "  %b = cast(%x) {dtype=bool} : bool[2]\n  return %c, %b\n}\n",
                      {T(DType::kF64, Shape{2}, {-2147483648.9, 2147483647.9})}),
            "");
  EXPECT_THAT(Undefined("graph @g(%x: f64[1]) {\n  %c = cast(%x) {dtype=i64} : i64[1]\n  return %c\n}\n",
                        {T(DType::kF64, Shape{1}, {9.3e18})}),
              HasSubstr("to i64"));
}

TEST(UndefinedBehaviorTest, GatherIndexOutOfRange) {
  const std::string graph =
      "graph @g(%d: f32[2,3], %i: i64[2]) {\n"
      "  %y = gather(%d, %i) {axis=1} : f32[2,2]\n  return %y\n}\n";
  const HostTensor data = T(DType::kF32, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Undefined(graph, {data, TI(DType::kI64, Shape{2}, {-3, 2})}), "");
  EXPECT_THAT(Undefined(graph, {data, TI(DType::kI64, Shape{2}, {0, 3})}),
              HasSubstr("at %y: gather index 3 out of range [-3, 3) (index element 1)"));
  EXPECT_THAT(Undefined(graph, {data, TI(DType::kI64, Shape{2}, {-4, 0})}),
              HasSubstr("gather index -4"));
}

// Only the first one is reported, and the values are still computed.
TEST(UndefinedBehaviorTest, FirstInNodeOrderAndValuesStillComputed) {
  const EvalResult r = MustEval(
      "graph @g(%a: i32[1], %b: i32[1]) {\n"
      "  %first = div(%a, %b) : i32[1]\n"
      "  %second = mod(%a, %b) : i32[1]\n"
      "  return %second, %first\n}\n",
      {TI(DType::kI32, Shape{1}, {5}), TI(DType::kI32, Shape{1}, {0})});
  ASSERT_TRUE(r.undefined.has_value());
  EXPECT_EQ(r.undefined->node_name, "first");
  EXPECT_EQ(r.undefined->node.value, 2);
  EXPECT_EQ(r.outputs[1].GetInt(0), 0);  // x / 0 == 0 in the IR
}

}  // namespace
}  // namespace rk::compiler
