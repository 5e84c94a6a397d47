#include "minifier/reductions/bypass_node.h"

#include <utility>

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::Graph;
using compiler::NodeId;

ReductionPlan BypassNode(const ReductionInput& input) {
  const Candidate& base = input.current;
  const Graph& g = base.graph;
  std::vector<std::pair<NodeId, NodeId>> pairs;
  for (NodeId id : ComputeNodeIds(g)) {
    for (NodeId operand : g.node(id).operands) {
      if (g.type(operand) == g.type(id)) pairs.emplace_back(id, operand);
    }
  }
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(pairs.size());
  plan.build = [&base, pairs](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    for (int t : chosen) {
      auto [node, operand] = pairs[t];
      if (edit.actions[node.value] == GraphEdit::Action::kKeep) edit.Forward(node, operand);
    }
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
