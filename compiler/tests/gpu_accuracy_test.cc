// The GPU tests' error-budget rule (gpu_accuracy.h) on hand-made tensors,
// and end to end on the CPU backend (no GPU needed).
#include "compiler/tests/gpu_accuracy.h"

#include <cmath>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

HostTensor Make(DType dtype, const std::vector<double>& values) {
  HostTensor t(TensorType{dtype, Shape({static_cast<int64_t>(values.size())})});
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

TEST(GpuAccuracyTest, AllCloseToTheReferencePasses) {
  BudgetMetrics m = JudgeWithErrorBudget(Make(DType::kF32, {1.0, 2.00001}),
                                         Make(DType::kF32, {1.0, 2.0}),
                                         Make(DType::kF64, {1.0, 2.0}), 1e-5);
  EXPECT_TRUE(m.pass);
  EXPECT_TRUE(m.allclose);
}

TEST(GpuAccuracyTest, NearZeroElementJudgedByRmseAgainstFp64) {
  // A near-zero element off by more than atol fails allclose, but the result
  // is no farther from fp64 than the reference is.
  const HostTensor fp64 = Make(DType::kF64, {1.5e-5, 1.0, -2.0});
  BudgetMetrics m = JudgeWithErrorBudget(Make(DType::kF32, {3e-5, 1.0, -2.0}),
                                         Make(DType::kF32, {0.0, 1.0, -2.0}), fp64, 1e-5);
  EXPECT_FALSE(m.allclose);
  EXPECT_TRUE(m.pass) << m.why;
  EXPECT_EQ(m.multiplier, 3);  // under 1,000 elements
}

TEST(GpuAccuracyTest, ResultFarFromFp64Fails) {
  const HostTensor fp64 = Make(DType::kF64, {1.0, 2.0, 3.0});
  BudgetMetrics m = JudgeWithErrorBudget(Make(DType::kF32, {1.0, 2.01, 3.0}),
                                         Make(DType::kF32, {1.0, 2.0, 3.0}), fp64, 1e-5);
  EXPECT_FALSE(m.pass);
  EXPECT_NEAR(m.rmse_result, 0.01 / std::sqrt(3.0), 1e-6);
  EXPECT_TRUE(absl::StrContains(m.why, "rmse vs fp64")) << m.why;
}

TEST(GpuAccuracyTest, BudgetScalesWithTheReferenceError) {
  // A bf16 reference is itself far from fp64; a result twice as far passes
  // (m = 3 for bf16), four times as far fails.
  std::vector<double> exact, ref, twice, four;
  for (int i = 0; i < 2000; ++i) {
    const double x = 1.0 + i * 1e-3;
    exact.push_back(x);
    ref.push_back(x + 1e-3);
    twice.push_back(x + 2e-3);
    four.push_back(x + 4e-3);
  }
  const HostTensor fp64 = Make(DType::kF64, exact);
  const HostTensor reference = Make(DType::kF32, ref);
  EXPECT_TRUE(JudgeWithErrorBudget(Make(DType::kF32, twice), reference, fp64, 1e-6).pass);
  EXPECT_FALSE(JudgeWithErrorBudget(Make(DType::kF32, four), reference, fp64, 1e-6).pass);
}

TEST(GpuAccuracyTest, NanWhereFp64IsFiniteFailsAndNanInFp64IsSkipped) {
  EXPECT_FALSE(JudgeWithErrorBudget(Make(DType::kF32, {NAN, 1.0}), Make(DType::kF32, {0.5, 1.0}),
                                    Make(DType::kF64, {0.5, 1.0}), 1e-5)
                   .pass);
  EXPECT_TRUE(JudgeWithErrorBudget(Make(DType::kF32, {3.0, 1.0}), Make(DType::kF32, {NAN, 1.0}),
                                   Make(DType::kF64, {NAN, 1.0}), 1e-5)
                  .pass);
}

TEST(GpuAccuracyTest, IntegersMustBeEqual) {
  EXPECT_TRUE(JudgeWithErrorBudget(Make(DType::kI32, {1, 2}), Make(DType::kI32, {1, 2}),
                                   Make(DType::kI32, {1, 2}), 0)
                  .pass);
  EXPECT_FALSE(JudgeWithErrorBudget(Make(DType::kI32, {1, 3}), Make(DType::kI32, {1, 2}),
                                    Make(DType::kI32, {1, 2}), 0)
                   .pass);
}

TEST(GpuAccuracyTest, EndToEndOnTheCpuBackend) {
  CompileOptions options;  // cpu
  absl::StatusOr<std::string> ok = CompareWithErrorBudget(R"(graph @g(%x: f32[16,300]) {
    %y = softmax(%x) {axis=1} : f32[16,300]
    return %y
  })",
                                                          options, 1e-5);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, "");
  options.faults = {"reduce_sum:drop_last"};
  absl::StatusOr<std::string> bad = CompareWithErrorBudget(R"(graph @g(%x: f32[16,300]) {
    %y = softmax(%x) {axis=1} : f32[16,300]
    return %y
  })",
                                                           options, 1e-5);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_NE(*bad, "");
}

TEST(GpuAccuracyTest, CallersInputsEndToEndOnTheCpuBackend) {
  const char* text = R"(graph @g(%x: f32[6]) {
    %a = argmax(%x) {axis=0, keepdim=false} : i64[]
    %m = reduce_max(%x) {axes=[0], keepdim=false} : f32[]
    return %a, %m
  })";
  CompileOptions options;  // cpu
  absl::StatusOr<std::string> tie =
      CompareInputsWithErrorBudget(text, options, 1e-5, {Make(DType::kF32, {1, 3, 2, 3, 0, 1})});
  ASSERT_TRUE(tie.ok()) << tie.status();
  EXPECT_EQ(*tie, "");
  absl::StatusOr<std::string> nan = CompareInputsWithErrorBudget(
      text, options, 1e-5, {Make(DType::kF32, {1, NAN, 2, NAN, 0, 1})});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_EQ(*nan, "");
  EXPECT_FALSE(CompareInputsWithErrorBudget(text, options, 1e-5, {}).ok());
}

}  // namespace
}  // namespace rk::compiler::cuda
