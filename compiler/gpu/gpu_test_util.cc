#include "compiler/gpu/gpu_test_util.h"

#include "compiler/fusion/fusion.h"
#include "compiler/ir/parser.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler::gpu {

absl::StatusOr<kernel::Program> LowerToKernelIr(const std::string& graph_text,
                                                const CompileOptions& options) {
  absl::StatusOr<Graph> graph = Parse(graph_text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  if (!context.ok()) return context.status();
  absl::StatusOr<Graph> optimized = RunGraphPipeline(*graph, *context);
  if (!optimized.ok()) return optimized.status();
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(*optimized, *context);
  if (!plan.ok()) return plan.status();
  kernel::KernelOptions kernel_options{options.fast_math, options.low_precision, 1,
                                       &context->faults()};
  return kernel::BuildProgram(*optimized, *plan, kernel_options);
}

}  // namespace rk::compiler::gpu
