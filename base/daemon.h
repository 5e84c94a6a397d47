// Starts a program as a daemon: detached from the caller (a session of its
// own, reparented away from the caller by a double fork), stdin from
// /dev/null, stdout and stderr into a log file, the caller's working
// directory kept. For servers that outlive the command that starts them,
// such as the warm backend pool (`reprokit backend-pool start`). Programs the
// caller talks to use ChildProcess (child_process.h), one-shot programs
// RunSubprocess (subprocess.h).
//
// Needs: Linux. Guarantees: StartDaemon returns as soon as the program has
// been executed (it never waits for the daemon's work) and leaves no child of
// the caller behind, not even a zombie; a program that cannot be executed is
// NotFound and a log that cannot be opened is an error, neither leaving a
// process running. File descriptors without close-on-exec pass to the daemon,
// which is how a caller hands it a pipe to report that it is ready.
//
// Tested by base/daemon_test.cc.
#ifndef REPROKIT_BASE_DAEMON_H_
#define REPROKIT_BASE_DAEMON_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rk {

struct DaemonOptions {
  // Created (mode 0600) or truncated; the daemon's stdout and stderr. "":
  // /dev/null.
  std::string log_path;
  std::vector<std::string> env;  // "KEY=VALUE" set on top of this process's environment
};

// Starts argv[0] (a path, or looked up on PATH when it has no slash) with
// argv as a daemon and returns its pid.
absl::StatusOr<pid_t> StartDaemon(const std::vector<std::string>& argv,
                                  const DaemonOptions& options = {});

}  // namespace rk

#endif  // REPROKIT_BASE_DAEMON_H_
