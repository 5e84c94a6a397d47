#include "minifier/reductions/cut_head.h"

#include <algorithm>

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan CutHead(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  const int n = static_cast<int>(nodes.size());
  ReductionPlan plan;
  plan.num_targets = std::max(0, n - 1);
  // truncate_tail runs first and ends the graph at the culprit: keeping any
  // number of the last nodes usually still fails.
  plan.first_guess_interesting = true;
  plan.build = [&base, values = input.values, nodes, n](absl::Span<const int> chosen) {
    int first_kept = n - 1 - chosen[0];
    GraphEdit edit(base.graph);
    for (int k = 0; k < first_kept; ++k) edit.ToInput(nodes[k]);
    return ApplyEdit(base, values, edit);
  };
  return plan;
}

}  // namespace rk::minifier
