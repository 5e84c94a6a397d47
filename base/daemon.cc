#include "base/daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace rk {
namespace {

// What the two children tell the caller through the status pipe, each in one
// write (atomic on a pipe). The pipe is close-on-exec, so the caller reads
// end of file once the daemon runs its program (or both children are gone).
enum class ReportKind : int32_t { kPid = 1, kSetsidFailed, kForkFailed, kSetupFailed, kExecFailed };
struct Report {
  ReportKind kind;
  int32_t value;  // the daemon's pid, or errno
};

// After fork: only async-signal-safe calls until exec.
void Tell(int fd, ReportKind kind, int32_t value) {
  const Report report = {kind, value};
  (void)!::write(fd, &report, sizeof(report));
}

[[noreturn]] void ExecDaemon(char* const* args, char* const* envp, int null_fd, int log_fd,
                             int status_fd) {
  if (::dup2(null_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) {
    Tell(status_fd, ReportKind::kSetupFailed, errno);
    ::_exit(127);
  }
  // A daemon starts with default signal handling, whatever its starter had.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  ::execvpe(args[0], args, envp);
  Tell(status_fd, ReportKind::kExecFailed, errno);
  ::_exit(127);
}

// The first child: a new session, then the daemon, then gone, so that the
// daemon is nobody's child here and can never take a controlling terminal.
[[noreturn]] void DetachAndFork(char* const* args, char* const* envp, int null_fd, int log_fd,
                                int status_fd) {
  if (::setsid() < 0) {
    Tell(status_fd, ReportKind::kSetsidFailed, errno);
    ::_exit(127);
  }
  const pid_t daemon = ::fork();
  if (daemon < 0) {
    Tell(status_fd, ReportKind::kForkFailed, errno);
    ::_exit(127);
  }
  if (daemon == 0) ExecDaemon(args, envp, null_fd, log_fd, status_fd);
  Tell(status_fd, ReportKind::kPid, daemon);
  ::_exit(0);
}

std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const std::string& x : extra) overridden |= x.substr(0, x.find('=')) == key;
    if (!overridden) env.push_back(std::move(entry));
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

absl::StatusOr<pid_t> StartDaemon(const std::vector<std::string>& argv,
                                  const DaemonOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  // Everything the children need is made before fork.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_storage = Environment(options.env);
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open /dev/null: ", ::strerror(errno)));
  }
  const std::string log = options.log_path.empty() ? "/dev/null" : options.log_path;
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    const int error = errno;
    CloseFd(null_fd);
    return absl::Status(absl::ErrnoToStatusCode(error),
                        absl::StrCat("cannot open the log '", log, "': ", ::strerror(error)));
  }
  int status_pipe[2] = {-1, -1};
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    CloseFd(null_fd);
    CloseFd(log_fd);
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(error)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t first = ::fork();
  if (first == 0) DetachAndFork(args.data(), envp.data(), null_fd, log_fd, status_pipe[1]);
  const int fork_error = errno;
  CloseFd(null_fd);
  CloseFd(log_fd);
  CloseFd(status_pipe[1]);
  if (first < 0) {
    CloseFd(status_pipe[0]);
    return absl::InternalError(absl::StrCat("cannot fork: ", ::strerror(fork_error)));
  }
  while (::waitpid(first, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_t daemon = -1;
  absl::Status failed;
  Report report;
  for (;;) {
    const ssize_t got = ::read(status_pipe[0], &report, sizeof(report));
    if (got < 0 && errno == EINTR) continue;
    if (got != sizeof(report)) break;
    const char* reason = ::strerror(report.value);
    switch (report.kind) {
      case ReportKind::kPid:
        daemon = report.value;
        break;
      case ReportKind::kExecFailed:
        failed = absl::NotFoundError(absl::StrCat("cannot run '", argv[0], "': ", reason));
        break;
      case ReportKind::kSetsidFailed:
        failed = absl::InternalError(absl::StrCat("cannot start a session: ", reason));
        break;
      case ReportKind::kForkFailed:
        failed = absl::InternalError(absl::StrCat("cannot fork the daemon: ", reason));
        break;
      case ReportKind::kSetupFailed:
        failed = absl::InternalError(absl::StrCat("cannot redirect the daemon's stdio: ", reason));
        break;
    }
  }
  CloseFd(status_pipe[0]);
  if (!failed.ok()) return failed;
  if (daemon <= 0) return absl::InternalError("the daemon's starter ended without its pid");
  return daemon;
}

}  // namespace rk
