#include "repro/bisect/divergence.h"

#include <string>

#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/bisect/materialize.h"

namespace rk::repro {
namespace {

constexpr char kChain[] = R"(graph @g(%x: f32[4,8], %w: f32[8]) {
  %a = sin(%x) : f32[4,8]
  %r = relu(%a) : f32[4,8]
  %m = mul(%r, %w) : f32[4,8]
  %s = reduce_sum(%m) {axes=[1], keepdim=false} : f32[4]
  return %s
}
)";

compiler::Graph ParseOrDie(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

compiler::CompileOptions Options(const std::string& text) {
  absl::StatusOr<compiler::CompileOptions> o = compiler::CompileOptions::Parse(text);
  EXPECT_TRUE(o.ok()) << o.status();
  return *o;
}

TEST(MaterializeTest, EveryNonInputNodeBecomesAnOutputAfterTheOriginalOnes) {
  const compiler::Graph g = ParseOrDie(kChain);
  const compiler::Graph m = MaterializeEveryNode(g);
  ASSERT_EQ(m.outputs().size(), 4u);
  EXPECT_EQ(m.DisplayName(m.outputs()[0]), "s");
  EXPECT_EQ(m.DisplayName(m.outputs()[1]), "a");
  EXPECT_EQ(m.DisplayName(m.outputs()[3]), "m");
  EXPECT_EQ(m.num_nodes(), g.num_nodes());
}

TEST(DivergenceTest, NamesTheReluWithAnAccuracyFault) {
  const compiler::Graph g = ParseOrDie(kChain);
  absl::StatusOr<DivergenceReport> r = AnalyzeDivergence(
      g, compiler::SeededInputs(g, 0), Options("faults=relu:accuracy"), DivergenceOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_NE(r->divergent(), nullptr) << r->ToText();
  EXPECT_EQ(r->divergent()->node, "r");
  EXPECT_EQ(r->divergent()->op, "relu");
  ASSERT_EQ(r->nodes.size(), 4u);
  EXPECT_EQ(r->nodes[0].node, "a");
  EXPECT_EQ(r->nodes[0].metrics.judgement, Judgement::kPass);
  EXPECT_TRUE(r->nodes[3].graph_output);
  const std::string text = r->ToText();
  EXPECT_NE(text.find("first divergent node: %r = relu"), std::string::npos) << text;
  EXPECT_NE(text.find("changes fusion"), std::string::npos);
  const Json json = r->ToJson();
  EXPECT_EQ(json.Find("first_divergent")->string_value(), "r");
  EXPECT_EQ(json.Find("nodes")->size(), 4u);
}

TEST(DivergenceTest, CorrectCompileHasNoDivergentNode) {
  const compiler::Graph g = ParseOrDie(kChain);
  absl::StatusOr<DivergenceReport> r =
      AnalyzeDivergence(g, compiler::SeededInputs(g, 0), Options(""), DivergenceOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->divergent(), nullptr) << r->ToText();
  EXPECT_GE(r->fusion_groups_checked, r->fusion_groups_original);
}

TEST(DivergenceTest, UnknownPolicyIsBadInput) {
  const compiler::Graph g = ParseOrDie(kChain);
  DivergenceOptions options;
  options.policy = "nope";
  EXPECT_EQ(AnalyzeDivergence(g, compiler::SeededInputs(g, 0), Options(""), options)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rk::repro
