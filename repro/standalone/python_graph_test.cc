// The walk both Python forms share (python_graph.h), driven by a callback of
// the test's own: parameters, constants, one line per node, the outputs, the
// callback's error passed through, and the literal and attribute texts.
#include "repro/standalone/python_graph.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::NodeId;

compiler::Graph ParseOrDie(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : compiler::Graph();
}

constexpr char kGraph[] = R"(
graph @demo(%x: f32[2], %y.z: f32[2]) {
  %c = constant() {value=dense<f32[2]>[1.0, 2.0]} : f32[2]
  %a = add(%x, %c) : f32[2]
  %t = transpose(%a) {perm=[0]} : f32[2]
  return %t, %y.z
})";

TEST(GraphAsPythonTest, ParametersConstantsOneLinePerNodeAndOutputs) {
  const compiler::Graph g = ParseOrDie(kGraph);
  std::vector<int> asked;
  absl::StatusOr<PythonGraph> src =
      GraphAsPython(g, "a, b", "demo", [&](NodeId id) -> absl::StatusOr<std::string> {
        asked.push_back(id.value);
        return "EXPR" + std::to_string(id.value);
      });
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ(src->make_graph,
            "\n\ndef make_graph(a, b):\n"
            "    \"\"\"The graph @demo: one line per node.\"\"\"\n\n"
            "    def graph(v0_x, v1_y_z):\n"
            "        v2_c = consts[2]\n"
            "        v3_a = EXPR3  # %a = add\n"
            "        v4_t = EXPR4  # %t = transpose\n"
            "        return (v4_t, v1_y_z)\n"
            "\n    return graph\n");
  EXPECT_EQ(asked, (std::vector<int>{3, 4}));  // neither inputs nor constants
  ASSERT_EQ(src->constants.size(), 1u);
  EXPECT_EQ(src->constants[0].first, 2);
}

TEST(GraphAsPythonTest, CallbackErrorIsReturnedAndOneOutputIsATuple) {
  const compiler::Graph g = ParseOrDie(kGraph);
  absl::StatusOr<PythonGraph> bad = GraphAsPython(g, "", "demo", [&](NodeId id) {
    return absl::StatusOr<std::string>(PythonNoForm(g, id, "demo", "why not"));
  });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "node %a (add): no demo form: why not");

  const compiler::Graph one = ParseOrDie("graph @one(%x: f32[2]) {\n  return %x\n}");
  absl::StatusOr<PythonGraph> src =
      GraphAsPython(one, "", "demo", [](NodeId) { return absl::StatusOr<std::string>("x"); });
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_TRUE(absl::StrContains(src->make_graph, "        return (v0_x,)\n"));
}

TEST(PythonLiteralsTest, FloatsListsBoolsDTypes) {
  EXPECT_EQ(PythonFloat(0.1), "0.10000000000000001");
  EXPECT_EQ(PythonFloat(std::nan("")), "math.nan");
  EXPECT_EQ(PythonFloat(-std::numeric_limits<double>::infinity()), "-math.inf");
  EXPECT_EQ(PythonIntList({}), "[]");
  EXPECT_EQ(PythonIntList({1, -2}), "[1, -2]");
  EXPECT_EQ(PythonBool(true), "True");
  EXPECT_EQ(PythonDType(compiler::DType::kBF16), "DTYPES[\"bf16\"]");
}

TEST(PythonAttrsTest, TextsFallbacksAndTheMissingIntList) {
  const compiler::Graph g = ParseOrDie(kGraph);
  const PythonAttrs t(g, NodeId{4}, "demo");
  absl::StatusOr<std::string> perm = t.Ints("perm");
  ASSERT_TRUE(perm.ok()) << perm.status();
  EXPECT_EQ(*perm, "[0]");
  EXPECT_EQ(t.Int("axis", -1), "-1");
  EXPECT_EQ(t.Flag("keepdim"), "False");
  EXPECT_EQ(t.Number("eps", 0.5), 0.5);
  absl::StatusOr<std::string> missing = t.Ints("pads");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::StartsWith(missing.status().message(), "node %t (transpose): no demo form: "))
      << missing.status();
}

}  // namespace
}  // namespace rk::repro
