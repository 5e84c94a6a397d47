#include "compiler/passes/dce.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

constexpr char kGraph[] = R"(graph @g(%x: f32[3], %unused: f32[3]) {
  %a = exp(%x) : f32[3]
  %b = neg(%a) : f32[3]
  %c = sin(%b) : f32[3]
  %d = relu(%x) : f32[3]
  return %d
})";

PassRun MustRun(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&Dce, text, options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

TEST(DceTest, RemovesDeadNodesKeepsInputs) {
  PassRun run = MustRun(kGraph);
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3], %unused: f32[3]) {
  %d = relu(%x) : f32[3]
  return %d
})"));
  ASSERT_EQ(run.log.size(), 3u);
  EXPECT_EQ(run.log[0].detail, "%c (sin)");
  EXPECT_EQ(run.log[2].detail, "%a (exp)");
}

TEST(DceTest, RefusedRemovalKeepsOperands) {
  CompileOptions options;
  options.max_pass_applications = 1;
  PassRun run = MustRun(kGraph, options);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3], %unused: f32[3]) {
  %a = exp(%x) : f32[3]
  %b = neg(%a) : f32[3]
  %d = relu(%x) : f32[3]
  return %d
})"));
  ASSERT_EQ(run.log.size(), 1u);
}

TEST(DceTest, LiveGraphIsUnchanged) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %a = exp(%x) : f32[3]
  %b = add(%a, %x) : f32[3]
  return %b, %a
})");
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace rk::compiler
