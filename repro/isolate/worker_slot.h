// The per-worker record shared between a WorkerPool and its worker through a
// MAP_SHARED page created before any fork, so the parent can read it after
// the worker died or was killed: the last reported phase, whether an
// allocation failed, and the stack captured by a fatal-signal or hang-dump
// handler. Internal to repro/isolate.
//
// Guarantees: plain data and address-free lock-free atomics only (valid in
// several processes); the worker writes it from signal handlers without
// allocating. Shown by worker_pool_test.cc.
#ifndef REPROKIT_REPRO_ISOLATE_WORKER_SLOT_H_
#define REPROKIT_REPRO_ISOLATE_WORKER_SLOT_H_

#include <atomic>
#include <cstdint>

#include "repro/isolate/phase.h"

namespace rk::repro::isolate_internal {

enum class StackKind : uint32_t { kNone = 0, kCrash = 1, kHang = 2 };

inline constexpr int kMaxStackFrames = 64;

struct WorkerSlot {
  std::atomic<uint32_t> phase_size;
  char phase[kMaxPhaseLength + 1];
  // Set by the worker's new_handler: some allocation in this job failed.
  std::atomic<uint32_t> allocation_failed;
  // The signal a fatal-signal handler saw, 0 if none.
  std::atomic<int32_t> fatal_signal;
  // Which handler filled `frames`; written last.
  std::atomic<uint32_t> stack_kind;
  std::atomic<uint32_t> num_frames;
  // The interrupted instruction, when the platform exposes it: the parent
  // starts the reported stack there, hiding the handler's own frames.
  std::atomic<uint64_t> interrupted_pc;
  void* frames[kMaxStackFrames];

  // Called by the parent before handing the worker a job.
  void Clear() {
    phase_size.store(0, std::memory_order_relaxed);
    allocation_failed.store(0, std::memory_order_relaxed);
    fatal_signal.store(0, std::memory_order_relaxed);
    num_frames.store(0, std::memory_order_relaxed);
    interrupted_pc.store(0, std::memory_order_relaxed);
    stack_kind.store(0, std::memory_order_release);
  }
};

static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// The slot of the job running in this process; null outside a worker.
extern WorkerSlot* current_worker_slot;

}  // namespace rk::repro::isolate_internal

#endif  // REPROKIT_REPRO_ISOLATE_WORKER_SLOT_H_
