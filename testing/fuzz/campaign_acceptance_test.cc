// Acceptance runs of whole campaigns against the real compiler (manual: about
// two minutes). With relu:accuracy planted, a 30 s campaign finds it,
// minimizes every finding to the single relu, dedups into one signature and
// emits one target. Without faults, a 60 s CPU campaign reports no accuracy
// finding under the default policy (any finding is printed in full: it is a
// compiler bug).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {
namespace {

namespace fs = std::filesystem;

// Outside Bazel's TEST_TMPDIR, which lies inside the execroot: the campaign
// directory becomes a Bazel workspace of its own, and emission refuses to
// create one inside another workspace.
std::string TempDir(const std::string& name) {
  std::string pattern = (fs::temp_directory_path() / ("reprokit_" + name + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return (fs::temp_directory_path() / name).string();
  return pattern;
}

int Jobs() {
  const char* j = std::getenv("FUZZ_JOBS");
  return j ? std::atoi(j) : 2;
}

TEST(CampaignAcceptanceTest, PlantedReluFaultGivesOneMinimalTarget) {
  CampaignOptions o;
  o.out_dir = TempDir("relu_accept");
  o.time_seconds = 30;
  o.jobs = Jobs();
  o.faults = {"relu:accuracy"};
  o.gpu = false;
  absl::StatusOr<CampaignSummary> s = RunCampaign(o);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->stats.valid, s->stats.graphs);
  // Findings without relu are the compiler's own bugs (the fault-free run
  // finds them too): printed, not counted against the planted fault.
  std::vector<const FindingRecord*> relu;
  for (const FindingRecord& f : s->findings) {
    if (f.verdict_signature.find(":relu:") != std::string::npos) {
      relu.push_back(&f);
    } else {
      std::printf("other finding %s (%s)\n%s", f.signature.c_str(), f.config.c_str(),
                  f.minimized_graph.c_str());
    }
  }
  ASSERT_EQ(relu.size(), 1u);
  const FindingRecord& f = *relu[0];
  EXPECT_EQ(f.verdict_signature.rfind("accuracy:miscompile:relu", 0), 0u) << f.verdict_signature;
  EXPECT_EQ(f.minimized_nodes, 1) << f.minimized_graph;
  EXPECT_NE(f.minimized_graph.find("relu("), std::string::npos) << f.minimized_graph;
  EXPECT_TRUE(f.emit_error.empty()) << f.emit_error;
  EXPECT_FALSE(f.test_label.empty());
  int packages = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(o.out_dir) / "repros")) {
    packages += entry.path().filename().string().find("relu") != std::string::npos &&
                fs::exists(entry.path() / "BUILD.bazel");
  }
  EXPECT_EQ(packages, 1);
  std::printf("relu campaign: %lld graphs, %lld failures, %lld duplicates; finding %s hits %lld\n%s",
              static_cast<long long>(s->stats.graphs), static_cast<long long>(s->stats.failures),
              static_cast<long long>(s->stats.duplicates), f.signature.c_str(),
              static_cast<long long>(f.hits), f.minimized_graph.c_str());
}

TEST(CampaignAcceptanceTest, NoFaultNoAccuracyFindingOnCpu) {
  CampaignOptions o;
  o.out_dir = TempDir("clean_accept");
  o.time_seconds = 60;
  o.jobs = Jobs();
  o.gpu = false;
  o.emit = false;
  absl::StatusOr<CampaignSummary> s = RunCampaign(o);
  ASSERT_TRUE(s.ok()) << s.status();
  std::printf("clean campaign: %lld graphs in %.1f s, %lld failures\n",
              static_cast<long long>(s->stats.graphs), s->run_seconds,
              static_cast<long long>(s->stats.failures));
  EXPECT_EQ(s->stats.valid, s->stats.graphs);
  for (const FindingRecord& f : s->findings) {
    ADD_FAILURE() << f.signature << " (" << f.config << "): " << f.message << "\n"
                  << f.minimized_graph;
  }
}

}  // namespace
}  // namespace rk::fuzz
