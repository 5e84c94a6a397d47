// A short campaign against the real compiler and oracle with a planted
// relu:accuracy fault: it finds the fault, minimizes it to the single relu,
// dedups into one signature, writes the reports, and resumes without redoing
// work. The long acceptance runs are in campaign_acceptance_test.cc.
#include "testing/fuzz/campaign.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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
  // Triaged (repro/triage): the planted op fault fails at every opt_level.
  EXPECT_EQ(f.triage, "kernel bug: fails at every level (0, 1, 2)");
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

// A campaign killed after a finding's directory appeared but before its
// finding.json was written: the rerun redoes that iteration and must record
// the finding under its own name, not as a second "<name>_2".
TEST(CampaignTest, RerunAfterAKillDoesNotDuplicateAFinding) {
  const std::string out = TempDir("killed");
  absl::StatusOr<CampaignSummary> s = RunCampaign(ReluOptions(out));
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->findings.size(), 1u);
  const FindingRecord f = s->findings[0];
  const fs::path dir = fs::path(out) / "findings" / f.name;
  EXPECT_FALSE(fs::exists(dir / ".writer"));  // complete: no writer named

  // What SIGKILL leaves: finding.json not written, its writer gone, the
  // iteration not in the done log.
  fs::remove(dir / "finding.json");
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  std::ofstream(dir / ".writer") << child << "\n";
  const fs::path done = fs::path(out) / "corpus" / "shard-0-of-1.done";
  std::ifstream in(done);
  std::string kept, line;
  while (std::getline(in, line)) {
    if (line != std::to_string(f.iteration)) kept += line + "\n";
  }
  in.close();
  std::ofstream(done, std::ios::trunc) << kept;

  absl::StatusOr<CampaignSummary> again = RunCampaign(ReluOptions(out));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_GE(again->run_graphs, 1);
  ASSERT_EQ(again->findings.size(), 1u);
  EXPECT_EQ(again->findings[0].name, f.name);
  EXPECT_EQ(again->findings[0].signature, f.signature);
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(out) / "findings")) {
    dirs.push_back(e.path().filename().string());
  }
  EXPECT_EQ(dirs, std::vector<std::string>{f.name});
}

// A finding being written by a live process (a shard beside this one) is
// left alone; one whose writer is gone is removed.
TEST(CampaignStateTest, OnlyIncompleteFindingsOfGoneWritersAreRemoved) {
  const std::string out = TempDir("incomplete");
  const fs::path findings = fs::path(out) / "findings";
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  ASSERT_TRUE(MarkFindingWriter((findings / "gone").string()).ok());
  std::ofstream(findings / "gone" / ".writer", std::ios::trunc) << child << "\n";
  ASSERT_TRUE(MarkFindingWriter((findings / "live").string()).ok());
  fs::create_directories(findings / "old_campaign");  // no writer named: kept
  ASSERT_TRUE(MarkFindingWriter((findings / "complete").string()).ok());
  std::ofstream(findings / "complete" / "finding.json") << "{}\n";
  std::ofstream(findings / "complete" / ".writer", std::ios::trunc) << child << "\n";

  std::vector<std::string> removed = RemoveIncompleteFindings(out);
  EXPECT_EQ(removed, std::vector<std::string>{(findings / "gone").string()});
  EXPECT_FALSE(fs::exists(findings / "gone"));
  EXPECT_TRUE(fs::exists(findings / "live"));
  EXPECT_TRUE(fs::exists(findings / "old_campaign"));
  EXPECT_TRUE(fs::exists(findings / "complete"));
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

// A timeout on a loaded machine is judged again by the minimizer and passes:
// it is counted as unconfirmed, not published as a finding. A nondeterministic
// failure may pass any one judgement and stays a finding.
TEST(CampaignTest, FailuresThatDoNotFailAgainAreUnconfirmed) {
  const absl::Status not_again =
      absl::FailedPreconditionError("the input does not reproduce its expected failure");
  EXPECT_TRUE(IsUnconfirmedFailure(not_again, repro::VerdictKind::kTimeout));
  EXPECT_TRUE(IsUnconfirmedFailure(not_again, repro::VerdictKind::kCrash));
  EXPECT_TRUE(IsUnconfirmedFailure(not_again, repro::VerdictKind::kAccuracy));
  EXPECT_FALSE(IsUnconfirmedFailure(not_again, repro::VerdictKind::kNondeterministic));
  EXPECT_FALSE(IsUnconfirmedFailure(absl::InternalError("a value could not be read"),
                                    repro::VerdictKind::kTimeout));
  EXPECT_FALSE(IsUnconfirmedFailure(absl::OkStatus(), repro::VerdictKind::kTimeout));
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
