#include "minifier/minify_bundle.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"
#include "minifier/test_util.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/oracle/oracle.h"

namespace rk::minifier {
namespace {

using compiler::Op;

std::string TempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(root != nullptr ? root : "/tmp") + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// Captures a random DAG with one planted relu, compiled with relu:accuracy.
std::string CaptureFaultyBundle(const std::string& name, int nodes, bool with_relu = true) {
  RandomDagOptions dag{.seed = 21, .nodes = nodes};
  if (!with_relu) dag.planted = {Op::kSin};
  Candidate candidate = RandomDag(dag);
  compiler::CompileOptions options;
  options.faults = {"relu:accuracy"};
  absl::StatusOr<repro::Verdict> verdict = repro::JudgeInProcess(
      candidate.graph, candidate.inputs, options, repro::OracleOptions());
  EXPECT_TRUE(verdict.ok()) << verdict.status();
  if (!with_relu) {
    // Pretend it failed: the bundle then claims a failure it cannot show.
    verdict->kind = repro::VerdictKind::kAccuracy;
    verdict->signature = repro::AccuracySignature("miscompile", "relu", "f32");
  }
  std::string dir = TempDir(name);
  absl::Status s = repro::Capture(candidate.graph, candidate.inputs, options, *verdict, dir);
  EXPECT_TRUE(s.ok()) << s;
  return dir;
}

MinifyBundleOptions Options(const std::string& in, const std::string& out, int jobs = 1) {
  MinifyBundleOptions options;
  options.input_dir = in;
  options.output_dir = out;
  options.jobs = jobs;
  return options;
}

// The known minimum under the signature contract: the relu, plus one node of
// the op the accuracy signature names when that op is not relu (the
// signature records the failing output's op, so that op must stay an output).
int64_t KnownMinimum(const repro::Signature& signature) {
  return signature.detail.find(":relu:") != std::string::npos ? 1 : 2;
}

int CountOps(const compiler::Graph& graph, Op op) {
  int n = 0;
  for (const compiler::Node& node : graph.nodes()) n += node.op == op;
  return n;
}

TEST(MinifyBundle, PlantedReluAccuracyShrinksToTheSingleRelu) {
  std::string in = CaptureFaultyBundle("relu_in", 60);
  absl::StatusOr<repro::LoadedBundle> original = repro::LoadBundle(in);
  ASSERT_TRUE(original.ok()) << original.status();
  ASSERT_EQ(original->bundle.expected.kind, repro::VerdictKind::kAccuracy);
  MinifyBundleOptions options = Options(in, TempDir("relu_out"), 2);
  absl::StatusOr<MinifyBundleResult> result = MinifyBundle(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->complete);
  absl::StatusOr<repro::LoadedBundle> minimized = repro::LoadBundle(options.output_dir);
  ASSERT_TRUE(minimized.ok()) << minimized.status();
  EXPECT_EQ(result->stats.final_score.compute_nodes(),
            KnownMinimum(original->bundle.expected.signature))
      << original->bundle.expected.signature.ToString() << "\n"
      << compiler::PrintInline(minimized->bundle.graph);
  EXPECT_TRUE(result->stats.one_minimal);
  EXPECT_EQ(result->stats.reproduce_runs, 3);
  EXPECT_EQ(CountOps(minimized->bundle.graph, Op::kRelu), 1);
  EXPECT_EQ(minimized->bundle.expected.signature, original->bundle.expected.signature);
  EXPECT_EQ(*minimized->bundle.minimization.GetString("parent_hash"), original->hash);
  EXPECT_TRUE(*minimized->bundle.minimization.GetBool("complete"));
  EXPECT_TRUE(minimized->warnings.empty());
}

TEST(MinifyBundle, InterruptedRunCheckpointsAndResumes) {
  std::string in = CaptureFaultyBundle("resume_in", 60);
  std::string out = TempDir("resume_out");
  std::atomic<bool> stop{false};
  MinifyBundleOptions options = Options(in, out);
  options.stop = &stop;
  options.on_progress = [&](const ProgressEvent& e) {
    if (e.accepted) stop = true;
  };
  absl::StatusOr<MinifyBundleResult> first = MinifyBundle(options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->complete);
  absl::StatusOr<repro::LoadedBundle> checkpoint = repro::LoadBundle(out);
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_FALSE(*checkpoint->bundle.minimization.GetBool("complete"));
  EXPECT_EQ(CountOps(checkpoint->bundle.graph, Op::kRelu), 1);

  MinifyBundleOptions again = Options(in, out);
  again.resume = true;
  absl::StatusOr<MinifyBundleResult> second = MinifyBundle(again);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->resumed);
  EXPECT_TRUE(second->complete);
  EXPECT_EQ(second->stats.final_score.compute_nodes(),
            KnownMinimum(checkpoint->bundle.expected.signature));
  EXPECT_LT(second->stats.start_score, first->stats.start_score);
}

TEST(MinifyBundle, BundleThatDoesNotReproduceIsFailedPrecondition) {
  std::string in = CaptureFaultyBundle("norepro_in", 20, /*with_relu=*/false);
  absl::StatusOr<MinifyBundleResult> result =
      MinifyBundle(Options(in, TempDir("norepro_out")));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition) << result.status();
}

TEST(MinifyBundle, MissingBundleIsBadInput) {
  absl::StatusOr<MinifyBundleResult> result =
      MinifyBundle(Options(TempDir("nothing_here"), TempDir("x")));
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace rk::minifier
