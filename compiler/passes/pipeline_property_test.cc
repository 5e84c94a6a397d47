// Property tests of the whole graph pipeline on random graphs
// (compiler/generator with pass_patterns: identities, repeated nodes, constant
// subgraphs, dead code): the optimized graph computes what the input graph
// computes (bit for bit without composites, within rounding with them), every
// pass keeps the graph valid, application numbering respects the cap exactly
// and is deterministic, and disabling a pass by name silences it.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "compiler/generator/generator.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

constexpr int kGraphs = 100;

// A generated graph with the patterns the passes look for; without
// composites the pipeline must keep every value bit for bit. `corner_cases`
// adds corner-value literals (signed zeros, infinities, NaNs, subnormals).
struct TestGraph {
  Graph graph;
  std::vector<HostTensor> inputs;
};

TestGraph RandomTestGraph(uint64_t seed, bool composites, bool corner_cases = false) {
  generator::GeneratorOptions options;
  options.nodes = 14;
  options.pass_patterns = !corner_cases;
  options.ir_corner_cases = corner_cases;
  if (!composites) {
    for (Op op : kAllOps) {
      if (op != Op::kInput && GetOpKind(op) != OpKind::kComposite) options.ops.push_back(op);
    }
  }
  absl::StatusOr<generator::GeneratedGraph> g = generator::Generate(seed, options);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  return {g->graph, g->MakeInputs(seed)};
}

struct Optimized {
  Graph graph;
  std::vector<PassApplication> log;
  int64_t requested = 0;
};

Optimized MustOptimize(const Graph& graph, CompileOptions options) {
  options.checked = true;
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  EXPECT_TRUE(context.ok()) << context.status();
  if (!context.ok()) return {};
  absl::StatusOr<Graph> optimized = RunGraphPipeline(graph, *context);
  EXPECT_TRUE(optimized.ok()) << optimized.status() << "\n" << PrintInline(graph);
  if (!optimized.ok()) return {};
  return {*std::move(optimized), context->log(), context->requested()};
}

// Tolerance for graphs whose composites were decomposed: the reference
// rounds a composite once, the decomposition once per primitive.
double DecompositionTolerance(const Graph& graph) {
  for (const Node& node : graph.nodes()) {
    if (IsLowPrecision(node.type.dtype)) return 2e-2;
  }
  return 1e-4;
}

bool HasComposite(const Graph& graph) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(), [](const Node& node) {
    return GetOpKind(node.op) == OpKind::kComposite;
  });
}

TEST(PipelinePropertyTest, ExactWithoutComposites) {
  int64_t total_applications = 0;
  for (uint64_t seed = 0; seed < kGraphs; ++seed) {
    const TestGraph test = RandomTestGraph(seed, /*composites=*/false);
    const Graph& graph = test.graph;
    ASSERT_GT(graph.num_nodes(), 0) << "seed " << seed;
    Optimized optimized = MustOptimize(graph, {});
    total_applications += optimized.log.size();
    for (const std::vector<HostTensor>& inputs : {test.inputs, RandomInputs(graph, 2)}) {
      EXPECT_TRUE(SameValues(graph, optimized.graph, inputs))
          << "seed " << seed << "\n" << PrintInline(graph) << "->\n"
          << PrintInline(optimized.graph);
    }
  }
  EXPECT_GT(total_applications, kGraphs) << "the random graphs should give the passes work";
}

