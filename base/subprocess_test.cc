#include "base/subprocess.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace rk {
namespace {

TEST(SubprocessTest, CapturesBothStreamsAndTheExitCode) {
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->stderr_text, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->Describe(), "exited with 3");
}

TEST(SubprocessTest, WorkingDirectoryAndEnvironment) {
  SubprocessOptions options;
  options.cwd = "/";
  options.env = {"RK_SUBPROCESS_TEST=hello"};
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "pwd; echo $RK_SUBPROCESS_TEST"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->stdout_text, "/\nhello\n");
}

TEST(SubprocessTest, AMissingProgramIsNotFound) {
  absl::StatusOr<SubprocessResult> r = RunSubprocess({"rk-no-such-program-xyz"});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("rk-no-such-program-xyz"), std::string::npos);
}

TEST(SubprocessTest, ASignalIsReported) {
  absl::StatusOr<SubprocessResult> r = RunSubprocess({"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->signal, SIGSEGV);
  EXPECT_NE(r->Describe().find("signal 11"), std::string::npos);
}

TEST(SubprocessTest, TimeoutKillsTheWholeProcessGroup) {
  SubprocessOptions options;
  options.timeout_seconds = 0.3;
  const auto start = std::chrono::steady_clock::now();
  // The grandchild keeps the output pipe open: the kill must reach it too.
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "sleep 30 & sleep 30; echo never"}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->stdout_text, "");
  EXPECT_LT(seconds, 20);
}

TEST(SubprocessTest, OutputCanGoToALogFile) {
  const std::string log =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
      "/subprocess_test.log";
  ::unlink(log.c_str());
  SubprocessOptions options;
  options.log_file = log;
  ASSERT_TRUE(RunSubprocess({"sh", "-c", "echo one; echo two >&2"}, options).ok());
  ASSERT_TRUE(RunSubprocess({"sh", "-c", "echo three"}, options).ok());
  EXPECT_EQ(*ReadFileToString(log), "one\ntwo\nthree\n");
}

TEST(SubprocessTest, CaptureKeepsTheNewestBytesWithinTheBound) {
  SubprocessOptions options;
  options.max_captured_bytes = 10;
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "printf 0123456789abcdef"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "6789abcdef");
}

TEST(SubprocessTest, RunInChildReturnsTheChildsAnswer) {
  absl::StatusOr<std::string> pid_text = RunInChild([] { return std::to_string(::getpid()); });
  ASSERT_TRUE(pid_text.ok());
  EXPECT_NE(*pid_text, std::to_string(::getpid()));
  EXPECT_EQ(*RunInChild([] { return std::string(); }), "");
}

TEST(SubprocessTest, RunInChildReportsADeath) {
  absl::StatusOr<std::string> r = RunInChild([]() -> std::string { ::abort(); });
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("signal"), std::string::npos);
}

TEST(SubprocessTest, FindOnPath) {
  EXPECT_NE(FindOnPath("sh"), "");
  EXPECT_EQ(FindOnPath("rk-no-such-program-xyz"), "");
}

}  // namespace
}  // namespace rk
