// The interpreter as a whole: rounding after every op, fp64 mode, recorded
// intermediates, outputs and input checking.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/half.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

using ::testing::HasSubstr;

// In f16, 1 + 2^-11 is a tie that rounds to 1, so adding 2^-11 twice stays at
// 1 when every op rounds; rounding once at the end would give 1 + 2^-10.
TEST(InterpreterTest, F16RoundsAfterEveryOp) {
  const std::string f16 = R"(graph @g(%x: f16[1]) {
  %c = full() {dtype=f16, shape=[1], value=0.00048828125} : f16[1]
  %y = add(%x, %c) : f16[1]
  %z = add(%y, %c) : f16[1]
  return %z
})";
  const HostTensor one = T(DType::kF16, {1}, {1});
  ExpectValues(D(Eval1(f16, {one})), {1.0});
  EvalOptions fp64;
  fp64.fp64 = true;
  HostTensor wide = Eval1(f16, {one}, fp64);
  EXPECT_EQ(wide.dtype(), DType::kF64);
  ExpectValues(D(wide), {1.0009765625});
  const std::string bf16 = R"(graph @g(%x: bf16[1]) {
  %c = full() {dtype=bf16, shape=[1], value=0.00390625} : bf16[1]
  %y = add(%x, %c) : bf16[1]
  %z = add(%y, %c) : bf16[1]
  return %z
})";
  ExpectValues(D(Eval1(bf16, {T(DType::kBF16, {1}, {1})})), {1.0});
  ExpectValues(D(Eval1(bf16, {T(DType::kBF16, {1}, {1})}, fp64)), {1.0078125});
  // f16 overflows where f32 does not: 300 * 300 = 90000 > 65504.
  HostTensor sq = Eval1(BinaryGraph("mul", "f16[1]", "f16[1]", "f16[1]"),
                        {T(DType::kF16, {1}, {300}), T(DType::kF16, {1}, {300})});
  ExpectValues(D(sq), {kInf});
  sq = Eval1(BinaryGraph("mul", "f16[1]", "f16[1]", "f16[1]"),
             {T(DType::kF16, {1}, {300}), T(DType::kF16, {1}, {300})}, fp64);
  ExpectValues(D(sq), {90000});
}

// (1 + 1e-8) - 1 is 0 in f32 but close to 1e-8 in f64.
TEST(InterpreterTest, Fp64ModeDiffersFromNativeF32) {
  const std::string text = R"(graph @g(%x: f32[1]) {
  %c = full() {dtype=f32, shape=[1], value=1e-08} : f32[1]
  %y = add(%x, %c) : f32[1]
  %z = sub(%y, %x) : f32[1]
  %i = cast(%z) {dtype=f16} : f16[1]
  %k = cast(%x) {dtype=i32} : i32[1]
  return %z, %i, %k
})";
  const HostTensor one = T(DType::kF32, {1}, {1});
  EvalResult native = MustEval(text, {one});
  ASSERT_EQ(native.outputs.size(), 3u);
  ExpectValues(D(native.outputs[0]), {0});
  EvalOptions options;
  options.fp64 = true;
  EvalResult wide = MustEval(text, {one}, options);
  ASSERT_EQ(wide.outputs.size(), 3u);
  EXPECT_EQ(wide.outputs[0].dtype(), DType::kF64);
  EXPECT_NEAR(wide.outputs[0].GetDouble(0), 1e-8, 1e-15);
  EXPECT_EQ(wide.outputs[1].dtype(), DType::kF64);  // the f16 cast target is promoted too
  EXPECT_NEAR(wide.outputs[1].GetDouble(0), 1e-8, 1e-15);
  EXPECT_EQ(wide.outputs[2].dtype(), DType::kI32);  // integers stay
  EXPECT_EQ(wide.outputs[2].GetInt(0), 1);
}

TEST(InterpreterTest, RecordIntermediatesGivesOneValuePerNode) {
  const std::string text = R"(graph @g(%x: f32[2], %w: f32[2]) {
  %a = mul(%x, %w) : f32[2]
  %b = exp(%a) : f32[2]
  %unused = neg(%b) : f32[2]
  %s = reduce_sum(%b) {axes=[0], keepdim=false} : f32[]
  return %s
})";
  Graph g = MustParse(text);
  const std::vector<HostTensor> in = {T(DType::kF32, {2}, {0, 1}), T(DType::kF32, {2}, {2, 0})};
  EvalOptions options;
  options.record_intermediates = true;
  absl::StatusOr<EvalResult> r = Evaluate(g, in, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(static_cast<int>(r->values.size()), g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) {
    EXPECT_EQ(r->values[i].type(), g.type(NodeId(i))) << "node " << i;
  }
  ExpectValues(D(r->values[2]), {0, 0});
  ExpectValues(D(r->values[4]), {-1, -1});
  ExpectValues(D(r->outputs[0]), {2});
  options.fp64 = true;
  r = Evaluate(g, in, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(static_cast<int>(r->values.size()), g.num_nodes());
  for (const HostTensor& v : r->values) EXPECT_EQ(v.dtype(), DType::kF64);
  r = Evaluate(g, in);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->values.empty());
}

TEST(InterpreterTest, ReturnsInputsAndRepeatedOutputs) {
  const std::string text = R"(graph @g(%x: f32[2]) {
  %y = neg(%x) : f32[2]
  return %x, %y, %y
})";
  EvalResult r = MustEval(text, {T(DType::kF32, {2}, {1, 2})});
  ASSERT_EQ(r.outputs.size(), 3u);
  ExpectValues(D(r.outputs[0]), {1, 2});
  ExpectValues(D(r.outputs[2]), {-1, -2});
}

TEST(InterpreterTest, RejectsBadInputs) {
  Graph g = MustParse(UnaryGraph("exp", "f32[2]"));
  absl::StatusOr<EvalResult> r = Evaluate(g, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("takes 1 inputs, got 0"));
  r = Evaluate(g, {T(DType::kF16, {2}, {1, 2})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("input %x"));
  EXPECT_THAT(r.status().message(), HasSubstr("expected f32[2], got f16[2]"));
  r = Evaluate(g, {T(DType::kF32, {3}, {1, 2, 3})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rk::compiler::reference_test
