// The options for the compiler's property tests: graphs still verify, corner
// cases keep a seed's structure, pass patterns show up and stay finite in
// their ranges, and both stay deterministic per seed.
#include <string>
#include <vector>

#include "compiler/generator/generator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "gtest/gtest.h"

namespace rk::compiler::generator {
namespace {

std::vector<Op> OpsOf(const Graph& graph) {
  std::vector<Op> ops;
  for (const Node& node : graph.nodes()) ops.push_back(node.op);
  return ops;
}

TEST(GeneratorOptionsTest, CornerCasesKeepTheSeedsStructure) {
  int named = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    GeneratorOptions options;
    absl::StatusOr<GeneratedGraph> plain = Generate(seed, options);
    options.ir_corner_cases = true;
    absl::StatusOr<GeneratedGraph> corner = Generate(seed, options);
    ASSERT_TRUE(plain.ok() && corner.ok()) << corner.status();
    ASSERT_TRUE(Verify(corner->graph).ok()) << PrintInline(corner->graph);
    EXPECT_EQ(corner->input_specs.size(), corner->graph.inputs().size());
    // Same ops in the same order, apart from at most one extra (unused) input.
    std::vector<Op> a = OpsOf(plain->graph);
    std::vector<Op> b = OpsOf(corner->graph);
    if (b.size() == a.size() + 1) b.erase(b.begin());
    EXPECT_EQ(a, b) << "seed " << seed;
    for (const Node& node : corner->graph.nodes()) named += !node.name.empty();
    absl::StatusOr<GeneratedGraph> again = Generate(seed, options);
    EXPECT_EQ(PrintInline(again->graph), PrintInline(corner->graph));
  }
  EXPECT_GT(named, 0);
}

TEST(GeneratorOptionsTest, PassPatternsVerifyAndLeaveDeadCode) {
  int dead = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    GeneratorOptions options;
    options.nodes = 14;
    options.pass_patterns = true;
    absl::StatusOr<GeneratedGraph> g = Generate(seed, options);
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_TRUE(Verify(g->graph).ok()) << PrintInline(g->graph);
    std::vector<int> users(g->graph.num_nodes());
    for (const Node& node : g->graph.nodes()) {
      for (NodeId o : node.operands) ++users[o.value];
    }
    for (NodeId o : g->graph.outputs()) ++users[o.value];
    for (int i = 0; i < g->graph.num_nodes(); ++i) {
      dead += users[i] == 0 && g->graph.node(NodeId(i)).op != Op::kInput;
    }
    absl::StatusOr<GeneratedGraph> again = Generate(seed, options);
    EXPECT_EQ(PrintInline(again->graph), PrintInline(g->graph));
  }
  EXPECT_GT(dead, 100);
}

}  // namespace
}  // namespace rk::compiler::generator
