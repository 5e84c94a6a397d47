#include "repro/oracle/verdict_json.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(VerdictJsonTest, RoundTripThroughText) {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.signature = AccuracySignature("precision", "reduce_sum", "bf16");
  v.message = "output 0 is off";
  v.accuracy_subkind = "precision";
  OutputVerdict o;
  o.index = 1;
  o.node = "s";
  o.op = "reduce_sum";
  o.dtype = "bf16";
  o.metrics.judgement = Judgement::kFail;
  o.metrics.reason = "rmse";
  o.metrics.elements = 64;
  o.metrics.mismatches = 5;
  o.metrics.first_mismatch = 7;
  o.metrics.rmse_ratio = std::numeric_limits<double>::infinity();
  o.metrics.rmse_result = std::numeric_limits<double>::quiet_NaN();
  v.outputs.push_back(o);
  v.warnings = {"input x: seeded"};
  v.compile_seconds = 0.0125;

  absl::StatusOr<Json> parsed = ParseJson(VerdictToJson(v).DumpPretty());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<Verdict> back = VerdictFromJson(JsonRef(*parsed, "verdict"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kind, v.kind);
  EXPECT_EQ(back->signature, v.signature);
  EXPECT_EQ(back->accuracy_subkind, "precision");
  ASSERT_EQ(back->outputs.size(), 1u);
  EXPECT_EQ(back->outputs[0].metrics.first_mismatch, 7);
  EXPECT_TRUE(std::isinf(back->outputs[0].metrics.rmse_ratio));
  EXPECT_TRUE(std::isnan(back->outputs[0].metrics.rmse_result));
  EXPECT_EQ(back->warnings, v.warnings);
  EXPECT_DOUBLE_EQ(back->compile_seconds, 0.0125);
}

TEST(VerdictJsonTest, ErrorsNameThePath) {
  absl::StatusOr<Json> j = ParseJson(R"({"kind": "explode", "signature": "pass", "message": ""})");
  ASSERT_TRUE(j.ok());
  absl::StatusOr<Verdict> v = VerdictFromJson(JsonRef(*j, "repro.json", "expected"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("expected.kind"), std::string::npos) << v.status();
}

}  // namespace
}  // namespace rk::repro
