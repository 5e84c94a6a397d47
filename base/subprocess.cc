#include "base/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace rk {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Appends to `out`, keeping at most `limit` bytes (the newest).
void AppendBounded(std::string& out, const char* data, size_t n, size_t limit) {
  out.append(data, n);
  if (out.size() > limit) out.erase(0, out.size() - limit);
}

// In the child after fork: never returns.
[[noreturn]] void ExecChild(const std::vector<std::string>& argv, const SubprocessOptions& options,
                            int out_fd, int err_fd, int status_fd) {
  auto fail = [&](int error) {
    (void)!::write(status_fd, &error, sizeof(error));
    ::_exit(127);
  };
  if (options.timeout_seconds > 0) ::setpgid(0, 0);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
    ::close(null_fd);
  }
  if (!options.log_file.empty()) {
    const int fd = ::open(options.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) fail(errno);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::close(fd);
  } else if (out_fd >= 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
  }
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) fail(errno);
  for (const std::string& e : options.env) {
    const size_t eq = e.find('=');
    if (eq == std::string::npos) continue;
    ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  fail(errno);
}

}  // namespace

std::string SubprocessResult::Describe() const {
  if (timed_out) return "timed out";
  if (signal != 0) return absl::StrFormat("killed by signal %d (%s)", signal, ::strsignal(signal));
  return absl::StrCat("exited with ", exit_code);
}

absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                               const SubprocessOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  const bool capture = options.capture && options.log_file.empty();
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, status_pipe[2] = {-1, -1};
  if (::pipe2(status_pipe, O_CLOEXEC) != 0 ||
      (capture && (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0))) {
    const int error = errno;
    for (int* fds : {out_pipe, err_pipe, status_pipe}) {
      CloseFd(fds[0]);
      CloseFd(fds[1]);
    }
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(error)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    for (int* fds : {out_pipe, err_pipe, status_pipe}) {
      CloseFd(fds[0]);
      CloseFd(fds[1]);
    }
    return absl::InternalError(absl::StrCat("cannot fork: ", ::strerror(error)));
  }
  if (pid == 0) ExecChild(argv, options, out_pipe[1], err_pipe[1], status_pipe[1]);
  if (options.timeout_seconds > 0) ::setpgid(pid, pid);  // also done by the child: no race
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  CloseFd(status_pipe[1]);

  // The exec either succeeded (the pipe closes on exec, nothing read) or the
  // child reports its errno.
  int exec_error = 0;
  ssize_t got;
  do {
    got = ::read(status_pipe[0], &exec_error, sizeof(exec_error));
  } while (got < 0 && errno == EINTR);
  CloseFd(status_pipe[0]);
  if (got == sizeof(exec_error)) {
    CloseFd(out_pipe[0]);
    CloseFd(err_pipe[0]);
    ::waitpid(pid, nullptr, 0);
    const std::string what = options.log_file.empty() || exec_error == ENOENT
                                 ? absl::StrCat("cannot run '", argv[0], "'")
                                 : absl::StrCat("cannot start '", argv[0], "'");
    return absl::NotFoundError(absl::StrCat(what, ": ", ::strerror(exec_error)));
  }

  SubprocessResult result;
  const auto start = std::chrono::steady_clock::now();
  auto remaining_ms = [&]() -> int {
    if (options.timeout_seconds <= 0) return -1;
    const double left =
        options.timeout_seconds * 1000 -
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return left <= 0 ? 0 : static_cast<int>(left) + 1;
  };
  int status = 0;
  bool reaped = false;
  while (true) {
    struct pollfd fds[2];
    int nfds = 0;
    std::string* sinks[2];
    for (auto [fd, sink] : {std::pair<int, std::string*>{out_pipe[0], &result.stdout_text},
                            {err_pipe[0], &result.stderr_text}}) {
      if (fd < 0) continue;
      fds[nfds] = {fd, POLLIN, 0};
      sinks[nfds++] = sink;
    }
    if (nfds == 0) {
      // Nothing to read: wait for the exit, in slices while a timeout runs.
      const pid_t w = ::waitpid(pid, &status, options.timeout_seconds > 0 ? WNOHANG : 0);
      if (w == pid) {
        reaped = true;
        break;
      }
      if (w < 0 && errno != EINTR) break;
      if (options.timeout_seconds > 0) {
        if (remaining_ms() == 0) break;
        ::usleep(5000);
      }
      continue;
    }
    const int timeout = remaining_ms();
    if (timeout == 0) break;
    const int ready = ::poll(fds, nfds, timeout);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].revents == 0) continue;
      char buffer[1 << 14];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        AppendBounded(*sinks[i], buffer, static_cast<size_t>(n), options.max_captured_bytes);
      } else if (n == 0 || errno != EINTR) {
        if (fds[i].fd == out_pipe[0]) CloseFd(out_pipe[0]);
        if (fds[i].fd == err_pipe[0]) CloseFd(err_pipe[0]);
      }
    }
  }
  if (!reaped) {
    if (options.timeout_seconds > 0 && remaining_ms() == 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  CloseFd(out_pipe[0]);
  CloseFd(err_pipe[0]);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
}

absl::StatusOr<std::string> RunInChild(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(errno)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("cannot fork: ", ::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    const std::string text = "+" + fn();  // the mark tells an empty answer from a death
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (text.empty() || text[0] != '+') {
    SubprocessResult died;
    if (WIFEXITED(status)) died.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) died.signal = WTERMSIG(status);
    return absl::InternalError(absl::StrCat("the child process ", died.Describe(),
                                            " before answering"));
  }
  return text.substr(1);
}

std::string FindOnPath(std::string_view tool) {
  if (tool.find('/') != std::string_view::npos) {
    return ::access(std::string(tool).c_str(), X_OK) == 0 ? std::string(tool) : "";
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = absl::StrCat(dir, "/", std::string(tool));
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

}  // namespace rk
