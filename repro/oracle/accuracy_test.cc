#include "repro/oracle/accuracy.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor Make(DType dtype, std::vector<double> values) {
  HostTensor t(TensorType(dtype, Shape({static_cast<int64_t>(values.size())})));
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(i, values[i]);
  return t;
}

HostTensor F32(std::vector<double> v) { return Make(DType::kF32, std::move(v)); }
HostTensor F64(std::vector<double> v) { return Make(DType::kF64, std::move(v)); }

const AccuracyPolicy& Torch() { return *FindAccuracyPolicy("torch"); }

TEST(AccuracyTest, AllcloseEdge) {
  AccuracyOptions o;
  o.tol = 1e-3;
  // |r - n| <= tol + tol*|n|: 1.0 vs 1.0019 is inside (bound 2.0019e-3), 1.0021 is outside.
  HostTensor n = F64({1.0});
  EXPECT_EQ(FindAccuracyPolicy("strict")->Judge(F64({1.0019}), n, nullptr, o).judgement,
            Judgement::kPass);
  OutputMetrics m = FindAccuracyPolicy("strict")->Judge(F64({1.0021}), n, nullptr, o);
  EXPECT_EQ(m.judgement, Judgement::kFail);
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.first_mismatch, 0);
  EXPECT_NEAR(m.max_abs_error, 0.0021, 1e-12);
}

TEST(AccuracyTest, TorchPassesWhenNoWorseThanReference) {
  // The native result is off from fp64 by 0.1 everywhere; the compiled one by
  // 0.15: within 2x (here 3x: small tensor) of the reference's own error.
  std::vector<double> base(16, 1.0);
  HostTensor fp64 = F64(base);
  std::vector<double> ref(16, 1.1), res(16, 1.15);
  OutputMetrics m = Torch().Judge(F64(res), F64(ref), &fp64, {});
  EXPECT_EQ(m.judgement, Judgement::kPass) << m.reason;
  EXPECT_NEAR(m.rmse_ratio, 1.5, 1e-9);
}

TEST(AccuracyTest, TorchFailsWhenMuchWorseThanReference) {
  std::vector<double> base(2000, 1.0), ref(2000, 1.0 + 1e-6), res(2000, 1.0 + 1e-2);
  HostTensor fp64 = F64(base);
  OutputMetrics m = Torch().Judge(F64(res), F64(ref), &fp64, {});
  EXPECT_EQ(m.judgement, Judgement::kFail) << m.reason;
  EXPECT_EQ(m.mismatches, 2000);
}

TEST(AccuracyTest, MultiplierIsTwoForLargeF32AndThreeForSmall) {
  // rmse_ref = 1e-3, rmse_res = 2.5e-3 (ratio 2.5), tol tiny: large f32 fails
  // (m = 2), small passes (m = 3).
  AccuracyOptions o;
  o.tol = 1e-9;
  for (int64_t n : {2000, 100}) {
    std::vector<double> base(n, 0.0), ref(n, 1e-3), res(n, 2.5e-3);
    HostTensor fp64 = F64(base);
    OutputMetrics m = Torch().Judge(F64(res), F64(ref), &fp64, o);
    EXPECT_EQ(m.judgement, n >= 1000 ? Judgement::kFail : Judgement::kPass) << n << m.reason;
  }
}

TEST(AccuracyTest, NaNInResultWhereFp64FiniteFails) {
  HostTensor fp64 = F64({1, 2});
  OutputMetrics m = Torch().Judge(F64({1, kNaN}), F64({1, 2.5}), &fp64, {});
  EXPECT_EQ(m.judgement, Judgement::kFail);
  EXPECT_EQ(m.first_mismatch, 1);
}

TEST(AccuracyTest, NaNInNativeButResultCloseToFp64Passes) {
  HostTensor fp64 = F64({1, 2});
  OutputMetrics m = Torch().Judge(F64({1, 2}), F64({1, kNaN}), &fp64, {});
  EXPECT_EQ(m.judgement, Judgement::kPass) << m.reason;
}

TEST(AccuracyTest, NaNInFp64CannotJudge) {
  HostTensor fp64 = F64({1, kNaN});
  EXPECT_EQ(Torch().Judge(F64({1, 3}), F64({1, 2}), &fp64, {}).judgement,
            Judgement::kCannotJudge);
}

