// The exit code of a content-store error for commands that take `--store`
// (a directory or a Bazel HTTP remote cache URL, repro/store/open_store.h):
// a store that cannot be reached (refused, unresolvable, timed out, 5xx) is
// 125, "cannot test"; bad credentials, a malformed URL, a TLS failure or a
// corrupt object are 2, bad input; everything else as ReportError.
//
// Tested through tools/store_remote_test.sh.
#ifndef REPROKIT_TOOLS_STORE_FLAGS_H_
#define REPROKIT_TOOLS_STORE_FLAGS_H_

#include "absl/status/status.h"

namespace rk::tools {

int ReportStoreError(const char* command, const absl::Status& status);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_STORE_FLAGS_H_
