#include "base/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"

namespace rk {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// In the child after fork: only async-signal-safe calls until exec.
[[noreturn]] void ExecChild(char* const* args, char* const* envp, const ChildProcessOptions& options,
                            int in_fd, int out_fd, int err_fd, int status_fd) {
  auto fail = [&](int error) {
    (void)!::write(status_fd, &error, sizeof(error));
    ::_exit(127);
  };
  ::setpgid(0, 0);
  if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) fail(errno);
  if (options.data_limit_bytes > 0) {
    struct rlimit limit = {static_cast<rlim_t>(options.data_limit_bytes),
                           static_cast<rlim_t>(options.data_limit_bytes)};
    if (::setrlimit(RLIMIT_DATA, &limit) != 0) fail(errno);
  }
  if (!options.core_dumps) {
    struct rlimit none = {0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
  }
  // Default dispositions: a server we start must die from the signals it gets.
  ::signal(SIGPIPE, SIG_DFL);
  ::execvpe(args[0], args, envp);
  fail(errno);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const ChildProcessOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  // Everything the child needs is built before fork.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const std::string& extra : options.env) {
      if (extra.substr(0, extra.find('=')) == key) overridden = true;
    }
    if (!overridden) env_storage.push_back(std::move(entry));
  }
  for (const std::string& extra : options.env) env_storage.push_back(extra);
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1},
      status_pipe[2] = {-1, -1};
  auto close_all = [&] {
    for (int* fds : {in_pipe, out_pipe, err_pipe, status_pipe}) {
      CloseFd(fds[0]);
      CloseFd(fds[1]);
    }
  };
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    close_all();
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(error)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    close_all();
    return absl::InternalError(absl::StrCat("cannot fork: ", ::strerror(error)));
  }
  if (pid == 0) {
    ExecChild(args.data(), envp.data(), options, in_pipe[0], out_pipe[1], err_pipe[1],
              status_pipe[1]);
  }
  ::setpgid(pid, pid);  // also done by the child: no race
  CloseFd(in_pipe[0]);
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  CloseFd(status_pipe[1]);
  int exec_error = 0;
  ssize_t got;
  do {
    got = ::read(status_pipe[0], &exec_error, sizeof(exec_error));
  } while (got < 0 && errno == EINTR);
  CloseFd(status_pipe[0]);
  if (got == sizeof(exec_error)) {
    close_all();
    ::waitpid(pid, nullptr, 0);
    return absl::NotFoundError(
        absl::StrCat("cannot run '", argv[0], "': ", ::strerror(exec_error)));
  }
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->in_fd_ = in_pipe[1];
  child->out_fd_ = out_pipe[0];
  child->err_fd_ = err_pipe[0];
  for (int fd : {child->in_fd_, child->out_fd_, child->err_fd_}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return child;
}

ChildProcess::~ChildProcess() {
  Kill();
  CloseFd(in_fd_);
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

void ChildProcess::CloseStdin() { CloseFd(in_fd_); }

void ChildProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  if (!status_) {
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(pid_, &status, 0);
    } while (r < 0 && errno == EINTR);
    status_ = r == pid_ ? status : 0;
  }
  // The group may outlive the leader: kill what is left of it once more.
  ::kill(-pid_, SIGKILL);
}

std::optional<int> ChildProcess::TryWait() {
  if (status_) return status_;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) status_ = status;
  return status_;
}

int ChildProcess::WaitOrKill(double seconds) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!TryWait()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      Kill();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(-pid_, SIGKILL);  // grandchildren left in the group
  return status_.value_or(0);
}

std::string ChildProcess::DescribeStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return absl::StrCat("exited with ", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* name = ::sigabbrev_np(sig);
    return absl::StrCat("killed by signal ", sig, name ? absl::StrCat(" (SIG", name, ")") : "");
  }
  return absl::StrCat("wait status ", wait_status);
}

}  // namespace rk
