#include "minifier/reductions/inputs_to_constants.h"

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan InputsToConstants(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> inputs = base.graph.inputs();
  const int m = static_cast<int>(inputs.size());
  ReductionPlan plan;
  plan.num_targets = 3 * m;
  plan.build = [&base, inputs, m](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    for (int t : chosen) {
      int k = t % m;
      if (edit.actions[inputs[k].value] != GraphEdit::Action::kKeep) continue;
      const compiler::HostTensor& value = base.inputs[k];
      double splat = value.num_elements() > 0 ? value.GetDouble(0) : 0.0;
      edit.ToFull(inputs[k], t < m ? 0.0 : t < 2 * m ? 1.0 : splat);
    }
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
