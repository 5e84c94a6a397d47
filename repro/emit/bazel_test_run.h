// Runs an emitted repro target with Bazel: `bazel test [args] LABEL` in a
// workspace, the output appended to a log file, and the pieces a caller shows
// afterwards: Bazel's exit code, what this run wrote to the log, the status
// lines of the tests and the test's own log (bazel-testlogs/.../test.log).
//
// Needs `bazel` on PATH (started through base/subprocess.h, never a shell).
// Guarantees that a test that ran and failed is an OK result with exit code 3
// (Bazel's "tests failed"); only a Bazel that cannot be started is an error.
//
// Tested by repro/emit/bazel_test_run_test.cc (with a fake `bazel` on PATH).
#ifndef REPROKIT_REPRO_EMIT_BAZEL_TEST_RUN_H_
#define REPROKIT_REPRO_EMIT_BAZEL_TEST_RUN_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rk::repro {

// Bazel's exit codes that mean the build worked.
inline constexpr int kBazelTestsPassed = 0;
inline constexpr int kBazelTestsFailed = 3;

struct BazelTestRequest {
  std::string workspace;                // where `bazel` runs
  std::string label;                    // "//repros/x:x"
  std::vector<std::string> extra_args;  // before the label, e.g. "--test_env=K=V"
  std::string log_file;                 // Bazel's stdout and stderr are appended here
};

struct BazelTestRun {
  // Bazel's exit code (kBazelTestsPassed, kBazelTestsFailed, else a build or
  // usage problem); 128 + N when signal N ended it.
  int exit_code = -1;
  // What this run appended to the log file.
  std::string output;
  // <workspace>/bazel-testlogs/<package>/<name>/test.log and its text ("" when
  // Bazel wrote none, e.g. after a build failure).
  std::string test_log_path;
  std::string test_log;
};

// NotFound when `bazel` cannot be started.
absl::StatusOr<BazelTestRun> RunBazelTest(const BazelTestRequest& request);

// `bazel shutdown` in `workspace`: stops its server (its output appended to
// `log_file`).
absl::Status ShutdownBazel(const std::string& workspace, const std::string& log_file);

// "package/name" of a label ("//repros/x:x" -> "repros/x/x", "//a/b" -> "a/b/b"):
// where Bazel keeps the target's outputs under bazel-testlogs.
std::string LabelPath(const std::string& label);

// The lines of Bazel's output that report a test's status
// ("//repros/x:x   FAILED in 0.4s"), in order.
std::vector<std::string> TestStatusLines(const std::string& output);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_EMIT_BAZEL_TEST_RUN_H_
