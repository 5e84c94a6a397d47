#include "compiler/passes/dce.h"

#include <vector>

#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "dce";

// keep[i]: node i stays. Walks users before operands so a refused removal
// keeps its operands.
absl::StatusOr<std::vector<bool>> NodesToKeep(const Graph& graph, PassContext& context) {
  std::vector<bool> keep(graph.num_nodes(), false);
  for (NodeId out : graph.outputs()) keep[out.value] = true;
  for (int i = graph.num_nodes() - 1; i >= 0; --i) {
    const NodeId id(i);
    if (graph.node(id).op == Op::kInput) keep[i] = true;
    if (!keep[i]) {
      RK_ASSIGN_OR_RETURN(bool remove, context.ShouldApply(kPass, Describe(graph, id)));
      keep[i] = !remove;
    }
    if (!keep[i]) continue;
    for (NodeId operand : graph.node(id).operands) keep[operand.value] = true;
  }
  return keep;
}

}  // namespace

absl::StatusOr<bool> Dce(Graph& graph, PassContext& context) {
  RK_ASSIGN_OR_RETURN(std::vector<bool> keep, NodesToKeep(graph, context));
  bool any_removed = false;
  for (bool k : keep) any_removed |= !k;
  if (!any_removed) return false;
  Rewriter rewriter(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const NodeId id(i);
    if (!keep[i] || graph.node(id).op == Op::kInput) continue;
    RK_ASSIGN_OR_RETURN(NodeId copy, rewriter.Copy(id));
    rewriter.SetMap(id, copy);
  }
  RK_ASSIGN_OR_RETURN(graph, rewriter.Finish());
  return true;
}

}  // namespace rk::compiler
