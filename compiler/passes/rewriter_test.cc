#include "compiler/passes/rewriter.h"

#include <cmath>

#include "compiler/ir/parser.h"
#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

Graph MustParse(const char* text) {
  absl::StatusOr<Graph> graph = Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? *graph : Graph();
}

constexpr char kGraph[] = R"(graph @g(%x: f32[3]) {
  %dead = sin(%x) : f32[3]
  %a = exp(%x) : f32[3]
  %b = neg(%a) : f32[3]
  %c = relu(%b) : f32[3]
  return %c
})";

TEST(RewriterTest, NoReplacementLeavesGraphUntouched) {
  Graph graph = MustParse(kGraph);
  const Graph before = graph;
  absl::StatusOr<bool> changed =
      RewriteNodes(graph, [](Rewriter&, NodeId) -> absl::StatusOr<std::optional<NodeId>> {
        return std::nullopt;
      });
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph, before);
}

TEST(RewriterTest, KeepDoesNotCountAsChange) {
  Graph graph = MustParse(kGraph);
  absl::StatusOr<bool> changed =
      RewriteNodes(graph, [](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
        absl::StatusOr<NodeId> copy = r.Keep(id);
        if (!copy.ok()) return copy.status();
        return *copy;
      });
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

// Replaces neg(y) by a fresh sub(y, y): the new node takes the name %b, the
// nodes the rewrite left dead go, the node that was already dead stays.
TEST(RewriterTest, ReplacementInheritsNameAndPrunesWhatItKilled) {
  Graph graph = MustParse(kGraph);
  absl::StatusOr<bool> changed =
      RewriteNodes(graph, [](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
        const Node& node = r.old_graph().node(id);
        if (node.op == Op::kNeg) {
          NodeId x = r.old_graph().node(node.operands[0]).operands[0];
          absl::StatusOr<NodeId> sub = r.Add(Op::kSub, {r.Map(x), r.Map(x)});
          if (!sub.ok()) return sub.status();
          return *sub;
        }
        return std::nullopt;
      });
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(GraphMatches(graph, R"(graph @g(%x: f32[3]) {
  %dead = sin(%x) : f32[3]
  %b = sub(%x, %x) : f32[3]
  %c = relu(%b) : f32[3]
  return %c
})"));
}

TEST(RewriterTest, Helpers) {
  Graph graph = MustParse(R"(graph @g(%x: f32[2]) {
  %c = constant() {value=dense<f32[2]>[1.0, 1.0]} : f32[2]
  %d = constant() {value=dense<f32[2]>[1.0, 2.0]} : f32[2]
  %z = full() {dtype=f32, shape=[2], value=-0.0} : f32[2]
  %i = full() {dtype=i32, shape=[2], value=2.5} : i32[2]
  %e = exp(%x) : f32[2]
  return %c, %d, %z, %i, %e
})");
  EXPECT_EQ(Describe(graph, NodeId(5)), "%e (exp)");
  EXPECT_EQ(SplatValue(graph, NodeId(1)), 1.0);
  EXPECT_EQ(SplatValue(graph, NodeId(2)), std::nullopt);
  ASSERT_TRUE(SplatValue(graph, NodeId(3)).has_value());
  EXPECT_TRUE(std::signbit(*SplatValue(graph, NodeId(3))));
  EXPECT_EQ(SplatValue(graph, NodeId(4)), 2.0) << "the value as stored in i32";
  EXPECT_EQ(SplatValue(graph, NodeId(5)), std::nullopt);
  EXPECT_TRUE(IsConstantLike(graph, NodeId(1)));
  EXPECT_FALSE(IsConstantLike(graph, NodeId(0)));
  EXPECT_FALSE(IsConstantLike(graph, NodeId(5)));
}

}  // namespace
}  // namespace rk::compiler
