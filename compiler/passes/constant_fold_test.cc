#include "compiler/passes/constant_fold.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

PassRun MustRun(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&ConstantFold, text, options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

TEST(ConstantFoldTest, FoldsChainsOfConstants) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %i = iota() {axis=0, dtype=f32, shape=[3]} : f32[3]
  %c = full() {dtype=f32, shape=[], value=0.5} : f32[]
  %a = mul(%i, %c) : f32[3]
  %n = neg(%a) : f32[3]
  %y = add(%x, %n) : f32[3]
  return %y
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3]) {
  %n = constant() {value=dense<f32[3]>[-0.0, -0.5, -1.0]} : f32[3]
  %y = add(%x, %n) : f32[3]
  return %y
})"));
  ASSERT_EQ(run.log.size(), 2u);
  EXPECT_EQ(run.log[0].detail, "%a (mul)");
  EXPECT_EQ(run.log[1].detail, "%n (neg)");
}

TEST(ConstantFoldTest, FoldsReductionsAndCasts) {
  PassRun run = MustRun(R"(graph @g() {
  %i = iota() {axis=1, dtype=i32, shape=[2,3]} : i32[2,3]
  %s = reduce_sum(%i) {axes=[1], keepdim=false} : i32[2]
  %f = cast(%s) {dtype=f16} : f16[2]
  return %f
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g() {
  %f = constant() {value=dense<f16[2]>[3.0, 3.0]} : f16[2]
  return %f
})"));
}

TEST(ConstantFoldTest, LeavesSourcesAndLargeResults) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[4096,2], value=1.0} : f32[4096,2]
  %e = exp(%c) : f32[4096,2]
  %s = reduce_sum(%e) {axes=[0, 1], keepdim=false} : f32[]
  %y = add(%x, %s) : f32[3]
  return %y
})");
  EXPECT_FALSE(run.changed) << "exp over 8192 elements must not be folded";
}

TEST(ConstantFoldTest, DisabledByName) {
  CompileOptions options;
  options.disable_passes = {"constant_fold"};
  PassRun run = MustRun(R"(graph @g() {
  %c = full() {dtype=f32, shape=[2], value=1.0} : f32[2]
  %e = exp(%c) : f32[2]
  return %e
})", options);
  EXPECT_FALSE(run.changed);
  EXPECT_TRUE(run.log.empty());
}

}  // namespace
}  // namespace rk::compiler
