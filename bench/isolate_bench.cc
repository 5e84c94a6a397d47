// Overhead of process isolation (repro/isolate): one empty job's round trip
// through a WorkerPool, with reused workers and with a fresh worker per job,
// and the cost of a crash (death, classification, replacement).
// Results and the command that produced them: docs/BENCHMARKS.md, "Isolation".
#include <signal.h>

#include <memory>
#include <string>
#include <string_view>

#include "benchmark/benchmark.h"
#include "repro/isolate/worker_pool.h"

namespace rk::repro {
namespace {

absl::StatusOr<std::string> EmptyJob(std::string_view request) {
  if (request == "crash") ::raise(SIGSEGV);
  return std::string();
}

std::unique_ptr<WorkerPool> MakePool(WorkerLifetime lifetime) {
  auto pool = WorkerPool::Create(1, EmptyJob, IsolationLimits{}, lifetime);
  return pool.ok() ? *std::move(pool) : nullptr;
}

void RunJobs(benchmark::State& state, WorkerLifetime lifetime, std::string_view request,
             JobOutcome::Kind expected) {
  std::unique_ptr<WorkerPool> pool = MakePool(lifetime);
  if (pool == nullptr) {
    state.SkipWithError("cannot create the pool");
    return;
  }
  for (auto _ : state) {
    JobOutcome out = pool->Run(request);
    if (out.kind != expected) {
      state.SkipWithError("unexpected outcome");
      return;
    }
  }
}

void BM_EmptyJobReusedWorker(benchmark::State& state) {
  RunJobs(state, WorkerLifetime::kReused, "", JobOutcome::Kind::kOk);
}
BENCHMARK(BM_EmptyJobReusedWorker)->Unit(benchmark::kMicrosecond);

void BM_EmptyJobFreshWorker(benchmark::State& state) {
  RunJobs(state, WorkerLifetime::kOneJob, "", JobOutcome::Kind::kOk);
}
BENCHMARK(BM_EmptyJobFreshWorker)->Unit(benchmark::kMicrosecond);

void BM_CrashAndReplaceWorker(benchmark::State& state) {
  RunJobs(state, WorkerLifetime::kReused, "crash", JobOutcome::Kind::kCrashed);
}
BENCHMARK(BM_CrashAndReplaceWorker)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rk::repro

BENCHMARK_MAIN();
