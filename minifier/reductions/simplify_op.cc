#include "minifier/reductions/simplify_op.h"

#include "compiler/driver/compile_options.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/pass_manager.h"
#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::Graph;
using compiler::NodeId;
using compiler::OpKind;

absl::StatusOr<Candidate> LowerComposites(Candidate candidate) {
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (!context.ok()) return context.status();
  absl::StatusOr<bool> changed = compiler::Decompose(candidate.graph, *context);
  if (!changed.ok()) return changed.status();
  return candidate;
}

}  // namespace

ReductionPlan SimplifyOp(const ReductionInput& input) {
  const Candidate& base = input.current;
  const Graph& g = base.graph;
  std::vector<NodeId> unary;
  bool has_composite = false;
  for (NodeId id : ComputeNodeIds(g)) {
    OpKind kind = compiler::GetOpKind(g.node(id).op);
    if (kind == OpKind::kUnary && g.type(g.node(id).operands[0]) == g.type(id)) {
      unary.push_back(id);
    }
    has_composite |= kind == OpKind::kComposite;
  }
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(unary.size()) + (has_composite ? 1 : 0);
  plan.build = [&base, unary](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    GraphEdit edit(base.graph);
    bool lower = false;
    for (int t : chosen) {
      if (t < static_cast<int>(unary.size())) {
        edit.Forward(unary[t], base.graph.node(unary[t]).operands[0]);
      } else {
        lower = true;
      }
    }
    absl::StatusOr<Candidate> edited = ApplyEdit(base, {}, edit);
    if (!edited.ok() || !lower) return edited;
    return LowerComposites(*std::move(edited));
  };
  return plan;
}

}  // namespace rk::minifier
