// Campaign records: JSON round trip, refusing records of another campaign,
// and the merge's dedup (smallest bundle per signature, hits summed).
#include "testing/fuzz/campaign_record.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "base/file_util.h"
#include "gtest/gtest.h"
#include "repro/store/local_store.h"

namespace rk::fuzz {
namespace {

CampaignRecord Shard(int index, uint64_t seed = 7) {
  CampaignRecord r;
  r.reprokit_version = "1.0";
  r.seed = seed;
  r.shard_index = index;
  r.shard_count = 4;
  r.faults = {"relu:accuracy"};
  r.policy = "torch";
  r.nodes = 10;
  r.max_elements = 1024;
  r.configs = {"cpu", "cpu-O0"};
  r.stats.graphs = 10;
  r.stats.failures = 2;
  r.stats.seconds = 5 + index;
  r.stats.verdicts["cpu:pass"] = 9;
  r.source = "shard" + std::to_string(index);
  return r;
}

RecordedFinding Finding(const std::string& signature, int64_t nodes, int64_t hits) {
  RecordedFinding f;
  f.finding.signature = signature;
  f.finding.name = "f_" + signature;
  f.finding.minimized_nodes = nodes;
  f.finding.hits = hits;
  f.finding.new_this_run = true;
  return f;
}

TEST(CampaignRecordTest, JsonRoundTrip) {
  CampaignRecord r = Shard(2, 0xfedcba9876543210ULL);
  RecordedFinding f = Finding("accuracy:x#1", 3, 4);
  f.bundle_digest = std::string(64, 'a');
  f.bundle_bytes = 1234;
  r.findings.push_back(f);
  absl::StatusOr<CampaignRecord> back = RecordFromJson(RecordToJson(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->seed, r.seed);
  EXPECT_EQ(back->shard_index, 2);
  EXPECT_EQ(back->shard_count, 4);
  EXPECT_EQ(back->faults, r.faults);
  EXPECT_EQ(back->stats.graphs, 10);
  EXPECT_EQ(back->stats.verdicts.at("cpu:pass"), 9);
  ASSERT_EQ(back->findings.size(), 1u);
  EXPECT_EQ(back->findings[0].bundle_digest, f.bundle_digest);
  EXPECT_EQ(back->findings[0].bundle_bytes, 1234u);
  EXPECT_EQ(back->findings[0].finding.hits, 4);
  EXPECT_TRUE(back->findings[0].finding.new_this_run);
}

TEST(CampaignRecordTest, RejectsWhatIsNotARecord) {
  Json j = RecordToJson(Shard(0));
  j.Set("format", "reprokit-fuzz-summary");
  EXPECT_TRUE(absl::IsInvalidArgument(RecordFromJson(j, "x").status()));
  j = RecordToJson(Shard(0));
  j.Set("version", 99);
  EXPECT_TRUE(absl::IsFailedPrecondition(RecordFromJson(j, "x").status()));
  j = RecordToJson(Shard(0));
  j["campaign"].Set("shard", "5/4");
  EXPECT_TRUE(absl::IsInvalidArgument(RecordFromJson(j, "x").status()));
}

TEST(CampaignRecordTest, RefusesShardsOfDifferentCampaigns) {
  EXPECT_TRUE(CheckSameCampaign({Shard(0), Shard(1), Shard(3)}).ok());
  absl::Status seed = CheckSameCampaign({Shard(0), Shard(1, 8)});
  EXPECT_TRUE(absl::IsFailedPrecondition(seed)) << seed;
  EXPECT_TRUE(absl::StrContains(seed.message(), "seed 8")) << seed;
  CampaignRecord other_version = Shard(1);
  other_version.reprokit_version = "2.0";
  EXPECT_TRUE(absl::IsFailedPrecondition(CheckSameCampaign({Shard(0), other_version})));
  CampaignRecord other_faults = Shard(1);
  other_faults.faults.clear();
  EXPECT_TRUE(absl::IsFailedPrecondition(CheckSameCampaign({Shard(0), other_faults})));
  EXPECT_TRUE(absl::IsInvalidArgument(CheckSameCampaign({Shard(0), Shard(0)})));
  EXPECT_TRUE(absl::IsInvalidArgument(CheckSameCampaign({})));
}

TEST(CampaignRecordTest, MergeKeepsTheSmallestPerSignatureAndSumsHits) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/merge_unit";
  std::filesystem::remove_all(dir);
  auto store = std::move(*repro::LocalStore::Open(dir + "/store"));
  CampaignRecord a = Shard(0), b = Shard(1);
  a.findings = {Finding("sig1", 5, 2), Finding("sig2", 2, 1)};
  b.findings = {Finding("sig1", 3, 4)};
  b.findings[0].finding.name = "f_sig1_from_b";
  a.stats.judge_errors = {{"onnxruntime", 2}};
  b.stats.judge_errors = {{"onnxruntime", 3}};
  a.stats.not_applicable = {{"onnxruntime: op iota", 4}};
  b.stats.not_applicable = {{"onnxruntime: op iota", 1}, {"onnxruntime: dtype bf16", 7}};
  b.stats.unconfirmed_timeouts = 2;
  MergeOptions options;
  options.out_dir = dir + "/out";
  options.emit = false;
  absl::StatusOr<CampaignSummary> merged = MergeCampaigns({a, b}, *store, options);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->findings.size(), 2u);
  EXPECT_EQ(merged->findings[0].signature, "sig1");
  EXPECT_EQ(merged->findings[0].name, "f_sig1_from_b");  // 3 nodes beat 5
  EXPECT_EQ(merged->findings[0].hits, 6);
  EXPECT_EQ(merged->stats.graphs, 20);
  EXPECT_EQ(merged->stats.seconds, 6);  // the longest shard
  EXPECT_EQ(merged->stats.verdicts.at("cpu:pass"), 18);
  EXPECT_EQ(merged->stats.duplicates, 1);
  EXPECT_EQ(merged->stats.judge_errors.at("onnxruntime"), 5);
  EXPECT_EQ(merged->stats.not_applicable.at("onnxruntime: op iota"), 5);
  EXPECT_EQ(merged->stats.not_applicable.at("onnxruntime: dtype bf16"), 7);
  EXPECT_EQ(merged->stats.unconfirmed_timeouts, 2);
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/junit.xml"));
  // Merging into the same directory again is refused: nothing is overwritten.
  EXPECT_TRUE(absl::IsAlreadyExists(MergeCampaigns({a, b}, *store, options).status()));
}

}  // namespace
}  // namespace rk::fuzz
