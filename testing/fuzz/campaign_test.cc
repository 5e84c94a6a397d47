// A short campaign against the real compiler and oracle with a planted
// relu:accuracy fault: it finds the fault, minimizes it to the single relu,
// dedups into one signature, writes the reports, and resumes without redoing
// work. The long acceptance runs are in campaign_acceptance_test.cc.
#include "testing/fuzz/campaign.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "testing/fuzz/campaign_state.h"

namespace rk::fuzz {
namespace {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(dir);
  return dir.string();
}

CampaignOptions ReluOptions(const std::string& out) {
  CampaignOptions o;
  o.out_dir = out;
  o.iterations = 12;
  o.seed = 3;
  o.generator.nodes = 6;
  o.generator.max_elements = 64;
  o.generator.ops = {compiler::Op::kRelu, compiler::Op::kAdd, compiler::Op::kMul,
                     compiler::Op::kExp, compiler::Op::kReduceSum};
  o.faults = {"relu:accuracy"};
  o.opt_levels = false;
  o.gpu = false;
  o.emit = false;
  o.minimize_seconds = 30;
  return o;
}

TEST(CampaignTest, FindsMinimizesAndDedupsAPlantedFault) {
  const std::string out = TempDir("relu");
  absl::StatusOr<CampaignSummary> s = RunCampaign(ReluOptions(out));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->stats.graphs, 12);
  EXPECT_EQ(s->stats.valid, 12);
  EXPECT_GT(s->stats.failures, 0);
  ASSERT_EQ(s->findings.size(), 1u) << s->findings.size();
  const FindingRecord& f = s->findings[0];
  EXPECT_EQ(f.verdict_signature.rfind("accuracy:miscompile:relu", 0), 0u) << f.verdict_signature;
  EXPECT_EQ(f.minimized_nodes, 1) << f.minimized_graph;
  EXPECT_NE(f.minimized_graph.find("relu("), std::string::npos);
  EXPECT_TRUE(f.new_this_run);
  for (const char* file : {"summary.json", "summary.md", "junit.xml", "state.json"}) {
    EXPECT_TRUE(fs::exists(fs::path(out) / file)) << file;
  }
  EXPECT_TRUE(fs::exists(fs::path(out) / "findings" / f.name / "min" / "repro.json"));

  // Rerun: every iteration is done, the finding is kept and no longer new.
  absl::StatusOr<CampaignSummary> again = RunCampaign(ReluOptions(out));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->run_graphs, 0);
  EXPECT_EQ(again->stats.graphs, 12);
  ASSERT_EQ(again->findings.size(), 1u);
  EXPECT_FALSE(again->findings[0].new_this_run);
}

TEST(CampaignTest, KnownSignaturesAreNotNew) {
  const std::string first = TempDir("known1");
  absl::StatusOr<CampaignSummary> s = RunCampaign(ReluOptions(first));
  ASSERT_TRUE(s.ok() && s->findings.size() == 1);
  CampaignOptions o = ReluOptions(TempDir("known2"));
  o.known_signatures = {s->findings[0].signature};
  absl::StatusOr<CampaignSummary> t = RunCampaign(o);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->new_findings, 0);
  EXPECT_GT(t->stats.known_hits, 0);
}

TEST(CampaignTest, RejectsBadShards) {
  CampaignOptions o = ReluOptions(TempDir("shard"));
  o.shard_index = 2;
  o.shard_count = 2;
  EXPECT_EQ(RunCampaign(o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CampaignTest, ShardsPartitionTheIterations) {
  std::set<uint64_t> seeds;
  for (int shard = 0; shard < 3; ++shard) {
    for (int k = 0; k < 10; ++k) seeds.insert(GraphSeed(5, k * 3 + shard));
  }
  EXPECT_EQ(seeds.size(), 30u);
}

}  // namespace
}  // namespace rk::fuzz
