// `reprokit compile GRAPH`: compiles a graph, runs it on seeded inputs and
// prints output summaries and per-phase compile timings.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/json.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "repro/oracle/memory_budget.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

// The kernels that cost most to compile; phases of a threaded compile are
// summed over its threads, so they can add up to more than the total.
void PrintKernelTimings(const compiler::PhaseTimings& t) {
  std::printf("compile threads %d (LLVM IR, O2 and JIT summed over them); codegen %.2f, link %.2f; "
              "kernels from the in-process cache %d, from the disk cache %d\n",
              t.compile_threads, t.codegen_ms, t.link_ms, t.cached_kernels, t.disk_cached_kernels);
  const std::vector<compiler::KernelCompileTiming> slowest = t.SlowestKernels(10);
  if (slowest.empty()) return;
  std::printf("slowest kernels to compile (ms):\n  %-12s %-10s %8s %8s %8s %8s\n", "kernel",
              "source", "total", "LLVM IR", "O2", "codegen");
  for (const compiler::KernelCompileTiming& k : slowest) {
    std::printf("  %-12s %-10s %8.2f %8.2f %8.2f %8.2f\n", k.name.c_str(), k.source.c_str(), k.ms(),
                k.emit_ms, k.optimize_ms, k.codegen_ms);
  }
}

int RunCompile(absl::Span<const std::string> args) {
  int64_t seed = 0;
  std::string dump;
  std::string device;
  std::vector<std::string> opts;
  bool json = false;
  bool timings = false;
  FlagSet flags("compile GRAPH [--seed N] [--device cpu|cuda] [--dump DIR] [--opt key=value ...] "
                "[--json] [--timings]",
                "Compiles GRAPH for the CPU (or the GPU with --device=cuda), runs it on seeded\n"
                "random inputs and prints the outputs and the time spent in each compiler\n"
                "phase. Without a GPU, --device=cuda says why and exits 125 (cannot test);\n"
                "--dump still writes the PTX.");
  flags.Int("seed", &seed, "seed of the random inputs (input i uses seed + i)");
  GraphSourceFlags source_flags;
  source_flags.Register(flags);
  flags.String("device", &device, "cpu (default) or cuda (same as --opt device=...)");
  flags.String("dump", &dump, "write fusion groups, kernel IR, LLVM IR, assembly, timings here");
  flags.Repeated("opt", &opts, "compile option key=value (see CompileOptions)");
  flags.Bool("json", &json, "print one JSON object");
  flags.Bool("timings", &timings,
             "also print compile threads, cache hits and the kernels that took longest to compile");
  auto positional = flags.Parse(args);
  if (!positional.ok()) return ReportError("compile", positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError("compile", absl::InvalidArgumentError("expects one GRAPH file"));
  }
  compiler::CompileOptions options;
  if (absl::Status s = options.Apply(opts); !s.ok()) return ReportError("compile", s);
  if (!dump.empty()) options.dump_dir = dump;
  if (!device.empty()) {
    if (absl::Status s = options.Set("device", device); !s.ok()) return ReportError("compile", s);
  }
  absl::StatusOr<GraphSource> source = LoadGraphSource((*positional)[0], source_flags);
  if (!source.ok()) return ReportError("compile", source.status());
  compiler::Graph* graph = &source->graph;
  if (absl::Status s = repro::CheckMemoryBudget(*graph, repro::MemoryUse::kRun,
                                                repro::kDefaultMemoryBudgetBytes);
      !s.ok()) {
    return ReportError("compile", s);
  }
  absl::StatusOr<compiler::Executable> exe = compiler::Compile(*graph, options);
  if (!exe.ok() && absl::IsUnavailable(exe.status())) {
    // No GPU here: nothing ran, so nothing can be judged.
    ReportError("compile", exe.status());
    return kExitCannotTest;
  }
  if (!exe.ok()) return ReportError("compile", exe.status());
  std::vector<compiler::HostTensor> inputs;
  for (compiler::NodeId id : graph->inputs()) {
    inputs.push_back(compiler::HostTensor::Random(graph->type(id), seed + id.value));
  }
  absl::StatusOr<std::vector<compiler::HostTensor>> outputs = exe->Run(inputs);
  if (!outputs.ok()) return ReportError("compile", outputs.status());
  std::vector<std::string> summaries;
  for (const compiler::HostTensor& t : *outputs) summaries.push_back(t.Summary());
  if (json) {
    Json outputs_json = Json::MakeArray();
    for (const std::string& summary : summaries) outputs_json.push_back(Json(summary));
    Json doc = Json::MakeObject();
    doc.Set("kernels", Json(exe->num_kernels()));
    doc.Set("outputs", std::move(outputs_json));
    doc.Set("timings", exe->timings().ToJson());
    std::printf("%s\n", doc.DumpPretty().c_str());
    return kExitOk;
  }
  for (size_t i = 0; i < summaries.size(); ++i) std::printf("output %zu: %s\n", i, summaries[i].c_str());
  const compiler::PhaseTimings& t = exe->timings();
  std::printf("kernels: %d\ncompile ms: passes %.2f, fusion %.2f, kernel IR %.2f, LLVM IR %.2f, "
              "O2 %.2f, JIT %.2f, total %.2f\n",
              exe->num_kernels(), t.passes_ms, t.fusion_ms, t.kernel_ir_ms, t.llvm_ir_ms,
              t.optimize_ms, t.jit_ms, t.total_ms());
  if (timings) PrintKernelTimings(t);
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("compile", "compile a graph for the CPU or GPU, run it on seeded inputs, show timings",
                    &RunCompile);

}  // namespace rk::tools