// One NaN expected at the same place in result and fp64 (equal_nan) must not
// hide a miscompile in the other elements, nor fail a correct result.
TEST(AccuracyTest, NaNAtTheSamePositionIsEqualAndTheRestIsJudged) {
  std::vector<double> exact(1000), wrong(1000);
  for (int i = 0; i < 1000; ++i) {
    exact[i] = std::exp(i / 1000.0);
    wrong[i] = exact[i] * 1.01 + 1e-3;
  }
  exact[7] = wrong[7] = kNaN;
  HostTensor fp64 = F64(exact);
  OutputMetrics bad = Torch().Judge(F32(wrong), F32(exact), &fp64, {});
  EXPECT_EQ(bad.judgement, Judgement::kFail) << bad.reason;
  OutputMetrics good = Torch().Judge(F32(exact), F32(exact), &fp64, {});
  EXPECT_EQ(good.judgement, Judgement::kPass) << good.reason;
  std::vector<double> near = exact;
  near[3] *= 1 + 1e-3;  // not allclose at 1e-4, but far below 2x the reference's rmse floor
  OutputMetrics reason = Torch().Judge(F32(near), F32(exact), &fp64, {});
  EXPECT_NE(reason.judgement, Judgement::kCannotJudge) << reason.reason;
}

// An f64 output computed in bf16 (cast after a bf16 chain): the reference's
// rounding landed close to fp64 by luck, the compiled result is one bf16
// rounding away. Judged by the computation's precision it passes; a planted
// 1% error still fails.
TEST(AccuracyTest, OutputComputedInBf16IsJudgedByBf16Rounding) {
  HostTensor fp64 = F64({0.8320});
  HostTensor native = F64({0.8320 + 3.5e-5});
  AccuracyOptions f64_rule;
  EXPECT_EQ(Torch().Judge(F64({0.8320 + 6.7e-4}), native, &fp64, f64_rule).judgement,
            Judgement::kFail);
  AccuracyOptions bf16_rule;
  bf16_rule.computed_in = DType::kBF16;
  OutputMetrics m = Torch().Judge(F64({0.8320 + 6.7e-4}), native, &fp64, bf16_rule);
  EXPECT_EQ(m.judgement, Judgement::kPass) << m.reason;
  EXPECT_EQ(Torch().Judge(F64({0.8320 * 1.01 + 1e-3}), native, &fp64, bf16_rule).judgement,
            Judgement::kFail);
}

TEST(AccuracyTest, EqualNaNsAndInfsPass) {
  HostTensor fp64 = F64({kNaN, kInf});
  EXPECT_EQ(Torch().Judge(F64({kNaN, kInf}), F64({kNaN, kInf}), &fp64, {}).judgement,
            Judgement::kPass);
}

TEST(AccuracyTest, NonFloatComparesExactlyOrIsIgnored) {
  HostTensor a = Make(DType::kI32, {1, 2, 3}), b = Make(DType::kI32, {1, 2, 4});
  EXPECT_EQ(Torch().Judge(a, b, nullptr, {}).judgement, Judgement::kFail);
  AccuracyOptions ignore;
  ignore.compare_non_float = false;
  EXPECT_EQ(Torch().Judge(a, b, nullptr, ignore).judgement, Judgement::kPass);
}

TEST(AccuracyTest, TypeMismatchFails) {
  OutputMetrics m = Torch().Judge(F32({1}), F64({1}), nullptr, {});
  EXPECT_EQ(m.judgement, Judgement::kFail);
  EXPECT_NE(m.reason.find("differs"), std::string::npos);
}

TEST(AccuracyTest, LowPrecisionDefaultTolerance) {
  EXPECT_DOUBLE_EQ(DefaultTolerance(DType::kBF16), 1e-2);
  EXPECT_DOUBLE_EQ(DefaultTolerance(DType::kF32), 1e-4);
  // bf16 values one ulp apart (1.0 vs 1.0078125) pass under the bf16 default.
  HostTensor a = Make(DType::kBF16, {1.0}), b = Make(DType::kBF16, {1.0078125});
  EXPECT_EQ(FindAccuracyPolicy("strict")->Judge(a, b, nullptr, {}).judgement, Judgement::kPass);
}

TEST(AccuracyTest, CosinePolicy) {
  const AccuracyPolicy& cos = *FindAccuracyPolicy("cosine");
  EXPECT_EQ(cos.Judge(F64({1, 2, 3}), F64({1.01, 2, 3}), nullptr, {}).judgement, Judgement::kPass);
  EXPECT_EQ(cos.Judge(F64({1, 0, 0}), F64({0, 1, 0}), nullptr, {}).judgement, Judgement::kFail);
}

TEST(AccuracyTest, UnknownPolicy) { EXPECT_EQ(FindAccuracyPolicy("lenient"), nullptr); }

}  // namespace
}  // namespace rk::repro
