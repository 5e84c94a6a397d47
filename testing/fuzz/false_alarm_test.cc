// No false alarms: graphs compiled without faults must pass the oracle's
// default policy. Every graph in examples/ and 500 generated graphs (seeds
// 0..499 of compiler/generator/generator.h, 10 and 30 nodes, mixed dtypes), each
// judged by the isolated oracle with the default options and with
// low_precision=true (f16/bf16 computed in their own dtype). A verdict other
// than pass is printed with its seed, options, signature and graph, so it can
// be replayed with `reprokit check`. The counts are printed at the end.
//
// With gradients (GradientFalseAlarmTest): examples/mlp_train.rk, every other
// example with all its float inputs marked `grad`, and 500 generated graphs
// with a random subset of their float inputs marked (as `reprokit fuzz --grad
// random` marks them; seeds without a float input are skipped), judged as
// joint graphs (forward outputs and gradients, repro/oracle/gradients.h) with
// the default options.
//
// One test case per graph, so Bazel test sharding (BUILD: shard_count) splits
// them.
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "gtest/gtest.h"
#include "repro/oracle/gradients.h"
#include "repro/oracle/oracle.h"
#include "testing/fuzz/gradient_marks.h"

namespace rk::fuzz {
namespace {

using compiler::generator::Generate;
using compiler::generator::GeneratedGraph;
using compiler::generator::GeneratorOptions;

constexpr int kRandomGraphs = 500;
const char* const kExamples[] = {"attention.rk", "layer_norm.rk", "mixed_bf16.rk", "mlp.rk",
                                 "softmax.rk"};
constexpr int kNumExamples = static_cast<int>(std::size(kExamples));

// Verdict counts of this process (one shard), printed at the end.
std::map<std::string, int>& Counts() {
  static auto* counts = new std::map<std::string, int>();
  return *counts;
}

class FalseAlarmTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    repro::Oracle::Config config;
    config.workers = 1;
    absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    oracle_ = oracle->release();
  }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
    std::printf("verdicts in this shard:\n");
    for (const auto& [key, count] : Counts()) std::printf("  %-40s %d\n", key.c_str(), count);
  }

  // Judges `graph` with `configs`; reports anything but pass.
  static void JudgeBoth(const compiler::Graph& graph,
                        const std::vector<compiler::HostTensor>& inputs,
                        const std::string& what,
                        std::vector<const char*> configs = {"", "low_precision=true"}) {
    for (const char* text : configs) {
      absl::StatusOr<compiler::CompileOptions> options = compiler::CompileOptions::Parse(text);
      ASSERT_TRUE(options.ok()) << options.status();
      absl::StatusOr<repro::Verdict> verdict = oracle_->Judge(graph, inputs, *options);
      ASSERT_TRUE(verdict.ok()) << what << ": " << verdict.status();
      std::string config = *text == '\0' ? "default" : text;
      if (repro::HasGradientMarks(graph)) config = "grad " + config;
      ++Counts()[absl::StrCat(config, ": ", std::string(repro::VerdictKindName(verdict->kind)))];
      if (verdict->kind != repro::VerdictKind::kPass) {
        absl::StatusOr<std::string> printed = compiler::Print(graph);
        ADD_FAILURE() << what << " [" << config << "]: " << verdict->signature.ToString()
                      << "\n  " << verdict->message << "\n"
                      << (printed.ok() ? *printed : std::string(printed.status().message()));
      }
    }
  }

  static repro::Oracle* oracle_;
};

repro::Oracle* FalseAlarmTest::oracle_ = nullptr;

