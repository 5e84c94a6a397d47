// The repro runner: the `main` behind every target that `reprokit_repro`
// (repro/defs.bzl) creates. It finds its bundle through Bazel's runfiles,
// loads it, judges it with the oracle in an isolated worker (so a compiler
// crash or hang is a verdict, never a dead test), prints the verdict table
// and exits by outcome.h's table for its mode.
//
// Command line (set by the macro; extra arguments after `bazel run ... --`):
//   --mode=test|bisect     cc_test semantics or git-bisect exit codes
//   --known_failure        test mode: pass while the failure reproduces
//   --any_failure          bisect mode: any failure is "bad", not "skip"
//   --device=cpu|cuda      run on this device (cuda without a usable GPU:
//                          the test passes as skipped, bisect exits 125)
//   --opt=key=value        compile option override on top of the bundle's
//   --timeout=SECONDS      per compile-and-run (default 60)
//   --bundle=DIR           use DIR instead of the bundle in the runfiles
// Environment: REPROKIT_OPTIONS="key=value ..." applies after --opt, so a
// whole suite (`bazel test --test_env=REPROKIT_OPTIONS=faults=`) or a
// bisection script can flip options without editing BUILD files.
//
// Exit codes: 0 / 1 by outcome.h, 125 cannot test (bisect), 2 usage or a bad
// bundle (test mode; bisect mode reports 125 for a bundle this commit cannot
// load). Never 128+signal.
//
// Tested end to end by tools/emit_e2e_test.sh.
#ifndef REPROKIT_REPRO_EMIT_RUNNER_H_
#define REPROKIT_REPRO_EMIT_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "repro/emit/outcome.h"

namespace rk::repro {

inline constexpr char kReproOptionsEnv[] = "REPROKIT_OPTIONS";

struct RunnerArgs {
  RunnerMode mode = RunnerMode::kTest;
  bool known_failure = false;
  bool any_failure = false;
  std::string device;  // "" keeps the bundle's
  std::vector<std::string> option_overrides;
  double timeout_seconds = 60;
  std::string bundle_dir;  // "" = from the runfiles
  bool help = false;
};

absl::StatusOr<RunnerArgs> ParseRunnerArgs(absl::Span<const std::string> args);

// `bundle_rlocation` is the runfiles path of the bundle's repro.json
// ("<workspace>/<package>/bundle/repro.json"), compiled into the target.
int RunReproMain(int argc, char** argv, const char* bundle_rlocation);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_EMIT_RUNNER_H_
