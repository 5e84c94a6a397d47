// Process isolation: run a job (request bytes -> response bytes) in a worker
// subprocess, so that a segfault, abort, hang or out-of-memory inside the job
// (typically the compiler) becomes a JobOutcome instead of a dead tool.
//
// Model (details in docs/ISOLATION.md): Create() forks one fork server while
// the caller is still (effectively) single-threaded; the fork server forks
// the workers, each a copy of the process as it was at Create(), so the
// handler is already in memory. Workers serve jobs over a socket with
// length-prefixed framing; the parent enforces the wall-clock timeout,
// classifies deaths, and replaces dead workers from the fork server.
//
// THE FORK RULE: call Create() before starting threads, or at least while no
// other thread holds a lock the handler will need (a fork copies only the
// calling thread; a lock held by another thread stays locked forever in the
// copy). Run() may then be called from any number of threads.
//
// Needs: Linux. Guarantees: Run() never crashes the caller and never raises
// SIGPIPE in it; every worker dies with the pool (or with the process); no
// zombies are left behind. Shown by worker_pool_test.cc.
#ifndef REPROKIT_REPRO_ISOLATE_WORKER_POOL_H_
#define REPROKIT_REPRO_ISOLATE_WORKER_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "repro/isolate/phase.h"

namespace rk::repro {

// Runs inside a worker. May call ReportPhase(). A thrown std::bad_alloc is
// reported as kOutOfMemory; any other escaping exception aborts the worker.
using JobHandler =
    std::function<absl::StatusOr<std::string>(std::string_view request)>;

struct IsolationLimits {
  // Wall-clock time per job, from the moment the request is sent.
  absl::Duration timeout = absl::Seconds(60);
  // Address space a job may add on top of what the worker had mapped when it
  // started (RLIMIT_AS = that size + memory_bytes); 0 means no limit. Not
  // enforced in AddressSanitizer builds, whose shadow memory needs terabytes.
  int64_t memory_bytes = int64_t{8} << 30;
  // Whether a crashing worker may write a core file (RLIMIT_CORE).
  bool core_dumps = false;
};

enum class WorkerLifetime {
  // A worker serves jobs until it dies: fastest; a job can leave state (heap,
  // globals, threads) behind for the next one.
  kReused,
  // A fresh worker per job, forked from the pristine fork server.
  kOneJob,
};

struct JobOutcome {
  enum class Kind {
    kOk,           // `response` holds the handler's result
    kError,        // the handler returned `error`
    kCrashed,      // the worker died from `signal`
    kTimedOut,     // killed after IsolationLimits::timeout
    kOutOfMemory,  // see docs/ISOLATION.md for the classification
    kWorkerLost,   // exited, closed its channel, or could not be started
  };
  Kind kind = Kind::kWorkerLost;
  std::string response;
  // kError: the handler's status. kWorkerLost: why. Otherwise a one-line
  // description of what happened.
  absl::Status error;
  int signal = 0;  // the terminating signal, when the worker died from one
  // The last bytes (up to 4 KiB) the job wrote to stderr or stdout.
  std::string stderr_tail;
  // Innermost first, symbolized ("0x... Function"): the crashing thread's
  // stack for kCrashed, the stack where the job hung for kTimedOut.
  std::vector<std::string> backtrace;
  std::string phase;  // the last phase the job reported, "" if none
  // From taking a worker to the outcome, starting the worker included.
  absl::Duration wall = absl::ZeroDuration();
};

// "ok", "error", "crashed", "timed_out", "out_of_memory", "worker_lost".
std::string_view JobOutcomeKindName(JobOutcome::Kind kind);

class WorkerPool {
 public:
  // Starts the fork server (and, for kReused, `num_workers` workers).
  static absl::StatusOr<std::unique_ptr<WorkerPool>> Create(
      int num_workers, JobHandler handler, IsolationLimits limits = {},
      WorkerLifetime lifetime = WorkerLifetime::kReused);

  // Kills the workers and the fork server and reaps them. No Run() may be in
  // progress.
  ~WorkerPool();

  // Runs one job. Thread-safe; up to num_workers() jobs run at once, further
  // callers wait for a free worker.
  JobOutcome Run(std::string_view request);

  int num_workers() const;
  // Process id of the fork server (the parent of every worker).
  int fork_server_pid() const;

  class Impl;

 private:
  explicit WorkerPool(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ISOLATE_WORKER_POOL_H_
