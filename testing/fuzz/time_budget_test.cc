#include "testing/fuzz/time_budget.h"

#include <vector>

#include "gtest/gtest.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {
namespace {

TEST(BudgetFromTimesTest, SeveralTimesTheSlowestNeverBelowTheFloor) {
  BudgetRule rule;
  rule.floor_seconds = 20;
  rule.factor = 4;
  rule.ceiling_seconds = 300;
  const std::vector<double> fast = {0.1, 0.3, 0.2};
  EXPECT_EQ(BudgetFromTimes(fast, false, rule), 20);
  // Inductor's first compiles under -j 8: the budget follows them.
  const std::vector<double> slow = {12, 31, 18};
  EXPECT_EQ(BudgetFromTimes(slow, false, rule), 124);
  // A calibration judgement that timed out at the ceiling: the ceiling.
  EXPECT_EQ(BudgetFromTimes(fast, true, rule), 300);
}

std::vector<compiler::generator::GeneratedGraph> SmallGraphs(int n) {
  std::vector<compiler::generator::GeneratedGraph> graphs;
  compiler::generator::GeneratorOptions small;
  small.nodes = 3;
  for (int i = 0; static_cast<int>(graphs.size()) < n && i < 10 * n; ++i) {
    absl::StatusOr<compiler::generator::GeneratedGraph> g = compiler::generator::Generate(i, small);
    if (g.ok()) graphs.push_back(*std::move(g));
  }
  return graphs;
}

TEST(CalibrateBudgetTest, BuiltinCompilerGetsTheFloorAndRecordsTheCalibration) {
  repro::Oracle::Config config;
  config.workers = 2;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  BudgetRule rule;
  rule.floor_seconds = 7;
  rule.confirm_factor = 3;
  absl::StatusOr<TimeBudget> b = CalibrateBudget(**oracle, SmallGraphs(3), "cpu",
                                                 compiler::CompileOptions(), 2, 1, rule);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->calibrated);
  EXPECT_EQ(b->judgements, 3);
  EXPECT_GT(b->slowest_seconds, 0);
  EXPECT_GE(b->budget_seconds, 7);
  EXPECT_EQ(b->confirm_seconds, 3 * b->budget_seconds);
  EXPECT_EQ(b->device, "cpu");
}

TEST(CalibrateBudgetTest, NothingRanIsUnavailableWithTheFirstError) {
  repro::Oracle::Config config;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  compiler::CompileOptions broken;
  broken.backend = "/nonexistent/backend";
  absl::StatusOr<TimeBudget> b =
      CalibrateBudget(**oracle, SmallGraphs(2), "nosuch", broken, 1, 1, BudgetRule());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(b.status().message().find("no judgement ran"), std::string::npos) << b.status();
}

TEST(CannotTestReasonTest, MostlyErrorsOrNothingJudged) {
  CampaignStats s;
  s.valid = 100;
  s.verdicts = {{"onnxruntime:pass", 10}, {"onnxruntime:cannot_judge", 5}};
  s.judge_errors = {{"onnxruntime", 12}};
  EXPECT_EQ(CannotTestReason(s, {"onnxruntime"}), "");
  s.judge_errors["onnxruntime"] = 16;
  EXPECT_EQ(CannotTestReason(s, {"onnxruntime"}),
            "most judgements failed to run: 16 errors, 10 judged, 5 not applicable");
  // Every graph not applicable: nothing judged, nothing to call clean.
  s.verdicts = {{"onnxruntime:cannot_judge", 100}};
  s.judge_errors.clear();
  EXPECT_NE(CannotTestReason(s, {"onnxruntime"}).find("no graph was judged"), std::string::npos);
  const ConfigCounts c = CountsOf(s, "onnxruntime");
  EXPECT_EQ(c.not_applicable, 100);
  EXPECT_EQ(c.judged, 0);
}

}  // namespace
}  // namespace rk::fuzz
