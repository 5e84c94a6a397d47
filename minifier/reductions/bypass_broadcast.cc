#include "minifier/reductions/bypass_broadcast.h"

#include <utility>

#include "absl/status/statusor.h"
#include "minifier/rewrite.h"

namespace rk::minifier {

using compiler::Graph;
using compiler::Node;
using compiler::NodeId;

namespace {

struct Target {
  NodeId node;
  NodeId operand;
  bool drop_keepdim = false;  // and the operand, a keepdim reduction, drops its size-1 dims
};

// A reduction with keepdim=true read only by `user`: dropping its kept dims
// changes no other reader.
bool KeepdimReductionOnlyFor(const Graph& g, NodeId operand, NodeId user,
                             const std::vector<std::vector<NodeId>>& users) {
  const Node& n = g.node(operand);
  if (compiler::GetOpKind(n.op) != compiler::OpKind::kReduce) return false;
  absl::StatusOr<bool> keepdim = n.attrs.GetBool("keepdim");
  if (!keepdim.ok() || !*keepdim) return false;
  for (NodeId u : users[operand.value]) {
    if (u != user) return false;
  }
  for (NodeId out : g.outputs()) {
    if (out == operand) return false;
  }
  return true;
}

}  // namespace

ReductionPlan BypassBroadcast(const ReductionInput& input) {
  const Candidate& base = input.current;
  const Graph& g = base.graph;
  const std::vector<std::vector<NodeId>> users = g.ComputeUsers();
  std::vector<Target> targets;
  std::vector<Target> keepdim_targets;
  for (NodeId id : ComputeNodeIds(g)) {
    for (NodeId operand : g.node(id).operands) {
      const compiler::TensorType& from = g.type(operand);
      const compiler::TensorType& to = g.type(id);
      if (from.dtype != to.dtype || from.num_elements() >= to.num_elements()) continue;
      targets.push_back({id, operand});
      if (KeepdimReductionOnlyFor(g, operand, id, users)) {
        keepdim_targets.push_back({id, operand, /*drop_keepdim=*/true});
      }
    }
  }
  targets.insert(targets.end(), keepdim_targets.begin(), keepdim_targets.end());
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(targets.size());
  plan.build = [&base, targets](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    GraphEdit edit(base.graph);
    std::vector<NodeId> drop_keepdim;
    for (int t : chosen) {
      const Target& target = targets[t];
      if (edit.actions[target.node.value] != GraphEdit::Action::kKeep) continue;
      edit.Forward(target.node, target.operand);
      if (target.drop_keepdim) drop_keepdim.push_back(target.operand);
    }
    if (drop_keepdim.empty()) return ApplyEdit(base, {}, edit);
    // ApplyEdit re-infers every type, so the reduction and its users take
    // the smaller shape from the attribute alone.
    Candidate changed = base;
    for (NodeId id : drop_keepdim) changed.graph.mutable_node(id).attrs.Set("keepdim", false);
    return ApplyEdit(changed, {}, edit);
  };
  return plan;
}

}  // namespace rk::minifier
