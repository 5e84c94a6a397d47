#include "compiler/passes/canonicalize.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

PassRun MustRun(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&Canonicalize, text, options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

TEST(CanonicalizeTest, ConstantOperandGoesRight) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %a = add(%c, %x) : f32[3]
  %m = maximum(%c, %a) : f32[3]
  %l = lt(%c, %m) : bool[3]
  %s = sub(%c, %m) : f32[3]
  return %l, %s
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %a = add(%x, %c) : f32[3]
  %m = maximum(%a, %c) : f32[3]
  %l = gt(%m, %c) : bool[3]
  %s = sub(%c, %m) : f32[3]
  return %l, %s
})"));
  ASSERT_EQ(run.log.size(), 3u);
  EXPECT_EQ(run.log[0].number, 1);
  EXPECT_EQ(run.log[0].pass, "canonicalize");
  EXPECT_EQ(run.log[0].detail, "%a (add)");
  EXPECT_EQ(run.log[2].detail, "%l (lt)");
}

TEST(CanonicalizeTest, NoOpCastReshapeTransposeRemoved) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2,3]) {
  %c = cast(%x) {dtype=f32} : f32[2,3]
  %r = reshape(%c) {shape=[2,3]} : f32[2,3]
  %t = transpose(%r) {perm=[0,1]} : f32[2,3]
  %k = transpose(%t) {perm=[1,0]} : f32[3,2]
  %e = exp(%k) : f32[3,2]
  return %e
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,3]) {
  %k = transpose(%x) {perm=[1,0]} : f32[3,2]
  %e = exp(%k) : f32[3,2]
  return %e
})"));
  EXPECT_EQ(run.log.size(), 3u);
}

TEST(CanonicalizeTest, AlreadyCanonicalIsUnchanged) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3], %y: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %a = mul(%x, %c) : f32[3]
  %b = add(%a, %y) : f32[3]
  %d = cast(%b) {dtype=f64} : f64[3]
  return %d
})");
  EXPECT_FALSE(run.changed);
  EXPECT_TRUE(run.log.empty());
}

TEST(CanonicalizeTest, CapLeavesLaterSitesAlone) {
  CompileOptions options;
  options.max_pass_applications = 1;
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %a = mul(%c, %x) : f32[3]
  %b = mul(%c, %a) : f32[3]
  return %b
})", options);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3]) {
  %c = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %a = mul(%x, %c) : f32[3]
  %b = mul(%c, %a) : f32[3]
  return %b
})"));
  ASSERT_EQ(run.log.size(), 1u);
  EXPECT_EQ(run.log[0].detail, "%a (mul)");
}

}  // namespace
}  // namespace rk::compiler
