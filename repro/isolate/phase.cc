#include "repro/isolate/phase.h"

#include <algorithm>
#include <cstring>

#include "repro/isolate/worker_slot.h"

namespace rk::repro {
namespace isolate_internal {
WorkerSlot* current_worker_slot = nullptr;
}  // namespace isolate_internal

void ReportPhase(std::string_view phase) {
  isolate_internal::WorkerSlot* slot = isolate_internal::current_worker_slot;
  if (slot == nullptr) return;
  size_t size = std::min(phase.size(), kMaxPhaseLength);
  // Size 0 while copying: a reader racing with us (a hang dump) sees an empty
  // phase rather than a torn one.
  slot->phase_size.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(slot->phase, phase.data(), size);
  slot->phase[size] = '\0';
  slot->phase_size.store(static_cast<uint32_t>(size), std::memory_order_release);
}

}  // namespace rk::repro
