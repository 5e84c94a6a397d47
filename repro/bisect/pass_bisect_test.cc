#include "repro/bisect/pass_bisect.h"

#include <cmath>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "repro/bisect/bisect_test_util.h"

namespace rk::repro {
namespace {

// A reduction with an elementwise epilogue (what fuse:wrong_index breaks),
// after work for cse and more fusion decisions.
constexpr char kSoftmaxLike[] = R"(graph @g(%x: f32[4,8], %w: f32[8]) {
  %a = exp(%x) : f32[4,8]
  %b = exp(%x) : f32[4,8]
  %c = add(%a, %b) : f32[4,8]
  %s = reduce_sum(%c) {axes=[1], keepdim=true} : f32[4,1]
  %y = div(%c, %s) : f32[4,8]
  %z = mul(%y, %w) : f32[4,8]
  return %z
}
)";

constexpr char kRelu[] = R"(graph @g(%x: f32[4,8]) {
  %n = neg(%x) : f32[4,8]
  %r = relu(%n) : f32[4,8]
  %y = add(%r, %x) : f32[4,8]
  return %y
}
)";

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  return std::string(base != nullptr ? base : "/tmp") + "/" + name;
}

TEST(PassBisectTest, NamesTheFusionApplicationOfFuseWrongIndex) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t =
      MakeTestTarget(kSoftmaxLike, "faults=fuse:wrong_index");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kAccuracy) << (*t)->verdict.message;
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  PassBisectOptions options;
  options.dump_dir = TempDir("fuse_wrong_index");
  absl::StatusOr<PassBisectResult> r = BisectPassApplications(probe, options);
  ASSERT_TRUE(r.ok()) << r.status();

  EXPECT_FALSE(r->persists_without_passes);
  EXPECT_EQ(r->application.pass, "fuse");
  EXPECT_NE(r->application.detail.find("reduce_sum"), std::string::npos) << r->application.detail;
  EXPECT_NE(r->application.detail.find("epilogue"), std::string::npos) << r->application.detail;
  ASSERT_GT(r->total_applications, 1);
  EXPECT_LE(r->application.number, r->total_applications);
  EXPECT_EQ(r->last_good.kind, VerdictKind::kPass);
  EXPECT_EQ(r->first_bad.signature, (*t)->target.signature);
  // cap 0, cap N, then a binary search over (0, N].
  const int64_t log2n = static_cast<int64_t>(std::ceil(std::log2(r->total_applications)));
  EXPECT_LE(r->judgements, log2n + 2);

  namespace fs = std::filesystem;
  const fs::path root(options.dump_dir);
  const std::string good = "cap_" + std::to_string(r->application.number - 1);
  const std::string bad = "cap_" + std::to_string(r->application.number);
  EXPECT_TRUE(fs::exists(root / good / "kernels.txt"));
  EXPECT_TRUE(fs::exists(root / bad / "fusion.txt"));
  EXPECT_TRUE(fs::exists(root / "diff.txt"));
  bool fusion_changed = false;
  for (const DumpDiff& d : r->diffs) {
    if (d.file == "fusion.txt") fusion_changed = d.added + d.removed > 0;
  }
  EXPECT_TRUE(fusion_changed) << r->ToText();
  EXPECT_NE(r->ToText().find("first bad: pass 'fuse' application #"), std::string::npos);
}

TEST(PassBisectTest, OpFaultInCodegenPersistsWithEveryPassDisabled) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t = MakeTestTarget(kRelu, "faults=relu:accuracy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kAccuracy);
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<PassBisectResult> r = BisectPassApplications(probe, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->persists_without_passes);
  EXPECT_EQ(r->judgements, 1);  // cap 0 only
  EXPECT_NE(r->ToText().find("persists with every optional pass disabled"), std::string::npos);
  EXPECT_EQ(r->ToJson().Find("persists_without_passes")->bool_value(), true);
}

TEST(PassBisectTest, CrashingPassFaultIsFoundInIsolation) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t =
      MakeTestTarget(kSoftmaxLike, "faults=cse:crash", /*isolate=*/true);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kCrash) << (*t)->verdict.message;
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  PassBisectOptions options;
  options.dump_dir = TempDir("cse_crash");
  absl::StatusOr<PassBisectResult> r = BisectPassApplications(probe, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->application.pass, "cse");
  EXPECT_FALSE(r->application.detail.empty());
  EXPECT_EQ(r->first_bad.kind, VerdictKind::kCrash);
  // The crashing cap is dumped without the planted fault, and says so.
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.back().find("without the planted faults"), std::string::npos);
}

TEST(PassBisectTest, PassingTargetReportsNoReproduction) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t = MakeTestTarget(kRelu, "");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kPass);
  // Pretend it failed with relu:accuracy's signature: no cap reproduces that.
  (*t)->target.signature = AccuracySignature("miscompile", "add", "f32");
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<PassBisectResult> r = BisectPassApplications(probe, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace rk::repro
