// A long-lived child process that talks over pipes: its stdin, stdout and
// stderr are ours to write and read (for servers such as an external compiler
// backend, which serve many requests over one connection). It runs in a
// process group of its own, optionally under a data-size limit, and dies with
// its group when the object is destroyed. One-shot programs use
// RunSubprocess (subprocess.h) instead.
//
// Needs: Linux. Guarantees: Start() reports a program that cannot be
// executed as NotFound (the message names it and the reason), never as a
// running child; the destructor kills the whole process group and reaps the
// child, so no zombie or orphaned grandchild is left.
//
// Tested by base/child_process_test.cc.
#ifndef REPROKIT_BASE_CHILD_PROCESS_H_
#define REPROKIT_BASE_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rk {

struct ChildProcessOptions {
  std::vector<std::string> env;  // "KEY=VALUE" set on top of this process's environment
  // > 0: RLIMIT_DATA of the child (private writable memory: heap and
  // anonymous mappings, not address space a GPU driver reserves).
  int64_t data_limit_bytes = 0;
  bool core_dumps = false;  // RLIMIT_CORE stays as inherited when true, else 0
};

class ChildProcess {
 public:
  // Starts argv[0] (a path, or looked up on PATH when it has no slash). The
  // parent's ends of the three pipes are non-blocking and close-on-exec.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv, const ChildProcessOptions& options = {});

  // Kill() and reap.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return in_fd_; }
  int stdout_fd() const { return out_fd_; }
  int stderr_fd() const { return err_fd_; }
  void CloseStdin();

  // SIGKILL to the whole process group, then reap. Idempotent.
  void Kill();
  // The wait status once the child has exited (reaping it), else nullopt.
  std::optional<int> TryWait();
  // Waits up to `seconds` for the child to exit; kills it after that.
  // Returns the wait status.
  int WaitOrKill(double seconds);

  // "exited with 3", "killed by signal 11 (SIGSEGV)".
  static std::string DescribeStatus(int wait_status);

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::optional<int> status_;
};

}  // namespace rk

#endif  // REPROKIT_BASE_CHILD_PROCESS_H_
