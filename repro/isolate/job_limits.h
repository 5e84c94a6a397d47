// Address-space limits seen from inside a job run under rk::repro::WorkerPool.
//
// A worker enforces IsolationLimits::memory_bytes as a soft RLIMIT_AS of
// "what the worker has mapped when the job starts + memory_bytes", renewed
// before every job. Some jobs need address space that is not memory: the CUDA
// driver reserves tens of GiB of virtual addresses at cuInit (unified
// addressing) and fails with an out-of-memory error under such a limit. Such a
// job calls LiftAddressSpaceLimit() first; the limit is then the hard one
// for the rest of that job, and the next job gets a fresh soft limit measured
// from what is mapped by then. The timeout still applies.
//
// Outside a worker (or with no limit set) the call does nothing.
// Shown by worker_pool_test.cc (LiftedAddressSpaceLimitAllowsLargeReservations).
#ifndef REPROKIT_REPRO_ISOLATE_JOB_LIMITS_H_
#define REPROKIT_REPRO_ISOLATE_JOB_LIMITS_H_

namespace rk::repro {

void LiftAddressSpaceLimit();

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ISOLATE_JOB_LIMITS_H_
