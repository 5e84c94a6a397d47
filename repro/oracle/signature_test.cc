#include "repro/oracle/signature.h"

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(NormalizeMessageTest, StripsWhatVaries) {
  EXPECT_EQ(NormalizeMessage("node %41 (relu): shape [8,128] at 0x7ffd1234 in /tmp/x/y.rk:3:17"),
            "node %N (relu): shape [N,N] at H in PATH:N:N");
  EXPECT_EQ(NormalizeMessage("injected fault: relu:compile_error"),
            "injected fault: relu:compile_error");
  EXPECT_EQ(NormalizeMessage("value 'abc' and \"def\"   spaced"), "value 'S' and 'S' spaced");
  EXPECT_EQ(NormalizeMessage("tol 1.5e-3 vs 2"), "tol N vs N");
}

TEST(NormalizeMessageTest, SameFailureSameTextAcrossGraphs) {
  EXPECT_EQ(NormalizeMessage("node %7 (exp): declared type f32[4] but inference gives f32[8]"),
            NormalizeMessage("node %x.1 (exp): declared type f32[16] but inference gives f32[2]"));
}

TEST(NormalizeFrameTest, ReducesToFunction) {
  EXPECT_EQ(NormalizeFrame("/usr/bin/reprokit(_ZN2rk5Lower+0x1f) [0x55d0c0ffee]"), "_ZN2rk5Lower");
  EXPECT_EQ(NormalizeFrame("rk::compiler::Lower(Graph const&)+0x1f"), "rk::compiler::Lower");
  EXPECT_EQ(NormalizeFrame("[0x55d0c0ffee]"), "?");
  EXPECT_EQ(NormalizeFrame("0x55d0c0ffee rk::compiler::FaultSet::Fire()"),
            "rk::compiler::FaultSet::Fire");
  EXPECT_EQ(NormalizeFrame("0x55d0c0ffee (unknown)"), "?");
}

TEST(SignatureTest, RoundTripsEveryForm) {
  std::vector<Signature> sigs = {
      {VerdictKind::kPass, ""},
      CompileErrorSignature("INTERNAL", "injected fault: relu:compile_error at %3"),
      CrashSignature("SIGSEGV", {"a(f+0x1) [0x1]", "b(g+0x2) [0x2]", "c(h+0x3) [0x3]", "d"}, "x"),
      CrashSignature("SIGSEGV", {}, "compile:fusion"),
      TimeoutSignature("compile"),
      AccuracySignature("miscompile", "relu", "f32"),
      NondeterministicSignature("add", "f16"),
  };
  for (const Signature& s : sigs) {
    absl::StatusOr<Signature> parsed = Signature::Parse(s.ToString());
    ASSERT_TRUE(parsed.ok()) << s.ToString();
    EXPECT_EQ(*parsed, s) << s.ToString();
  }
  EXPECT_EQ(TimeoutSignature("run").ToString(), "timeout@run");
  EXPECT_EQ(CrashSignature("SIGSEGV", {}, "compile").ToString(), "crash:SIGSEGV@compile");
  EXPECT_EQ(AccuracySignature("precision", "reduce_sum", "bf16").ToString(),
            "accuracy:precision:reduce_sum:bf16");
}

TEST(SignatureTest, CrashKeepsTopThreeFrames) {
  Signature s = CrashSignature("SIGABRT", {"/x/bin(a+0x1) [0x1]", "/x/bin(b+0x2) [0x2]",
                                           "/x/bin(c+0x3) [0x3]", "/x/bin(d+0x4) [0x4]"},
                               "compile");
  EXPECT_EQ(s.detail, "SIGABRT:a|b|c");
}

TEST(SignatureTest, UnknownKindIsAnError) {
  EXPECT_FALSE(Signature::Parse("explosion:big").ok());
  EXPECT_FALSE(ParseVerdictKind("").ok());
}

TEST(SignatureTest, FailureKinds) {
  EXPECT_FALSE(IsFailure(VerdictKind::kPass));
  EXPECT_FALSE(IsFailure(VerdictKind::kCannotJudge));
  EXPECT_TRUE(IsFailure(VerdictKind::kAccuracy));
  EXPECT_TRUE(IsFailure(VerdictKind::kCrash));
}

}  // namespace
}  // namespace rk::repro
