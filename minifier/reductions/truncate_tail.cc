#include "minifier/reductions/truncate_tail.h"

#include <algorithm>

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::Graph;
using compiler::NodeId;

ReductionPlan TruncateTail(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  ReductionPlan plan;
  plan.num_targets = std::max(0, static_cast<int>(nodes.size()) - 1);
  plan.build = [&base, nodes](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    const Graph& g = base.graph;
    NodeId last = nodes[chosen[0]];
    std::vector<bool> live_out(g.num_nodes(), false);
    for (NodeId out : g.outputs()) {
      if (out <= last) live_out[out.value] = true;
    }
    for (int i = last.value + 1; i < g.num_nodes(); ++i) {
      for (NodeId operand : g.node(NodeId(i)).operands) {
        if (operand <= last) live_out[operand.value] = true;
      }
    }
    GraphEdit edit(g);
    edit.outputs.emplace();
    for (int i = 0; i <= last.value; ++i) {
      if (live_out[i] && !IsSourceOp(g.node(NodeId(i)).op)) edit.outputs->push_back(NodeId(i));
    }
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
