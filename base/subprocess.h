// The one way the project starts other programs (Graphviz's dot, Bazel,
// cuobjdump, git) and runs a function in a throwaway child process: argv
// without a shell, an optional working directory and extra environment, the
// output captured (each stream bounded) or appended to a log file, and an
// optional timeout that kills the child's whole process group.
//
// Not for the oracle's workers: repro/isolate keeps a fork server of its own
// (limits, crash classification, reuse).
//
// Tested by base/subprocess_test.cc.
#ifndef REPROKIT_BASE_SUBPROCESS_H_
#define REPROKIT_BASE_SUBPROCESS_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rk {

struct SubprocessOptions {
  std::string cwd;               // "": this process's
  std::vector<std::string> env;  // "KEY=VALUE" set on top of this process's environment
  // Non-empty: stdout and stderr are appended to this file instead of being
  // captured. Empty and !capture: they go to this process's stdout/stderr.
  std::string log_file;
  bool capture = true;
  size_t max_captured_bytes = 16 << 20;  // per stream; beyond it the start is dropped
  // > 0: after this many seconds the child's process group is killed
  // (SIGKILL) and the result says timed_out. The child then runs in a
  // process group of its own.
  double timeout_seconds = 0;
};

struct SubprocessResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  std::string stdout_text;  // with capture
  std::string stderr_text;
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out; }
  // "exited with 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s".
  std::string Describe() const;
};

// Runs argv[0] (looked up on PATH when it has no slash) with argv. NotFound
// when the program does not exist or cannot be executed (the message names
// it); Internal when no process could be made. A program that runs and fails
// is an OK status with a result that is not ok().
absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                               const SubprocessOptions& options = {});

// Runs `fn` in a forked child and returns what it returned. For work that
// must not touch this process (e.g. initializing the CUDA driver, which does
// not survive fork, before a worker pool forks). Internal when the child dies
// before answering.
absl::StatusOr<std::string> RunInChild(const std::function<std::string()>& fn);

// The full path of `tool` on PATH, or "" when it is not there.
std::string FindOnPath(std::string_view tool);

}  // namespace rk

#endif  // REPROKIT_BASE_SUBPROCESS_H_
