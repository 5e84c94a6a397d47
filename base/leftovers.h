// Cleaning up after processes that were killed (SIGKILL, OOM killer, power
// loss of a container): files and directories named after the pid of the
// process that made them, "<prefix><pid><sep>...", whose process is gone.
//
// Who uses it: the minifier's scratch value store (reprokit-values-<pid>-* in
// TMPDIR) and the staging directories beside a bundle (.tmp.<name>.new.<pid>.*).
// A leftover of a live process, or one owned by another user, is never
// touched; a pid that was reused by an unrelated process keeps its leftover
// until that process ends too. Shown by base/leftovers_test.cc.
#ifndef REPROKIT_BASE_LEFTOVERS_H_
#define REPROKIT_BASE_LEFTOVERS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rk {

// True when no process with this pid exists (kill(pid, 0) says ESRCH).
bool ProcessIsGone(long pid);

// The pid in `name` when it reads "<prefix><digits>" followed by '.' or '-'
// (or nothing); otherwise -1.
long PidInLeftoverName(absl::string_view name, absl::string_view prefix);

// Removes (recursively) every entry of `dir` whose name carries the pid of a
// gone process after `prefix` and that this user owns. Errors are ignored:
// cleaning is best effort and must never fail the command that does it.
// Returns the paths removed.
std::vector<std::string> RemoveLeftoversOfGoneProcesses(const std::string& dir,
                                                        absl::string_view prefix);

// Removes the files of `dir` named like base/file_util.h's TempPathIn
// (".tmp.<stem>.<pid>.<random>") whose pid is gone: the temporary file of an
// atomic write that was killed before its rename. Best effort, like the above.
std::vector<std::string> RemoveTempFilesOfGoneProcesses(const std::string& dir);

}  // namespace rk

#endif  // REPROKIT_BASE_LEFTOVERS_H_
