#include "compiler/backend/lower_to_kernels.h"

#include <set>

#include "base/file_util.h"
#include "compiler/fusion/fusion.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {
namespace {

absl::Status FireOpFaults(const Graph& graph, const FaultSet& faults) {
  if (faults.empty()) return absl::OkStatus();
  std::set<std::string> seen;
  for (const Node& node : graph.nodes()) {
    const std::string name(std::string(OpName(node.op)));
    if (!seen.insert(name).second) continue;
    if (absl::Status s = faults.FireCompileTimeFaults(name); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteDump(const CompileOptions& options, const std::string& name,
                       const std::string& text) {
  if (options.dump_dir.empty()) return absl::OkStatus();
  return WriteStringToFile(options.dump_dir + "/" + name, text);
}

absl::StatusOr<KernelLowering> LowerToKernels(const Graph& graph, const CompileOptions& options,
                                              bool tiled_matmul, Stopwatch& watch) {
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  if (!context.ok()) return context.status();
  KernelLowering out;
  CompileReport& report = out.report;
  absl::StatusOr<Graph> optimized = RunGraphPipeline(graph, *context);
  if (!optimized.ok()) return optimized.status();
  report.optimized_graph = *std::move(optimized);
  if (absl::Status s = FireOpFaults(report.optimized_graph, context->faults()); !s.ok()) return s;
  report.timings.passes_ms = watch.Lap();

  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(report.optimized_graph, *context);
  if (!plan.ok()) return plan.status();
  static constexpr const char* kKinds[] = {"elementwise", "reduction", "matmul", "concat"};
  for (const fusion::FusionGroup& g : plan->groups) {
    report.fusion_groups.push_back({kKinds[static_cast<int>(g.kind)], g.detail});
  }
  report.timings.fusion_ms = watch.Lap();

  kernel::KernelOptions kernel_options{options.fast_math, options.low_precision, options.threads,
                                       &context->faults()};
  kernel_options.tiled_matmul = tiled_matmul;
  if (options.reduce_order == ReduceOrder::kTree) {
    kernel_options.reduce_order = kernel::AccumulationOrder::kTree;
  }
  absl::StatusOr<kernel::Program> program =
      kernel::BuildProgram(report.optimized_graph, *plan, kernel_options);
  if (!program.ok()) return program.status();
  out.program = *std::move(program);
  report.num_kernels = static_cast<int>(out.program.kernels.size());
  report.timings.kernel_ir_ms = watch.Lap();

  if (!options.dump_dir.empty()) {
    if (absl::Status s = WriteDump(options, "fusion.txt",
                                   fusion::PrintFusionPlan(report.optimized_graph, *plan));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteDump(options, "kernels.txt", kernel::PrintProgram(out.program));
        !s.ok()) {
      return s;
    }
    watch.Lap();
  }
  report.pass_log = context->log();
  report.requested_applications = context->requested();
  return out;
}

}  // namespace rk::compiler
