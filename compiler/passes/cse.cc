#include "compiler/passes/cse.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "cse";

// Everything but the attributes, which are compared exactly within a bucket.
std::string BucketKey(Op op, const std::vector<NodeId>& operands, const TensorType& type) {
  std::string key = absl::StrCat(std::string(OpName(op)), ":", type.ToString());
  for (NodeId operand : operands) absl::StrAppend(&key, ",", operand.value);
  return key;
}

}  // namespace

absl::StatusOr<bool> Cse(Graph& graph, PassContext& context) {
  // New ids of the nodes emitted so far, bucketed by BucketKey.
  std::map<std::string, std::vector<NodeId>> seen;
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    const Node& node = r.old_graph().node(id);
    const std::vector<NodeId> operands = r.MapOperands(id);
    std::vector<NodeId>& bucket = seen[BucketKey(node.op, operands, node.type)];
    for (NodeId candidate : bucket) {
      if (r.new_graph().node(candidate).attrs != node.attrs) continue;
      RK_ASSIGN_OR_RETURN(
          bool apply,
          context.ShouldApply(kPass, absl::StrCat(Describe(r.old_graph(), id), " merged into %",
                                                  r.new_graph().DisplayName(candidate))));
      if (!apply) break;
      return candidate;
    }
    RK_ASSIGN_OR_RETURN(NodeId copy, r.Keep(id));
    bucket.push_back(copy);
    return copy;
  });
}

}  // namespace rk::compiler
