// Steady-state timing of a compiled program, for `reprokit check --repeat N
// [--warmup K]`: the graph is compiled once in this process (the compile
// timed), run K times untimed, then N times timed one by one, and the N
// times are summarized (min, median, mean, max).
//
// What one timed run counts:
//   device=cuda: the GPU time of one execution of all kernels, between two
//     CUDA events on the device's stream (CudaProgram::TimeEachRunMs): the
//     inputs are copied to the device once, before the warm-up, and no copy
//     between host and device is counted; the device is idle when a run starts, so
//     where launching takes the host longer than the kernels take the GPU,
//     the launch time shows. Beside it, the mean of N executions queued back
//     to back between one pair of events (the host launching ahead).
//   device=cpu: the wall time of Executable::Run on host tensors (the
//     outputs' allocation included; there is nothing to copy in).
// Graphs with `grad` inputs are timed as the joint graph the oracle judges.
//
// Tested by tools/steady_state_test.cc (the statistics, the CPU path, bad
// counts) and tools/check_repeat_cli_test.sh (the CLI).
#ifndef REPROKIT_TOOLS_STEADY_STATE_H_
#define REPROKIT_TOOLS_STEADY_STATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"

namespace rk::tools {

// Most timed runs one call may ask for.
inline constexpr int64_t kMaxRepeat = 100000;

// Summary of per-run times in milliseconds.
struct RunStats {
  int runs = 0;
  double min_ms = 0;
  double median_ms = 0;  // the mean of the two middle runs for an even count
  double mean_ms = 0;
  double max_ms = 0;
};

// InvalidArgument for no runs or a negative or non-finite time.
absl::StatusOr<RunStats> SummarizeRuns(absl::Span<const double> run_ms);

// `--repeat` and `--warmup` as given: repeat in [1, kMaxRepeat], warmup in
// [0, kMaxRepeat]; InvalidArgument naming the flag otherwise.
absl::Status ValidateRepeat(int64_t repeat, int64_t warmup);

struct SteadyState {
  std::string device;  // CompileOptions::device
  std::string clock;   // what a run's time is, in words
  double compile_ms = 0;
  int kernels = 0;
  int disk_cached_kernels = 0;  // kernels the compile read from the disk cache
  int warmup = 0;
  RunStats stats;
  std::vector<double> run_ms;  // the timed runs, in order
  // device=cuda: mean ms of `runs` executions queued back to back; 0 otherwise.
  double back_to_back_mean_ms = 0;
};

// Compiles `graph` with the built-in compiler `options.device` names and
// times it as the file comment says. InvalidArgument for an external
// backend (options.backend) or bad counts; a compile or run error as is.
absl::StatusOr<SteadyState> MeasureSteadyState(const compiler::Graph& graph,
                                               absl::Span<const compiler::HostTensor> inputs,
                                               const compiler::CompileOptions& options,
                                               int64_t warmup, int64_t repeat);

// {"device", "clock", "compile_ms", "kernels", "disk_cached_kernels",
//  "warmup", "runs", "min_ms", "median_ms", "mean_ms", "max_ms",
//  "run_ms": [...], "back_to_back_mean_ms" (cuda only)}.
Json SteadyStateToJson(const SteadyState& s);
// The same for a measurement, or {"error": message} for one that failed.
Json SteadyStateToJson(const absl::StatusOr<SteadyState>& s);

// Three lines for the human output of `check`.
std::string FormatSteadyState(const SteadyState& s);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_STEADY_STATE_H_
