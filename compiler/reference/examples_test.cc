// Parses, verifies and evaluates every graph in examples/ in native and fp64
// mode on seeded random inputs: outputs must be finite and the native result
// close to fp64 (relative RMSE within a budget for the output's dtype).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::filesystem::path ExamplesDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "examples";
  return std::filesystem::path(srcdir) / workspace / "examples";
}

std::vector<std::filesystem::path> ExampleFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(ExamplesDir())) {
    if (entry.path().extension() == ".rk") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Relative error budget of a native result against fp64: a few ulps of the
// least precise float dtype anywhere in the graph (rounding upstream of an f32
// output shows in it), amplified by the graphs' reductions and normalizations.
double Budget(const Graph& graph) {
  double budget = 0.0;
  for (const Node& node : graph.nodes()) {
    switch (node.type.dtype) {
      case DType::kBF16: budget = std::max(budget, 2e-2); break;
      case DType::kF16: budget = std::max(budget, 5e-3); break;
      case DType::kF32: budget = std::max(budget, 1e-6); break;
      default: break;
    }
  }
  return budget;
}

TEST(ExamplesTest, EveryExampleEvaluatesCloseToFp64) {
  const std::vector<std::filesystem::path> files = ExampleFiles();
  ASSERT_GE(files.size(), 5u) << "examples not found under " << ExamplesDir();
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    absl::StatusOr<Graph> graph = ParseFile(path.string());
    ASSERT_TRUE(graph.ok()) << graph.status();
    ASSERT_TRUE(Verify(*graph).ok()) << Verify(*graph);
    std::vector<HostTensor> inputs;
    for (NodeId id : graph->inputs()) {
      inputs.push_back(HostTensor::Random(graph->type(id), 1000 + id.value));
    }
    absl::StatusOr<EvalResult> native = Evaluate(*graph, inputs);
    ASSERT_TRUE(native.ok()) << native.status();
    EvalOptions options;
    options.fp64 = true;
    absl::StatusOr<EvalResult> wide = Evaluate(*graph, inputs, options);
    ASSERT_TRUE(wide.ok()) << wide.status();
    ASSERT_EQ(native->outputs.size(), graph->outputs().size());
    ASSERT_EQ(wide->outputs.size(), graph->outputs().size());
    for (size_t o = 0; o < native->outputs.size(); ++o) {
      SCOPED_TRACE("output " + std::to_string(o));
      const HostTensor& n = native->outputs[o];
      const HostTensor& w = wide->outputs[o];
      EXPECT_EQ(n.type(), graph->type(graph->outputs()[o]));
      EXPECT_EQ(w.num_elements(), n.num_elements());
      EXPECT_EQ(w.dtype(), IsFloat(n.dtype()) ? DType::kF64 : n.dtype());
      double err2 = 0.0, ref2 = 0.0;
      for (int64_t i = 0; i < n.num_elements(); ++i) {
        const double a = n.GetDouble(i), b = w.GetDouble(i);
        ASSERT_TRUE(std::isfinite(a) && std::isfinite(b)) << "element " << i;
        err2 += (a - b) * (a - b);
        ref2 += b * b;
      }
      const double relative_rmse = std::sqrt(err2 / std::max(ref2, 1e-300));
      EXPECT_LE(relative_rmse, Budget(*graph)) << n.Summary() << "\nvs\n" << w.Summary();
      EXPECT_GT(ref2, 0.0) << "an all-zero output checks nothing";
    }
  }
}

}  // namespace
}  // namespace rk::compiler
