// One running external backend (docs/BACKENDS.md): started in a process group
// of its own under a data-size limit, greeted (its hello read and checked),
// then sent run requests one at a time. A request ends in a reply, or in a
// timeout (the group is killed), a crash (death by a signal), an exit, or a
// protocol error; after anything but a reply the process is gone and the
// owner starts a new one. The last 4 KiB the backend wrote to stderr come
// with every outcome.
//
// Needs: Linux; SIGPIPE is ignored process-wide once a backend is started
// (a backend that dies must not kill the harness through a write).
// Guarantees: Run() returns within the timeout (plus a grace of a second),
// never crashes on what the backend writes, and bounds what it buffers.
//
// Tested by repro/backend/backend_process_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_BACKEND_PROCESS_H_
#define REPROKIT_REPRO_BACKEND_BACKEND_PROCESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "base/child_process.h"
#include "compiler/ir/shape.h"
#include "repro/backend/backend_channel.h"
#include "repro/backend/locate.h"
#include "repro/backend/protocol.h"

namespace rk::repro {

struct BackendLimits {
  absl::Duration timeout = absl::Seconds(60);        // per request
  absl::Duration start_timeout = absl::Seconds(120);  // until the hello
  int64_t memory_bytes = int64_t{8} << 30;           // RLIMIT_DATA; 0 = none
};

class BackendProcess : public BackendChannel {
 public:
  // Starts the backend and reads its hello. NotFound: the program is missing
  // or not executable; FailedPrecondition: another protocol version;
  // Unavailable: it died, hung or wrote garbage before its hello. Each
  // message names the backend and includes the tail of its stderr.
  static absl::StatusOr<std::unique_ptr<BackendProcess>> Start(const BackendCommand& command,
                                                               const BackendLimits& limits);
  // Asks the backend to shut down, waits a second, then kills the group.
  ~BackendProcess();

  const BackendHello& hello() const override { return hello_; }
  const BackendCommand& command() const { return command_; }
  bool alive() const override { return child_ != nullptr; }

  BackendOutcome Run(const std::string& frame, int64_t request_id,
                     absl::Span<const compiler::TensorType> outputs, int runs,
                     absl::Duration timeout) override;
  // With the limits' timeout.
  BackendOutcome Run(const std::string& frame, int64_t request_id,
                     absl::Span<const compiler::TensorType> outputs, int runs) {
    return Run(frame, request_id, outputs, runs, limits_.timeout);
  }

 private:
  BackendProcess(BackendCommand command, BackendLimits limits)
      : command_(std::move(command)), limits_(limits) {}

  enum class Pump { kFrame, kTimedOut, kClosed, kBad };
  // Writes `to_write` while reading stdout and stderr, until one frame is
  // complete, the deadline passes, stdout closes, or the bytes are not frames.
  Pump PumpUntilFrame(std::string_view to_write, absl::Time deadline, uint64_t max_payload,
                      Frame* frame, std::string* what);
  void ReadStderr();
  // After stdout closed: waits briefly for the exit status and drops the child.
  int Reap();
  void KillNow();

  BackendCommand command_;
  BackendLimits limits_;
  std::unique_ptr<ChildProcess> child_;
  BackendHello hello_;
  std::string out_buffer_;
  std::string stderr_tail_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_BACKEND_PROCESS_H_
