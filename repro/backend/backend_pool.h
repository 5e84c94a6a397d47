// A warm pool of one backend's processes that outlives the commands using
// it (`reprokit backend-pool`, docs/BACKENDS.md "A warm pool"): it starts N
// processes once (a Python backend pays `import torch` once, not once per
// command and per `-j` slot) and serves run requests from any number of
// clients over a Unix socket, each request on an idle process. The isolation
// is the same as a harness's own backend processes: each process in its own
// group under the memory limit; a request's timeout kills the group; a
// crash, exit or protocol error ends that process, the outcome goes back to
// the client, and the slot starts a new one.
//
// Stops on a pool_stop message, on SIGTERM/SIGINT, or after `idle` with no
// client connected; removes its socket when it stops.
//
// Tested by repro/backend/backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_BACKEND_POOL_H_
#define REPROKIT_REPRO_BACKEND_BACKEND_POOL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "repro/backend/backend_process.h"
#include "repro/backend/locate.h"
#include "repro/backend/warm_up.h"

namespace rk::repro {

struct BackendPoolOptions {
  BackendCommand command;
  BackendLimits limits;  // memory and start timeout; each request brings its own timeout
  int processes = 1;
  absl::Duration idle = absl::Minutes(30);
  std::string socket_path;
  // Devices each process is warmed up on (warm_up.h) before it serves; with
  // any, `ready` waits until every process has started and warmed up, or,
  // with ready_when_first_warm, only for the first (the others start and warm
  // up in the background while the pool serves: `capture --pool N`).
  std::vector<std::string> warm_devices;
  bool ready_when_first_warm = false;
  GraphToOnnx to_onnx;  // for warming up a backend that asks for ONNX
};

// Serves until stopped. `ready` is called once the first process said hello
// and the socket listens. AlreadyExists: another pool answers on the socket;
// errors starting the backend as BackendProcess::Start gives them.
absl::Status ServeBackendPool(const BackendPoolOptions& options,
                              const std::function<void(const BackendHello&)>& ready);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_BACKEND_POOL_H_
