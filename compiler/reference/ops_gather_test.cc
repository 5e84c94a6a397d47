// Hand-computed values for gather (part of //compiler/reference:ops_test):
// embedding lookups, inner axes, rank-0 indices, negative and out-of-range
// indices.
#include <string>
#include <vector>

#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

std::string GatherGraph(const std::string& data, const std::string& indices, int axis,
                        const std::string& out) {
  return "graph @g(%d: " + data + ", %i: " + indices + ") {\n  %y = gather(%d, %i) {axis=" +
         std::to_string(axis) + "} : " + out + "\n  return %y\n}\n";
}

TEST(GatherTest, EmbeddingLookup) {
  // f32[V=4, D=2] by i64[B=2, T=3] along axis 0.
  const HostTensor table = T(DType::kF32, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  const HostTensor ids = TI(DType::kI64, {2, 3}, {3, 0, 1, 1, 2, 3});
  HostTensor y = Eval1(GatherGraph("f32[4,2]", "i64[2,3]", 0, "f32[2,3,2]"), {table, ids});
  ExpectValues(D(y), {30, 31, 0, 1, 10, 11, 10, 11, 20, 21, 30, 31});
}

TEST(GatherTest, InnerAxis) {
  // [2, 3, 2] along axis 1 by i32[2]: picks rows 2 and 0 of every block.
  const HostTensor x = T(DType::kF64, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const HostTensor ids = TI(DType::kI32, {2}, {2, 0});
  HostTensor y = Eval1(GatherGraph("f64[2,3,2]", "i32[2]", 1, "f64[2,2,2]"), {x, ids});
  ExpectValues(D(y), {4, 5, 0, 1, 10, 11, 6, 7});
  // The last axis, by a rank-0 index: a column.
  HostTensor c = Eval1(GatherGraph("f64[2,3,2]", "i32[]", -1, "f64[2,3]"),
                       {x, TI(DType::kI32, {}, {1})});
  ExpectValues(D(c), {1, 3, 5, 7, 9, 11});
}

TEST(GatherTest, NegativeIndicesCountFromTheEnd) {
  const HostTensor x = TI(DType::kI32, {5}, {10, 11, 12, 13, 14});
  const HostTensor ids = TI(DType::kI64, {4}, {-1, -5, 0, -2});
  HostTensor y = Eval1(GatherGraph("i32[5]", "i64[4]", 0, "i32[4]"), {x, ids});
  EXPECT_EQ(I(y), (std::vector<int64_t>{14, 10, 10, 13}));
}

TEST(GatherTest, OutOfRangeIndicesGiveZero) {
  const HostTensor x = T(DType::kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  // 3 and -4 are outside [-3, 3); so are the extremes of i64.
  const HostTensor ids = TI(DType::kI64, {5}, {3, -4, 2, INT64_MIN, INT64_MAX});
  HostTensor y = Eval1(GatherGraph("f32[3,2]", "i64[5]", 0, "f32[5,2]"), {x, ids});
  ExpectValues(D(y), {0, 0, 0, 0, 5, 6, 0, 0, 0, 0});
  // bool data: out of range is false.
  const HostTensor b = TI(DType::kBool, {2}, {1, 1});
  HostTensor z = Eval1(GatherGraph("bool[2]", "i32[3]", 0, "bool[3]"),
                       {b, TI(DType::kI32, {3}, {1, 2, -3})});
  EXPECT_EQ(I(z), (std::vector<int64_t>{1, 0, 0}));
}

TEST(GatherTest, EmptyAxisAndEmptyIndices) {
  // Every index is out of range of an empty axis.
  HostTensor y = Eval1(GatherGraph("f32[0,2]", "i32[2]", 0, "f32[2,2]"),
                       {T(DType::kF32, {0, 2}, {}), TI(DType::kI32, {2}, {0, -1})});
  ExpectValues(D(y), {0, 0, 0, 0});
  HostTensor e = Eval1(GatherGraph("f32[3]", "i32[0]", 0, "f32[0]"),
                       {T(DType::kF32, {3}, {1, 2, 3}), TI(DType::kI32, {0}, {})});
  EXPECT_EQ(e.num_elements(), 0);
}

TEST(GatherTest, Fp64ModeKeepsIntegerIndices) {
  const HostTensor x = T(DType::kF16, {3}, {0.5, 1.5, 2.5});
  EvalOptions fp64;
  fp64.fp64 = true;
  HostTensor y = Eval1(GatherGraph("f16[3]", "i32[2]", 0, "f16[2]"),
                       {x, TI(DType::kI32, {2}, {-1, 0})}, fp64);
  EXPECT_EQ(y.dtype(), DType::kF64);
  ExpectValues(D(y), {2.5, 0.5});
}

}  // namespace
}  // namespace rk::compiler::reference_test
