// A connection to a warm backend pool (backend_pool.h): a BackendChannel
// whose requests run on the pool's processes. The pool enforces each
// request's timeout and reports crashes as its own processes would; this end
// bounds its wait as well (the timeout plus the pool's start-up allowance),
// so a pool that hangs or goes away is an outcome, never a hang.
//
// Tested by repro/backend/backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_POOL_CLIENT_H_
#define REPROKIT_REPRO_BACKEND_POOL_CLIENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "repro/backend/backend_channel.h"

namespace rk::repro {

class PoolConnection : public BackendChannel {
 public:
  // Connects and reads the pool's hello. Unavailable when nothing answers.
  static absl::StatusOr<std::unique_ptr<PoolConnection>> Connect(const std::string& socket_path,
                                                                 absl::Duration start_allowance);
  ~PoolConnection() override;

  const BackendHello& hello() const override { return hello_; }
  bool alive() const override { return fd_ >= 0; }
  BackendOutcome Run(const std::string& frame, int64_t request_id,
                     absl::Span<const compiler::TensorType> outputs, int runs,
                     absl::Duration timeout) override;

  // The pool's counters (processes, idle, busy, started, served, ...), or
  // asks it to stop.
  absl::StatusOr<Json> Status();
  absl::StatusOr<Json> Stop();

 private:
  PoolConnection(int fd, absl::Duration start_allowance)
      : fd_(fd), start_allowance_(start_allowance) {}
  absl::StatusOr<Json> Ask(const std::string& type);
  void Close();

  int fd_;
  absl::Duration start_allowance_;
  std::string buffer_;
  BackendHello hello_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_POOL_CLIENT_H_
