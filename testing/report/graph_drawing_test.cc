#include "testing/report/graph_drawing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/subprocess.h"
#include "compiler/ir/parser.h"

namespace rk::report {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

compiler::Graph Parsed(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// Node names are [A-Za-z0-9_.]+; a graph name may hold anything.
constexpr char kGraph[] = R"(graph @"%<script>alert(1)</script>"(%x: f32[4]) {
  %a = relu(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = add(%a, %b) : f32[4]
  return %c
})";

TEST(FusionGroupNodeNamesTest, PlainAndQuotedNames) {
  EXPECT_THAT(FusionGroupNodeNames("group 9 [elementwise] %37 (reduce_sum) + epilogue %probs (div) "
                                   "<- %35 (sub), %36 (exp)"),
              ElementsAre("37", "probs", "35", "36"));
  EXPECT_THAT(FusionGroupNodeNames("kernel k0"), ElementsAre());
}

TEST(FusionClustersTest, MatchesNamesAndSkipsUnknownOnes) {
  const compiler::Graph g = Parsed(kGraph);
  std::vector<compiler::DotCluster> c =
      FusionClusters(g, {"group 0 [elementwise] %c (add) <- %a (relu), %gone (mul)"});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].label, "kernel 0");
  ASSERT_EQ(c[0].nodes.size(), 2u);
  EXPECT_EQ(c[0].nodes[0].value, 3);
  EXPECT_EQ(c[0].nodes[1].value, 1);
}

TEST(DrawGraphTest, InlineSvgWithIdsHighlightsAndEscapedNames) {
  if (FindOnPath("dot").empty()) GTEST_SKIP() << "graphviz is not installed";
  const compiler::Graph g = Parsed(kGraph);
  compiler::DotStyle style;
  style.element_ids = true;
  style.fill[2] = kCulpritColor;
  style.clusters = FusionClusters(g, {"group 0 [elementwise] %c (add) <- %a (relu)"});
  absl::StatusOr<std::string> svg = DrawGraph(g, style);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(svg->rfind("<svg", 0), 0u);  // no prolog, no doctype
  EXPECT_THAT(*svg, Not(HasSubstr("<?xml")));
  EXPECT_THAT(*svg, Not(HasSubstr("<!DOCTYPE")));
  for (const char* id : {"id=\"n0\"", "id=\"n2\"", "id=\"n3\"", "id=\"out0\"", "id=\"cluster0\""}) {
    EXPECT_THAT(*svg, HasSubstr(id));
  }
  EXPECT_THAT(*svg, HasSubstr(kCulpritColor));
  EXPECT_THAT(*svg, Not(HasSubstr("<script")));  // the graph's name never becomes markup
}

TEST(DrawGraphTest, RefusesGraphsOverTheLimit) {
  const compiler::Graph g = Parsed(kGraph);
  EXPECT_EQ(DrawGraph(g, compiler::DotStyle(), 2).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace rk::report
