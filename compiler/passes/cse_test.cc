#include "compiler/passes/cse.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

PassRun MustRun(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&Cse, text, options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

TEST(CseTest, MergesIdenticalNodesTransitively) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3], %y: f32[3]) {
  %a = exp(%x) : f32[3]
  %b = exp(%x) : f32[3]
  %c = add(%a, %y) : f32[3]
  %d = add(%b, %y) : f32[3]
  %e = mul(%c, %d) : f32[3]
  return %e
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3], %y: f32[3]) {
  %a = exp(%x) : f32[3]
  %c = add(%a, %y) : f32[3]
  %e = mul(%c, %c) : f32[3]
  return %e
})"));
  ASSERT_EQ(run.log.size(), 2u);
  EXPECT_EQ(run.log[0].detail, "%b (exp) merged into %a");
  EXPECT_EQ(run.log[1].detail, "%d (add) merged into %c");
}

TEST(CseTest, AttributesAndTypesMustMatch) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2,3]) {
  %a = reduce_sum(%x) {axes=[0], keepdim=false} : f32[3]
  %b = reduce_sum(%x) {axes=[0], keepdim=true} : f32[1,3]
  %c = reduce_sum(%x) {axes=[1], keepdim=false} : f32[2]
  %p = full() {dtype=f32, shape=[], value=0.0} : f32[]
  %q = full() {dtype=f32, shape=[], value=-0.0} : f32[]
  %r = cast(%x) {dtype=f16} : f16[2,3]
  %s = cast(%x) {dtype=bf16} : bf16[2,3]
  return %a, %b, %c, %p, %q, %r, %s
})");
  EXPECT_FALSE(run.changed);
}

TEST(CseTest, MergesConstantsAndDuplicateOutputs) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2]) {
  %c1 = constant() {value=dense<f32[2]>[1.0, 2.0]} : f32[2]
  %c2 = constant() {value=dense<f32[2]>[1.0, 2.0]} : f32[2]
  %a = add(%x, %c1) : f32[2]
  %b = add(%x, %c2) : f32[2]
  return %a, %b
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2]) {
  %c1 = constant() {value=dense<f32[2]>[1.0, 2.0]} : f32[2]
  %a = add(%x, %c1) : f32[2]
  return %a, %a
})"));
}

TEST(CseTest, InputsAreNeverMerged) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2], %y: f32[2]) {
  %a = add(%x, %y) : f32[2]
  return %a
})");
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace rk::compiler
