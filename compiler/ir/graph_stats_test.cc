#include "compiler/ir/graph_stats.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/ir/builder.h"
#include "compiler/ir/canonical_hash.h"

namespace rk::compiler {
namespace {

// %x: f32[2,3], %y: bf16[3]; exp(x) + cast(y, f32), returning the sum and
// the cast.
Graph MixedGraph() {
  GraphBuilder b("mixed");
  NodeId x = b.Input("x", TensorType(DType::kF32, {2, 3}));
  NodeId y = b.Input("y", TensorType(DType::kBF16, {3}));
  NodeId e = *b.Unary(Op::kExp, x);
  NodeId c = *b.Cast(y, DType::kF32);
  NodeId s = *b.Binary(Op::kAdd, e, c);
  EXPECT_TRUE(b.Output(s).ok());
  EXPECT_TRUE(b.Output(c).ok());
  absl::StatusOr<Graph> g = b.Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

TEST(GraphStatsTest, CountsNodesPerOpAndListsTheSignatureWithDtypes) {
  const Graph g = MixedGraph();
  const GraphStats stats = ComputeGraphStats(g);
  EXPECT_EQ(stats.graph_name, "mixed");
  EXPECT_EQ(stats.num_nodes, 5);
  EXPECT_EQ(stats.num_inputs, 2);
  EXPECT_EQ(stats.nodes_per_op,
            (std::map<std::string, int>{{"add", 1}, {"cast", 1}, {"exp", 1}, {"input", 2}}));
  EXPECT_EQ(stats.inputs, (std::vector<std::pair<std::string, std::string>>{
                              {"x", "f32[2,3]"}, {"y", "bf16[3]"}}));
  // Unnamed nodes are shown by id.
  EXPECT_EQ(stats.outputs, (std::vector<std::pair<std::string, std::string>>{
                               {"4", "f32[2,3]"}, {"3", "f32[3]"}}));
  // 6 (x) + 3 (y) + 6 (exp) + 3 (cast) + 6 (add).
  EXPECT_EQ(stats.total_elements, 24);
  EXPECT_EQ(stats.canonical_hash, CanonicalHash(g));
}

TEST(GraphStatsTest, TextListsOpsInNameOrder) {
  const Graph g = MixedGraph();
  EXPECT_EQ(ComputeGraphStats(g).ToText(),
            "graph @mixed\n"
            "nodes: 5 (2 inputs, 3 ops)\n"
            "ops:\n"
            "  add 1\n"
            "  cast 1\n"
            "  exp 1\n"
            "  input 2\n"
            "inputs:\n"
            "  %x: f32[2,3]\n"
            "  %y: bf16[3]\n"
            "outputs:\n"
            "  %4: f32[2,3]\n"
            "  %3: f32[3]\n"
            "total elements: 24\n"
            "canonical hash: " +
                CanonicalHash(g) + "\n");
}

TEST(GraphStatsTest, RepeatedOpsAreCountedTogether) {
  GraphBuilder b("chain");
  NodeId x = b.Input("x", TensorType(DType::kF16, {4}));
  NodeId r = *b.Unary(Op::kRelu, x);
  r = *b.Unary(Op::kRelu, r);
  r = *b.Unary(Op::kRelu, r);
  ASSERT_TRUE(b.Output(r).ok());
  absl::StatusOr<Graph> g = b.Build();
  ASSERT_TRUE(g.ok()) << g.status();
  const GraphStats stats = ComputeGraphStats(*g);
  EXPECT_EQ(stats.nodes_per_op.at("relu"), 3);
  EXPECT_EQ(stats.nodes_per_op.at("input"), 1);
  EXPECT_EQ(stats.total_elements, 16);
  EXPECT_EQ(stats.outputs.front().second, "f16[4]");
}

}  // namespace
}  // namespace rk::compiler
