// ONNX If whose condition is known at import (exporters emit them for
// shape checks and for branches on static sizes): the branch it takes is
// converted in place of the node; the other is never looked at. A condition
// computed at run time is refused, naming the input.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {

absl::Status ConvertIf(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(HostTensor cond, ctx.ConstantInput(0));
  if (cond.num_elements() != 1) {
    return ctx.Error(absl::StrCat("the condition has ", cond.num_elements(),
                                  " elements, not one"));
  }
  const std::string branch = cond.GetInt(0) != 0 ? "then_branch" : "else_branch";
  const onnx::AttributeProto* graph = ctx.FindAttr(branch);
  if (graph == nullptr || graph->type() != onnx::AttributeProto::GRAPH) {
    return ctx.Error(absl::StrCat("no graph attribute '", branch, "'"));
  }
  RK_ASSIGN_OR_RETURN(std::vector<NodeId> results, ctx.InlineSubgraph(graph->g()));
  if (static_cast<int>(results.size()) != ctx.node().output_size()) {
    return ctx.Error(absl::StrCat(branch, " has ", results.size(), " outputs, the node ",
                                  ctx.node().output_size()));
  }
  for (size_t i = 0; i < results.size(); ++i) ctx.SetOutput(static_cast<int>(i), results[i]);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
