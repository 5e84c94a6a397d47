#include "tools/steady_state.h"

#include <cmath>
#include <limits>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::tools {
namespace {

using ::testing::HasSubstr;

TEST(SummarizeRunsTest, OddCountTakesTheMiddleRun) {
  absl::StatusOr<RunStats> s = SummarizeRuns({5.0, 1.0, 3.0, 4.0, 2.0});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->runs, 5);
  EXPECT_DOUBLE_EQ(s->min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s->max_ms, 5.0);
  EXPECT_DOUBLE_EQ(s->median_ms, 3.0);
  EXPECT_DOUBLE_EQ(s->mean_ms, 3.0);
}

TEST(SummarizeRunsTest, EvenCountAveragesTheTwoMiddleRuns) {
  absl::StatusOr<RunStats> s = SummarizeRuns({10.0, 1.0, 2.0, 4.0});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->median_ms, 3.0);
  EXPECT_DOUBLE_EQ(s->mean_ms, 4.25);  // an outlier moves the mean, not the median
  EXPECT_DOUBLE_EQ(s->min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s->max_ms, 10.0);
}

TEST(SummarizeRunsTest, OneRun) {
  absl::StatusOr<RunStats> s = SummarizeRuns({0.25});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->runs, 1);
  EXPECT_DOUBLE_EQ(s->min_ms, 0.25);
  EXPECT_DOUBLE_EQ(s->median_ms, 0.25);
  EXPECT_DOUBLE_EQ(s->max_ms, 0.25);
}

TEST(SummarizeRunsTest, RefusesNoRunsAndBadTimes) {
  EXPECT_EQ(SummarizeRuns({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SummarizeRuns({1.0, -0.5}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SummarizeRuns({std::numeric_limits<double>::quiet_NaN()}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ValidateRepeatTest, NamesTheFlag) {
  EXPECT_TRUE(ValidateRepeat(1, 0).ok());
  EXPECT_TRUE(ValidateRepeat(kMaxRepeat, kMaxRepeat).ok());
  absl::Status zero = ValidateRepeat(0, 3);
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero.message()), HasSubstr("--repeat"));
  EXPECT_THAT(std::string(zero.message()), HasSubstr("got 0"));
  EXPECT_FALSE(ValidateRepeat(kMaxRepeat + 1, 3).ok());
  absl::Status warm = ValidateRepeat(5, -1);
  EXPECT_EQ(warm.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(warm.message()), HasSubstr("--warmup"));
}

constexpr char kGraph[] = R"(graph @g(%x: f32[64,64], %w: f32[64,64]) {
  %m = matmul(%x, %w) : f32[64,64]
  %t = tanh(%m) : f32[64,64]
  return %t
})";

TEST(MeasureSteadyStateTest, TimesEveryRunOnTheCpu) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(kGraph);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*g, 1);
  compiler::CompileOptions options;
  absl::StatusOr<SteadyState> s = MeasureSteadyState(*g, inputs, options, 2, 7);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->device, "cpu");
  EXPECT_EQ(s->warmup, 2);
  EXPECT_EQ(s->stats.runs, 7);
  ASSERT_EQ(s->run_ms.size(), 7u);
  for (double ms : s->run_ms) {
    EXPECT_GT(ms, 0);
    EXPECT_LT(ms, 10000);
  }
  EXPECT_LE(s->stats.min_ms, s->stats.median_ms);
  EXPECT_LE(s->stats.median_ms, s->stats.max_ms);
  EXPECT_GT(s->compile_ms, 0);
  EXPECT_GE(s->kernels, 1);
  EXPECT_EQ(s->back_to_back_mean_ms, 0);  // CUDA only

  Json j = SteadyStateToJson(*s);
  EXPECT_EQ(*j.GetInt("runs"), 7);
  EXPECT_EQ(*j.GetInt("warmup"), 2);
  ASSERT_NE(j.Find("run_ms"), nullptr);
  EXPECT_EQ(j.Find("run_ms")->size(), 7u);
  EXPECT_FALSE(j.Contains("back_to_back_mean_ms"));
  EXPECT_THAT(FormatSteadyState(*s), HasSubstr("7 runs after 2 warm-up"));
}

TEST(MeasureSteadyStateTest, RefusesBadCountsAndExternalBackends) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(kGraph);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*g, 1);
  compiler::CompileOptions options;
  EXPECT_EQ(MeasureSteadyState(*g, inputs, options, 3, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.backend = "onnxruntime";
  absl::Status external = MeasureSteadyState(*g, inputs, options, 3, 5).status();
  EXPECT_EQ(external.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(external.message()), HasSubstr("built-in compiler"));
}

TEST(MeasureSteadyStateTest, CudaWithoutAGpuIsUnavailableNotATiming) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(kGraph);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*g, 1);
  compiler::CompileOptions options;
  options.device = "cuda";
  absl::StatusOr<SteadyState> s = MeasureSteadyState(*g, inputs, options, 1, 3);
  if (s.ok()) {  // a GPU host: every run timed by the GPU's clock
    EXPECT_EQ(s->stats.runs, 3);
    EXPECT_GT(s->back_to_back_mean_ms, 0);
    EXPECT_THAT(s->clock, HasSubstr("CUDA events"));
  } else {
    EXPECT_EQ(s.status().code(), absl::StatusCode::kUnavailable) << s.status();
  }
}

}  // namespace
}  // namespace rk::tools
