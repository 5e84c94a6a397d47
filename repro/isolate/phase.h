// Phase reporting for jobs run under rk::repro::WorkerPool.
//
// A job calls ReportPhase("parse"), ReportPhase("compile:fusion"),
// ReportPhase("run") as it goes; if it then crashes, hangs or runs out of
// memory, JobOutcome::phase names the last phase reported. The phase lives in
// a page shared with the parent, so it survives the worker's death.
//
// Needs nothing; outside a worker the call does nothing. Cheap (a copy of at
// most kMaxPhaseLength bytes, no allocation, no lock) and async-signal-safe.
// Shown by worker_pool_test.cc (PhaseReportedBeforeCrashIsReturned).
#ifndef REPROKIT_REPRO_ISOLATE_PHASE_H_
#define REPROKIT_REPRO_ISOLATE_PHASE_H_

#include <cstddef>
#include <string_view>

namespace rk::repro {

// Longer phases are truncated.
inline constexpr size_t kMaxPhaseLength = 255;

void ReportPhase(std::string_view phase);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ISOLATE_PHASE_H_
