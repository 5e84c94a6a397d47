#include "base/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace rk {
namespace {

// Reads from a non-blocking fd until `want` bytes or end of file.
std::string ReadSome(int fd, size_t want) {
  std::string out;
  char buffer[256];
  while (out.size() < want) {
    pollfd p = {fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    out.append(buffer, n);
  }
  return out;
}

TEST(ChildProcessTest, TalksOverPipes) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start({"cat"});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_EQ(::write((*child)->stdin_fd(), "hello", 5), 5);
  EXPECT_EQ(ReadSome((*child)->stdout_fd(), 5), "hello");
  (*child)->CloseStdin();
  int status = (*child)->WaitOrKill(5);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ChildProcessTest, StderrAndEnvironment) {
  ChildProcessOptions options;
  options.env = {"RK_CHILD_TEST=seen"};
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start({"/bin/sh", "-c", "echo \"$RK_CHILD_TEST\" >&2"}, options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ReadSome((*child)->stderr_fd(), 5), "seen\n");
}

TEST(ChildProcessTest, MissingProgramIsNotFound) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start({"/nonexistent/backend"});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(child.status().message().find("/nonexistent/backend"), std::string::npos);
}

TEST(ChildProcessTest, KillEndsTheWholeGroup) {
  // The shell starts a grandchild that would outlive it; killing the group
  // ends both.
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start({"/bin/sh", "-c", "sleep 100 & echo $!; wait"});
  ASSERT_TRUE(child.ok()) << child.status();
  std::string line = ReadSome((*child)->stdout_fd(), 2);
  const pid_t grandchild = std::stoi(line);
  ASSERT_GT(grandchild, 0);
  (*child)->Kill();
  EXPECT_EQ(ChildProcess::DescribeStatus(*(*child)->TryWait()), "killed by signal 9 (SIGKILL)");
  // The grandchild is gone (or a zombie of init's, not ours) soon after.
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ::kill(grandchild, 0) != 0;
    if (!gone) ::usleep(10000);
  }
  EXPECT_TRUE(gone);
}

TEST(ChildProcessTest, DataLimitApplies) {
  // A child under a 64 MiB data limit cannot allocate 512 MiB.
  ChildProcessOptions options;
  options.data_limit_bytes = int64_t{64} << 20;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start({"/bin/sh", "-c", "ulimit -d; exit 0"}, options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ReadSome((*child)->stdout_fd(), 6), "65536\n");
}

}  // namespace
}  // namespace rk
