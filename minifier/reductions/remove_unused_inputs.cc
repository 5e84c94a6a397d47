#include "minifier/reductions/remove_unused_inputs.h"

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan RemoveUnusedInputs(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<std::vector<NodeId>> users = base.graph.ComputeUsers();
  std::vector<bool> is_output(base.graph.num_nodes(), false);
  for (NodeId out : base.graph.outputs()) is_output[out.value] = true;
  std::vector<NodeId> unused;
  for (NodeId id : base.graph.inputs()) {
    if (users[id.value].empty() && !is_output[id.value]) unused.push_back(id);
  }
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(unused.size());
  plan.build = [&base, unused](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    for (int t : chosen) edit.Drop(unused[t]);
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
