// The built-in compiler behind the backend protocol: what `reprokit
// backend-serve` runs. It lets the harness drive reprokit's own compiler as an
// external backend (`--backend reprokit`), so the protocol is tested end to
// end with no other compiler installed, and shows a backend author what a
// complete server does (docs/BACKENDS.md).
//
// Hello: name "reprokit", every op and dtype, devices cpu (and cuda when a
// GPU is usable), and every compile option but device and backend as a
// backend option. A compile or run error is a failure reply; a crash in the
// compiler kills this process, which the harness reports as a crash.
//
// Tested by repro/backend/backend_process_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_BUILTIN_SERVER_H_
#define REPROKIT_REPRO_BACKEND_BUILTIN_SERVER_H_

#include "absl/status/status.h"
#include "repro/backend/protocol.h"

namespace rk::repro {

BackendHello BuiltinBackendHello();

// Serves requests from `in_fd` and writes replies to `out_fd` until shutdown
// or end of input (OK), or until the peer breaks the protocol (the error).
absl::Status ServeBuiltinBackend(int in_fd, int out_fd);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_BUILTIN_SERVER_H_
