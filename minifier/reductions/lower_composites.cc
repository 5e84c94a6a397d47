#include "minifier/reductions/lower_composites.h"

#include "compiler/ir/op.h"
#include "compiler/options/compile_options.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/pass_manager.h"

namespace rk::minifier {

absl::StatusOr<Candidate> LowerAllComposites(Candidate candidate) {
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (!context.ok()) return context.status();
  absl::StatusOr<bool> changed = compiler::Decompose(candidate.graph, *context);
  if (!changed.ok()) return changed.status();
  return candidate;
}

ReductionPlan LowerComposites(const ReductionInput& input) {
  const Candidate& base = input.current;
  bool has_composite = false;
  for (const compiler::Node& node : base.graph.nodes()) {
    has_composite |= compiler::GetOpKind(node.op) == compiler::OpKind::kComposite;
  }
  ReductionPlan plan;
  plan.num_targets = has_composite ? 1 : 0;
  plan.build = [&base](absl::Span<const int>) { return LowerAllComposites(base); };
  return plan;
}

}  // namespace rk::minifier
