#include "minifier/reductions/keep_cone.h"

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan KeepCone(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(nodes.size());
  plan.build = [&base, nodes](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    GraphEdit edit(base.graph);
    edit.outputs = std::vector<NodeId>{nodes[chosen[0]]};
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
