#include "repro/emit/bazel_test_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "base/file_util.h"

namespace rk::repro {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A stand-in for Bazel: records its arguments, writes a test log for
// `test LABEL` and prints a status line; exits with $FAKE_BAZEL_EXIT (0 by
// default). `shutdown` leaves a marker in the workspace.
constexpr char kFakeBazel[] = R"(#!/bin/sh
echo "fake bazel $*"
if [ "$1" = shutdown ]; then touch shut_down; exit 0; fi
for arg in "$@"; do label=$arg; done
path=${label#//}
mkdir -p "bazel-testlogs/${path%%:*}/${path##*:}"
echo "output of $label" > "bazel-testlogs/${path%%:*}/${path##*:}/test.log"
code=${FAKE_BAZEL_EXIT:-0}
if [ "$code" = 0 ]; then status=PASSED; else status=FAILED; fi
echo "$label                  $status in 0.1s"
exit "$code"
)";

class BazelTestRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string tmp = std::getenv("TEST_TMPDIR");
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = tmp + "/" + name;
    workspace_ = root_ + "/ws";
    log_ = root_ + "/bazel.log";
    ASSERT_TRUE(MakeDirs(workspace_).ok());
    ASSERT_TRUE(MakeDirs(root_ + "/bin").ok());
    ASSERT_TRUE(WriteStringToFile(root_ + "/bin/bazel", kFakeBazel).ok());
    ASSERT_EQ(::chmod((root_ + "/bin/bazel").c_str(), 0755), 0);
    saved_path_ = std::getenv("PATH");
    setenv("PATH", (root_ + "/bin:" + saved_path_).c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", saved_path_.c_str(), 1);
    unsetenv("FAKE_BAZEL_EXIT");
  }

  BazelTestRequest Request() const {
    BazelTestRequest request;
    request.workspace = workspace_;
    request.label = "//repros/relu_fusion:relu_fusion";
    request.log_file = log_;
    return request;
  }

  std::string root_, workspace_, log_, saved_path_;
};

TEST_F(BazelTestRunTest, PassingTestReportsItsLogAndStatus) {
  absl::StatusOr<BazelTestRun> run = RunBazelTest(Request());
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, kBazelTestsPassed);
  EXPECT_THAT(run->output, HasSubstr("fake bazel test //repros/relu_fusion:relu_fusion\n"));
  EXPECT_EQ(run->test_log_path,
            workspace_ + "/bazel-testlogs/repros/relu_fusion/relu_fusion/test.log");
  EXPECT_EQ(run->test_log, "output of //repros/relu_fusion:relu_fusion\n");
  EXPECT_THAT(TestStatusLines(run->output),
              ElementsAre("//repros/relu_fusion:relu_fusion                  PASSED in 0.1s"));
}

TEST_F(BazelTestRunTest, FailingTestIsAResultNotAnError) {
  setenv("FAKE_BAZEL_EXIT", "3", 1);
  absl::StatusOr<BazelTestRun> run = RunBazelTest(Request());
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, kBazelTestsFailed);
  EXPECT_THAT(TestStatusLines(run->output),
              ElementsAre(HasSubstr("FAILED in 0.1s")));
}

TEST_F(BazelTestRunTest, ExtraArgsGoBeforeTheLabelAndOutputIsThisRunsOnly) {
  ASSERT_TRUE(RunBazelTest(Request()).ok());
  BazelTestRequest second = Request();
  second.extra_args = {"--test_env=REPROKIT_OPTIONS=faults="};
  setenv("FAKE_BAZEL_EXIT", "1", 1);
  absl::StatusOr<BazelTestRun> run = RunBazelTest(second);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_EQ(run->output,
            "fake bazel test --test_env=REPROKIT_OPTIONS=faults= "
            "//repros/relu_fusion:relu_fusion\n"
            "//repros/relu_fusion:relu_fusion                  FAILED in 0.1s\n");
  absl::StatusOr<std::string> log = ReadFileToString(log_);
  ASSERT_TRUE(log.ok());
  EXPECT_THAT(*log, HasSubstr("PASSED")) << "the first run's output stays in the log";
}

TEST_F(BazelTestRunTest, ShutdownRunsInTheWorkspace) {
  ASSERT_TRUE(ShutdownBazel(workspace_, log_).ok());
  struct stat st;
  EXPECT_EQ(::stat((workspace_ + "/shut_down").c_str(), &st), 0);
  absl::StatusOr<std::string> log = ReadFileToString(log_);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(*log, "fake bazel shutdown\n");
}

TEST_F(BazelTestRunTest, MissingBazelIsNotFound) {
  setenv("PATH", (root_ + "/nowhere").c_str(), 1);
  absl::StatusOr<BazelTestRun> run = RunBazelTest(Request());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kNotFound) << run.status();
}

TEST(LabelPathTest, PackageAndName) {
  EXPECT_EQ(LabelPath("//repros/x:y"), "repros/x/y");
  EXPECT_EQ(LabelPath("//repros/x"), "repros/x/x");
  EXPECT_EQ(LabelPath("//:t"), "/t");
}

TEST(TestStatusLinesTest, KeepsOnlyStatusLinesOfTargets) {
  EXPECT_THAT(TestStatusLines("INFO: Build completed\n"
                              "//a:b   PASSED in 1s\n"
                              "  //c:d FAILED\n"
                              "//e:f   NO STATUS\n"
                              "//g:h   TIMEOUT in 60s\n"
                              "//i:j   (cached)\n"),
              ElementsAre("//a:b   PASSED in 1s", "//e:f   NO STATUS", "//g:h   TIMEOUT in 60s"));
}

}  // namespace
}  // namespace rk::repro
