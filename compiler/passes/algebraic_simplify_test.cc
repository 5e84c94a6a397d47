#include "compiler/passes/algebraic_simplify.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

PassRun MustRun(const char* text, const CompileOptions& options = {}, bool exact = true) {
  absl::StatusOr<PassRun> run = RunPass(&AlgebraicSimplify, text, options, exact);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

CompileOptions FastMath() {
  CompileOptions options;
  options.fast_math = true;
  return options;
}

TEST(AlgebraicSimplifyTest, ExactIdentities) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]
  %nz = full() {dtype=f32, shape=[], value=-0.0} : f32[]
  %a = mul(%one, %x) : f32[3]
  %b = div(%a, %one) : f32[3]
  %c = add(%b, %nz) : f32[3]
  %d = neg(%c) : f32[3]
  %e = neg(%d) : f32[3]
  %f = relu(%e) : f32[3]
  %h = relu(%f) : f32[3]
  return %h
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3]) {
  %f = relu(%x) : f32[3]
  return %f
})"));
  ASSERT_EQ(run.log.size(), 5u);
  EXPECT_EQ(run.log[0].detail, "%a (mul): x*1 -> x");
  EXPECT_EQ(run.log[2].detail, "%c (add): x+(-0) -> x");
  EXPECT_EQ(run.log[3].detail, "%e (neg): neg(neg(x)) -> x");
}

TEST(AlgebraicSimplifyTest, SignedZeroAndNanRulesWaitForFastMath) {
  const char* text = R"(graph @g(%x: f32[3]) {
  %z = full() {dtype=f32, shape=[], value=0.0} : f32[]
  %a = add(%x, %z) : f32[3]
  %b = sub(%a, %a) : f32[3]
  %c = mul(%b, %z) : f32[3]
  %l = log(%c) : f32[3]
  %e = exp(%l) : f32[3]
  return %e
})";
  PassRun exact = MustRun(text);
  EXPECT_FALSE(exact.changed) << "x+0, x-x, x*0 and exp(log(x)) are not exact";
  PassRun fast = MustRun(text, FastMath(), /*exact=*/false);
  EXPECT_TRUE(fast.changed);
  EXPECT_TRUE(GraphMatches(fast.graph, R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[3], value=0.0} : f32[3]
  return %c
})"));
  EXPECT_EQ(fast.log.size(), 4u);
}

TEST(AlgebraicSimplifyTest, IntegerZeroRulesAreExact) {
  PassRun run = MustRun(R"(graph @g(%x: i32[3]) {
  %z = full() {dtype=i32, shape=[], value=0.0} : i32[]
  %a = add(%z, %x) : i32[3]
  %b = sub(%a, %a) : i32[3]
  %c = mul(%x, %z) : i32[3]
  %d = add(%b, %c) : i32[3]
  return %d
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: i32[3]) {
  %b = full() {dtype=i32, shape=[3], value=0.0} : i32[3]
  return %b
})"));
}

TEST(AlgebraicSimplifyTest, DivisionByConstantOnlyWithFastMath) {
  const char* text = R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=3.0} : f32[]
  %y = div(%x, %c) : f32[3]
  return %y
})";
  EXPECT_FALSE(MustRun(text).changed);
  PassRun fast = MustRun(text, FastMath(), /*exact=*/false);
  EXPECT_TRUE(GraphMatches(fast.graph, R"(graph @g(%x: f32[3]) {
  %1 = full() {dtype=f32, shape=[], value=0.3333333333333333} : f32[]
  %y = mul(%x, %1) : f32[3]
  return %y
})"));
}

TEST(AlgebraicSimplifyTest, CastRoundTripsOnlyWhenExact) {
  PassRun run = MustRun(R"(graph @g(%x: f16[3], %y: f32[3]) {
  %a = cast(%x) {dtype=f32} : f32[3]
  %b = cast(%a) {dtype=f16} : f16[3]
  %c = cast(%y) {dtype=f16} : f16[3]
  %d = cast(%c) {dtype=f32} : f32[3]
  %e = abs(%d) : f32[3]
  %f = neg(%e) : f32[3]
  %h = abs(%f) : f32[3]
  return %b, %h
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f16[3], %y: f32[3]) {
  %c = cast(%y) {dtype=f16} : f16[3]
  %d = cast(%c) {dtype=f32} : f32[3]
  %e = abs(%d) : f32[3]
  %h = abs(%e) : f32[3]
  return %x, %h
})"));
}

TEST(AlgebraicSimplifyTest, BroadcastingIdentityIsKept) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %one = full() {dtype=f32, shape=[2,3], value=1.0} : f32[2,3]
  %a = mul(%x, %one) : f32[2,3]
  return %a
})");
  EXPECT_FALSE(run.changed) << "x*1 would change the result's shape";
}

}  // namespace
}  // namespace rk::compiler
