// The one mapping from an error Status to a `reprokit` exit code, shared by
// every subcommand so that `git bisect run` reads them all alike: exit 1 means
// "the failure reproduces" and nothing else.
//
//   bad input (InvalidArgument, NotFound, AlreadyExists, FailedPrecondition,
//   OutOfRange, DataLoss, PermissionDenied, Unimplemented)  -> 2
//   anything else, e.g. Unavailable (no GPU), ResourceExhausted (disk full),
//   Internal, Unknown, DeadlineExceeded                     -> 125 (cannot test)
//
// Tested by tools/exit_codes_test.cc and the CLI cases in tools/cli_test.sh.
#ifndef REPROKIT_TOOLS_EXIT_CODES_H_
#define REPROKIT_TOOLS_EXIT_CODES_H_

#include "absl/status/status.h"

namespace rk::tools {

// Exit codes shared by all subcommands (listed in README.md).
enum ExitCode : int {
  kExitOk = 0,           // success, or "does not reproduce"
  kExitReproduces = 1,   // the failure reproduces
  kExitUsage = 2,        // usage error or bad input
  kExitCannotTest = 125  // cannot judge (git bisect skip)
};

// kExitUsage or kExitCannotTest for a non-OK status; never kExitReproduces.
int ExitCodeForStatus(const absl::Status& status);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_EXIT_CODES_H_
