// The worker side of a WorkerPool: sets up the isolated process (limits,
// stdio capture, crash and hang handlers, death with the fork server) and
// serves jobs from its socket until told to stop. Internal to repro/isolate.
//
// Frames from the pool carry a request; the worker answers with one frame
// tagged kResponseOk, kResponseError or kResponseOutOfMemory. On a fatal
// signal the handler records the signal and the stack in the worker's
// WorkerSlot and re-raises it, so the pool sees the true signal in the wait
// status. SIGUSR2 records the stack without dying (the pool's hang dump).
// Shown by worker_pool_test.cc.
#ifndef REPROKIT_REPRO_ISOLATE_WORKER_MAIN_H_
#define REPROKIT_REPRO_ISOLATE_WORKER_MAIN_H_

#include <signal.h>

#include <cstdint>

#include "repro/isolate/worker_pool.h"
#include "repro/isolate/worker_slot.h"

namespace rk::repro::isolate_internal {

enum FrameTag : uint32_t {
  kRequest = 1,
  kResponseOk = 2,
  kResponseError = 3,        // payload: 4-byte status code, then the message
  kResponseOutOfMemory = 4,  // the handler threw std::bad_alloc
};

// Sent to a worker that timed out, to capture where it hangs.
inline constexpr int kHangDumpSignal = SIGUSR2;

struct WorkerConfig {
  WorkerSlot* slot = nullptr;
  const JobHandler* handler = nullptr;
  IsolationLimits limits;
  bool one_job = false;
};

// Loads what the workers' crash handlers need (the unwinder) once, in the
// pool's process before the fork server is forked, so that no worker pays
// for it and no handler has to load a library.
void PrepareWorkerImage();

[[noreturn]] void RunWorker(const WorkerConfig& config, int job_fd, int output_fd);

}  // namespace rk::repro::isolate_internal

#endif  // REPROKIT_REPRO_ISOLATE_WORKER_MAIN_H_
