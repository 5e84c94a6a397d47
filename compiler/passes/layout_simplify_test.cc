#include "compiler/passes/layout_simplify.h"

#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

PassRun MustRun(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&LayoutSimplify, text, options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : PassRun{};
}

TEST(LayoutSimplifyTest, ReshapeChainsCollapse) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2,3]) {
  %a = reshape(%x) {shape=[6]} : f32[6]
  %b = unsqueeze(%a) {axes=[0]} : f32[1,6]
  %c = reshape(%b) {shape=[3,2]} : f32[3,2]
  %d = unsqueeze(%x) {axes=[1]} : f32[2,1,3]
  %e = squeeze(%d) {axes=[1]} : f32[2,3]
  %f = add(%c, %c) : f32[3,2]
  return %f, %e
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,3]) {
  %c = reshape(%x) {shape=[3,2]} : f32[3,2]
  %f = add(%c, %c) : f32[3,2]
  return %f, %x
})"));
}

TEST(LayoutSimplifyTest, TransposesCompose) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2,3,4]) {
  %a = transpose(%x) {perm=[1,2,0]} : f32[3,4,2]
  %b = transpose(%a) {perm=[2,0,1]} : f32[2,3,4]
  %c = transpose(%a) {perm=[1,0,2]} : f32[4,3,2]
  return %b, %c
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,3,4]) {
  %c = transpose(%x) {perm=[2,1,0]} : f32[4,3,2]
  return %x, %c
})"));
  ASSERT_EQ(run.log.size(), 2u);
  EXPECT_EQ(run.log[0].detail, "%b (transpose): transpose round trip -> x");
}

TEST(LayoutSimplifyTest, BroadcastToSameShapeRemoved) {
  PassRun run = MustRun(R"(graph @g(%x: f32[3]) {
  %a = broadcast_to(%x) {shape=[3]} : f32[3]
  %b = broadcast_to(%a) {shape=[2,3]} : f32[2,3]
  return %b
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3]) {
  %b = broadcast_to(%x) {shape=[2,3]} : f32[2,3]
  return %b
})"));
}

TEST(LayoutSimplifyTest, OtherLayoutUnchanged) {
  PassRun run = MustRun(R"(graph @g(%x: f32[2,3]) {
  %a = transpose(%x) {perm=[1,0]} : f32[3,2]
  %b = reshape(%a) {shape=[6]} : f32[6]
  %c = slice(%b) {limit=[4], start=[1], stride=[1]} : f32[3]
  return %c
})");
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace rk::compiler
