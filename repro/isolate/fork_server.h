// The fork server behind a WorkerPool: a process forked once, at pool
// creation, that stays single-threaded and forks workers on request, so that
// replacing a worker never forks the (by then multithreaded) pool owner.
// Workers are the fork server's children; it reaps them only when asked,
// so their pids stay valid (zombies at worst) until the pool lets go, and the
// pool may kill() them safely.
//
// Needs: Linux. Guarantees: the server kills and reaps all its workers and
// exits when its channel closes (pool destroyed or owner process dead).
// Internal to repro/isolate; shown by worker_pool_test.cc.
#ifndef REPROKIT_REPRO_ISOLATE_FORK_SERVER_H_
#define REPROKIT_REPRO_ISOLATE_FORK_SERVER_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "repro/isolate/fd_io.h"

namespace rk::repro::isolate_internal {

// Runs in a freshly forked worker with its ends of the job socket and of the
// output pipe; must not return.
using WorkerMain = std::function<void(int slot, int job_fd, int output_fd)>;

struct SpawnedWorker {
  pid_t pid = -1;
  UniqueFd job;     // non-blocking socket: requests out, responses in
  UniqueFd output;  // non-blocking read end of the worker's stdout+stderr
};

struct ReapResult {
  int wait_status = 0;  // as from waitpid
  bool killed = false;  // still running after the grace period; killed
};

class ForkServer {
 public:
  static absl::StatusOr<std::unique_ptr<ForkServer>> Start(WorkerMain main);
  // Closes the channel and waits for the server to exit.
  ~ForkServer();

  absl::StatusOr<SpawnedWorker> Spawn(int slot);
  // Waits up to `grace` for `pid` to exit (then SIGKILLs it) and reaps it.
  absl::StatusOr<ReapResult> Reap(pid_t pid, absl::Duration grace);
  // Kills and reaps `pid`; does not wait for the answer.
  void Discard(pid_t pid);

  pid_t pid() const { return pid_; }

 private:
  ForkServer(pid_t pid, UniqueFd channel) : pid_(pid), channel_(std::move(channel)) {}

  const pid_t pid_;
  // std::mutex, not absl::Mutex: TSan sees through pthread locks, while
  // Debian's Abseil is built without its annotations (docs/RELIABILITY.md).
  std::mutex mu_;
  UniqueFd channel_;  // guarded by mu_: one request and its reply at a time
};

}  // namespace rk::repro::isolate_internal

#endif  // REPROKIT_REPRO_ISOLATE_FORK_SERVER_H_
