#include "minifier/reductions/inputs_to_constants.h"

#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::NodeId;

ReductionPlan InputsToConstants(const ReductionInput& input) {
  const Candidate& base = input.current;
  // A single-element input stays: as a constant it would save one element
  // and mostly let the compiler fold the failing kernel away (a wasted call).
  std::vector<NodeId> inputs;
  for (NodeId id : base.graph.inputs()) {
    if (base.graph.type(id).shape.num_elements() > 1) inputs.push_back(id);
  }
  const int m = static_cast<int>(inputs.size());
  ReductionPlan plan;
  plan.num_targets = 3 * m;
  plan.build = [&base, inputs, m](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    for (int t : chosen) {
      int k = t % m;
      if (edit.actions[inputs[k].value] != GraphEdit::Action::kKeep) continue;
      const compiler::HostTensor& value = base.inputs[inputs[k].value];
      double splat = value.num_elements() > 0 ? value.GetDouble(0) : 0.0;
      edit.ToFull(inputs[k], t < m ? 0.0 : t < 2 * m ? 1.0 : splat);
    }
    return ApplyEdit(base, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
