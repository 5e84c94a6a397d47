#include "compiler/onnx/exporter.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "compiler/generator/generator.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Graph> RoundTrip(const Graph& graph) {
  absl::StatusOr<onnx::ModelProto> model = ExportModel(graph);
  if (!model.ok()) return model.status();
  std::string bytes;
  model->SerializeToString(&bytes);
  // Through the file checks (parse, IR version, ONNX's checker) as a user's
  // file would go.
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "exported.onnx");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<ImportedModel> imported = ImportModel(*parsed);
  if (!imported.ok()) return imported.status();
  return std::move(imported->graph);
}

// The reference interpreter gives `a` and `b` the same values on the same
// seeded inputs, within what the exported decompositions and f32 attributes
// (ONNX stores float attributes in 32 bits) can change.
void ExpectSameValues(const Graph& a, const Graph& b) {
  const std::vector<HostTensor> inputs = SeededInputs(a, 7);
  absl::StatusOr<EvalResult> ra = Evaluate(a, inputs);
  absl::StatusOr<EvalResult> rb = Evaluate(b, inputs);
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(rb.ok()) << rb.status();
  ASSERT_EQ(ra->outputs.size(), rb->outputs.size());
  // A decomposed composite rounds its 16-bit intermediates where the
  // composite rounded once: judge every output at the graph's lowest precision.
  bool low_precision = false;
  for (const Node& n : a.nodes()) low_precision |= IsLowPrecision(n.type.dtype);
  for (size_t o = 0; o < ra->outputs.size(); ++o) {
    ASSERT_EQ(ra->outputs[o].type(), rb->outputs[o].type()) << "output " << o;
    const DType dtype = ra->outputs[o].dtype();
    const double tol = low_precision ? 5e-2 : dtype == DType::kF64 ? 1e-6 : 1e-4;
    for (int64_t i = 0; i < ra->outputs[o].num_elements(); ++i) {
      const double x = ra->outputs[o].GetDouble(i), y = rb->outputs[o].GetDouble(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (!IsFloat(dtype)) {
        ASSERT_EQ(x, y) << "output " << o << " element " << i;
      } else {
        ASSERT_NEAR(x, y, tol * (1 + std::abs(x))) << "output " << o << " element " << i;
      }
    }
  }
}

std::filesystem::path ExamplesDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "examples";
  return std::filesystem::path(srcdir) / workspace / "examples";
}

TEST(ExporterTest, ExamplesExportCheckAndKeepTheirValues) {
  int exported = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ExamplesDir())) {
    if (entry.path().extension() != ".rk") continue;
    SCOPED_TRACE(entry.path().string());
    absl::StatusOr<Graph> graph = ParseFile(entry.path().string());
    ASSERT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Graph> back = RoundTrip(*graph);
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSameValues(*graph, *back);
    // Import -> export -> import is a fixed point.
    absl::StatusOr<Graph> again = RoundTrip(*back);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(CanonicalHash(*again), CanonicalHash(*back))
        << PrintInline(*back) << "\nvs\n" << PrintInline(*again);
    ++exported;
  }
  EXPECT_GE(exported, 5);
}

TEST(ExporterTest, RandomGraphsRoundTrip) {
  generator::GeneratorOptions options;
  options.nodes = 12;
  options.max_elements = 256;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE(seed);
    absl::StatusOr<generator::GeneratedGraph> generated = generator::Generate(seed, options);
    ASSERT_TRUE(generated.ok()) << generated.status();
    const Graph& graph = generated->graph;
    absl::StatusOr<Graph> back = RoundTrip(graph);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << PrintInline(graph);
    SCOPED_TRACE(PrintInline(graph));
    ExpectSameValues(graph, *back);
    absl::StatusOr<Graph> again = RoundTrip(*back);
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ(CanonicalHash(*again), CanonicalHash(*back))
        << PrintInline(*back) << "\nvs\n" << PrintInline(*again);
  }
}

TEST(ExporterTest, NamesSurviveTheRoundTrip) {
  absl::StatusOr<Graph> graph = Parse(
      "graph @g(%x: f32[4]) {\n"
      "  %act = relu(%x) : f32[4]\n"
      "  %r = rsqrt(%act) : f32[4]\n"
      "  return %r, %x\n"
      "}\n");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> back = RoundTrip(*graph);
  ASSERT_TRUE(back.ok()) << back.status();
  const std::string text = PrintInline(*back);
  EXPECT_THAT(text, HasSubstr("%act = relu(%x)"));
  EXPECT_THAT(text, HasSubstr("%r = reciprocal("));
  EXPECT_EQ(back->outputs().size(), 2u);
}

}  // namespace
}  // namespace rk::compiler::onnx_io