TEST(PipelinePropertyTest, CloseWithComposites) {
  int with_composites = 0;
  std::map<std::string, int> applications;
  for (uint64_t seed = 1000; seed < 1000 + kGraphs; ++seed) {
    const TestGraph test = RandomTestGraph(seed, /*composites=*/true);
    const Graph& graph = test.graph;
    with_composites += HasComposite(graph);
    Optimized optimized = MustOptimize(graph, {});
    for (const PassApplication& a : optimized.log) ++applications[a.pass];
    EXPECT_FALSE(HasComposite(optimized.graph));
    EXPECT_TRUE(SameValues(graph, optimized.graph, test.inputs,
                           DecompositionTolerance(graph)))
        << "seed " << seed << "\n" << PrintInline(graph) << "->\n"
        << PrintInline(optimized.graph);
  }
  EXPECT_GT(with_composites, kGraphs / 4);
  for (const PassInfo& pass : GraphPipeline()) {
    if (!pass.optional) continue;
    // The generator makes no convolutions with constant weights (weights are
    // inputs); conv_affine_fold_test runs random batch-norm chains instead.
    if (std::string(pass.name) == "conv_affine_fold") continue;
    EXPECT_GT(applications[pass.name], 0) << pass.name << " never applied";
    std::cout << pass.name << ": " << applications[pass.name] << " applications\n";
  }
}

// Graphs with corner-value literals (signed zeros, infinities, NaNs,
// subnormals) and every op family but the composites.
TEST(PipelinePropertyTest, ExactOnCornerValueGraphs) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 3 * kGraphs; ++seed) {
    const Graph graph = RandomTestGraph(seed, /*composites=*/false, /*corner_cases=*/true).graph;
    if (HasComposite(graph)) continue;
    ++checked;
    Optimized optimized = MustOptimize(graph, {});
    EXPECT_TRUE(SameValues(graph, optimized.graph, RandomInputs(graph, 1)))
        << "seed " << seed << "\n" << PrintInline(graph) << "->\n"
        << PrintInline(optimized.graph);
  }
  EXPECT_GT(checked, kGraphs / 2) << "most corner-value graphs should be checked";
}

TEST(PipelinePropertyTest, CapGrantsExactlyMinOfCapAndRequests) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    const Graph graph = RandomTestGraph(seed, /*composites=*/false).graph;
    const Optimized full = MustOptimize(graph, {});
    const int64_t n = full.requested;
    ASSERT_EQ(static_cast<int64_t>(full.log.size()), n) << "uncapped: every request granted";
    for (int64_t cap : {int64_t{0}, int64_t{1}, n / 2, n - 1, n, n + 3}) {
      if (cap < 0) continue;
      CompileOptions options;
      options.max_pass_applications = cap;
      const Optimized capped = MustOptimize(graph, options);
      ASSERT_EQ(static_cast<int64_t>(capped.log.size()), std::min(cap, n))
          << "seed " << seed << " cap " << cap;
      for (size_t i = 0; i < capped.log.size(); ++i) {
        EXPECT_EQ(capped.log[i].number, static_cast<int64_t>(i + 1));
        EXPECT_EQ(capped.log[i].pass, full.log[i].pass) << "numbers are stable up to the cap";
        EXPECT_EQ(capped.log[i].detail, full.log[i].detail);
      }
      EXPECT_TRUE(SameValues(graph, capped.graph, RandomInputs(graph, 1)))
          << "seed " << seed << " cap " << cap;
    }
  }
}

TEST(PipelinePropertyTest, Deterministic) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Graph graph = RandomTestGraph(seed, /*composites=*/true).graph;
    const Optimized a = MustOptimize(graph, {});
    const Optimized b = MustOptimize(graph, {});
    EXPECT_EQ(PrintInline(a.graph), PrintInline(b.graph));
    ASSERT_EQ(a.log.size(), b.log.size());
    for (size_t i = 0; i < a.log.size(); ++i) EXPECT_EQ(a.log[i].detail, b.log[i].detail);
  }
}

TEST(PipelinePropertyTest, DisabledPassNeverApplies) {
  for (const PassInfo& pass : GraphPipeline()) {
    if (!pass.optional) continue;
    CompileOptions options;
    options.disable_passes = {pass.name};
    for (uint64_t seed = 0; seed < 20; ++seed) {
      const Graph graph = RandomTestGraph(seed, /*composites=*/true).graph;
      const Optimized optimized = MustOptimize(graph, options);
      for (const PassApplication& application : optimized.log) {
        EXPECT_NE(application.pass, pass.name) << "seed " << seed;
      }
    }
  }
}

}  // namespace
}  // namespace rk::compiler
