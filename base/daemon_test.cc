#include "base/daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace rk {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string base = dir != nullptr ? dir : "/tmp";
  std::string templ = base + "/daemon_test.XXXXXX";
  char* made = ::mkdtemp(templ.data());
  return made != nullptr ? std::string(made) : base;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `path` until it holds `want` (or 10 s pass); returns what it holds.
std::string WaitForText(const std::string& path, const std::string& want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string text;
  while (std::chrono::steady_clock::now() < deadline) {
    text = ReadFile(path);
    if (text.find(want) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return text;
}

// Field `index` (1-based, as in proc(5)) of /proc/PID/stat.
long ProcStatField(pid_t pid, int index) {
  std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -1;
  std::vector<std::string> fields = absl::StrSplit(stat.substr(close + 2), ' ');
  long value = -1;
  if (index - 3 < 0 || index - 3 >= static_cast<int>(fields.size()) ||
      !absl::SimpleAtoi(fields[index - 3], &value)) {
    return -1;
  }
  return value;
}

DaemonOptions LogTo(const std::string& path) {
  DaemonOptions options;
  options.log_path = path;
  return options;
}

// A daemon the test started; killed at the end of the test whatever happens.
struct KillAtExit {
  pid_t pid = -1;
  ~KillAtExit() {
    if (pid > 0) ::kill(pid, SIGKILL);
  }
};

TEST(DaemonTest, RunsDetachedWithItsOutputInTheLogAndTheCallerReturnsAtOnce) {
  const std::string dir = TempDir();
  const std::string log = dir + "/daemon.log";
  const std::string pid_file = dir + "/pid";
  {
    std::ofstream old(log);
    old << "left from an earlier daemon\n";
  }
  // The daemon runs for 60 s: StartDaemon must not wait for it.
  const std::string script = absl::StrCat(
      "echo $$ > ", pid_file, ".tmp && mv ", pid_file, ".tmp ", pid_file, "; ",
      "echo to-stdout; echo to-stderr >&2; ",
      "if read -r line; then echo stdin-had-data; else echo stdin-empty; fi; ",
      "exec sleep 60");
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<pid_t> pid =
      StartDaemon({"/bin/sh", "-c", script}, LogTo(log));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(pid.ok()) << pid.status();
  KillAtExit guard{*pid};
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(::kill(*pid, 0), 0) << "the daemon is running";

  // No child of ours is left, not even the intermediate one as a zombie.
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);

  // Its output, and nothing of the old log.
  const std::string text = WaitForText(log, "stdin-empty");
  EXPECT_NE(text.find("to-stdout\n"), std::string::npos) << text;
  EXPECT_NE(text.find("to-stderr\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stdin-empty\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("earlier daemon"), std::string::npos) << text;

  // The pid returned is the program's own.
  int written_pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(WaitForText(pid_file, "\n")),
                               &written_pid));
  EXPECT_EQ(written_pid, *pid);

  // A session and process group of its own, not the caller's, and not our child.
  const pid_t session = ::getsid(*pid);
  ASSERT_GT(session, 0);
  EXPECT_NE(session, ::getsid(0));
  EXPECT_NE(::getpgid(*pid), ::getpgrp());
  EXPECT_NE(ProcStatField(*pid, 4), ::getpid()) << "parent pid";
  EXPECT_EQ(ProcStatField(*pid, 7), 0) << "no controlling terminal";
}

TEST(DaemonTest, GetsTheEnvironmentAndTheFdsLeftOpenAcrossExec) {
  int ready[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  ASSERT_EQ(::fcntl(ready[1], F_SETFD, 0), 0);  // the daemon's end is inherited
  DaemonOptions options;
  options.env = {absl::StrCat("DAEMON_TEST_READY_FD=", ready[1]), "DAEMON_TEST_WORD=ready"};
  absl::StatusOr<pid_t> pid = StartDaemon(
      {"/bin/sh", "-c", "echo \"$DAEMON_TEST_WORD\" >&$DAEMON_TEST_READY_FD"}, options);
  ::close(ready[1]);
  ASSERT_TRUE(pid.ok()) << pid.status();
  KillAtExit guard{*pid};
  std::string word;
  char buffer[64];
  pollfd p = {ready[0], POLLIN, 0};
  while (::poll(&p, 1, 10000) > 0) {
    const ssize_t n = ::read(ready[0], buffer, sizeof(buffer));
    if (n <= 0) break;  // end of file: the daemon has exited
    word.append(buffer, n);
  }
  ::close(ready[0]);
  EXPECT_EQ(word, "ready\n");
}

TEST(DaemonTest, AProgramThatCannotRunIsNotFound) {
  const std::string dir = TempDir();
  for (const std::string& program :
       {std::string("/nonexistent/daemon_test_program"), std::string("no-such-program-rk")}) {
    absl::StatusOr<pid_t> pid =
        StartDaemon({program, "arg"}, LogTo(dir + "/log"));
    ASSERT_FALSE(pid.ok());
    EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound) << pid.status();
    EXPECT_NE(pid.status().message().find(program), absl::string_view::npos) << pid.status();
  }
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(DaemonTest, ALogThatCannotBeOpenedStartsNothing) {
  const std::string dir = TempDir();
  const std::string marker = dir + "/ran";
  absl::StatusOr<pid_t> pid =
      StartDaemon({"/bin/sh", "-c", absl::StrCat("touch ", marker)},
                  LogTo(dir + "/no/such/folder/daemon.log"));
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound) << pid.status();
  EXPECT_NE(pid.status().message().find("no/such/folder/daemon.log"), absl::string_view::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the program ran";
}

TEST(DaemonTest, NoProgramIsInvalid) {
  absl::StatusOr<pid_t> pid = StartDaemon({});
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rk
