#include "repro/emit/outcome.h"

#include <string>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

Verdict Failing(Signature signature) {
  Verdict v;
  v.kind = signature.kind;
  v.signature = std::move(signature);
  return v;
}

TEST(CompareWithExpectedTest, ClassifiesVerdicts) {
  const Signature relu = AccuracySignature("miscompile", "relu", "f32");
  EXPECT_EQ(CompareWithExpected(relu, Failing(relu)), ReproMatch::kReproduces);
  EXPECT_EQ(CompareWithExpected(relu, Verdict()), ReproMatch::kNotReproduced);
  EXPECT_EQ(CompareWithExpected(relu, Failing(AccuracySignature("miscompile", "exp", "f32"))),
            ReproMatch::kDifferentFailure);
  Verdict cannot;
  cannot.kind = VerdictKind::kCannotJudge;
  EXPECT_EQ(CompareWithExpected(relu, cannot), ReproMatch::kCannotJudge);
  EXPECT_EQ(CompareWithExpected(relu, Failing(CompileErrorSignature("INTERNAL", "boom"))),
            ReproMatch::kDifferentFailure);
}

TEST(CompareWithExpectedTest, CrashWithSameSignalButOtherFramesReproduces) {
  const Signature expected = CrashSignature("SIGSEGV", {"a", "b", "c"}, "compile");
  std::string note;
  EXPECT_EQ(CompareWithExpected(expected, Failing(CrashSignature("SIGSEGV", {"x"}, "compile")),
                                &note),
            ReproMatch::kReproduces);
  EXPECT_FALSE(note.empty());
  EXPECT_EQ(CompareWithExpected(expected, Failing(CrashSignature("SIGABRT", {"a"}, "compile"))),
            ReproMatch::kDifferentFailure);
}

TEST(DecideTest, RegressionTestFailsWhileTheBugIsPresent) {
  EXPECT_EQ(Decide(ReproMatch::kReproduces, RunnerMode::kTest, false, false).exit_code, 1);
  EXPECT_EQ(Decide(ReproMatch::kNotReproduced, RunnerMode::kTest, false, false).exit_code, 0);
  EXPECT_EQ(Decide(ReproMatch::kDifferentFailure, RunnerMode::kTest, false, false).exit_code, 1);
  EXPECT_EQ(Decide(ReproMatch::kCannotJudge, RunnerMode::kTest, false, false).exit_code, 1);
}

TEST(DecideTest, KnownFailureInvertsTheTest) {
  EXPECT_EQ(Decide(ReproMatch::kReproduces, RunnerMode::kTest, true, false).exit_code, 0);
  EXPECT_EQ(Decide(ReproMatch::kNotReproduced, RunnerMode::kTest, true, false).exit_code, 1);
  EXPECT_EQ(Decide(ReproMatch::kDifferentFailure, RunnerMode::kTest, true, false).exit_code, 1);
}

TEST(DecideTest, KnownFailureNamesTheInstalledTarget) {
  const ReproDecision present = Decide(ReproMatch::kReproduces, RunnerMode::kTest, true, false,
                                       "onnxruntime 1.30.0 (node)");
  EXPECT_EQ(present.exit_code, 0);
  EXPECT_EQ(present.headline, "PASS: the known failure is still present in onnxruntime 1.30.0 (node)");
  const ReproDecision fixed = Decide(ReproMatch::kNotReproduced, RunnerMode::kTest, true, false,
                                     "onnxruntime 1.31.0 (node)");
  EXPECT_EQ(fixed.exit_code, 1);
  EXPECT_EQ(fixed.headline,
            "FAIL: the known failure no longer reproduces: fixed in onnxruntime 1.31.0 (node)? "
            "remove known_failure");
  // A regression test (no known_failure) reads the same with or without a target.
  EXPECT_EQ(Decide(ReproMatch::kReproduces, RunnerMode::kTest, false, false, "x").exit_code, 1);
}

TEST(DecideTest, BisectUsesGitBisectExitCodes) {
  EXPECT_EQ(Decide(ReproMatch::kReproduces, RunnerMode::kBisect, false, false).exit_code, 1);
  EXPECT_EQ(Decide(ReproMatch::kNotReproduced, RunnerMode::kBisect, false, false).exit_code, 0);
  EXPECT_EQ(Decide(ReproMatch::kDifferentFailure, RunnerMode::kBisect, false, false).exit_code,
            125);
  EXPECT_EQ(Decide(ReproMatch::kDifferentFailure, RunnerMode::kBisect, false, true).exit_code, 1);
  EXPECT_EQ(Decide(ReproMatch::kCannotJudge, RunnerMode::kBisect, false, true).exit_code, 125);
  // known_failure does not change what bisection means.
  EXPECT_EQ(Decide(ReproMatch::kReproduces, RunnerMode::kBisect, true, false).exit_code, 1);
}

}  // namespace
}  // namespace rk::repro
