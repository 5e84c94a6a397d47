#include "minifier/reductions/window_scan.h"

#include <algorithm>

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::Graph;
using compiler::NodeId;

namespace {
constexpr int kWindows = 8;
constexpr int kMinNodes = 8;
}  // namespace

ReductionPlan WindowScan(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  const int n = static_cast<int>(nodes.size());
  ReductionPlan plan;
  if (n < kMinNodes) return plan;
  const int size = (n + kWindows - 1) / kWindows;
  plan.num_targets = (n + size - 1) / size;
  plan.build = [&base, values = input.values, nodes, n,
                size](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    const Graph& g = base.graph;
    const int first = chosen[0] * size;
    const int last = std::min(n, first + size) - 1;
    GraphEdit edit(g);
    for (int k = 0; k < first; ++k) edit.ToInput(nodes[k]);
    // What the window hands on: original outputs in it and values later nodes read.
    std::vector<bool> handed_on(g.num_nodes(), false);
    for (NodeId out : g.outputs()) handed_on[out.value] = true;
    for (int i = nodes[last].value + 1; i < g.num_nodes(); ++i) {
      for (NodeId operand : g.node(NodeId(i)).operands) handed_on[operand.value] = true;
    }
    edit.outputs.emplace();
    for (int k = first; k <= last; ++k) {
      if (handed_on[nodes[k].value]) edit.outputs->push_back(nodes[k]);
    }
    if (edit.outputs->empty()) edit.outputs->push_back(nodes[last]);
    return ApplyEdit(base, values, edit);
  };
  return plan;
}

}  // namespace rk::minifier
