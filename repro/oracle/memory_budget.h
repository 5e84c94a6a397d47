// Memory budgeted before allocating: how many bytes evaluating, running or
// judging a graph will hold at most, from the graph's types alone, and the
// check that turns "too much" into a clear error instead of an uncaught
// std::bad_alloc or a worker killed mid-allocation.
//
// The estimate is an upper bound: every node's value is counted once per copy
// that the step keeps (the reference interpreter keeps every value; the
// compiled program's buffers are at most one per node), so a graph under the
// limit may still use less, never more, than estimated.
//
// Tested by repro/oracle/memory_budget_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_MEMORY_BUDGET_H_
#define REPROKIT_REPRO_ORACLE_MEMORY_BUDGET_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace rk::repro {

// The limit when nothing else sets one: the isolated worker's default.
inline constexpr int64_t kDefaultMemoryBudgetBytes = int64_t{8} << 30;

enum class MemoryUse {
  kEvaluate,      // the reference interpreter in the graph's dtypes
  kEvaluateFp64,  // the reference interpreter promoted to f64
  kRun,           // compile and run once: inputs and buffers
  kJudge,         // the oracle: runs, native and fp64 references, fp64 recompile
};

// Bytes `use` holds at most for `graph` (a double: the sum may exceed int64).
double EstimateBytes(const compiler::Graph& graph, MemoryUse use);

// InvalidArgument "<what> needs N GiB (...), limit M GiB" when the estimate is
// over `limit_bytes`; OK when under or when limit_bytes <= 0 (no limit).
absl::Status CheckMemoryBudget(const compiler::Graph& graph, MemoryUse use, int64_t limit_bytes);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_MEMORY_BUDGET_H_
