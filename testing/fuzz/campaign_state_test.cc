#include "testing/fuzz/campaign_state.h"

#include <string>

#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

// Every member set, each to a value no other member of its type has.
FindingRecord SampleFinding() {
  return FindingRecord{.signature = "accuracy/relu/f32",
                       .verdict_signature = "accuracy:relu",
                       .name = "relu_f32",
                       .config = "cpu",
                       .options = "opt_level=2",
                       .message = "1 of 4 elements not allclose",
                       .accuracy_subkind = "rmse",
                       .graph_seed = 18446744073709551615ull,  // above int64's range
                       .iteration = 12, .original_nodes = 9, .minimized_nodes = 2,
                       .oracle_calls = 31, .minimize_seconds = 1.5, .minimize_complete = true,
                       .minimized_graph = "graph @g() {}",
                       .package = "repros/relu_f32",
                       .test_label = "//repros/relu_f32:test",
                       .emit_error = "",
                       .hits = 3,
                       .first_seen_seconds = 0.25,
                       .last_seen_seconds = 7.5};
}

Json Parse(const std::string& text) {
  absl::StatusOr<Json> json = ParseJson(text);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : Json();
}

TEST(FindingJsonTest, WritesEveryFieldInOrder) {
  EXPECT_EQ(FindingToJson(SampleFinding()).Dump(),
            R"({"signature":"accuracy/relu/f32","verdict_signature":"accuracy:relu",)"
            R"("name":"relu_f32","config":"cpu","options":"opt_level=2",)"
            R"("message":"1 of 4 elements not allclose","accuracy_subkind":"rmse",)"
            R"("graph_seed":18446744073709551615,"iteration":12,"original_nodes":9,)"
            R"("minimized_nodes":2,"oracle_calls":31,"minimize_seconds":1.5,)"
            R"("minimize_complete":true,"minimized_graph":"graph @g() {}",)"
            R"("package":"repros/relu_f32","test_label":"//repros/relu_f32:test",)"
            R"("emit_error":"","hits":3,"first_seen_seconds":0.25,"last_seen_seconds":7.5})");
}

TEST(FindingJsonTest, RoundTrips) {
  const FindingRecord f = SampleFinding();
  absl::StatusOr<FindingRecord> back = FindingFromJson(FindingToJson(f));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FindingToJson(*back), FindingToJson(f));
}

