#include "compiler/ir/dot_printer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/file_util.h"
#include "base/subprocess.h"
#include "compiler/ir/builder.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

// relu(x) + full(0.5), returning the sum and the relu.
Graph SmallGraph(const std::string& name) {
  GraphBuilder b(name);
  NodeId x = b.Input("x", TensorType(DType::kF32, {2}));
  NodeId r = *b.Unary(Op::kRelu, x);
  NodeId f = *b.Full(TensorType(DType::kF32, {2}), 0.5);
  NodeId s = *b.Binary(Op::kAdd, r, f);
  EXPECT_TRUE(b.Output(s).ok());
  EXPECT_TRUE(b.Output(r).ok());
  absl::StatusOr<Graph> g = b.Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

TEST(DotPrinterTest, OneNodePerIdWithEdgesAndReturns) {
  EXPECT_EQ(PrintDot(SmallGraph("small")),
            "digraph \"small\" {\n"
            "  node [shape=box, fontname=\"monospace\"];\n"
            "  n0 [label=\"%x = input\\nf32[2]\", shape=ellipse];\n"
            "  n1 [label=\"%1 = relu\\nf32[2]\"];\n"
            "  n0 -> n1;\n"
            "  n2 [label=\"%2 = full\\ndtype=f32, shape=[2], value=0.5\\nf32[2]\"];\n"
            "  n3 [label=\"%3 = add\\nf32[2]\"];\n"
            "  n1 -> n3;\n"
            "  n2 -> n3;\n"
            "  out0 [label=\"return #0\", shape=plaintext];\n"
            "  n3 -> out0;\n"
            "  out1 [label=\"return #1\", shape=plaintext];\n"
            "  n1 -> out1;\n"
            "}\n");
}

TEST(DotPrinterTest, EscapesQuotesAndBackslashesInNames) {
  Graph g = SmallGraph("%<script>\"alert\\");
  // Names outside the text format's alphabet, as a graph built in code may hold.
  g.mutable_node(NodeId(0)).name = "<script>\"q\\";
  const std::string dot = PrintDot(g);
  EXPECT_THAT(dot, HasSubstr("digraph \"%<script>\\\"alert\\\\\" {\n"));
  EXPECT_THAT(dot,
              HasSubstr("  n0 [label=\"%<script>\\\"q\\\\ = input\\nf32[2]\", shape=ellipse];\n"));
}

TEST(DotPrinterTest, NewlinesInNamesStayInsideTheLabel) {
  Graph g = SmallGraph("small");
  g.mutable_node(NodeId(1)).name = "two\nlines";
  EXPECT_THAT(PrintDot(g), HasSubstr("  n1 [label=\"%two\\nlines = relu\\nf32[2]\"];\n"));
}

TEST(DotPrinterTest, RenderingWithoutGraphvizIsUnavailable) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path == nullptr ? "" : old_path;
  const std::string empty_dir = std::string(std::getenv("TEST_TMPDIR")) + "/no_tools";
  ASSERT_TRUE(MakeDirs(empty_dir).ok());
  setenv("PATH", empty_dir.c_str(), 1);
  const absl::Status s = RenderDotToSvg(PrintDot(SmallGraph("g")), empty_dir + "/g.svg");
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr("graphviz 'dot' was not found"));
}

TEST(DotPrinterTest, RendersSvgWhenGraphvizIsInstalled) {
  if (FindOnPath("dot").empty()) GTEST_SKIP() << "graphviz is not installed";
  const std::string svg = std::string(std::getenv("TEST_TMPDIR")) + "/small.svg";
  ASSERT_TRUE(RenderDotToSvg(PrintDot(SmallGraph("small")), svg).ok());
  absl::StatusOr<std::string> text = ReadFileToString(svg);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("<svg"));
  EXPECT_THAT(*text, HasSubstr("relu"));
}

TEST(DotPrinterTest, StyleAddsFillsClustersAndIds) {
  DotStyle style;
  style.element_ids = true;
  style.fill[2] = "#ffb3b3";
  style.clusters.push_back({"group \"0\"", {NodeId(1), NodeId(3)}});
  style.clusters.push_back({"again", {NodeId(1)}});  // already placed: no cluster
  const std::string dot = PrintDot(SmallGraph("g"), style);
  EXPECT_THAT(dot, HasSubstr("id=\"n2\", style=filled, fillcolor=\"#ffb3b3\""));
  EXPECT_THAT(dot, HasSubstr("id=\"out0\""));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_0 {\n    label=\"group \\\"0\\\"\";"));
  EXPECT_THAT(dot, HasSubstr(" n1; n3;"));
  EXPECT_EQ(dot.find("cluster_1"), std::string::npos);
  EXPECT_EQ(PrintDot(SmallGraph("g"), DotStyle()), PrintDot(SmallGraph("g")));
  if (FindOnPath("dot").empty()) return;
  const std::string svg = std::string(std::getenv("TEST_TMPDIR")) + "/styled.svg";
  ASSERT_TRUE(RenderDotToSvg(dot, svg).ok());
  absl::StatusOr<std::string> text = ReadFileToString(svg);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("id=\"n2\""));
  EXPECT_THAT(*text, HasSubstr("id=\"cluster0\""));
  EXPECT_THAT(*text, HasSubstr("#ffb3b3"));
}

}  // namespace
}  // namespace rk::compiler
