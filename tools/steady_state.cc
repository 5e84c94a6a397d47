#include "tools/steady_state.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/stopwatch.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/driver/compile.h"
#include "repro/oracle/gradients.h"

namespace rk::tools {
namespace {

// Milliseconds kept to the microsecond's thousandth: the JSON stays readable
// and nothing the clocks resolve is lost.
double Rounded(double ms) { return std::round(ms * 1e6) / 1e6; }

constexpr char kCudaClock[] =
    "GPU time of one execution between two CUDA events, inputs on the device, device idle "
    "before it";
constexpr char kCpuClock[] = "wall time of one execution on host tensors";

}  // namespace

absl::StatusOr<RunStats> SummarizeRuns(absl::Span<const double> run_ms) {
  if (run_ms.empty()) return absl::InvalidArgumentError("no timed runs to summarize");
  for (double ms : run_ms) {
    if (!std::isfinite(ms) || ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat("a run took ", ms, " ms"));
    }
  }
  std::vector<double> sorted(run_ms.begin(), run_ms.end());
  std::sort(sorted.begin(), sorted.end());
  RunStats s;
  s.runs = static_cast<int>(sorted.size());
  s.min_ms = sorted.front();
  s.max_ms = sorted.back();
  const size_t mid = sorted.size() / 2;
  s.median_ms = sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  double sum = 0;
  for (double ms : sorted) sum += ms;
  s.mean_ms = sum / static_cast<double>(sorted.size());
  return s;
}

absl::Status ValidateRepeat(int64_t repeat, int64_t warmup) {
  if (repeat < 1 || repeat > kMaxRepeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat must be a number of timed runs from 1 to ", kMaxRepeat, ", got ", repeat));
  }
  if (warmup < 0 || warmup > kMaxRepeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--warmup must be a number of untimed runs from 0 to ", kMaxRepeat, ", got ", warmup));
  }
  return absl::OkStatus();
}

absl::StatusOr<SteadyState> MeasureSteadyState(const compiler::Graph& graph,
                                               absl::Span<const compiler::HostTensor> inputs,
                                               const compiler::CompileOptions& options,
                                               int64_t warmup, int64_t repeat) {
  RK_RETURN_IF_ERROR(ValidateRepeat(repeat, warmup));
  if (options.external()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat times the built-in compiler; backend '", options.backend,
        "' runs in its own process and is not timed"));
  }
  // What the oracle compiles: the graph, or for `grad` inputs its joint graph
  // on the forward inputs and the seeds.
  compiler::Graph program = graph;
  std::vector<compiler::HostTensor> program_inputs;
  if (repro::HasGradientMarks(graph)) {
    RK_ASSIGN_OR_RETURN(repro::GradientJudgement joint,
                        repro::PrepareGradients(graph, inputs, options));
    program = std::move(joint.compiled.graph);
    program_inputs = std::move(joint.inputs);
  } else {
    for (const compiler::HostTensor& t : inputs) program_inputs.push_back(t.Clone());
  }

  SteadyState out;
  out.device = options.device;
  out.warmup = static_cast<int>(warmup);
  Stopwatch compile_clock;
  RK_ASSIGN_OR_RETURN(compiler::Executable exe, compiler::Compile(program, options));
  out.compile_ms = compile_clock.Lap();
  out.kernels = exe.num_kernels();
  out.disk_cached_kernels = exe.timings().disk_cached_kernels;
  // One full run first: a program that fails says so through Run's own
  // errors (which name the kernel), before anything is timed.
  RK_RETURN_IF_ERROR(exe.Run(program_inputs).status());

  const int runs = static_cast<int>(repeat);
  if (const compiler::cuda::CudaProgram* gpu = compiler::cuda::AsCudaProgram(exe)) {
    out.clock = kCudaClock;
    RK_ASSIGN_OR_RETURN(out.run_ms,
                        gpu->TimeEachRunMs(program_inputs, static_cast<int>(warmup), runs));
    RK_ASSIGN_OR_RETURN(out.back_to_back_mean_ms, gpu->TimeKernelsMs(program_inputs, runs));
  } else {
    out.clock = kCpuClock;
    for (int64_t i = 0; i < warmup; ++i) RK_RETURN_IF_ERROR(exe.Run(program_inputs).status());
    for (int i = 0; i < runs; ++i) {
      Stopwatch run_clock;
      absl::StatusOr<std::vector<compiler::HostTensor>> ran = exe.Run(program_inputs);
      const double ms = run_clock.Lap();
      RK_RETURN_IF_ERROR(ran.status());
      out.run_ms.push_back(ms);
    }
  }
  RK_ASSIGN_OR_RETURN(out.stats, SummarizeRuns(out.run_ms));
  return out;
}

Json SteadyStateToJson(const SteadyState& s) {
  Json j = Json::MakeObject();
  j.Set("device", s.device);
  j.Set("clock", s.clock);
  j.Set("compile_ms", Rounded(s.compile_ms));
  j.Set("kernels", s.kernels);
  j.Set("disk_cached_kernels", s.disk_cached_kernels);
  j.Set("warmup", s.warmup);
  j.Set("runs", s.stats.runs);
  j.Set("min_ms", Rounded(s.stats.min_ms));
  j.Set("median_ms", Rounded(s.stats.median_ms));
  j.Set("mean_ms", Rounded(s.stats.mean_ms));
  j.Set("max_ms", Rounded(s.stats.max_ms));
  Json runs = Json::MakeArray();
  for (double ms : s.run_ms) runs.push_back(Rounded(ms));
  j.Set("run_ms", std::move(runs));
  if (s.back_to_back_mean_ms > 0) j.Set("back_to_back_mean_ms", Rounded(s.back_to_back_mean_ms));
  return j;
}

Json SteadyStateToJson(const absl::StatusOr<SteadyState>& s) {
  if (s.ok()) return SteadyStateToJson(*s);
  Json j = Json::MakeObject();
  j.Set("error", std::string(s.status().message()));
  return j;
}

std::string FormatSteadyState(const SteadyState& s) {
  std::string text = absl::StrFormat(
      "steady state (%s, %d runs after %d warm-up; %s):\n"
      "  min %.4g ms, median %.4g ms, mean %.4g ms, max %.4g ms\n",
      s.device, s.stats.runs, s.warmup, s.clock, s.stats.min_ms, s.stats.median_ms,
      s.stats.mean_ms, s.stats.max_ms);
  if (s.back_to_back_mean_ms > 0) {
    absl::StrAppendFormat(&text, "  back to back: %.4g ms a run (%d runs queued at once)\n",
                          s.back_to_back_mean_ms, s.stats.runs);
  }
  absl::StrAppendFormat(&text, "  compile %.1f ms in this process (%d kernels, %d from the disk cache)\n",
                        s.compile_ms, s.kernels, s.disk_cached_kernels);
  return text;
}

}  // namespace rk::tools
