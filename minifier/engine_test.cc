#include "minifier/engine.h"

#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"
#include "minifier/test_util.h"

namespace rk::minifier {
namespace {

using compiler::Op;

constexpr char kRelu[] = "accuracy:miscompile:relu:f32";

// Fails like a planted relu fault iff the graph holds the chain `ops`.
FunctionFailureTest ChainTest(std::vector<Op> ops) {
  return FunctionFailureTest(
      [ops](const Candidate& c) { return HasChain(c.graph, ops) ? kRelu : "pass"; }, kRelu);
}

double Budget(int k, int n) { return 2.0 * k * std::log2(static_cast<double>(n)) + 20; }

struct Case {
  int nodes;
  uint64_t seed;
};

class KnownMinimum : public ::testing::TestWithParam<Case> {};

TEST_P(KnownMinimum, SingleCulpritReachesOneNode) {
  RandomDagOptions dag{.seed = GetParam().seed, .nodes = GetParam().nodes};
  FunctionFailureTest test = ChainTest({Op::kRelu});
  absl::StatusOr<MinifyResult> result = Minify(RandomDag(dag), test, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 1)
      << compiler::PrintInline(result->best.graph);
  EXPECT_LE(result->stats.oracle_calls, Budget(1, dag.nodes));
  EXPECT_TRUE(result->stats.one_minimal);
  EXPECT_FALSE(result->stats.flaky);
}

TEST_P(KnownMinimum, ExpFeedingReluReachesTwoNodes) {
  RandomDagOptions dag{.seed = GetParam().seed, .nodes = GetParam().nodes,
                       .planted = {Op::kExp, Op::kRelu}};
  FunctionFailureTest test = ChainTest({Op::kExp, Op::kRelu});
  absl::StatusOr<MinifyResult> result = Minify(RandomDag(dag), test, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 2)
      << compiler::PrintInline(result->best.graph);
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kExp, Op::kRelu}));
  EXPECT_LE(result->stats.oracle_calls, Budget(2, dag.nodes));
}

INSTANTIATE_TEST_SUITE_P(Sizes, KnownMinimum,
                         ::testing::Values(Case{50, 1}, Case{50, 2}, Case{200, 3}, Case{200, 4},
                                           Case{1000, 5}, Case{1000, 6}),
                         [](const auto& info) {
                           return absl::StrCat("n", info.param.nodes, "_seed", info.param.seed);
                         });

TEST(Engine, RejectsDriftToAnotherSignature) {
  // Keeping a relu without a sin fails differently: following that would
  // hand back another bug.
  FunctionFailureTest test(
      [](const Candidate& c) -> std::string {
        if (!HasChain(c.graph, {Op::kRelu})) return "pass";
        return HasChain(c.graph, {Op::kSin}) ? kRelu : "crash:SIGSEGV@compile";
      },
      kRelu);
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.seed = 9, .nodes = 120}), test, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kRelu}));
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kSin}));
  EXPECT_GT(result->stats.rejected_drifts, 0);
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 2);
}

TEST(Engine, SameResultForAnyJobCount) {
  Candidate start = RandomDag({.seed = 11, .nodes = 300, .planted = {Op::kExp, Op::kRelu}});
  std::string first;
  for (int jobs : {1, 2, 4}) {
    FunctionFailureTest test = ChainTest({Op::kExp, Op::kRelu});
    MinifyOptions options;
    options.jobs = jobs;
    absl::StatusOr<MinifyResult> result = Minify(start, test, options);
    ASSERT_TRUE(result.ok()) << result.status();
    std::string printed = compiler::PrintCanonical(result->best.graph);
    if (jobs == 1) first = printed;
    EXPECT_EQ(printed, first) << "jobs=" << jobs;
  }
}

TEST(Engine, StartThatDoesNotFailIsFailedPrecondition) {
  FunctionFailureTest test = ChainTest({Op::kErf});
  absl::StatusOr<MinifyResult> result = Minify(RandomDag({.nodes = 20}), test, MinifyOptions());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Engine, CountsInvalidCandidatesAndCallsBackOnAccept) {
  FunctionFailureTest test = ChainTest({Op::kRelu});
  int accepted = 0;
  MinifyOptions options;
  options.on_accept = [&](const Candidate&, const MinifyStats&) { ++accepted; };
  absl::StatusOr<MinifyResult> result = Minify(RandomDag({.nodes = 60}), test, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->stats.invalid_candidates, 0);
  EXPECT_EQ(accepted, result->stats.accepted_steps);
  EXPECT_GT(accepted, 0);
  EXPECT_LT(result->stats.final_score, result->stats.start_score);
}

TEST(Engine, StopsCleanlyWhenAsked) {
  std::atomic<bool> stop{false};
  FunctionFailureTest test = ChainTest({Op::kRelu});
  MinifyOptions options;
  options.stop = &stop;
  options.on_accept = [&](const Candidate&, const MinifyStats&) { stop = true; };
  absl::StatusOr<MinifyResult> result = Minify(RandomDag({.nodes = 200}), test, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->stats.interrupted);
  EXPECT_EQ(result->stats.accepted_steps, 1);
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kRelu}));
}

}  // namespace
}  // namespace rk::minifier
