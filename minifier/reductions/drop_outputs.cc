#include "minifier/reductions/drop_outputs.h"

#include <algorithm>

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan DropOutputs(const ReductionInput& input) {
  const Candidate& base = input.current;
  const std::vector<NodeId>& outputs = base.graph.outputs();
  std::vector<int> order(outputs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return outputs[a] < outputs[b]; });
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(order.size());
  plan.build = [&base, order](absl::Span<const int> chosen) {
    std::vector<bool> dropped(order.size(), false);
    for (int t : chosen) dropped[order[t]] = true;
    GraphEdit edit(base.graph);
    edit.outputs.emplace();
    for (size_t i = 0; i < order.size(); ++i) {
      if (!dropped[i]) edit.outputs->push_back(base.graph.outputs()[i]);
    }
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