TEST(FindingJsonTest, MissingFieldsReadAsDefaultsAndHitsAsAtLeastOne) {
  absl::StatusOr<FindingRecord> f =
      FindingFromJson(Parse(R"({"signature":"s","graph_seed":-1,"hits":0,"iteration":"x"})"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->signature, "s");
  EXPECT_EQ(f->name, "");
  EXPECT_EQ(f->graph_seed, 18446744073709551615ull);
  EXPECT_EQ(f->iteration, 0);
  EXPECT_FALSE(f->minimize_complete);
  EXPECT_EQ(f->hits, 1);
}

TEST(FindingJsonTest, RejectsNonObjectsAndMissingSignatures) {
  EXPECT_EQ(FindingFromJson(Parse("[]")).status().message(), "finding: not an object");
  EXPECT_EQ(FindingFromJson(Parse(R"({"name":"x"})")).status().message(),
            "finding: no signature");
}

TEST(StatsJsonTest, RoundTripsInOrder) {
  CampaignStats s{.graphs = 10, .generated = 9, .valid = 8, .nan_free = 7, .judgements = 6,
                  .failures = 5, .duplicates = 4, .known_hits = 3, .minimizations = 2,
                  .unconfirmed = 1,
                  .unconfirmed_failures = {"seed 7 cpu: timeout@compile (timed out after 20s)"},
                  .unconfirmed_timeouts = 1,
                  .judge_errors = {{"onnxruntime", 3}},
                  .not_applicable = {{"onnxruntime: op iota", 2}},
                  .seconds = 0.5, .generate_seconds = 0.25, .judge_seconds = 0.125,
                  .minimize_seconds = 2.0, .verdicts = {{"cpu:pass", 6}}, .coverage = {},
                  .op_dtypes = {{"relu:f32", 4}}, .errors = {"generator: no valid graph"},
                  .timeline = {}};
  s.coverage.counts[static_cast<int>(compiler::Op::kRelu)] = 4;
  const Json j = StatsToJson(s);
  const std::string text = j.Dump();
  EXPECT_EQ(text.substr(0, text.find(",\"verdicts\"")),
            R"({"graphs":10,"generated":9,"valid":8,"nan_free":7,"judgements":6,)"
            R"("failures":5,"duplicates":4,"known_hits":3,"minimizations":2,"unconfirmed":1,)"
            R"("unconfirmed_timeouts":1,"seconds":0.5,)"
            R"("generate_seconds":0.25,"judge_seconds":0.125,"minimize_seconds":2.0)");
  CampaignStats back;
  ASSERT_TRUE(StatsFromJson(j, &back).ok());
  EXPECT_EQ(StatsToJson(back), j);
  EXPECT_EQ(back.coverage.count(compiler::Op::kRelu), 4);
  EXPECT_EQ(back.errors, s.errors);
  EXPECT_EQ(back.judge_errors, s.judge_errors);
  EXPECT_EQ(back.not_applicable, s.not_applicable);
  EXPECT_EQ(back.unconfirmed_failures, s.unconfirmed_failures);
  EXPECT_EQ(back.op_dtypes, s.op_dtypes);
}

TEST(StatsJsonTest, TimelineRoundTripsAndOldStateHasNone) {
  CampaignStats s;
  s.timeline = {{0, 0, 0, 0, 0}, {1.5, 10, 20, 2, 1}};
  const Json j = StatsToJson(s);
  EXPECT_EQ(j.Find("timeline")->Dump(), "[[0.0,0,0,0,0],[1.5,10,20,2,1]]");
  CampaignStats back;
  ASSERT_TRUE(StatsFromJson(j, &back).ok());
  ASSERT_EQ(back.timeline.size(), 2u);
  EXPECT_EQ(back.timeline[1].seconds, 1.5);
  EXPECT_EQ(back.timeline[1].judgements, 20);
  EXPECT_EQ(back.timeline[1].findings, 1);
  CampaignStats old;
  ASSERT_TRUE(StatsFromJson(Parse(R"({"graphs":3,"timeline":[[1,2],"x"]})"), &old).ok());
  EXPECT_TRUE(old.timeline.empty());
}

TEST(TimelineTest, KeepsTheIntervalAndStaysBounded) {
  CampaignStats s;
  EXPECT_TRUE(AddTimelinePoint(s, {0.0}, 1.0));
  EXPECT_FALSE(AddTimelinePoint(s, {0.5}, 1.0));
  EXPECT_TRUE(AddTimelinePoint(s, {1.0}, 1.0));
  for (int i = 2; i < 5000; ++i) AddTimelinePoint(s, {static_cast<double>(i), i}, 1.0);
  EXPECT_LE(s.timeline.size(), kMaxTimelinePoints);
  EXPECT_GT(s.timeline.size(), kMaxTimelinePoints / 4);
  EXPECT_EQ(s.timeline.front().seconds, 0.0);
  EXPECT_EQ(s.timeline.back().graphs, 4999);
  for (size_t i = 1; i < s.timeline.size(); ++i) {
    EXPECT_LT(s.timeline[i - 1].seconds, s.timeline[i].seconds);
  }
}

TEST(StatsJsonTest, MissingCountersReadAsZero) {
  CampaignStats s;
  s.graphs = 5;
  ASSERT_TRUE(StatsFromJson(Parse(R"({"valid":2})"), &s).ok());
  EXPECT_EQ(s.graphs, 0);
  EXPECT_EQ(s.valid, 2);
  EXPECT_EQ(StatsFromJson(Parse("1"), &s).message(), "state: not an object");
}

}  // namespace
}  // namespace rk::fuzz
