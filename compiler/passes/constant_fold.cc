#include "compiler/passes/constant_fold.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/ir/builder.h"
#include "compiler/passes/rewriter.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "constant_fold";

bool Foldable(const Graph& g, const Node& node, const std::vector<NodeId>& operands) {
  const OpKind kind = GetOpKind(node.op);
  if (kind == OpKind::kSource || kind == OpKind::kComposite || operands.empty()) return false;
  if (node.type.num_elements() > kMaxFoldedElements) return false;
  for (NodeId operand : operands) {
    if (!IsConstantLike(g, operand)) return false;
    if (g.type(operand).num_elements() > kMaxOperandElements) return false;
  }
  return true;
}

// The value of `node` applied to the constant-like `operands` of `g`,
// computed by the reference interpreter on a graph of just those nodes.
absl::StatusOr<HostTensor> EvaluateOnConstants(const Graph& g, const Node& node,
                                               const std::vector<NodeId>& operands) {
  GraphBuilder b("fold");
  std::vector<NodeId> sub_operands;
  for (NodeId operand : operands) {
    const Node& source = g.node(operand);
    RK_ASSIGN_OR_RETURN(NodeId copy, b.Add(source.op, {}, source.attrs));
    sub_operands.push_back(copy);
  }
  RK_ASSIGN_OR_RETURN(NodeId result, b.Add(node.op, sub_operands, node.attrs));
  RK_RETURN_IF_ERROR(b.Output(result));
  RK_ASSIGN_OR_RETURN(Graph sub, b.Build());
  RK_ASSIGN_OR_RETURN(EvalResult value, Evaluate(sub, {}));
  if (value.outputs.size() != 1) {
    return absl::InternalError(absl::StrCat("constant_fold: evaluation gave ",
                                            value.outputs.size(), " outputs"));
  }
  return value.outputs[0];
}

}  // namespace

absl::StatusOr<bool> ConstantFold(Graph& graph, PassContext& context) {
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    const Node& node = r.old_graph().node(id);
    const std::vector<NodeId> operands = r.MapOperands(id);
    if (!Foldable(r.new_graph(), node, operands)) return std::nullopt;
    RK_ASSIGN_OR_RETURN(bool apply, context.ShouldApply(kPass, Describe(r.old_graph(), id)));
    if (!apply) return std::nullopt;
    RK_ASSIGN_OR_RETURN(HostTensor value, EvaluateOnConstants(r.new_graph(), node, operands));
    RK_ASSIGN_OR_RETURN(NodeId folded, r.builder().Constant(value));
    return folded;
  });
}

}  // namespace rk::compiler
