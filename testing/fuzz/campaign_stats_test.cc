#include "testing/fuzz/campaign_stats.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

repro::Verdict MakeVerdict(repro::VerdictKind kind, std::string message = "") {
  repro::Verdict v;
  v.kind = kind;
  v.signature.kind = kind;
  v.message = std::move(message);
  return v;
}

TEST(RecordVerdictTest, CountsJudgementsVerdictsAndFailures) {
  CampaignStats s;
  RecordVerdict(s, "cpu", MakeVerdict(repro::VerdictKind::kPass));
  RecordVerdict(s, "cpu", MakeVerdict(repro::VerdictKind::kAccuracy));
  RecordVerdict(s, "onnxruntime", MakeVerdict(repro::VerdictKind::kShapeMismatch));
  EXPECT_EQ(s.judgements, 3);
  EXPECT_EQ(s.failures, 2);
  EXPECT_EQ(s.verdicts["cpu:pass"], 1);
  EXPECT_EQ(s.verdicts["cpu:accuracy"], 1);
  EXPECT_EQ(s.verdicts["onnxruntime:shape_mismatch"], 1);
  EXPECT_TRUE(s.not_applicable.empty());
  EXPECT_EQ(CountsOf(s, "cpu").judged, 2);
}

TEST(RecordVerdictTest, CannotJudgeCountsItsReasonUpToTheLimit) {
  CampaignStats s;
  RecordVerdict(s, "ort", MakeVerdict(repro::VerdictKind::kCannotJudge,
                                      "backend 'ort' does not support op erf on f64 (at %y)"));
  RecordVerdict(s, "ort", MakeVerdict(repro::VerdictKind::kCannotJudge,
                                      "backend 'ort' does not support op erf on f64 (at %z)"));
  EXPECT_EQ(s.failures, 0);
  ASSERT_EQ(s.not_applicable.size(), 1u);
  EXPECT_EQ(s.not_applicable["ort: backend 'ort' does not support op erf on f64"], 2);
  for (size_t i = 0; i < kMaxReasons + 5; ++i) {
    RecordVerdict(s, "ort", MakeVerdict(repro::VerdictKind::kCannotJudge,
                                        absl::StrCat("backend 'ort' does not support op op", i)));
  }
  EXPECT_EQ(s.not_applicable.size(), kMaxReasons + 1);  // the limit, and "other"
  EXPECT_EQ(s.not_applicable["ort: other"], 6);
  EXPECT_EQ(CountsOf(s, "ort").not_applicable, 2 + kMaxReasons + 5);
}

TEST(NotApplicableReasonTest, DropsNodesAndElementsAndCaps) {
  EXPECT_EQ(NotApplicableReason("undefined behavior at %d: integer division by zero "
                                "(element 3: 7 / 0)"),
            "undefined behavior at %N: integer division by zero");
  const std::string reason = NotApplicableReason(std::string(400, 'x'));
  EXPECT_EQ(reason.size(), 163u);
  EXPECT_EQ(reason.substr(160), "...");
}

}  // namespace
}  // namespace rk::fuzz
