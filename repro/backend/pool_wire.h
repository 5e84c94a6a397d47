// The warm backend pool's side of the protocol (docs/BACKENDS.md, "A warm
// pool"): where a pool's Unix socket lives, and the frames a client and
// `reprokit backend-pool` exchange over it. They reuse the protocol's frames:
//   client -> pool: pool_hello | pool_run (header: id, runs, timeout, the
//                   graph's output types; payload: the run request frame) |
//                   pool_status | pool_stop
//   pool -> client: hello (the backend's, plus "pool") | pool_outcome
//                   (kind, signal, phase, stderr tail; payload: the reply
//                   frame) | pool_status
//
// Tested by repro/backend/backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_POOL_WIRE_H_
#define REPROKIT_REPRO_BACKEND_POOL_WIRE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "compiler/ir/shape.h"
#include "repro/backend/backend_channel.h"
#include "repro/backend/locate.h"
#include "repro/backend/protocol.h"

namespace rk::repro {

// The socket of the pool serving `command` with `memory_bytes` per process:
// $REPROKIT_BACKEND_POOL_DIR, else $XDG_RUNTIME_DIR/reprokit, else
// /tmp/reprokit-<uid>. The folder is refused when another user owns it or
// others may write to it; `make_folder` creates it (0700), else a missing
// folder is NotFound (no pool).
absl::StatusOr<std::string> BackendPoolSocket(const BackendCommand& command,
                                              int64_t memory_bytes, bool make_folder);

struct PoolRun {
  int64_t id = 0;
  int runs = 1;
  absl::Duration timeout;
  std::vector<compiler::TensorType> outputs;
  std::string frame;  // the run request
};
std::string EncodePoolRun(const PoolRun& run);
absl::StatusOr<PoolRun> DecodePoolRun(const Frame& frame);

std::string EncodePoolOutcome(const BackendOutcome& outcome);
// A reply inside is checked against `outputs` and `runs` like a backend's.
absl::StatusOr<BackendOutcome> DecodePoolOutcome(const Frame& frame,
                                                 absl::Span<const compiler::TensorType> outputs,
                                                 int runs);

// Connects to the Unix socket at `path` (blocking, close-on-exec).
absl::StatusOr<int> ConnectUnixSocket(const std::string& path);
// Writes all of `bytes` to a blocking socket.
absl::Status WriteAll(int fd, std::string_view bytes);
// Reads until one frame is complete or `deadline` passes (DeadlineExceeded),
// the peer closes (Aborted) or sends what is not a frame (InvalidArgument).
absl::StatusOr<Frame> ReadFrame(int fd, std::string& buffer, absl::Time deadline,
                                uint64_t max_payload);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_POOL_WIRE_H_
