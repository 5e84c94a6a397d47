#include "minifier/reductions/probdd_nodes.h"

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan ProbDdNodes(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(nodes.size());
  plan.build = [&base, values = input.values, nodes](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    for (int t : chosen) edit.ToInput(nodes[t]);
    return ApplyEdit(base, values, edit);
  };
  return plan;
}

}  // namespace rk::minifier
