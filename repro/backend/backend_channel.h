// A way to send run requests to one external backend and get outcomes back:
// a backend process this harness started (backend_process.h), or a
// connection to a warm pool of them that outlives this harness (pool_client.h,
// docs/BACKENDS.md "A warm pool"). Both give the same outcomes: a reply, a
// timeout, a crash with its signal, an exit, or a protocol error, each with
// the backend's last phase and stderr tail.
//
// Tested through backend_process_test.cc and backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_BACKEND_CHANNEL_H_
#define REPROKIT_REPRO_BACKEND_BACKEND_CHANNEL_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "compiler/ir/shape.h"
#include "repro/backend/protocol.h"

namespace rk::repro {

struct BackendOutcome {
  enum class Kind {
    kReply,          // `reply` holds a result or failure
    kTimedOut,       // killed after the timeout
    kCrashed,        // died from `signal`
    kExited,         // exited (or closed stdout) during the request
    kProtocolError,  // wrote something that is not the protocol; killed
  };
  Kind kind = Kind::kProtocolError;
  RunReply reply;
  int signal = 0;
  std::string phase;        // the last phase the backend reported ("" if none)
  std::string stderr_tail;  // up to 4 KiB
  std::string what;         // kExited / kProtocolError: what happened
  double seconds = 0;       // request sent -> outcome
};

class BackendChannel {
 public:
  virtual ~BackendChannel() = default;
  virtual const BackendHello& hello() const = 0;
  // False once the channel cannot take another request (its owner drops it
  // and opens a new one).
  virtual bool alive() const = 0;
  // Sends `frame` (an encoded run request with `request_id`) and waits for
  // its outcome, at most `timeout` for the backend's work; a reply is checked
  // against the graph's output types and `runs`.
  virtual BackendOutcome Run(const std::string& frame, int64_t request_id,
                             absl::Span<const compiler::TensorType> outputs, int runs,
                             absl::Duration timeout) = 0;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_BACKEND_CHANNEL_H_
