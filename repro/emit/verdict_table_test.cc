#include "repro/emit/verdict_table.h"

#include <string>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(VerdictTableTest, AccuracyFailureShowsSignatureAndOneRowPerOutput) {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.accuracy_subkind = "miscompile";
  v.signature = AccuracySignature("miscompile", "relu", "f32");
  v.message = "out0 %y: rmse 3e-2 vs 2e-7\nsecond line";
  OutputVerdict o;
  o.index = 0;
  o.node = "y";
  o.op = "relu";
  o.dtype = "f32";
  o.metrics.judgement = Judgement::kFail;
  o.metrics.mismatches = 4;
  v.outputs.push_back(o);
  const std::string table = FormatVerdictTable(v, "> ");
  EXPECT_NE(table.find("> verdict:   accuracy (miscompile)\n"), std::string::npos) << table;
  EXPECT_NE(table.find("signature: accuracy:miscompile:relu:f32"), std::string::npos) << table;
  EXPECT_NE(table.find("message:   out0 %y: rmse 3e-2 vs 2e-7 [...]\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("%y"), std::string::npos);
  EXPECT_NE(table.find("fail"), std::string::npos) << table;
  for (size_t pos = 0; pos < table.size(); pos = table.find('\n', pos) + 1) {
    EXPECT_EQ(table.compare(pos, 2, "> "), 0) << "every line is indented: " << table;
  }
}

TEST(VerdictTableTest, PassHasNoSignatureAndCrashShowsFrames) {
  Verdict pass;
  EXPECT_EQ(FormatVerdictTable(pass).find("signature:"), std::string::npos);
  Verdict crash;
  crash.kind = VerdictKind::kCrash;
  crash.signature = CrashSignature("SIGSEGV", {"rk::compiler::Compile"}, "compile");
  crash.backtrace = {"0x1 rk::compiler::Compile"};
  const std::string table = FormatVerdictTable(crash);
  EXPECT_NE(table.find("backtrace (innermost first):\n  0x1 rk::compiler::Compile"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace rk::repro
