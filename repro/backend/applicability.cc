#include "repro/backend/applicability.h"

#include "absl/strings/str_cat.h"

namespace rk::repro {

using compiler::Graph;
using compiler::Node;
using compiler::NodeId;
using compiler::Op;

std::string NotApplicable::Message(const std::string& backend) const {
  return absl::StrCat("backend '", backend, "' does not support ", what, " (at ", node, ")");
}

compiler::DType ComputeDType(const Graph& graph, const Node& node) {
  if (node.operands.empty()) return node.type.dtype;
  const NodeId from = node.op == Op::kWhere && node.operands.size() > 1 ? node.operands[1]
                                                                         : node.operands[0];
  return graph.type(from).dtype;
}

std::optional<NotApplicable> CheckApplicable(const BackendHello& hello, const Graph& graph) {
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const NodeId id(i);
    const Node& node = graph.node(id);
    const std::string at = absl::StrCat("%", graph.DisplayName(id));
    const std::string op(compiler::OpName(node.op));
    if (node.op != Op::kInput && !hello.SupportsOp(op)) return NotApplicable{"op " + op, at};
    const std::string dtype(compiler::DTypeName(node.type.dtype));
    if (!hello.SupportsDType(dtype)) return NotApplicable{"dtype " + dtype, at};
    if (node.op == Op::kInput) continue;
    const std::string computes(compiler::DTypeName(ComputeDType(graph, node)));
    if (!hello.SupportsOpDType(op, computes)) {
      return NotApplicable{absl::StrCat("op ", op, " on ", computes), at};
    }
  }
  return std::nullopt;
}

}  // namespace rk::repro