absl::StatusOr<compiler::Graph> ReadExample(const std::string& name) {
  const std::string path = absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/examples/", name);
  std::ifstream in(path);
  if (!in.good()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return compiler::Parse(text.str());
}

TEST_P(FalseAlarmTest, Passes) {
  const int index = GetParam();
  if (index < kNumExamples) {
    const char* name = kExamples[index];
    absl::StatusOr<compiler::Graph> graph = ReadExample(name);
    ASSERT_TRUE(graph.ok()) << name << ": " << graph.status();
    JudgeBoth(*graph, compiler::SeededInputs(*graph, 0), absl::StrCat("examples/", name));
    return;
  }
  const uint64_t seed = static_cast<uint64_t>(index - kNumExamples);
  GeneratorOptions options;
  options.nodes = seed % 2 == 0 ? 10 : 30;
  absl::StatusOr<GeneratedGraph> g = Generate(seed, options);
  ASSERT_TRUE(g.ok()) << "seed " << seed << ": " << g.status();
  JudgeBoth(g->graph, g->MakeInputs(seed),
            absl::StrCat("generated seed ", seed, " (", options.nodes, " nodes)"));
}

// Indices 0..4: examples/; 5..504: generator seeds 0..499.
INSTANTIATE_TEST_SUITE_P(ExamplesAndGenerated, FalseAlarmTest,
                         ::testing::Range(0, kNumExamples + kRandomGraphs));

// The same with gradients: index 0 is mlp_train.rk (its own marks), 1..5 the
// examples with every float input marked, then 500 generated graphs that the
// fuzzer's random marking marks (the first seeds from 0 on whose graph has a
// float input and a joint graph; the others are counted and skipped).
struct GradientSeeds {
  std::vector<uint64_t> marked;
  int unmarked = 0;
};

GeneratorOptions GradientGeneratorOptions(uint64_t seed) {
  GeneratorOptions options;
  options.nodes = seed % 2 == 0 ? 10 : 30;
  return options;
}

const GradientSeeds& SeedsWithGradients() {
  static const GradientSeeds* seeds = [] {
    auto* s = new GradientSeeds();
    for (uint64_t seed = 0; s->marked.size() < kRandomGraphs; ++seed) {
      absl::StatusOr<GeneratedGraph> g = Generate(seed, GradientGeneratorOptions(seed));
      if (g.ok() && repro::HasGradientMarks(MarkForGradients(g->graph, "random", seed))) {
        s->marked.push_back(seed);
      } else {
        ++s->unmarked;
      }
    }
    return s;
  }();
  return *seeds;
}

using GradientFalseAlarmTest = FalseAlarmTest;

TEST_P(GradientFalseAlarmTest, Passes) {
  const int index = GetParam();
  if (index <= kNumExamples) {
    const std::string name = index == 0 ? "mlp_train.rk" : kExamples[index - 1];
    absl::StatusOr<compiler::Graph> graph = ReadExample(name);
    ASSERT_TRUE(graph.ok()) << name << ": " << graph.status();
    compiler::Graph marked = index == 0 ? *graph : MarkForGradients(*graph, "all-float", 0);
    ASSERT_TRUE(repro::HasGradientMarks(marked)) << name;
    JudgeBoth(marked, compiler::SeededInputs(marked, 0), absl::StrCat("examples/", name),
              {""});
    return;
  }
  const uint64_t seed = SeedsWithGradients().marked[index - kNumExamples - 1];
  const GeneratorOptions options = GradientGeneratorOptions(seed);
  absl::StatusOr<GeneratedGraph> g = Generate(seed, options);
  ASSERT_TRUE(g.ok()) << "seed " << seed << ": " << g.status();
  compiler::Graph marked = MarkForGradients(g->graph, "random", seed);
  ASSERT_TRUE(repro::HasGradientMarks(marked)) << "seed " << seed;
  ++Counts()["graphs with gradients"];
  JudgeBoth(marked, g->MakeInputs(seed),
            absl::StrCat("generated seed ", seed, " (", options.nodes, " nodes, grad random)"),
            {""});
}

// Seeds skipped on the way to 500 marked graphs (no float input, or an op
// on a gradient path without a rule); printed, so a change shows.
TEST(GradientFalseAlarmSeeds, FiveHundredMarkedGraphs) {
  EXPECT_EQ(SeedsWithGradients().marked.size(), static_cast<size_t>(kRandomGraphs));
  std::printf("gradient seeds: %zu marked, %d skipped (last seed %llu)\n",
              SeedsWithGradients().marked.size(), SeedsWithGradients().unmarked,
              static_cast<unsigned long long>(SeedsWithGradients().marked.back()));
}

INSTANTIATE_TEST_SUITE_P(ExamplesAndGenerated, GradientFalseAlarmTest,
                         ::testing::Range(0, kNumExamples + 1 + kRandomGraphs));

}  // namespace
}  // namespace rk::fuzz
